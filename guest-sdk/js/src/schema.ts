// Schemas: what a resource, data source, provider configuration or ephemeral resource is
// made of. One declaration gives Terraform its schema, gives TypeScript the type of the
// state (`State<typeof schema>`), and carries the behaviour the host plans and validates
// with (defaults, plan modifiers, validators): the guest writes no planning code.
//
//     const pet = schema({
//       attributes: {
//         id: string().computed().useStateForUnknown(),
//         name: string().required().requiresReplace().validate(length(1, 32)),
//         legs: number().optional().computed().default(4),
//       },
//     });
//     type Pet = State<typeof pet>; // { id: string | null | Unknown; name: string; legs: ... }

import type { wit } from './bindings.js';
import type { MaybePromise, TypeJson } from './types.js';
import type { TfValue, Unknown } from './values.js';

// ---- validators ---------------------------------------------------------------------------

/**
 * A check of a configured value, run by the host on every configuration at every depth (the
 * same rules for every language). Value checks skip null and unknown values.
 */
export type Validator =
  | { kind: 'length'; min?: number; max?: number }
  | { kind: 'pattern'; regex: string }
  | { kind: 'one-of'; values: string[] }
  | { kind: 'range'; min?: number | bigint; max?: number | bigint }
  | { kind: 'size'; min?: number; max?: number }
  | { kind: 'conflicts-with' | 'also-requires' | 'exactly-one-of' | 'at-least-one-of'; names: string[] }
  | { kind: 'custom'; description: string; check: CustomCheck };

/**
 * A validator's code: throw a `TerraformError` (or return a message) when `value` is wrong.
 * `value` is known and not null; `parent` is the configuration of the object holding it.
 */
export type CustomCheck = (value: TfValue, parent: TfValue) => MaybePromise<string | void>;

/** A string has between `min` and `max` characters. */
export const length = (min?: number, max?: number): Validator => ({ kind: 'length', min, max });
/** A string matches the regular expression (Rust `regex` syntax; anchor it with ^ and $). */
export const pattern = (regex: RegExp | string): Validator => ({
  kind: 'pattern',
  regex: typeof regex === 'string' ? regex : regex.source,
});
/** A string is one of these. */
export const oneOf = (...values: string[]): Validator => ({ kind: 'one-of', values });
/** A number is within [min, max] (compared exactly). */
export const range = (min?: number | bigint, max?: number | bigint): Validator => ({ kind: 'range', min, max });
/** A list, set or map has between `min` and `max` elements. */
export const size = (min?: number, max?: number): Validator => ({ kind: 'size', min, max });
/** When this attribute is set, none of these sibling attributes is. */
export const conflictsWith = (...names: string[]): Validator => ({ kind: 'conflicts-with', names });
/** When this attribute is set, so is every one of these siblings. */
export const alsoRequires = (...names: string[]): Validator => ({ kind: 'also-requires', names });
/** Exactly one of this attribute and these siblings is set. */
export const exactlyOneOf = (...names: string[]): Validator => ({ kind: 'exactly-one-of', names });
/** At least one of this attribute and these siblings is set. */
export const atLeastOneOf = (...names: string[]): Validator => ({ kind: 'at-least-one-of', names });
/** Your own check; `description` says what it requires, in words. */
export const custom = (description: string, check: CustomCheck): Validator => ({ kind: 'custom', description, check });

// ---- attributes ---------------------------------------------------------------------------

/**
 * How an attribute is set: by the configuration, by the provider, or by either. `unset` is
 * optional until `.computed()` makes it computed only.
 */
export type Kind = 'unset' | 'required' | 'optional' | 'computed' | 'optional-computed';

export type Nesting = 'single' | 'list' | 'set' | 'map';

export interface AttributeOptions {
  kind: Kind;
  description?: string;
  markdown?: boolean;
  sensitive?: boolean;
  writeOnly?: boolean;
  deprecated?: string;
  /**
   * The value planned when the configuration leaves the attribute unset; a function computes
   * it from the configuration of the object holding the attribute.
   */
  default?: TfValue | ((parentConfig: TfValue) => MaybePromise<TfValue>);
  /** Keep the prior state's value in the plan instead of "(known after apply)". */
  useStateForUnknown?: boolean;
  /** Unknown on every update (a `last_modified`, say). */
  unknownOnUpdate?: boolean;
  /** A change of the value replaces the resource (a function decides for each change). */
  requiresReplace?: boolean | ((prior: TfValue, planned: TfValue) => MaybePromise<boolean>);
  validators: Validator[];
}

/** What an attribute holds: a Terraform type, or objects of nested attributes. */
export type AttributeType =
  | { type: TypeJson }
  | { nesting: Nesting; attributes: Attributes };

export type Attributes = Record<string, Attribute<unknown, Kind>>;

/**
 * One attribute. Made by `string()`, `number()`, `bool()`, `list(...)`, `set(...)`,
 * `map(...)`, `object(...)`, `dynamic()` or `nested.*(...)`, then refined: `.required()`,
 * `.optional()` (the default), `.computed()`, `.sensitive()`, `.default(v)`, ...
 */
export class Attribute<T, K extends Kind = 'unset'> {
  /** Only for TypeScript: the JavaScript type of the value. */
  declare readonly _value: T;
  declare readonly _kind: K;

  constructor(
    readonly type: AttributeType,
    readonly options: AttributeOptions = { kind: 'unset', validators: [] },
  ) {}

  private with<K2 extends Kind>(changes: Partial<AttributeOptions>): Attribute<T, K2> {
    return new Attribute<T, K2>(this.type, { ...this.options, ...changes });
  }

  /** The configuration must set it. */
  required(): Attribute<T, 'required'> {
    return this.with({ kind: 'required' });
  }
  /** The configuration may set it (the default); with `.computed()` after, the provider too. */
  optional(): Attribute<T, 'optional'> {
    return this.with({ kind: 'optional' });
  }
  /** The provider sets it; after `.optional()`, the configuration may set it too. */
  computed(): Attribute<T, K extends 'optional' | 'optional-computed' ? 'optional-computed' : 'computed'> {
    const optional = this.options.kind === 'optional' || this.options.kind === 'optional-computed';
    return this.with({ kind: optional ? 'optional-computed' : 'computed' });
  }
  /** Terraform hides the value in plans and output. */
  sensitive(): Attribute<T, K> {
    return this.with({ sensitive: true });
  }
  /** Configured but never stored in plans or states (Terraform 1.11+). */
  writeOnly(): Attribute<T, K> {
    return this.with({ writeOnly: true });
  }
  deprecated(message: string): Attribute<T, K> {
    return this.with({ deprecated: message });
  }
  /** What Terraform shows about the attribute (in docs and `terraform providers schema`). */
  describe(text: string, options: { markdown?: boolean } = {}): Attribute<T, K> {
    return this.with({ description: text, markdown: options.markdown });
  }
  /**
   * Planned when the configuration leaves it unset (makes it optional and computed). A
   * function computes it from the configuration of the object holding the attribute.
   */
  default(value: T | ((parentConfig: any) => MaybePromise<T>)): Attribute<T, 'optional-computed'> {
    return this.with({ default: value as AttributeOptions['default'], kind: 'optional-computed' });
  }
  /** Planned as the prior state's value rather than unknown, once it has one. */
  useStateForUnknown(): Attribute<T, K> {
    return this.with({ useStateForUnknown: true });
  }
  /** Any change of the value (also inside it) replaces the resource. */
  requiresReplace(): Attribute<T, K> {
    return this.with({ requiresReplace: true });
  }
  /** A change replaces the resource when `decide` says so. */
  requiresReplaceIf(decide: (prior: T, planned: T) => MaybePromise<boolean>): Attribute<T, K> {
    return this.with({ requiresReplace: decide as AttributeOptions['requiresReplace'] });
  }
  /** Planned as unknown on every update, not only when the configuration changed. */
  unknownOnUpdate(): Attribute<T, K> {
    return this.with({ unknownOnUpdate: true });
  }
  /** Checks the host runs on every configuration, at every depth. */
  validate(...validators: Validator[]): Attribute<T, K> {
    return this.with({ validators: [...this.options.validators, ...validators] });
  }
}

const primitive = <T>(type: TypeJson) => new Attribute<T>({ type });

export const string = (): Attribute<string> => primitive('string');
export const number = (): Attribute<number> => primitive('number');
export const bool = (): Attribute<boolean> => primitive('bool');
/** Any type; the value's own type travels with it. */
export const dynamic = (): Attribute<TfValue> => primitive('dynamic');

/** The Terraform type of what an attribute holds. */
export function typeOfAttribute(a: Attribute<unknown, Kind>): TypeJson {
  if ('type' in a.type) return a.type.type;
  const object = objectType(a.type.attributes, {});
  return a.type.nesting === 'single' ? object : [a.type.nesting, object];
}

type Element = Attribute<unknown, Kind>;
type ValueOf<A> = A extends Attribute<infer T, Kind> ? T : never;

export const list = <E extends Element>(element: E): Attribute<ValueOf<E>[]> =>
  primitive(['list', typeOfAttribute(element)]);
export const set = <E extends Element>(element: E): Attribute<ValueOf<E>[]> =>
  primitive(['set', typeOfAttribute(element)]);
export const map = <E extends Element>(element: E): Attribute<Record<string, ValueOf<E>>> =>
  primitive(['map', typeOfAttribute(element)]);
/** An attribute of object type (all its attributes are set or null together with it). */
export const object = <A extends Record<string, Element>>(
  attributes: A,
): Attribute<{ [k in keyof A]: ValueOf<A[k]> | null }> => {
  const types: Record<string, TypeJson> = {};
  for (const [k, a] of Object.entries(attributes)) types[k] = typeOfAttribute(a);
  return primitive(['object', types]);
};

/**
 * Nested attributes (protocol 6): objects whose attributes each have their own kind,
 * default, plan modifiers and validators.
 */
export const nested = {
  single: <A extends Attributes>(attributes: A) =>
    new Attribute<Infer<A, {}>>({ nesting: 'single', attributes }),
  list: <A extends Attributes>(attributes: A) =>
    new Attribute<Infer<A, {}>[]>({ nesting: 'list', attributes }),
  set: <A extends Attributes>(attributes: A) =>
    new Attribute<Infer<A, {}>[]>({ nesting: 'set', attributes }),
  map: <A extends Attributes>(attributes: A) =>
    new Attribute<Record<string, Infer<A, {}>>>({ nesting: 'map', attributes }),
};

// ---- blocks -------------------------------------------------------------------------------

export type BlockNesting = 'single' | 'list' | 'set' | 'map' | 'group';

export interface BlockOptions<C extends boolean = boolean> {
  description?: string;
  /** Any change inside the block replaces the resource. */
  requiresReplace?: boolean;
  deprecated?: string;
  minItems?: number;
  maxItems?: number;
  /**
   * The provider sets the block's contents, as it sets a computed attribute (protocol 6.11
   * computed nested blocks): the configuration may not write it, the plan has it unknown on
   * create and after a change (its value is then `Unknown`), and `create` and `update` return
   * the blocks the provider made (docs/planning.md).
   */
  computed?: C;
}

export type Blocks = Record<string, NestedBlock<Attributes, Blocks, BlockNesting, boolean>>;

/** A nested block (`collar { ... }` in the configuration). Made by `block.*(...)`. */
export class NestedBlock<A extends Attributes, B extends Blocks, N extends BlockNesting, C extends boolean = false> {
  constructor(
    readonly nesting: N,
    readonly attributes: A,
    readonly blocks: B,
    readonly options: BlockOptions<C>,
  ) {}
}

export const block = {
  single: <A extends Attributes, B extends Blocks = {}, const C extends boolean = false>(
    attributes: A,
    blocks?: B,
    options: BlockOptions<C> = {},
  ) => new NestedBlock(`single`, attributes, blocks ?? ({} as B), options),
  list: <A extends Attributes, B extends Blocks = {}, const C extends boolean = false>(
    attributes: A,
    blocks?: B,
    options: BlockOptions<C> = {},
  ) => new NestedBlock(`list`, attributes, blocks ?? ({} as B), options),
  set: <A extends Attributes, B extends Blocks = {}, const C extends boolean = false>(
    attributes: A,
    blocks?: B,
    options: BlockOptions<C> = {},
  ) => new NestedBlock(`set`, attributes, blocks ?? ({} as B), options),
  map: <A extends Attributes, B extends Blocks = {}, const C extends boolean = false>(
    attributes: A,
    blocks?: B,
    options: BlockOptions<C> = {},
  ) => new NestedBlock(`map`, attributes, blocks ?? ({} as B), options),
  /** A single block that is always present; its attributes are null when it is not written. */
  group: <A extends Attributes, B extends Blocks = {}, const C extends boolean = false>(
    attributes: A,
    blocks?: B,
    options: BlockOptions<C> = {},
  ) => new NestedBlock(`group`, attributes, blocks ?? ({} as B), options),
};

// ---- schemas ------------------------------------------------------------------------------

/** The JavaScript value of one attribute in a state, a plan or a configuration. */
export type AttributeValue<A> =
  A extends Attribute<infer T, infer K>
    ? K extends 'required'
      ? T
      : K extends 'optional' | 'unset'
        ? T | null
        : T | null | Unknown
    : never;

type BlockValue<B> =
  B extends NestedBlock<infer A, infer BB, infer N, infer C>
    ?
        | (N extends 'list' | 'set'
            ? Infer<A, BB>[]
            : N extends 'map'
              ? Record<string, Infer<A, BB>>
              : N extends 'group'
                ? Infer<A, BB>
                : Infer<A, BB> | null)
        // A computed block is unknown in a plan until the provider sets it.
        | ([C] extends [true] ? Unknown : never)
    : never;

/** The JavaScript type of an object with attributes `A` and nested blocks `B`. */
export type Infer<A extends Attributes, B extends Blocks> = { [k in keyof A]: AttributeValue<A[k]> } & {
  [k in keyof B]: BlockValue<B[k]>;
};

export interface SchemaOptions<A extends Attributes, B extends Blocks> {
  attributes: A;
  blocks?: B;
  description?: string;
  markdown?: boolean;
  deprecated?: string;
  /** The state's schema version (bump it when the state's shape changes). */
  version?: number;
}

/** A schema: attributes and nested blocks. `State<typeof s>` is its JavaScript type. */
export class Schema<A extends Attributes = Attributes, B extends Blocks = Blocks> {
  readonly attributes: A;
  readonly blocks: B;
  readonly description: string;
  readonly markdown: boolean;
  readonly deprecated: string | undefined;
  readonly version: number;
  /** The object type of a whole value of this schema. */
  readonly type: TypeJson;

  constructor(options: SchemaOptions<A, B>) {
    this.attributes = options.attributes;
    this.blocks = options.blocks ?? ({} as B);
    this.description = options.description ?? '';
    this.markdown = options.markdown ?? false;
    this.deprecated = options.deprecated;
    this.version = options.version ?? 0;
    this.type = objectType(this.attributes, this.blocks);
  }
}

export function schema<A extends Attributes, B extends Blocks = {}>(options: SchemaOptions<A, B>): Schema<A, B> {
  return new Schema(options);
}

/** The JavaScript type of a value of schema `S`. */
export type State<S> = 0 extends 1 & S ? any : S extends Schema<infer A, infer B> ? Infer<A, B> : never;

function blockType(b: NestedBlock<Attributes, Blocks, BlockNesting, boolean>): TypeJson {
  const object = objectType(b.attributes, b.blocks);
  switch (b.nesting) {
    case 'single':
    case 'group':
      return object;
    default:
      return [b.nesting, object];
  }
}

function objectType(attributes: Attributes, blocks: Blocks): TypeJson {
  const types: Record<string, TypeJson> = {};
  for (const [k, a] of Object.entries(attributes)) types[k] = typeOfAttribute(a);
  for (const [k, b] of Object.entries(blocks)) types[k] = blockType(b);
  return ['object', types];
}

/** The paths (block type names from the root down) of the computed blocks of `s`: what the
 * component names in the WIT `computed-blocks` export. */
export function computedBlockPaths(s: Schema): string[][] {
  const paths: string[][] = [];
  const walk = (blocks: Blocks, path: string[]): void => {
    for (const [name, b] of Object.entries(blocks)) {
      const here = [...path, name];
      if (b.options.computed) paths.push(here);
      walk(b.blocks, here);
    }
  };
  walk(s.blocks, []);
  return paths;
}

// ---- to the host --------------------------------------------------------------------------

function description(text: string | undefined, markdown: boolean | undefined): wit.Description {
  return { text: text ?? '', kind: markdown ? 'markdown' : 'plain' };
}

/** The WIT form of a schema: its blocks flattened, the root first. */
export function schemaToWit(s: Schema): wit.Schema {
  const blocks: wit.Block[] = [];
  const addBlock = (
    attributes: Attributes,
    nested: Blocks,
    desc: wit.Description,
    deprecated: string | undefined,
  ): number => {
    const index = blocks.length;
    blocks.push({ attributes: [], blockTypes: [], description: desc, deprecated: false, deprecationMessage: '' });
    const witAttributes = Object.entries(attributes).map(([name, a]): wit.Attribute => {
      const o = a.options;
      const nestedAttrs: wit.NestedAttributes | undefined =
        'nesting' in a.type
          ? {
              nesting: a.type.nesting,
              block: addBlock(a.type.attributes, {}, description('', false), undefined),
            }
          : undefined;
      return {
        name,
        type: 'type' in a.type ? JSON.stringify(a.type.type) : undefined,
        nested: nestedAttrs,
        description: description(o.description, o.markdown),
        required: o.kind === 'required',
        optional: o.kind === 'unset' || o.kind === 'optional' || o.kind === 'optional-computed',
        computed: o.kind === 'computed' || o.kind === 'optional-computed',
        sensitive: o.sensitive ?? false,
        writeOnly: o.writeOnly ?? false,
        deprecated: o.deprecated !== undefined,
        deprecationMessage: o.deprecated ?? '',
      };
    });
    const witBlocks = Object.entries(nested).map(
      ([typeName, b]): wit.NestedBlock => ({
        typeName,
        block: addBlock(b.attributes, b.blocks, description(b.options.description, false), b.options.deprecated),
        nesting: b.nesting,
        minItems: BigInt(b.options.minItems ?? 0),
        maxItems: BigInt(b.options.maxItems ?? 0),
      }),
    );
    blocks[index] = {
      attributes: witAttributes,
      blockTypes: witBlocks,
      description: desc,
      deprecated: deprecated !== undefined,
      deprecationMessage: deprecated ?? '',
    };
    return index;
  };
  addBlock(s.attributes, s.blocks, description(s.description, s.markdown), s.deprecated);
  return { version: BigInt(s.version), blocks };
}
