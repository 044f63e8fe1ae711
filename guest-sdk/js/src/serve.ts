// The WIT `provider` export, made from a `Provider`: the host calls these functions, they
// convert values, find the type named in the call, run the author's code and turn what it
// throws into diagnostics.

import { Hooks, behaviourOf } from './behaviour.js';
import { installFetch } from './http.js';
import { stopping } from './log.js';
import type { wit, witBehaviour, witProvider } from './bindings.js';
import {
  type DeferredReason,
  type Diagnostic,
  TerraformError,
  describeDeferral,
  diagnosticToWit,
  diagnosticsOf,
  pathFromWit,
  pathToString,
  pathToWit,
} from './diagnostics.js';
import {
  type Action,
  type DataSource,
  type EphemeralResource,
  FunctionError,
  type Parameter,
  type Provider,
  type Resource,
} from './provider.js';
import { type Attributes, type Blocks, Schema, computedBlockPaths, schemaToWit, typeOfAttribute } from './schema.js';
import type { MaybePromise } from './types.js';
import { type TfValue, fromWit, isUnknown, toWit } from './values.js';
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

/**
 * `attempt` for a call that may defer (`TerraformError.deferred`): the deferral Terraform
 * gets too. A deferral Terraform does not accept becomes an error that says why, as in the
 * Rust SDK.
 */
async function attemptDeferrable<T>(
  during: string,
  client: wit.ClientCapabilities,
  body: () => T | Promise<T>,
): Promise<{ value?: T; deferred?: DeferredReason; diagnostics: wit.Diagnostic[] }> {
  try {
    return { value: await body(), diagnostics: [] };
  } catch (e) {
    const diagnostics = diagnosticsOf(e, during).map(diagnosticToWit);
    const reason = e instanceof TerraformError ? e.deferral : undefined;
    if (reason === undefined) return { diagnostics };
    if (client.deferralAllowed) return { deferred: reason, diagnostics };
    diagnostics.push(
      diagnosticToWit({
        severity: 'error',
        summary: 'Provider cannot proceed yet',
        detail:
          `${during} asked to defer this change (${describeDeferral(reason)}), but Terraform did not say it accepts deferred ` +
          'changes. Apply the resources it depends on first (for example with -target), or run a Terraform that supports ' +
          'deferral (-allow-deferral).',
        path: [],
      }),
    );
    return { diagnostics };
  }
}

/**
 * The identity of `state` (a value of the resource's schema) for a type with one; undefined
 * while it is not known. With `operation` (after which the object exists) an identity that is
 * not known is the provider's bug.
 */
function identityOf(r: Resource<Schema>, state: wit.Value, operation?: string): wit.Value | undefined {
  const identity = r.identity;
  if (!identity) return undefined;
  const current = fromWit(state);
  if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
  let found: Record<string, TfValue> | null;
  if (r.identityOf) {
    found = r.identityOf(current as never);
  } else {
    // The identity's attributes are the state's attributes of the same names.
    found = {};
    for (const name of Object.keys(identity.attributes)) {
      const v = (current as Record<string, TfValue>)[name];
      if (v === null || v === undefined || isUnknown(v)) {
        found = null;
        break;
      }
      found[name] = v;
    }
  }
  if (found === null) {
    if (operation === undefined) return undefined;
    throw new TerraformError(
      'Provider returned no identity',
      `After ${operation}, the identity of ${r.typeName} is not known: it must be known once the object exists. This is a bug in the provider.`,
    );
  }
  return toWit(found, identity.type);
}

function identitySchemaToWit(r: Resource<Schema>, identity: Schema): wit.NamedIdentitySchema {
  return {
    name: r.typeName,
    schema: {
      version: BigInt(identity.version),
      attributes: Object.entries(identity.attributes).map(([name, a]) => ({
        name,
        type: JSON.stringify(typeOfAttribute(a)),
        requiredForImport: a.options.kind === 'required',
        optionalForImport: a.options.kind !== 'required',
        description: a.options.description ?? '',
      })),
    },
  };
}

function timestamp(date: Date | undefined): wit.Timestamp | undefined {
  if (!date) return undefined;
  const ms = date.getTime();
  return { seconds: BigInt(Math.floor(ms / 1000)), nanoseconds: (ms % 1000) * 1_000_000 };
}

/**
 * Makes one part of a listed item (its identity or state); what goes wrong is added to
 * `found`, saying which item and which part it is about, as the Rust SDK says it (the listing
 * has no attribute to point at).
 */
function itemPart<T>(displayName: string, part: string, found: Diagnostic[], make: () => T): T | undefined {
  try {
    return make();
  } catch (e) {
    for (const d of diagnosticsOf(e, `listing ${JSON.stringify(displayName)}`)) {
      const at = d.path.length ? ` (at ${pathToString(d.path)})` : '';
      found.push({ ...d, detail: `Listing ${JSON.stringify(displayName)}, its ${part}${at}: ${d.detail}`, path: [] });
    }
    return undefined;
  }
}

/** `value` (an object of `schema`) with every write-only attribute null, at any depth. */
function clearWriteOnly(value: TfValue, schema: { attributes: Attributes; blocks: Blocks }): TfValue {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || isUnknown(value)) return value;
  const out: Record<string, TfValue> = { ...(value as Record<string, TfValue>) };
  const each = (v: TfValue, inner: { attributes: Attributes; blocks: Blocks }, nesting: string): TfValue => {
    if (v === null || isUnknown(v)) return v;
    if (nesting === 'single' || nesting === 'group') return clearWriteOnly(v, inner);
    if (Array.isArray(v)) return v.map((x) => clearWriteOnly(x, inner));
    if (typeof v === 'object') {
      return Object.fromEntries(Object.entries(v as Record<string, TfValue>).map(([k, x]) => [k, clearWriteOnly(x, inner)]));
    }
    return v;
  };
  for (const [name, a] of Object.entries(schema.attributes)) {
    if (a.options.writeOnly) out[name] = null;
    else if ('nesting' in a.type && out[name] !== undefined) {
      out[name] = each(out[name] as TfValue, { attributes: a.type.attributes, blocks: {} }, a.type.nesting);
    }
  }
  for (const [name, b] of Object.entries(schema.blocks)) {
    if (out[name] !== undefined) out[name] = each(out[name] as TfValue, b, b.nesting);
  }
  return out;
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
/** The resource types of the provider `serve` made last whose replacement deletes first. */
let deletingFirst: string[] = [];

/**
 * The WIT `replacement` export. The build exports it beside the entry module's `provider`
 * and `behaviour`, so that an author's entry names only those two.
 */
export const replacement = {
  deleteBeforeReplace(): string[] {
    return deletingFirst;
  },
};

/**
 * The WIT `computed-blocks` export (0.2.3), which the build exports beside `replacement`:
 * the computed nested blocks of the provider `serve` made last.
 */
export const computedBlocks = {
  computedBlocks(): ComputedBlock[] {
    return computed;
  },
};

type ComputedBlock = { kind: 'resource' | 'data-source'; typeName: string; path: string[] };
let computed: ComputedBlock[] = [];

export function serve(p: Provider<any>): { provider: ProviderExports; behaviour: BehaviourExports } {
  installFetch(stopping);
  deletingFirst = p.resources.filter((r) => r.deleteBeforeReplace).map((r) => r.typeName);
  computed = [
    ...p.resources.flatMap((r) =>
      computedBlockPaths(r.schema).map((path): ComputedBlock => ({ kind: 'resource', typeName: r.typeName, path })),
    ),
    ...p.dataSources.flatMap((d) =>
      computedBlockPaths(d.schema).map((path): ComputedBlock => ({ kind: 'data-source', typeName: d.typeName, path })),
    ),
  ];
  const resource = (typeName: string): Resource<Schema> => find('resource', p.resources, typeName);
  const dataSource = (typeName: string): DataSource<Schema> => find('data source', p.dataSources, typeName);
  const ephemeral = (typeName: string): EphemeralResource<Schema> =>
    find('ephemeral resource', p.ephemeralResources, typeName);
  const listed = (typeName: string): Resource<Schema> => find('list resource', p.listResources, typeName);
  const action = (typeName: string): Action<Schema> => find('action', p.actions, typeName);

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
    // A list block's `config` and an action's configuration have defaults and validators
    // as a resource's attributes do.
    listResources: p.listResources
      .filter((r) => r.listConfig)
      .map((r) => ({
        name: r.typeName,
        behaviour: behaviourOf(r.listConfig as Schema, hooks, false, r.constructor.name),
      })),
    actions: p.actions.map((a) => ({ name: a.typeName, behaviour: behaviourOf(a.schema, hooks, false, a.constructor.name) })),
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
      const during = `${request.typeName}.${destroy ? 'planDestroy' : 'plan'}`;
      const run = await attemptDeferrable(during, request.client, async () => {
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
      const plannedState = run.value?.plannedState ?? request.plannedState;
      const requiresReplace = run.value?.requiresReplace ?? request.requiresReplace;
      let plannedIdentity: wit.Value | undefined;
      const r = p.resources.find((x) => x.typeName === request.typeName);
      if (r?.identity) {
        // The object keeps its identity unless it is created or replaced; a new one's
        // identity is known once the attributes it is made of are.
        if (fromWit(request.priorState) !== null && (destroy || requiresReplace.length === 0)) {
          plannedIdentity = request.priorIdentity;
        } else {
          const found = await attempt(`${request.typeName} identity`, () => identityOf(r, plannedState));
          plannedIdentity = found.value;
          run.diagnostics.push(...found.diagnostics);
        }
      }
      return {
        plannedState,
        requiresReplace,
        plannedPrivate: request.priorPrivate,
        deferred: run.deferred,
        diagnostics: run.diagnostics,
        plannedIdentity,
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
        resourceIdentities: p.resources.flatMap((r) => (r.identity ? [identitySchemaToWit(r, r.identity)] : [])),
        ephemeralResources: named(p.ephemeralResources),
        listResources: p.listResources.map((r) => ({
          name: r.typeName,
          schema: schemaToWit(r.listConfig ?? new Schema({ attributes: {} })),
        })),
        actions: named(p.actions),
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
      const run = await attemptDeferrable(`${request.typeName}.read`, request.client, async () => {
        const r = resource(request.typeName);
        const state = await r.read(stateOf(request.currentState), privateState);
        const newState = state === null ? nullValue : toWit(state, r.schema.type);
        return { newState, identity: identityOf(r, newState, 'read') };
      });
      return {
        // Failed or deferred: the object is as it was.
        newState: run.value?.newState ?? request.currentState,
        private: privateState.encode(),
        deferred: run.deferred,
        diagnostics: run.diagnostics,
        newIdentity: run.value ? run.value.identity : request.currentIdentity,
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
          return { newState: nullValue, identity: undefined };
        }
        try {
          const state = await (prior === null
            ? r.create(planned as never, privateState)
            : r.update(prior as never, planned as never, privateState));
          const newState = toWit(state, r.schema.type);
          return { newState, identity: identityOf(r, newState, what) };
        } catch (e) {
          if (e instanceof TerraformError && e.state !== undefined && e.state !== null) {
            reached = toWit(e.state as TfValue, r.schema.type);
          }
          throw e;
        }
      });
      if (run.value) {
        return {
          newState: run.value.newState,
          private: privateState.encode(),
          diagnostics: run.diagnostics,
          newIdentity: run.value.identity,
        };
      }
      // On an error, what the change reached (so Terraform keeps track of the object,
      // tainted after a create), else what existed before.
      let newIdentity = request.plannedIdentity;
      const r = p.resources.find((x) => x.typeName === request.typeName);
      if (reached && r) {
        const found = await attempt(`${request.typeName} identity`, () => identityOf(r, reached as wit.Value));
        newIdentity = found.value ?? newIdentity;
        run.diagnostics.push(...found.diagnostics);
      }
      return {
        newState: reached ?? request.priorState,
        private: privateState.encode(),
        diagnostics: run.diagnostics,
        newIdentity,
      };
    },

    async importResourceState(request) {
      const given = request.identity && fromWit(request.identity) !== null ? request.identity : undefined;
      const during = `${request.typeName}.${given ? 'importByIdentity' : 'importState'}`;
      const run = await attemptDeferrable(during, request.client, async () => {
        const r = resource(request.typeName);
        let state: wit.Value;
        if (given === undefined) {
          if (!r.importState) {
            throw new TerraformError(
              `${request.typeName} cannot be imported`,
              'The provider does not implement import for this resource type.',
            );
          }
          state = toWit(await r.importState(request.id), r.schema.type);
        } else {
          if (!r.identity || !r.importByIdentity) {
            throw new TerraformError(
              'Import by identity not supported',
              `Resources of type ${request.typeName} cannot be imported by identity.`,
            );
          }
          const identity = fromWit(given) as Record<string, TfValue>;
          state = toWit(await r.importByIdentity(identity), r.schema.type);
        }
        // The imported state may not determine the identity yet (read fills it in); when it
        // does not, an identity import keeps the identity it was given.
        return { state, identity: identityOf(r, state) ?? given };
      });
      return {
        imported: run.value
          ? [{ typeName: request.typeName, state: run.value.state, private: noBytes, identity: run.value.identity }]
          : [],
        deferred: run.deferred,
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

    async upgradeResourceIdentity(request) {
      const run = await attempt(`${request.typeName}.upgradeIdentity`, async () => {
        const r = resource(request.typeName);
        const identity = r.identity;
        if (!identity) {
          throw new TerraformError(
            'Resource has no identity',
            `Resources of type ${request.typeName} have no identity schema, so there is no identity to upgrade.`,
          );
        }
        const raw = fromWit(request.rawIdentity);
        const version = Number(request.version);
        if (version === identity.version) return toWit(raw, identity.type);
        if (version > identity.version || !r.upgradeIdentity) {
          throw new TerraformError(
            'Cannot upgrade identity',
            `The ${request.typeName} identity has identity schema version ${version}; this provider has version ${identity.version} and no upgrade for it.`,
          );
        }
        return toWit(await r.upgradeIdentity(version, raw), identity.type);
      });
      return { upgradedIdentity: run.value ?? nullValue, diagnostics: run.diagnostics };
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
        const targetState = toWit(moved, r.schema.type);
        return { targetState, identity: identityOf(r, targetState) };
      });
      return {
        targetState: run.value?.targetState ?? nullValue,
        targetPrivate: noBytes,
        targetIdentity: run.value?.identity,
        diagnostics: run.diagnostics,
      };
    },

    generateResourceConfig() {
      return { config: nullValue, diagnostics: unsupported('Generating configuration') };
    },

    async readDataSource(request) {
      const run = await attemptDeferrable(`${request.typeName}.read`, request.client, async () => {
        const d = dataSource(request.typeName);
        return toWit(await d.read(stateOf(request.config)), d.schema.type);
      });
      // Deferred, the data is not known yet: the configuration, computed values unknown.
      const state = run.value ?? (run.deferred ? request.config : nullValue);
      return { state, deferred: run.deferred, diagnostics: run.diagnostics };
    },

    async validateEphemeralResourceConfig(typeName, config) {
      const e = await attempt('validate', () => ephemeral(typeName));
      return e.value ? validateWith(e.value, config, `${typeName}.validate`) : e.diagnostics;
    },

    async openEphemeralResource(request) {
      const run = await attemptDeferrable(`${request.typeName}.open`, request.client, async () => {
        const e = ephemeral(request.typeName);
        const opened = await e.open(stateOf(request.config));
        return { result: toWit(opened.result, e.schema.type), private: opened.private, renewAt: timestamp(opened.renewAt) };
      });
      return {
        result: run.value?.result ?? (run.deferred ? request.config : nullValue),
        private: run.value?.private,
        renewAt: run.value?.renewAt,
        deferred: run.deferred,
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

    async validateListResourceConfig(typeName, config) {
      // The attributes' validators ran in the host (the behaviour); this is the list's own check.
      const r = await attempt('validate', () => listed(typeName));
      if (!r.value) return r.diagnostics;
      const list = r.value;
      return validateWith(
        list.validateList ? { validate: (c) => list.validateList?.(c) } : undefined,
        config,
        `${typeName}.validateList`,
      );
    },

    async listResource(request, results) {
      return (
        await attempt(`${request.typeName}.list`, async () => {
          const r = listed(request.typeName);
          const identity = r.identity;
          if (!identity || !r.list) {
            throw new TerraformError(
              `${request.typeName} cannot be listed`,
              'A list resource needs an identity schema and a list method on its resource type.',
            );
          }
          let remaining = request.limit;
          let finished = false;
          await r.list(fromWit(request.config) as Record<string, TfValue>, {
            push(id, displayName, state) {
              if (finished) return false;
              // A bad item carries its own error (as in the Rust SDK): the items before it
              // have been sent, and Terraform ends the listing at it.
              const found: Diagnostic[] = [];
              const identityValue = itemPart(displayName, 'identity', found, () => toWit(id, identity.type));
              const resourceObject =
                request.includeResourceObject && state
                  ? // Write-only values are never read back, whatever the code returned.
                    itemPart(displayName, 'state', found, () =>
                      toWit(clearWriteOnly(state() as TfValue, r.schema), r.schema.type),
                    )
                  : undefined;
              const more = results.push({
                identity: identityValue ?? nullValue,
                displayName,
                resourceObject,
                diagnostics: found.map(diagnosticToWit),
              });
              remaining -= 1n;
              finished = !more || remaining <= 0n || found.some((d) => d.severity === 'error');
              return !finished;
            },
          });
        })
      ).diagnostics;
    },

    async validateActionConfig(typeName, config) {
      const a = await attempt('validate', () => action(typeName));
      return a.value ? validateWith(a.value, config, `${typeName}.validate`) : a.diagnostics;
    },

    async planAction(request) {
      const run = await attemptDeferrable(`${request.typeName}.plan`, request.client, async () => {
        const a = action(request.typeName);
        await a.plan?.(fromWit(request.config) as Record<string, TfValue>);
      });
      return { deferred: run.deferred, diagnostics: run.diagnostics };
    },

    async invokeAction(request, progress) {
      return (
        await attempt(`${request.typeName}.invoke`, async () => {
          const a = action(request.typeName);
          await a.invoke(stateOf(request.config), { report: (message) => progress.report(message) });
        })
      ).diagnostics;
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
