// What a provider author writes: a Provider with resources, data sources, functions and
// ephemeral resources, each a class with a schema and the code only it can run (create, read,
// update, delete, import, open, call). Everything else (planning, defaults, validators, the
// consistency checks, the wire encodings) is the host's.

import { type Path, TerraformError } from './diagnostics.js';
import type { Attribute, Kind, Schema, State } from './schema.js';
import { typeOfAttribute } from './schema.js';
import type { MaybePromise, TypeJson } from './types.js';
import type { TfValue } from './values.js';
import type { PrivateState } from './private.js';

/** What Terraform said about itself in ConfigureProvider. */
export interface ConfigureContext {
  terraformVersion: string;
}

/** What the plan hook (`Resource.plan`) sees: the host's plan, to adjust. */
export interface PlanRequest<S extends Schema> {
  /** Null on create. */
  prior: State<S> | null;
  /** The host's plan (defaults, unknowns, kept values); null on destroy. */
  planned: State<S> | null;
  config: Record<string, TfValue> | null;
  /** The attributes the host's plan replaces the resource for. */
  requiresReplace: Path[];
}

/** The plan hook's answer: the whole plan. */
export interface PlanAnswer<S extends Schema> {
  planned: State<S> | null;
  /** Every attribute that replaces the resource (the request's, unless you drop them). */
  requiresReplace: Path[];
}

/**
 * A managed resource type. `create`, `read` and `delete` are always written; `update` when
 * some attribute can change without a replacement (by default every change that is not a
 * replacement is refused with an error).
 */
export abstract class Resource<S extends Schema = Schema> {
  /** `<provider>_<name>`, e.g. `pets_pet`. */
  abstract readonly typeName: string;
  abstract readonly schema: S;

  /**
   * Creates the object; returns the state with every computed attribute known. `privateState`
   * is the resource's provider-private data (what the plan stored, and what to keep beside
   * the new state); most resources ignore it.
   */
  abstract create(planned: State<S>, privateState: PrivateState): MaybePromise<State<S>>;

  /** Looks at the real object: its current state, or `null` when it is gone. */
  abstract read(current: State<S>, privateState: PrivateState): MaybePromise<State<S> | null>;

  /** Changes the object in place; returns the new state. */
  update(prior: State<S>, planned: State<S>, privateState: PrivateState): MaybePromise<State<S>> {
    void prior;
    void planned;
    void privateState;
    throw new TerraformError(
      `${this.typeName} cannot be updated in place`,
      'The provider has no update for this resource type; mark the attributes that change with .requiresReplace().',
    );
  }

  /** Deletes the object. */
  abstract delete(prior: State<S>): MaybePromise<void>;

  /**
   * Adjusts the host's plan (a value only the provider can predict, a replacement that
   * depends on more than one attribute). Most resources need none: the schema says it.
   */
  plan?(request: PlanRequest<S>): MaybePromise<PlanAnswer<S>>;

  /**
   * Checks a planned destroy: throw a `TerraformError` to refuse it (an object that must not
   * be deleted while something holds it, say). With it the provider declares the
   * `plan_destroy` capability, so Terraform asks before every destroy of any type.
   */
  planDestroy?(prior: State<S>): MaybePromise<void>;

  /**
   * `terraform import` / an `import` block: the state of the object `id` names. Terraform
   * reads it right after. Without it, import is refused with an error.
   */
  importState?(id: string): MaybePromise<State<S>>;

  /**
   * Checks beyond the schema's validators, on a configuration in which any value may still
   * be unknown. Throw a `TerraformError` (with the attribute's path) to refuse it.
   */
  validate?(config: Record<string, TfValue>): MaybePromise<void>;

  /**
   * The state written by an older schema version (`schema.version`), as stored: JSON objects,
   * arrays, strings, numbers, booleans, nulls. Returns it in the current schema.
   */
  upgrade?(version: number, raw: TfValue): MaybePromise<State<S>>;

  /**
   * Whether a replacement must delete the old object before it creates the new one, because
   * two cannot exist at once (a fixed file name, a name unique in a remote system). Terraform
   * deletes first anyway unless a configuration asks for `create_before_destroy`; Pulumi
   * creates first unless told, and the host tells it.
   */
  readonly deleteBeforeReplace?: boolean;

  /**
   * Resource types whose state a `moved { from = <other type>  to = <this type> }` block may
   * move into this one, by type name; `moveState` converts it. When any resource type has
   * some, the provider declares the `move_resource_state` capability.
   */
  readonly movesFrom?: readonly string[];

  /**
   * The state of a resource of a type in `movesFrom` (of any provider: check
   * `source.providerAddress` if it matters) in this type's schema. As in `upgrade`, the
   * source state is the stored JSON as written.
   */
  moveState?(source: MovedState): MaybePromise<State<S>>;

  // ---- identity (Terraform 1.12+) ----

  /**
   * The resource's identity schema: plain attributes (strings, numbers, bools, or lists of
   * them) naming the remote object. A `.required()` attribute must be given in an
   * `import { identity = {...} }` block (required for import), an `.optional()` one may be;
   * `version` is the identity schema's version (see `upgradeIdentity`). With it the SDK
   * declares the identity, returns it from read, apply, import and move, keeps it through
   * updates, and imports by identity.
   */
  readonly identity?: Schema;

  /**
   * The identity of the object whose state is `state`, or null while the state does not
   * determine it yet (the planned identity is then null). By default the identity's
   * attributes are the state's attributes of the same names. After apply, read or import it
   * must not be null.
   */
  identityOf?(state: State<S>): Record<string, TfValue> | null;

  /**
   * The state of the existing object an `import { identity = {...} }` block names
   * (attributes not required for import may be null); Terraform reads it afterwards. Without
   * it, import by identity is refused.
   */
  importByIdentity?(identity: Record<string, TfValue>): MaybePromise<State<S>>;

  /**
   * An identity stored with the older identity schema `version`, as stored (JSON), in the
   * current identity schema. Only called for versions lower than the current one.
   */
  upgradeIdentity?(version: number, raw: TfValue): MaybePromise<Record<string, TfValue>>;

  // ---- list resource (`terraform query`) ----

  /**
   * The schema of a `list` block's `config` block. A resource type with an `identity`, a
   * `listConfig` and `list`, in `Provider.listResources`, is listed by `list`.
   */
  readonly listConfig?: Schema;

  /**
   * Checks a list block's `config` beyond what `listConfig` says (each attribute's validators
   * have run): throw a TerraformError to refuse it. Values may be unknown here.
   */
  validateList?(config: Record<string, TfValue>): MaybePromise<void>;

  /**
   * Lists the objects `config` selects, pushing each into `results` in a stable order
   * (Terraform shows them as they come). Stop when `results.push` returns false. An error
   * thrown here ends the listing; the items pushed before it have been sent. An error thrown
   * by an item's state function goes with that item (Terraform ends the listing there too);
   * write-only values in the state are never sent.
   */
  list?(config: Record<string, TfValue>, results: ListResults<State<S>>): MaybePromise<void>;
}

/** Where `Resource.list` sends the objects it finds; Terraform receives each as it is pushed. */
export interface ListResults<T> {
  /**
   * Sends one object: its identity, a short name for people, and a function that makes its
   * state, called only when Terraform asked for resource objects (`include_resource = true`).
   * Returns false once Terraform wants no more (its limit is reached, or an item had an
   * error): stop listing and return. Later pushes are ignored. When making the state throws a
   * TerraformError (or the identity or state does not fit its schema), the item carries the
   * error and push returns false.
   */
  push(identity: Record<string, TfValue>, displayName: string, state?: () => T): boolean;
}

/** Where a running `Action.invoke` reports progress; Terraform shows each message as it arrives. */
export interface Progress {
  /** Sends a progress message; when Terraform reads slowly this waits. */
  report(message: string): void;
}

/**
 * An action type (`action` blocks; `terraform apply -invoke=action.<type>.<name>` or an
 * `action_trigger`): a configuration (`schema`), no state, and `invoke`, which reports
 * progress as it runs.
 */
export abstract class Action<S extends Schema = Schema> {
  abstract readonly typeName: string;
  /** The schema of the action's `config` block. */
  abstract readonly schema: S;

  /** Checks a configuration beyond the schema (values may be unknown). */
  validate?(config: Record<string, TfValue>): MaybePromise<void>;

  /**
   * Checks, when Terraform plans the invocation, that the action can run: throw a
   * `TerraformError` to fail the plan instead of the apply, or `TerraformError.deferred` to
   * defer it. Values may be unknown here.
   */
  plan?(config: Record<string, TfValue>): MaybePromise<void>;

  /** Runs the action with its configuration (wholly known), reporting through `progress`. */
  abstract invoke(config: State<S>, progress: Progress): MaybePromise<void>;
}

/** What `Resource.moveState` converts: the source of a `moved` block. */
export interface MovedState {
  /** The source's full provider address, e.g. `registry.terraform.io/hashicorp/random`. */
  providerAddress: string;
  /** The source's resource type. */
  typeName: string;
  /** The schema version the source state was written with. */
  schemaVersion: number;
  /** The stored JSON state: objects, arrays, strings, numbers, booleans, nulls. */
  state: TfValue;
  /** The source's private data. */
  private: Uint8Array;
}

/** A data source: `read` fills the computed attributes from the configuration. */
export abstract class DataSource<S extends Schema = Schema> {
  abstract readonly typeName: string;
  abstract readonly schema: S;
  abstract read(config: State<S>): MaybePromise<State<S>>;
  validate?(config: Record<string, TfValue>): MaybePromise<void>;
}

/** What `open` returns: the value, and what renew and close need (never stored by Terraform). */
export interface Opened<S extends Schema> {
  result: State<S>;
  private?: Uint8Array;
  /** When Terraform should call `renew`. */
  renewAt?: Date;
}

/** An ephemeral resource: a value that exists during one Terraform run and is never stored. */
export abstract class EphemeralResource<S extends Schema = Schema> {
  abstract readonly typeName: string;
  abstract readonly schema: S;
  abstract open(config: State<S>): MaybePromise<Opened<S>>;
  renew?(privateData: Uint8Array | undefined): MaybePromise<{ private?: Uint8Array; renewAt?: Date }>;
  close?(privateData: Uint8Array | undefined): MaybePromise<void>;
  validate?(config: Record<string, TfValue>): MaybePromise<void>;
}

/** A function argument or return value: its name and type. */
export interface Parameter {
  name: string;
  type: TypeJson;
  description?: string;
  /** Whether the function accepts null for it (otherwise Terraform refuses null). */
  allowNull?: boolean;
  /** Whether the function accepts an unknown value (otherwise Terraform returns unknown). */
  allowUnknown?: boolean;
}

/** A parameter named `name` of the type of `attribute` (e.g. `param('name', string())`). */
export function param(
  name: string,
  attribute: Attribute<unknown, Kind>,
  options: Omit<Parameter, 'name' | 'type'> = {},
): Parameter {
  return { name, type: typeOfAttribute(attribute), ...options };
}

/** Thrown by a function's `call`: Terraform shows `text`, about `argument` (counting from 0). */
export class FunctionError extends Error {
  constructor(
    readonly text: string,
    readonly argument?: number,
  ) {
    super(text);
    this.name = 'FunctionError';
  }
}

/** A provider function (`provider::pets::name(...)` in Terraform 1.8+). */
export abstract class ProviderFunction {
  abstract readonly name: string;
  abstract readonly parameters: Parameter[];
  readonly variadic?: Parameter;
  /** The type of the result, e.g. `typeOfAttribute(string())` or `'string'`. */
  abstract readonly returns: TypeJson;
  readonly summary: string = '';
  readonly description: string = '';
  abstract call(...args: TfValue[]): MaybePromise<TfValue>;
}

/**
 * The provider: its configuration schema, what `configure` keeps of it, and its types.
 *
 *     class Pets extends Provider {
 *       resources = [new PetResource()];
 *     }
 *     export const provider = serve(new Pets());
 */
export abstract class Provider<C extends Schema = Schema> {
  /** The `provider "name" { ... }` block's schema; none by default. */
  readonly schema?: C;
  readonly resources: Resource<any>[] = [];
  readonly dataSources: DataSource<any>[] = [];
  readonly ephemeralResources: EphemeralResource<any>[] = [];
  /** Resources with `listConfig` and `list` (`terraform query`). */
  readonly listResources: Resource<any>[] = [];
  readonly actions: Action<any>[] = [];
  readonly functions: ProviderFunction[] = [];

  /** Keeps what the provider configuration says, before any call that needs it. */
  configure?(config: State<C>, context: ConfigureContext): MaybePromise<void>;

  /** Checks of the provider configuration beyond its schema's validators. */
  validate?(config: Record<string, TfValue>): MaybePromise<void>;
}
