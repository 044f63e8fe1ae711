// Terraform values in JavaScript, and their conversion to and from the WIT value model (a flat
// list of nodes, the root first).
//
// In JavaScript a Terraform value is: `null`; `unknown` (a value Terraform learns only at
// apply, with what is known about it); a boolean; a number (`number` when it is exactly
// representable, `bigint` for larger integers, `Decimal` for the rest); a string; an array
// (list, set or tuple); a plain object (object or map). Which of list, set and tuple an array
// is, and which of object and map a plain object is, comes from the schema type when the value
// goes back to the host, so code never says it twice.

import type { wit } from './bindings.js';

import { TerraformError, type Path, pathToString } from './diagnostics.js';
import { type TypeJson, parseType } from './types.js';

/** What is known about a value Terraform knows only at apply (its "refinements"). */
export interface Refinements {
  /** `false`: the value will not be null once known. */
  nullable?: boolean;
  stringPrefix?: string;
  numberLower?: { value: number | bigint | Decimal; inclusive: boolean };
  numberUpper?: { value: number | bigint | Decimal; inclusive: boolean };
  lengthLower?: number;
  lengthUpper?: number;
}

/** A value Terraform will know only at apply. Compare with `isUnknown(v)`. */
export class Unknown {
  constructor(readonly refinements: Refinements = {}) {}
  toString(): string {
    return '(known after apply)';
  }
}

/** The unknown value with nothing known about it. */
export const unknown: Unknown = new Unknown();

export function isUnknown(value: unknown): value is Unknown {
  return value instanceof Unknown;
}

/** A number neither a `number` nor a `bigint` holds exactly (e.g. 0.1 kept exact), as text. */
export class Decimal {
  constructor(readonly text: string) {
    if (!/^-?(\d+)(\.\d+)?([eE][-+]?\d+)?$/.test(text)) {
      throw new TypeError(`${JSON.stringify(text)} is not a decimal number`);
    }
  }
  toNumber(): number {
    return Number(this.text);
  }
  toString(): string {
    return this.text;
  }
}

export type TfValue =
  | null
  | Unknown
  | boolean
  | number
  | bigint
  | Decimal
  | string
  | TfValue[]
  | { [key: string]: TfValue };

// ---- from the host ------------------------------------------------------------------------

function numberFrom(n: wit.Number): number | bigint | Decimal {
  switch (n.tag) {
    case 'int':
      return n.val >= BigInt(Number.MIN_SAFE_INTEGER) && n.val <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(n.val)
        : n.val;
    case 'float':
      return n.val;
    case 'decimal':
      return new Decimal(n.val);
  }
}

function refinementsFrom(r: wit.Refinements): Refinements {
  const out: Refinements = {};
  if (r.nullable !== undefined) out.nullable = r.nullable;
  if (r.stringPrefix !== undefined) out.stringPrefix = r.stringPrefix;
  if (r.numberLower) out.numberLower = { value: numberFrom(r.numberLower.value), inclusive: r.numberLower.inclusive };
  if (r.numberUpper) out.numberUpper = { value: numberFrom(r.numberUpper.value), inclusive: r.numberUpper.inclusive };
  if (r.lengthLower !== undefined) out.lengthLower = Number(r.lengthLower);
  if (r.lengthUpper !== undefined) out.lengthUpper = Number(r.lengthUpper);
  return out;
}

/** The JavaScript form of a value the host sent. */
export function fromWit(value: wit.Value): TfValue {
  const nodes = value.nodes;
  const at = (index: number): TfValue => {
    const node = nodes[index];
    if (!node) throw new Error(`value node ${index} does not exist`);
    switch (node.tag) {
      case 'null':
        return null;
      case 'unknown':
        return Object.keys(node.val).every((k) => (node.val as Record<string, unknown>)[k] === undefined)
          ? unknown
          : new Unknown(refinementsFrom(node.val));
      case 'bool':
      case 'string':
        return node.val;
      case 'number':
        return numberFrom(node.val);
      case 'list':
      case 'set':
      case 'tuple':
        return Array.from(node.val, at);
      case 'map':
      case 'object': {
        const out: { [key: string]: TfValue } = {};
        for (const e of node.val) out[e.key] = at(e.value);
        return out;
      }
      case 'dynamic':
        return at(node.val.value);
    }
  };
  return at(0);
}

// ---- to the host --------------------------------------------------------------------------

function numberTo(n: unknown, path: Path): wit.Number {
  if (typeof n === 'bigint') {
    return n >= -(2n ** 63n) && n < 2n ** 63n ? { tag: 'int', val: n } : { tag: 'decimal', val: n.toString() };
  }
  if (n instanceof Decimal) return { tag: 'decimal', val: n.text };
  if (typeof n === 'number') {
    if (!Number.isFinite(n)) throw mismatch(path, 'a finite number', n);
    return Number.isSafeInteger(n) ? { tag: 'int', val: BigInt(n) } : { tag: 'float', val: n };
  }
  throw mismatch(path, 'a number', n);
}

function refinementsTo(r: Refinements, path: Path): wit.Refinements {
  const out: wit.Refinements = {};
  if (r.nullable !== undefined) out.nullable = r.nullable;
  if (r.stringPrefix !== undefined) out.stringPrefix = r.stringPrefix;
  if (r.numberLower) out.numberLower = { value: numberTo(r.numberLower.value, path), inclusive: r.numberLower.inclusive };
  if (r.numberUpper) out.numberUpper = { value: numberTo(r.numberUpper.value, path), inclusive: r.numberUpper.inclusive };
  if (r.lengthLower !== undefined) out.lengthLower = BigInt(r.lengthLower);
  if (r.lengthUpper !== undefined) out.lengthUpper = BigInt(r.lengthUpper);
  return out;
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing (undefined)';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object' && v !== null) return 'an object';
  return `${typeof v} ${JSON.stringify(typeof v === 'bigint' ? v.toString() : v)}`;
}

function mismatch(path: Path, expected: string, got: unknown): TerraformError {
  const where = path.length ? ` at ${pathToString(path)}` : '';
  return new TerraformError('Value does not match the schema', `Expected ${expected}${where}, got ${describe(got)}.`, path);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Unknown) && !(v instanceof Decimal);
}

/** The type a value of schema type `dynamic` is sent with: inferred from the JavaScript value. */
function inferType(v: unknown, path: Path): TypeJson {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof Decimal) return 'number';
  if (Array.isArray(v)) return ['tuple', v.map((e, i) => inferType(e, [...path, i]))];
  if (isPlainObject(v)) {
    const attrs: Record<string, TypeJson> = {};
    for (const [k, e] of Object.entries(v)) attrs[k] = inferType(e, [...path, k]);
    return ['object', attrs];
  }
  throw mismatch(path, 'a known, non-null value inside a dynamic value', v);
}

/**
 * The WIT form of `value`, whose schema type is `type`. Throws a `TerraformError` naming the
 * path when the value does not fit the type (a missing object attribute is null).
 */
export function toWit(value: unknown, type: TypeJson): wit.Value {
  const nodes: wit.Node[] = [];
  const push = (v: unknown, t: TypeJson, path: Path): number => {
    const index = nodes.length;
    nodes.push({ tag: 'null' });
    nodes[index] = node(v, t, path);
    return index;
  };
  const node = (v: unknown, t: TypeJson, path: Path): wit.Node => {
    if (v === null || v === undefined) return { tag: 'null' };
    if (v instanceof Unknown) return { tag: 'unknown', val: refinementsTo(v.refinements, path) };
    const ty = parseType(t);
    switch (ty.kind) {
      case 'string':
        if (typeof v !== 'string') throw mismatch(path, 'a string', v);
        return { tag: 'string', val: v };
      case 'bool':
        if (typeof v !== 'boolean') throw mismatch(path, 'a boolean', v);
        return { tag: 'bool', val: v };
      case 'number':
        return { tag: 'number', val: numberTo(v, path) };
      case 'list':
      case 'set': {
        if (!Array.isArray(v)) throw mismatch(path, `an array (a ${ty.kind})`, v);
        const children = v.map((e, i) => push(e, ty.element, [...path, i]));
        return { tag: ty.kind, val: Uint32Array.from(children) };
      }
      case 'tuple': {
        if (!Array.isArray(v) || v.length !== ty.elements.length) {
          throw mismatch(path, `an array of ${ty.elements.length} elements (a tuple)`, v);
        }
        const children = v.map((e, i) => push(e, ty.elements[i]!, [...path, i]));
        return { tag: 'tuple', val: Uint32Array.from(children) };
      }
      case 'map': {
        if (!isPlainObject(v)) throw mismatch(path, 'an object (a map)', v);
        const entries = Object.keys(v)
          .sort()
          .map((key) => ({ key, value: push(v[key], ty.element, [...path, key]) }));
        return { tag: 'map', val: entries };
      }
      case 'object': {
        if (!isPlainObject(v)) throw mismatch(path, 'an object', v);
        for (const key of Object.keys(v)) {
          if (!(key in ty.attributes) && v[key] !== undefined) {
            throw new TerraformError(
              'Value does not match the schema',
              `${pathToString([...path, key])} is not an attribute of the schema; the attributes are: ${Object.keys(ty.attributes).join(', ') || 'none'}.`,
              path,
            );
          }
        }
        const entries = Object.keys(ty.attributes).map((key) => ({
          key,
          value: push(v[key], ty.attributes[key]!, [...path, key]),
        }));
        return { tag: 'object', val: entries };
      }
      case 'dynamic': {
        const concrete = inferType(v, path);
        return { tag: 'dynamic', val: { type: JSON.stringify(concrete), value: push(v, concrete, path) } };
      }
    }
  };
  push(value, type, []);
  return { nodes };
}

/** Deep equality of two Terraform values (numbers by value, whatever their JavaScript form). */
export function valuesEqual(a: TfValue, b: TfValue): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (a instanceof Unknown || b instanceof Unknown) return a instanceof Unknown && b instanceof Unknown;
  const num = (x: unknown) => typeof x === 'number' || typeof x === 'bigint' || x instanceof Decimal;
  if (num(a) && num(b)) return String(a) === String(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((e, i) => valuesEqual(e, b[i]!));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => valuesEqual((a[k] ?? null) as TfValue, (b[k] ?? null) as TfValue));
  }
  return false;
}
