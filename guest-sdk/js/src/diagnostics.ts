// Errors and warnings that reach Terraform as diagnostics, each about an attribute path.

import type { wit } from './bindings.js';

/**
 * A path into a value: attribute names and map keys are strings, list/tuple indexes are
 * numbers. `["toys", 0, "kind"]` is `toys[0].kind`. Use `key("k")` for a map key.
 */
export type Path = ReadonlyArray<string | number | MapKey>;

/** A map key in a `Path` (a plain string is an attribute name). */
export class MapKey {
  constructor(readonly key: string) {}
}

/** The step of a `Path` that is the map key `k`: `["tags", key("env")]` is `tags["env"]`. */
export function key(k: string): MapKey {
  return new MapKey(k);
}

export function pathToString(path: Path): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'number') out += `[${step}]`;
    else if (step instanceof MapKey) out += `[${JSON.stringify(step.key)}]`;
    else out += out ? `.${step}` : step;
  }
  return out;
}

export function pathToWit(path: Path): wit.AttributePath {
  return path.map((step) =>
    typeof step === 'number'
      ? { tag: 'index', val: BigInt(step) }
      : step instanceof MapKey
        ? { tag: 'key', val: step.key }
        : { tag: 'attribute', val: step },
  );
}

export function pathFromWit(path: wit.AttributePath): Path {
  return path.map((step) =>
    step.tag === 'index' ? Number(step.val) : step.tag === 'key' ? new MapKey(step.val) : step.val,
  );
}

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  severity: Severity;
  summary: string;
  detail: string;
  /** Empty when the diagnostic is about the whole object. */
  path: Path;
}

/**
 * Throw it from any provider code: Terraform shows `summary` and `detail`, pointing at the
 * attribute `path` in the configuration.
 *
 *     throw new TerraformError('Invalid name', 'Names are lower case.', ['name']);
 */
/**
 * Why a call asks Terraform to defer it to a later plan (`TerraformError.deferred`), as the
 * Rust SDK's `DeferredReason`.
 */
export const DeferredReason = {
  Unknown: 'unknown',
  ResourceConfigUnknown: 'resource-config-unknown',
  ProviderConfigUnknown: 'provider-config-unknown',
  AbsentPrerequisite: 'absent-prerequisite',
} as const;
export type DeferredReason = (typeof DeferredReason)[keyof typeof DeferredReason];

/** What a deferral's reason says in the error a Terraform that accepts none shows. */
export function describeDeferral(reason: DeferredReason): string {
  switch (reason) {
    case 'resource-config-unknown':
      return 'the resource configuration has unknown values';
    case 'provider-config-unknown':
      return 'the provider configuration has unknown values';
    case 'absent-prerequisite':
      return 'something it needs does not exist yet';
    default:
      return 'reason not given';
  }
}

export class TerraformError extends Error {
  readonly diagnostics: Diagnostic[];
  /** The state a failed create or update reached (`withState`); undefined: nothing changed. */
  state?: unknown;
  /** The deferral asked for with `TerraformError.deferred`; undefined: none. */
  deferral?: DeferredReason;

  /**
   * Asks Terraform to defer this call to a later plan, as the Rust SDK's
   * `Diagnostics::deferred` does: from a resource's `plan`, `read`, `importState` or
   * `importByIdentity`, a data source's `read`, an ephemeral resource's `open` or an action's
   * `plan`. Honoured when Terraform accepts deferrals (`-allow-deferral`); otherwise the call
   * fails with an error that says why.
   *
   *     throw TerraformError.deferred(DeferredReason.ResourceConfigUnknown);
   */
  static deferred(reason: DeferredReason): TerraformError {
    const e = new TerraformError('Deferred', describeDeferral(reason));
    e.diagnostics.splice(0);
    e.deferral = reason;
    return e;
  }

  constructor(summary: string, detail = '', path: Path = []) {
    super(detail ? `${summary}: ${detail}` : summary);
    this.name = 'TerraformError';
    this.diagnostics = [{ severity: 'error', summary, detail, path }];
  }

  /**
   * This error, carrying the state a failed create or update reached: what it made or
   * changed before it failed, so that Terraform records the object (tainted, after a create)
   * instead of losing track of it. Unknown values in it are stored as null.
   *
   *     throw new TerraformError('Server failed to boot', '...').withState(started);
   */
  withState(state: unknown): this {
    this.state = state;
    return this;
  }

  /** Several problems at once (for example one per attribute); at least one is an error. */
  static of(diagnostics: Diagnostic[]): TerraformError {
    const e = new TerraformError(diagnostics[0]?.summary ?? 'Error');
    e.diagnostics.splice(0, 1, ...diagnostics);
    return e;
  }
}

/**
 * Diagnostics collected along the way: `warn` for warnings that do not stop the call,
 * `error` for problems to report together; `throwIfErrors()` ends the call when there are any.
 */
export class Diagnostics {
  readonly items: Diagnostic[] = [];

  error(summary: string, detail = '', path: Path = []): this {
    this.items.push({ severity: 'error', summary, detail, path });
    return this;
  }

  warn(summary: string, detail = '', path: Path = []): this {
    this.items.push({ severity: 'warning', summary, detail, path });
    return this;
  }

  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === 'error');
  }

  throwIfErrors(): void {
    if (this.hasErrors) throw TerraformError.of(this.items.splice(0));
  }
}

export function diagnosticToWit(d: Diagnostic): wit.Diagnostic {
  return { severity: d.severity, summary: d.summary, detail: d.detail, attribute: pathToWit(d.path) };
}

/**
 * What a thrown value tells Terraform: a `TerraformError`'s diagnostics, or, for anything
 * else (a bug), an error naming where it happened and what was thrown.
 */
export function diagnosticsOf(thrown: unknown, during: string): Diagnostic[] {
  if (thrown instanceof TerraformError) return thrown.diagnostics;
  const message = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
  return [{ severity: 'error', summary: `Provider error in ${during}`, detail: message, path: [] }];
}
