// The WIT `provider` export, made from a `Provider`: the host calls these functions, they
// convert values, find the type named in the call, run the author's code and turn what it
// throws into diagnostics.

import { Hooks, behaviourOf } from './behaviour.js';
import { installFetch } from './http.js';
import { stopping } from './log.js';
import type { wit, witBehaviour, witProvider } from './bindings.js';
import {
  type Diagnostic,
  TerraformError,
  diagnosticToWit,
  diagnosticsOf,
  pathFromWit,
  pathToWit,
} from './diagnostics.js';
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
import { PrivateState } from './private.js';

type ProviderExports = typeof witProvider;
type BehaviourExports = typeof witBehaviour;

/**
 * Exports as written here: any may return a promise, which componentize-js resolves by
 * running the event loop before the call returns (so provider code may `await fetch(...)`).
 */
type Async<E> = {
  [K in keyof E]: E[K] extends (...args: infer A) => infer R ? (...args: A) => R | Promise<R> : never;
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
 * The component's exports, from its entry module:
 *
 *     export const { provider, behaviour } = serve(new Pets());
 *
 * `provider` answers Terraform's calls; `behaviour` tells the host how to plan and validate
 * (the schemas' defaults, plan modifiers and validators) and runs their hooks.
 */
export function serve(p: Provider<any>): { provider: ProviderExports; behaviour: BehaviourExports } {
  installFetch(stopping);
  const resource = (typeName: string): Resource<Schema> => find('resource', p.resources, typeName);
  const dataSource = (typeName: string): DataSource<Schema> => find('data source', p.dataSources, typeName);
  const ephemeral = (typeName: string): EphemeralResource<Schema> =>
    find('ephemeral resource', p.ephemeralResources, typeName);

  const hooks = new Hooks();
  // The host calls the plan hook of a type with `plan` or `planDestroy`.
  const named = (items: { typeName: string; schema: Schema; plan?: unknown; planDestroy?: unknown }[]) =>
    items.map((i) => ({
      name: i.typeName,
      behaviour: behaviourOf(
        i.schema,
        hooks,
        typeof i.plan === 'function' || typeof i.planDestroy === 'function',
        i.constructor.name,
      ),
    }));
  // Numbered once, in declaration order: every instance gives the host the same hook ids.
  const declared: witBehaviour.ProviderBehaviour = {
    provider: behaviourOf(p.schema ?? new Schema({ attributes: {} }), hooks, false, p.constructor.name),
    resources: named(p.resources),
    dataSources: named(p.dataSources),
    ephemeralResources: named(p.ephemeralResources),
    listResources: [],
    actions: [],
  };

  const behaviour: Async<BehaviourExports> = {
    getBehaviour() {
      return declared;
    },

    async computeDefaults(requests) {
      const out: wit.Value[] = [];
      for (const r of requests) {
        const hook = hooks.get(r.id, 'default');
        out.push(toWit(await hook.compute(fromWit(r.parentConfig)), hook.type));
      }
      return out;
    },

    async decideReplacements(requests) {
      const out: boolean[] = [];
      for (const r of requests) {
        const hook = hooks.get(r.id, 'replace');
        out.push(await hook.decide(fromWit(r.prior), fromWit(r.planned)));
      }
      return out;
    },

    async validateValues(requests) {
      const out: wit.Diagnostic[] = [];
      for (const r of requests) {
        const hook = hooks.get(r.id, 'validate');
        const path = pathFromWit(r.path);
        const run = await attempt('a custom validator', async () => {
          const message = await hook.check(fromWit(r.value), fromWit(r.parent));
          if (typeof message === 'string') throw new TerraformError('Invalid value', message, path);
        });
        // A validator's error is about the value it checked, unless it named another path.
        out.push(...run.diagnostics.map((d) => (d.attribute.length ? d : { ...d, attribute: r.path })));
      }
      return out;
    },

    async planResource(request) {
      const planned = fromWit(request.plannedState);
      const destroy = planned === null;
      const run = await attempt(`${request.typeName}.${destroy ? 'planDestroy' : 'plan'}`, async () => {
        const r = resource(request.typeName);
        // A destroy reaches the guest only for a type with `planDestroy` (the capability);
        // a type with only `planDestroy` keeps the host's plan of every other change.
        if (destroy) {
          await r.planDestroy?.(stateOf(request.priorState));
          return undefined;
        }
        if (!r.plan) return undefined;
        const answer = await r.plan({
          prior: stateOf(request.priorState),
          planned: planned as never,
          config: fromWit(request.config) as never,
          requiresReplace: request.requiresReplace.map(pathFromWit),
        });
        return {
          plannedState: answer.planned === null ? nullValue : toWit(answer.planned, r.schema.type),
          requiresReplace: answer.requiresReplace.map(pathToWit),
        };
      });
      return {
        plannedState: run.value?.plannedState ?? request.plannedState,
        requiresReplace: run.value?.requiresReplace ?? request.requiresReplace,
        plannedPrivate: request.priorPrivate,
        diagnostics: run.diagnostics,
      };
    },
  };

  const provider: Async<ProviderExports> = {
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
          planDestroy: p.resources.some((r) => typeof r.planDestroy === 'function'),
          getProviderSchemaOptional: false,
          moveResourceState: p.resources.some((r) => (r.movesFrom?.length ?? 0) > 0),
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
      const privateState = new PrivateState(request.private);
      const run = await attempt(`${request.typeName}.read`, async () => {
        const r = resource(request.typeName);
        const state = await r.read(stateOf(request.currentState), privateState);
        return state === null ? nullValue : toWit(state, r.schema.type);
      });
      return {
        newState: run.value ?? request.currentState,
        private: privateState.encode(),
        diagnostics: run.diagnostics,
      };
    },

    // The host plans for a component that exports `behaviour`; only a host that predates it
    // calls this.
    planResourceChange(request) {
      return {
        plannedState: request.proposedNewState,
        requiresReplace: [],
        plannedPrivate: request.priorPrivate,
        diagnostics: [
          diagnosticToWit({
            severity: 'error',
            summary: 'This provider needs a newer Terrarium',
            detail:
              'It declares its planning rules for the host to run (the behaviour interface), and this terrarium does not run them; install a newer terrarium.',
            path: [],
          }),
        ],
      };
    },

    async applyResourceChange(request) {
      const prior = fromWit(request.priorState);
      const planned = fromWit(request.plannedState);
      const what = prior === null ? 'create' : planned === null ? 'delete' : 'update';
      // What a failed create or update reached (`TerraformError.withState`).
      let reached: wit.Value | undefined;
      const privateState = new PrivateState(request.plannedPrivate);
      const run = await attempt(`${request.typeName}.${what}`, async () => {
        const r = resource(request.typeName);
        if (planned === null) {
          await r.delete(prior as never);
          return nullValue;
        }
        try {
          const state = await (prior === null
            ? r.create(planned as never, privateState)
            : r.update(prior as never, planned as never, privateState));
          return toWit(state, r.schema.type);
        } catch (e) {
          if (e instanceof TerraformError && e.state !== undefined && e.state !== null) {
            reached = toWit(e.state as TfValue, r.schema.type);
          }
          throw e;
        }
      });
      return {
        // On an error, what the change reached (so Terraform keeps track of the object,
        // tainted after a create), else what existed before.
        newState: run.value ?? reached ?? request.priorState,
        private: privateState.encode(),
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

    async moveResourceState(request) {
      const run = await attempt(`${request.targetTypeName}.moveState`, async () => {
        const r = resource(request.targetTypeName);
        if (!r.moveState || !(r.movesFrom ?? []).includes(request.sourceTypeName)) {
          throw new TerraformError(
            'Unsupported resource move',
            `${request.sourceTypeName} cannot be moved into ${request.targetTypeName} (it accepts moves from: ${(r.movesFrom ?? []).join(', ') || 'none'}).`,
          );
        }
        const moved = await r.moveState({
          providerAddress: request.sourceProviderAddress,
          typeName: request.sourceTypeName,
          schemaVersion: Number(request.sourceSchemaVersion),
          state: fromWit(request.sourceState),
          private: request.sourcePrivate,
        });
        return toWit(moved, r.schema.type);
      });
      return { targetState: run.value ?? nullValue, targetPrivate: noBytes, diagnostics: run.diagnostics };
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
  return { provider: provider as ProviderExports, behaviour: behaviour as BehaviourExports };
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
