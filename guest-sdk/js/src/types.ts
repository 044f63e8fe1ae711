// Terraform types in Terraform's own JSON type syntax, which the WIT world uses wherever a type
// is needed: `"string"`, `["list","number"]`, `["object",{"a":"string"},["a"]]`.

export type TypeJson = 'string' | 'number' | 'bool' | 'dynamic' | [string, ...unknown[]];

export type ParsedType =
  | { kind: 'string' | 'number' | 'bool' | 'dynamic' }
  | { kind: 'list' | 'set' | 'map'; element: TypeJson }
  | { kind: 'tuple'; elements: TypeJson[] }
  | { kind: 'object'; attributes: Record<string, TypeJson>; optional: string[] };

/** The structure of a type (a JSON text or its parsed form). */
export function parseType(type: TypeJson | string): ParsedType {
  const t: unknown = typeof type === 'string' && type.startsWith('[') ? JSON.parse(type) : type;
  if (t === 'string' || t === 'number' || t === 'bool' || t === 'dynamic') return { kind: t };
  if (Array.isArray(t)) {
    const [kind, arg, optional] = t as [string, unknown, unknown];
    switch (kind) {
      case 'list':
      case 'set':
      case 'map':
        return { kind, element: arg as TypeJson };
      case 'tuple':
        return { kind, elements: arg as TypeJson[] };
      case 'object':
        return { kind, attributes: arg as Record<string, TypeJson>, optional: (optional as string[]) ?? [] };
    }
  }
  throw new TypeError(`${JSON.stringify(t)} is not a Terraform type`);
}

/** What provider code returns: a value, or a promise of one (`async` methods may `await fetch`). */
export type MaybePromise<T> = T | Promise<T>;
