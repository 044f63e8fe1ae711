// The WIT `provider` export, made from a `Provider`: the host calls these functions, they
// convert values, find the type named in the call, run the author's code and turn what it
// throws into diagnostics.

import type { wit, witProvider } from './bindings.js';
import { type Diagnostic, TerraformError, diagnosticToWit, diagnosticsOf } from './diagnostics.js';
import {
  type DataSource,
  type EphemeralResource,
  FunctionError,
  type Parameter,
  type Provider,
  type Resource,
} from './provider.js';
import { Schema, schemaToWit } from './schema.js';
import type { MaybePromise } from './types.js';
import { type TfValue, fromWit, toWit } from './values.js';

type Exports = typeof witProvider;

/**
 * The exports as written here: any may return a promise, which componentize-js resolves by
 * running the event loop before the call returns (so provider code may `await fetch(...)`).
 */
type AsyncExports = {
  [K in keyof Exports]: Exports[K] extends (...args: infer A) => infer R ? (...args: A) => R | Promise<R> : never;
};

const nullValue: wit.Value = { nodes: [{ tag: 'null' }] };
const noBytes = new Uint8Array();

function unsupported(what: string): wit.Diagnostic[] {
  return [
    diagnosticToWit({
      severity: 'error',
      summary: `${what} is not supported by this provider`,
      detail: 'The provider does not implement it.',
      path: [],
    }),
  ];
}

function find<T extends { typeName: string }>(kind: string, items: T[], typeName: string): T {
  const found = items.find((i) => i.typeName === typeName);
  if (!found) {
    const known = items.map((i) => i.typeName).join(', ') || 'none';
    throw new TerraformError(`Unknown ${kind} type ${typeName}`, `This provider's ${kind} types are: ${known}.`);
  }
  return found;
}

/** Runs `body`, turning what it throws into error diagnostics (`during` names the code). */
async function attempt<T>(during: string, body: () => T | Promise<T>): Promise<{ value?: T; diagnostics: wit.Diagnostic[] }> {
  try {
    return { value: await body(), diagnostics: [] };
  } catch (e) {
    return { diagnostics: diagnosticsOf(e, during).map(diagnosticToWit) };
  }
}

function timestamp(date: Date | undefined): wit.Timestamp | undefined {
  if (!date) return undefined;
  const ms = date.getTime();
  return { seconds: BigInt(Math.floor(ms / 1000)), nanoseconds: (ms % 1000) * 1_000_000 };
}

/** An object of the schema `s` from a value the host sent (as `State<typeof s>`). */
function stateOf(value: wit.Value): any {
  return fromWit(value);
}

async function validateWith(
  target: { validate?(config: Record<string, TfValue>): MaybePromise<void> } | undefined,
  config: wit.Value,
  during: string,
): Promise<wit.Diagnostic[]> {
  if (!target?.validate) return [];
  const value = fromWit(config);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return (await attempt(during, () => target.validate?.(value as Record<string, TfValue>))).diagnostics;
}

/**
 * The object to export as `provider` from the component's entry module:
 *
 *     export const provider = serve(new Pets());
 */
export function serve(p: Provider<any>): Exports {
  const resource = (typeName: string): Resource<Schema> => find('resource', p.resources, typeName);
  const dataSource = (typeName: string): DataSource<Schema> => find('data source', p.dataSources, typeName);
  const ephemeral = (typeName: string): EphemeralResource<Schema> =>
    find('ephemeral resource', p.ephemeralResources, typeName);

  const exports: AsyncExports = {
    getSchema() {
      const named = (items: { typeName: string; schema: Schema }[]) =>
        items.map((i) => ({ name: i.typeName, schema: schemaToWit(i.schema) }));
      return {
        provider: schemaToWit(p.schema ?? new Schema({ attributes: {} })),
        providerMeta: undefined,
        resources: named(p.resources),
        dataSources: named(p.dataSources),
        functions: p.functions.map((f) => ({
          name: f.name,
          parameters: f.parameters.map(parameterToWit),
          variadic: f.variadic ? parameterToWit(f.variadic) : undefined,
          return: JSON.stringify(f.returns),
          summary: f.summary,
          description: { text: f.description, kind: 'plain' },
          deprecationMessage: '',
        })),
        resourceIdentities: [],
        ephemeralResources: named(p.ephemeralResources),
        listResources: [],
        actions: [],
        capabilities: {
          planDestroy: false,
          getProviderSchemaOptional: false,
          moveResourceState: false,
          generateResourceConfig: false,
        },
        diagnostics: [],
      };
    },

    validateProviderConfig(config) {
      return validateWith(p, config, 'Provider.validate');
    },

    async validateResourceConfig(typeName, config) {
      const r = await attempt('validate', () => resource(typeName));
      return r.value ? validateWith(r.value, config, `${typeName}.validate`) : r.diagnostics;
    },

    async validateDataSourceConfig(typeName, config) {
      const d = await attempt('validate', () => dataSource(typeName));
      return d.value ? validateWith(d.value, config, `${typeName}.validate`) : d.diagnostics;
    },

    async configure(request) {
      if (!p.configure) return [];
      const context = { terraformVersion: request.terraformVersion };
      return (await attempt('Provider.configure', () => p.configure?.(stateOf(request.config), context))).diagnostics;
    },

    async readResource(request) {
      const run = await attempt(`${request.typeName}.read`, async () => {
        const r = resource(request.typeName);
        const state = await r.read(stateOf(request.currentState));
        return state === null ? nullValue : toWit(state, r.schema.type);
      });
      return {
        newState: run.value ?? request.currentState,
        private: request.private,
        diagnostics: run.diagnostics,
      };
    },

    // Under this WIT version the plan is the state Terraform proposes; the host's planner
    // (defaults, unknowns, replacements) takes over with the schema behaviour of the next one.
    planResourceChange(request) {
      return {
        plannedState: request.proposedNewState,
        requiresReplace: [],
        plannedPrivate: request.priorPrivate,
        diagnostics: [],
      };
    },

    async applyResourceChange(request) {
      const prior = fromWit(request.priorState);
      const planned = fromWit(request.plannedState);
      const what = prior === null ? 'create' : planned === null ? 'delete' : 'update';
      const run = await attempt(`${request.typeName}.${what}`, async () => {
        const r = resource(request.typeName);
        if (planned === null) {
          await r.delete(prior as never);
          return nullValue;
        }
        const state = await (prior === null ? r.create(planned as never) : r.update(prior as never, planned as never));
        return toWit(state, r.schema.type);
      });
      return {
        // On an error Terraform keeps what existed before (nothing for a failed create).
        newState: run.value ?? request.priorState,
        private: request.plannedPrivate,
        diagnostics: run.diagnostics,
      };
    },

    async importResourceState(request) {
      const run = await attempt(`${request.typeName}.importState`, async () => {
        const r = resource(request.typeName);
        if (!r.importState) {
          throw new TerraformError(
            `${request.typeName} cannot be imported`,
            'The provider does not implement import for this resource type.',
          );
        }
        return toWit(await r.importState(request.id), r.schema.type);
      });
      return {
        imported: run.value
          ? [{ typeName: request.typeName, state: run.value, private: noBytes, identity: undefined }]
          : [],
        diagnostics: run.diagnostics,
      };
    },

    async upgradeResourceState(request) {
      const run = await attempt(`${request.typeName}.upgrade`, async () => {
        const r = resource(request.typeName);
        const raw = fromWit(request.rawState);
        const version = Number(request.version);
        if (version === r.schema.version) return toWit(raw, r.schema.type);
        if (!r.upgrade) {
          throw new TerraformError(
            `Cannot upgrade the state of ${request.typeName}`,
            `The state was written by schema version ${version}; this provider has version ${r.schema.version} and no upgrade for it.`,
          );
        }
        return toWit(await r.upgrade(version, raw), r.schema.type);
      });
      return { upgradedState: run.value ?? nullValue, diagnostics: run.diagnostics };
    },

    upgradeResourceIdentity() {
      return { upgradedIdentity: nullValue, diagnostics: unsupported('Resource identity') };
    },

    moveResourceState() {
      return { targetState: nullValue, targetPrivate: noBytes, diagnostics: unsupported('Moving resource state') };
    },

    generateResourceConfig() {
      return { config: nullValue, diagnostics: unsupported('Generating configuration') };
    },

    async readDataSource(request) {
      const run = await attempt(`${request.typeName}.read`, async () => {
        const d = dataSource(request.typeName);
        return toWit(await d.read(stateOf(request.config)), d.schema.type);
      });
      return { state: run.value ?? nullValue, diagnostics: run.diagnostics };
    },

    async validateEphemeralResourceConfig(typeName, config) {
      const e = await attempt('validate', () => ephemeral(typeName));
      return e.value ? validateWith(e.value, config, `${typeName}.validate`) : e.diagnostics;
    },

    async openEphemeralResource(request) {
      const run = await attempt(`${request.typeName}.open`, async () => {
        const e = ephemeral(request.typeName);
        const opened = await e.open(stateOf(request.config));
        return { result: toWit(opened.result, e.schema.type), private: opened.private, renewAt: timestamp(opened.renewAt) };
      });
      return {
        result: run.value?.result ?? nullValue,
        private: run.value?.private,
        renewAt: run.value?.renewAt,
        diagnostics: run.diagnostics,
      };
    },

    async renewEphemeralResource(typeName, privateData) {
      const run = await attempt(`${typeName}.renew`, () => ephemeral(typeName).renew?.(privateData));
      return { private: run.value?.private, renewAt: timestamp(run.value?.renewAt), diagnostics: run.diagnostics };
    },

    async closeEphemeralResource(typeName, privateData) {
      return (await attempt(`${typeName}.close`, () => ephemeral(typeName).close?.(privateData))).diagnostics;
    },

    validateListResourceConfig() {
      return unsupported('Listing resources');
    },

    listResource() {
      return unsupported('Listing resources');
    },

    validateActionConfig() {
      return unsupported('Actions');
    },

    planAction() {
      return { diagnostics: unsupported('Actions') };
    },

    invokeAction() {
      return unsupported('Actions');
    },

    async callFunction(name, args) {
      const f = p.functions.find((x) => x.name === name);
      if (!f) throw { payload: { text: `This provider has no function ${name}.` } };
      let result: TfValue;
      try {
        result = await f.call(...args.map(fromWit));
      } catch (e) {
        const error =
          e instanceof FunctionError
            ? { text: e.text, argument: e.argument }
            : { text: diagnosticsOf(e, `function ${name}`).map(describeDiagnostic).join('\n') };
        // componentize-js returns a thrown `payload` as the result's error.
        throw { payload: error };
      }
      return toWit(result, f.returns);
    },

    stop() {
      return undefined;
    },
  };
  return exports as Exports;
}

function describeDiagnostic(d: Diagnostic): string {
  return d.detail ? `${d.summary}: ${d.detail}` : d.summary;
}

function parameterToWit(p: Parameter): wit.Parameter {
  return {
    name: p.name,
    type: JSON.stringify(p.type),
    description: { text: p.description ?? '', kind: 'plain' },
    allowNull: p.allowNull ?? false,
    allowUnknown: p.allowUnknown ?? false,
  };
}
