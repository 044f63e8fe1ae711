// Tests for a provider built with this SDK, in node's test runner (or any other): the built
// component runs in `terrarium harness`, the host's own dispatch core, so a test sees the very
// planner, checks and sandbox that terraform sees, without terraform.
//
//     import { Harness } from '@terrarium/sdk/harness';
//     const h = await Harness.start('provider.wasm', { allowDir: [`${dir}:rw`] });
//     const pet = await h.create('pets_pet', { name: 'rex' });
//     assert.equal(pet.state.legs, 4);
//     h.close();

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Plain JSON, as the harness writes values (unknowns are null, with a mask beside them). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A diagnostic as the harness reports it: `attribute` is the path as Terraform prints it. */
export interface HarnessDiagnostic {
  severity: 'error' | 'warning';
  summary: string;
  detail: string;
  attribute: string;
}

/** An operation that ended with error diagnostics (or that the harness could not make). */
export class DiagnosticsError extends Error {
  constructor(
    readonly diagnostics: HarnessDiagnostic[],
    during: string,
  ) {
    super(
      `${during}: ${diagnostics
        .filter((d) => d.severity === 'error')
        .map((d) => `${d.attribute ? `${d.attribute}: ` : ''}${d.summary}${d.detail ? ` (${d.detail})` : ''}`)
        .join('; ')}`,
    );
    this.name = 'DiagnosticsError';
  }

  /** The error diagnostics' attribute paths, e.g. `['name']`. */
  get attributes(): string[] {
    return this.diagnostics.filter((d) => d.severity === 'error').map((d) => d.attribute);
  }
}

/** A provider function's error: its text and the argument (from 0) it is about. */
export class FunctionCallError extends Error {
  constructor(
    readonly text: string,
    readonly argument: number | null,
  ) {
    super(text);
    this.name = 'FunctionCallError';
  }
}

export interface Plan {
  planned: Json;
  /** Where the plan is unknown ("known after apply"), in the shape of `after_unknown`. */
  plannedUnknown: Json;
  requiresReplace: string[];
  plannedPrivate: string;
  plannedIdentity: Json;
  diagnostics: HarnessDiagnostic[];
}

/**
 * What a step produced, in every language's harness (docs/harness.md has the table): the state
 * after it, and for the steps that plan (`create`, `update`, `destroy`, `apply`), the plan.
 */
export interface Outcome<P extends Plan | null = Plan> {
  /** The state after the step (null after a destroy, or when read found nothing). */
  state: Record<string, Json> | null;
  /** The plan the step applied; null for `read`, `readData` and `import`, which do not plan. */
  plan: P;
  /** Whether the step replaced the object (destroy and create) rather than update it. */
  replaced: boolean;
  /** The attributes whose change forced the replacement (as Terraform prints paths). */
  requiresReplace: string[];
  /** Warnings along the way. */
  diagnostics: HarnessDiagnostic[];
}

export interface HarnessOptions {
  /** `DIR` or `DIR:rw`, as `terrarium install --allow-dir` takes them. */
  allowDir?: string[];
  /** Origins, as `--allow-http` takes them. */
  allowHttp?: string[];
  /** Environment variable names, as `--allow-env` takes them. */
  allowEnv?: string[];
  /** The `terrarium` executable: `$TERRARIUM_BIN`, else `terrarium` on the PATH. */
  terrarium?: string;
}

type Answer = Record<string, Json>;

/** A provider component served by `terrarium harness`, driven step by step. */
export class Harness {
  private readonly pending: { resolve(a: Answer): void; reject(e: Error): void }[] = [];
  private stderr = '';
  private exited: Error | undefined;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const waiter = this.pending.shift();
      if (!waiter) return;
      try {
        waiter.resolve(JSON.parse(line) as Answer);
      } catch {
        waiter.reject(new Error(`terrarium harness answered with something that is not JSON: ${line}`));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-8000);
    });
    child.on('exit', (code, signal) => {
      this.exited = new Error(
        `terrarium harness exited (${signal ?? `status ${code}`}); its last output:\n${this.stderr.trim()}`,
      );
      for (const waiter of this.pending.splice(0)) waiter.reject(this.exited);
    });
    child.on('error', (e) => {
      this.exited = new Error(`cannot run terrarium harness: ${e.message}`);
      for (const waiter of this.pending.splice(0)) waiter.reject(this.exited);
    });
  }

  /** Starts `terrarium harness` on `component` with the grants of `options`. */
  static async start(component: string, options: HarnessOptions = {}): Promise<Harness> {
    const args = ['harness', component];
    for (const d of options.allowDir ?? []) args.push('--allow-dir', d);
    for (const h of options.allowHttp ?? []) args.push('--allow-http', h);
    for (const e of options.allowEnv ?? []) args.push('--allow-env', e);
    const bin = options.terrarium ?? process.env.TERRARIUM_BIN ?? 'terrarium';
    const harness = new Harness(spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] }));
    await harness.schema(); // fails here, with the host's words, if the component cannot load
    return harness;
  }

  /** Ends the harness process. */
  close(): void {
    this.child.stdin.end();
  }

  /** One request, its answer; `{error}` answers (a request that could not be made) throw. */
  async request(request: Record<string, Json>): Promise<Answer> {
    if (this.exited) throw this.exited;
    const answer = new Promise<Answer>((resolve, reject) => this.pending.push({ resolve, reject }));
    this.child.stdin.write(`${JSON.stringify(request)}\n`);
    const a = await answer;
    if (typeof a.error === 'string') throw new Error(`terrarium harness refused ${request.op}: ${a.error}`);
    return a;
  }

  private async checked(request: Record<string, Json>, during: string): Promise<Answer> {
    const a = await this.request(request);
    const diagnostics = (a.diagnostics ?? []) as unknown as HarnessDiagnostic[];
    if (diagnostics.some((d) => d.severity === 'error')) throw new DiagnosticsError(diagnostics, during);
    return a;
  }

  /** The provider's schema, as `terrarium inspect` prints it. */
  async schema(): Promise<Answer> {
    return this.request({ op: 'schema' });
  }

  /** Validates and configures the provider. */
  async configure(config: Record<string, Json>): Promise<HarnessDiagnostic[]> {
    return (await this.checked({ op: 'configure', config }, 'configure')).diagnostics as never;
  }

  /** Validates a configuration; returns its warnings, throws on errors. */
  async validate(
    type: string,
    config: Record<string, Json>,
    kind: 'resource' | 'data_source' | 'provider' = 'resource',
  ): Promise<HarnessDiagnostic[]> {
    return (await this.checked({ op: 'validate', kind, type, config }, `validate ${type}`)).diagnostics as never;
  }

  /** PlanResourceChange as terraform makes it (prior null: create; config null: destroy). */
  async plan(type: string, prior: Json, config: Json, priorPrivate = ''): Promise<Plan> {
    const a = await this.checked(
      { op: 'plan', type, prior, config, prior_private: priorPrivate },
      `plan ${type}`,
    );
    return {
      planned: a.planned ?? null,
      plannedUnknown: a.planned_unknown ?? false,
      requiresReplace: (a.requires_replace ?? []) as string[],
      plannedPrivate: (a.planned_private ?? '') as string,
      plannedIdentity: a.planned_identity ?? null,
      diagnostics: (a.diagnostics ?? []) as never,
    };
  }

  /** ApplyResourceChange of `plan`. */
  async apply(type: string, prior: Json, plan: Plan, config: Json): Promise<Outcome> {
    const a = await this.checked(
      {
        op: 'apply',
        type,
        prior,
        planned: plan.planned,
        planned_unknown: plan.plannedUnknown,
        planned_private: plan.plannedPrivate,
        planned_identity: plan.plannedIdentity,
        config,
      },
      `apply ${type}`,
    );
    const state = (a.state ?? null) as Record<string, Json> | null;
    const diagnostics = [...plan.diagnostics, ...((a.diagnostics ?? []) as unknown as HarnessDiagnostic[])];
    return { state, plan, replaced: false, requiresReplace: [], diagnostics };
  }

  /** Validate, plan and apply a new object. */
  async create(type: string, config: Record<string, Json>): Promise<Outcome> {
    const warnings = await this.validate(type, config);
    const applied = await this.apply(type, null, await this.plan(type, null, config), config);
    return { ...applied, diagnostics: [...warnings, ...applied.diagnostics] };
  }

  /**
   * Validate, plan and apply a change of `prior` to `config`; a plan that requires a
   * replacement destroys the old object and creates a new one, as terraform does.
   */
  async update(type: string, prior: Record<string, Json>, config: Record<string, Json>): Promise<Outcome> {
    const warnings = await this.validate(type, config);
    const plan = await this.plan(type, prior, config);
    if (plan.requiresReplace.length === 0) {
      const applied = await this.apply(type, prior, plan, config);
      return { ...applied, diagnostics: [...warnings, ...applied.diagnostics] };
    }
    await this.destroy(type, prior);
    const created = await this.create(type, config);
    return {
      ...created,
      replaced: true,
      requiresReplace: plan.requiresReplace,
      diagnostics: [...warnings, ...created.diagnostics],
    };
  }

  /** Plan and apply the destruction of `prior`; the outcome's state is null. */
  async destroy(type: string, prior: Record<string, Json>): Promise<Outcome> {
    return this.apply(type, prior, await this.plan(type, prior, null), null);
  }

  /** ReadResource: the object's state now (null when it is gone), as terraform refreshes it. */
  async read(type: string, state: Record<string, Json>): Promise<Outcome<null>> {
    const a = await this.checked({ op: 'read', type, state }, `read ${type}`);
    return unplanned((a.state ?? null) as never, a);
  }

  /**
   * `terraform import`: the imported object read back, as terraform does. `import` in every
   * harness (`import_` in Python, where `import` is a keyword); it was `importState`, which
   * returned the state alone.
   */
  async import(type: string, id: string): Promise<Outcome<null>> {
    const a = await this.checked({ op: 'import', type, id }, `import ${type}`);
    const imported = (a.imported ?? []) as { type: string; state: Record<string, Json> }[];
    if (imported.length !== 1) throw new Error(`import ${type} ${id} gave ${imported.length} objects, not 1`);
    const read = await this.read(imported[0]!.type, imported[0]!.state);
    if (read.state === null) throw new Error(`import ${type} ${id}: the imported object was not found when read`);
    return { ...read, diagnostics: [...((a.diagnostics ?? []) as unknown as HarnessDiagnostic[]), ...read.diagnostics] };
  }

  /** ReadDataSource: the data source's state. */
  async readData(type: string, config: Record<string, Json>): Promise<Outcome<null>> {
    const warnings = await this.validate(type, config, 'data_source');
    const a = await this.checked({ op: 'read_data', type, config }, `read data ${type}`);
    const read = unplanned((a.state ?? null) as never, a);
    return { ...read, diagnostics: [...warnings, ...read.diagnostics] };
  }

  /** Calls a provider function; a function error throws a `FunctionCallError`. */
  async call(name: string, ...args: Json[]): Promise<Json> {
    const a = await this.request({ op: 'call', function: name, arguments: args });
    const error = a.function_error as { text: string; argument: number | null } | null | undefined;
    if (error) throw new FunctionCallError(error.text, error.argument ?? null);
    return a.result ?? null;
  }
}

/** The outcome of a step that does not plan, from its answer `a`. */
function unplanned(state: Record<string, Json> | null, a: Answer): Outcome<null> {
  return { state, plan: null, replaced: false, requiresReplace: [], diagnostics: (a.diagnostics ?? []) as never };
}
