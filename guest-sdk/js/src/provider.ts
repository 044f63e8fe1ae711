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
  readonly functions: ProviderFunction[] = [];

  /** Keeps what the provider configuration says, before any call that needs it. */
  configure?(config: State<C>, context: ConfigureContext): MaybePromise<void>;

  /** Checks of the provider configuration beyond its schema's validators. */
  validate?(config: Record<string, TfValue>): MaybePromise<void>;
}
