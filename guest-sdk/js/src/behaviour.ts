// The behaviour of a schema as the host plans and validates with it (the WIT `behaviour`
// interface, docs/planning.md): defaults, plan modifiers and validators by attribute path, and
// numbered hooks for what is code (computed defaults, conditional replacements, custom
// validators). The numbers come from the order of the declarations, so every instance of the
// component gives the same ones.

import type { witBehaviour as wb, wit } from './bindings.js';
import type { Attribute, Attributes, Blocks, CustomCheck, Kind, Schema, Validator } from './schema.js';
import { typeOfAttribute } from './schema.js';
import type { MaybePromise, TypeJson } from './types.js';
import { type TfValue, Decimal, toWit } from './values.js';

export type Hook =
  | { kind: 'default'; type: TypeJson; compute: (parentConfig: TfValue) => MaybePromise<TfValue> }
  | { kind: 'replace'; decide: (prior: TfValue, planned: TfValue) => MaybePromise<boolean> }
  | { kind: 'validate'; check: CustomCheck };

/** The hooks of every schema of a provider, by number. */
export class Hooks {
  readonly all: Hook[] = [];

  add(hook: Hook): number {
    this.all.push(hook);
    return this.all.length - 1;
  }

  get<K extends Hook['kind']>(id: number, kind: K): Extract<Hook, { kind: K }> {
    const hook = this.all[id];
    if (!hook || hook.kind !== kind) throw new Error(`the host asked for ${kind} hook ${id}, which this provider does not have`);
    return hook as Extract<Hook, { kind: K }>;
  }
}

const U64_MAX = 2n ** 64n - 1n;

function count(min: number | undefined, max: number | undefined): wb.CountRange {
  return { min: BigInt(min ?? 0), max: max === undefined ? U64_MAX : BigInt(max) };
}

function bound(n: number | bigint | undefined): wit.Number | undefined {
  if (n === undefined) return undefined;
  if (typeof n === 'bigint') return { tag: 'int', val: n };
  return Number.isSafeInteger(n) ? { tag: 'int', val: BigInt(n) } : { tag: 'decimal', val: new Decimal(String(n)).text };
}

function validatorToWit(v: Validator, hooks: Hooks): wb.Validator {
  switch (v.kind) {
    case 'length':
    case 'size':
      return { tag: v.kind, val: count(v.min, v.max) };
    case 'pattern':
      return { tag: 'pattern', val: v.regex };
    case 'one-of':
      return { tag: 'one-of', val: v.values };
    case 'range':
      return { tag: 'range', val: { min: bound(v.min), max: bound(v.max) } };
    case 'conflicts-with':
    case 'also-requires':
    case 'exactly-one-of':
    case 'at-least-one-of':
      return { tag: v.kind, val: v.names };
    case 'custom':
      return { tag: 'custom', val: { id: hooks.add({ kind: 'validate', check: v.check }), description: v.description } };
  }
}

function attributeBehaviour(
  path: string[],
  a: Attribute<unknown, Kind>,
  hooks: Hooks,
  owner: string,
): wb.AttributeBehaviour | undefined {
  const o = a.options;
  const type = typeOfAttribute(a);
  let defaultValue: wb.DefaultValue | undefined;
  if (typeof o.default === 'function') {
    defaultValue = { tag: 'computed', val: hooks.add({ kind: 'default', type, compute: o.default }) };
  } else if (o.default !== undefined) {
    try {
      defaultValue = { tag: 'value', val: toWit(o.default, type) };
    } catch {
      // Said where the author wrote it: the class and the field, not a path in a bundle.
      throw new TypeError(
        `${owner}.${path.join('.')}: default ${describeDefault(o.default)} does not fit its type ${JSON.stringify(type)}`,
      );
    }
  }
  const requiresReplace: wb.ReplaceRule =
    typeof o.requiresReplace === 'function'
      ? { tag: 'when-guest-says', val: hooks.add({ kind: 'replace', decide: o.requiresReplace }) }
      : o.requiresReplace
        ? { tag: 'always' }
        : { tag: 'never' };
  const validators = o.validators.map((v) => validatorToWit(v, hooks));
  const any =
    defaultValue || o.useStateForUnknown || o.unknownOnUpdate || requiresReplace.tag !== 'never' || validators.length;
  if (!any) return undefined;
  return {
    path,
    default: defaultValue,
    useStateForUnknown: o.useStateForUnknown ?? false,
    unknownOnUpdate: o.unknownOnUpdate ?? false,
    requiresReplace,
    validators,
  };
}

function describeDefault(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The behaviour of `schema`, its hooks numbered in `hooks`; `owner` (the class that declares
 * the schema) names it in the error a default that does not fit its attribute throws. */
export function behaviourOf(schema: Schema, hooks: Hooks, planHook = false, owner = 'schema'): wb.SchemaBehaviour {
  const attributes: wb.AttributeBehaviour[] = [];
  const replaceBlocks: string[][] = [];
  const walk = (prefix: string[], attrs: Attributes, blocks: Blocks) => {
    for (const [name, a] of Object.entries(attrs)) {
      const b = attributeBehaviour([...prefix, name], a, hooks, owner);
      if (b) attributes.push(b);
      if ('nesting' in a.type) walk([...prefix, name], a.type.attributes, {});
    }
    for (const [name, block] of Object.entries(blocks)) {
      if (block.options.requiresReplace) replaceBlocks.push([...prefix, name]);
      walk([...prefix, name], block.attributes, block.blocks);
    }
  };
  walk([], schema.attributes, schema.blocks);
  return { attributes, replaceBlocks, planHook };
}
