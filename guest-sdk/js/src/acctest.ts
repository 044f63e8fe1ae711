// Acceptance tests with a real terraform: a TestCase installs the built component with
// `terrarium install` into a filesystem mirror of its own, applies each Step's configuration and
// checks the state, then destroys, as the Rust `terrarium-acctest` crate and the Go and Python
// SDKs' `acctest` do. Runs natively, in node's test runner (`terrarium-js test`):
//
//     import { Check, TestCase } from '@terrarium/sdk/acctest';
//     test('a pet lives', () => {
//       new TestCase({
//         provider: { component: 'target/pets.wasm', source: 'example/pets' },
//         steps: [{ config: 'resource "pets_pet" "rex" { name = "rex" }',
//                   checks: [Check.attr('pets_pet.rex', 'legs', 4)] }],
//       }).run();
//     });
//
// terraform is $TERRAFORM, else `terraform` on the PATH; terrarium is $TERRARIUM_BIN, else
// `terrarium` on the PATH.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The component under test and the address configurations give it. */
export interface Provider {
  /** The built .wasm file. */
  component: string;
  /** The provider's source address ([HOST/]NAMESPACE/NAME). */
  source: string;
  /** The version it is installed as (default 0.1.0). */
  version?: string;
  /** `terrarium install` arguments (`--allow-dir`, `DIR:rw`, ...). */
  grants?: string[];
}

/** `terraform show -json`'s `values`. */
export type State = { [key: string]: unknown };

/** A check of the state after a step; it throws an AcceptanceError with what it found. */
export type StateCheck = (state: State) => void;

/** One configuration, applied; its checks run on the state after it. With `expectError` the
 * apply must fail with that text in its errors (whitespace compared loosely, as terraform
 * wraps lines) and the checks are not run. */
export interface Step {
  config: string;
  checks?: StateCheck[];
  expectError?: string;
}

/** A step that did not do what the test expects; the message carries terraform's output. */
export class AcceptanceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcceptanceError';
  }
}

/** terraform: `$TERRAFORM`, else `terraform` on the PATH. */
export function terraformBinary(): string {
  return process.env.TERRAFORM || 'terraform';
}

/** A provider and the steps applied with it, in order, then destroyed. */
export class TestCase {
  constructor(readonly options: { provider: Provider; steps: Step[] }) {}

  /** Runs every step in `dir` (default: a new temporary directory, removed when every step
   * passed), then destroys. The first failure throws an AcceptanceError with the step's number
   * and terraform's output. After each step that applies, a plan must find nothing left to do. */
  run(dir?: string): void {
    const root = dir ?? mkdtempSync(join(tmpdir(), 'terrarium-acctest-'));
    this.runIn(root);
    if (dir === undefined) rmSync(root, { recursive: true, force: true });
  }

  private runIn(root: string): void {
    const { provider, steps } = this.options;
    const version = provider.version ?? '0.1.0';
    const name = provider.source.slice(provider.source.lastIndexOf('/') + 1);
    const workspace = Workspace.install(provider, version, root);
    const header =
      `terraform {\n  required_providers {\n    ${name} = {\n` +
      `      source  = ${JSON.stringify(provider.source)}\n      version = ${JSON.stringify(version)}\n` +
      '    }\n  }\n}\n';
    let lastApplied = header;
    steps.forEach((step, i) => {
      const n = i + 1;
      const config = `${header}\n${step.config}\n`;
      workspace.write(config);
      if (n === 1) workspace.must(n, 'init failed', 'init', '-input=false');
      const [ok, out] = workspace.run('apply', '-input=false', '-auto-approve');
      if (step.expectError !== undefined) {
        if (ok) throw new AcceptanceError(`step ${n}: expected an error, the apply succeeded\n${out}`);
        if (!loosely(out).includes(loosely(step.expectError))) {
          throw new AcceptanceError(`step ${n}: expected ${JSON.stringify(step.expectError)} in the errors\n${out}`);
        }
        return;
      }
      if (!ok) throw new AcceptanceError(`step ${n}: apply failed\n${out}`);
      lastApplied = config;
      const state = workspace.state();
      for (const check of step.checks ?? []) {
        try {
          check(state);
        } catch (e) {
          const what = e instanceof Error ? e.message : String(e);
          throw new AcceptanceError(`step ${n}: ${what}\nstate:\n${JSON.stringify(state, null, 2)}`);
        }
      }
      workspace.must(n, 'the plan after apply is not empty (or failed)', 'plan', '-input=false', '-detailed-exitcode');
    });
    workspace.write(lastApplied);
    const [ok, out] = workspace.run('destroy', '-input=false', '-auto-approve');
    if (!ok) throw new AcceptanceError(`destroy failed\n${out}`);
  }
}

/** Checks of the state after a step (`terraform show -json`'s values). */
export const Check = {
  /** The attribute at `path` (`name`, `toys.0.kind`) of the resource at `address`
   * (`pets_pet.rex`, `data.pets_pet.rex`) is `expected` (compared as JSON). */
  attr(address: string, path: string, expected: unknown): StateCheck {
    return (state) => {
      const [found, actual] = lookup(resource(state, address), path);
      if (!found) throw new AcceptanceError(`${address} has no ${path}`);
      if (!sameJson(actual, expected)) {
        throw new AcceptanceError(`${address}.${path} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
      }
    };
  },

  /** The attribute at `path` of the resource at `address` is set (not null). */
  attrSet(address: string, path: string): StateCheck {
    return (state) => {
      const [found, actual] = lookup(resource(state, address), path);
      if (!found || actual === null) throw new AcceptanceError(`${address}.${path} is not set`);
    };
  },

  /** The root module's output `name` is `expected` (compared as JSON). */
  output(name: string, expected: unknown): StateCheck {
    return (state) => {
      const outputs = (state.outputs ?? {}) as Record<string, { value?: unknown }>;
      const output = outputs[name];
      if (output === undefined) throw new AcceptanceError(`no output ${name}`);
      if (!sameJson(output.value, expected)) {
        throw new AcceptanceError(`output ${name} is ${JSON.stringify(output.value)}, expected ${JSON.stringify(expected)}`);
      }
    };
  },
};

/** A terraform working directory with its own CLI config and mirror. */
class Workspace {
  private constructor(
    private readonly work: string,
    private readonly terraform: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static install(provider: Provider, version: string, root: string): Workspace {
    const component = resolve(provider.component);
    const mirror = join(root, 'mirror');
    const terrarium = process.env.TERRARIUM_BIN || 'terrarium';
    const args = ['install', component, '--source', provider.source, '--version', version, '--mirror', mirror];
    const installed = spawnSync(terrarium, [...args, ...(provider.grants ?? [])], { encoding: 'utf8' });
    if (installed.error) throw new AcceptanceError(`cannot run ${terrarium}: ${installed.error.message}`);
    if (installed.status !== 0) {
      throw new AcceptanceError(`terrarium install ${component} failed\n${installed.stdout}${installed.stderr}`);
    }
    const cliConfig = join(root, 'terraform.tfrc');
    writeFileSync(
      cliConfig,
      'disable_checkpoint = true\n\nprovider_installation {\n  filesystem_mirror {\n' +
        `    path    = ${JSON.stringify(mirror)}\n    include = [${JSON.stringify(provider.source)}]\n  }\n}\n`,
    );
    const work = join(root, 'work');
    mkdirSync(work);
    const env = {
      ...process.env,
      TF_CLI_CONFIG_FILE: cliConfig,
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
      TF_PLUGIN_CACHE_DIR: '',
      TF_DATA_DIR: join(work, '.terraform'),
    };
    return new Workspace(work, terraformBinary(), env);
  }

  write(config: string): void {
    writeFileSync(join(this.work, 'main.tf'), config);
  }

  /** terraform with `args` (and `-no-color`): whether it succeeded, and its output. */
  run(command: string, ...args: string[]): [boolean, string] {
    const done = spawnSync(this.terraform, [command, '-no-color', ...args], {
      cwd: this.work,
      env: this.env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (done.error) throw new AcceptanceError(`cannot run ${this.terraform}: ${done.error.message} (set TERRAFORM)`);
    return [done.status === 0, done.stdout + done.stderr];
  }

  must(step: number, what: string, command: string, ...args: string[]): void {
    const [ok, out] = this.run(command, ...args);
    if (!ok) throw new AcceptanceError(`step ${step}: ${what}\n${out}`);
  }

  state(): State {
    const done = spawnSync(this.terraform, ['show', '-json'], {
      cwd: this.work,
      env: this.env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (done.status !== 0) throw new AcceptanceError(`terraform show -json failed\n${done.stderr}`);
    return ((JSON.parse(done.stdout) as { values?: State }).values ?? {}) as State;
  }
}

function loosely(text: string): string {
  return text.split(/\s+/).filter(Boolean).join(' ');
}

function resource(state: State, address: string): unknown {
  const root = (state.root_module ?? {}) as { resources?: { address: string; values?: unknown }[] };
  const found = (root.resources ?? []).find((r) => r.address === address);
  if (found === undefined) throw new AcceptanceError(`no ${address} in the state`);
  return found.values ?? {};
}

/** Follows a path of attribute names and list indexes (`toys.0.kind`). */
function lookup(values: unknown, path: string): [boolean, unknown] {
  let at = values;
  for (const part of path.split('.')) {
    if (Array.isArray(at) && /^\d+$/.test(part) && Number(part) < at.length) {
      at = at[Number(part)];
    } else if (at !== null && typeof at === 'object' && !Array.isArray(at) && part in at) {
      at = (at as Record<string, unknown>)[part];
    } else {
      return [false, undefined];
    }
  }
  return [true, at];
}

/** Equal as JSON, object keys in any order (numbers are JSON's: 4 equals 4.0). */
function sameJson(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, x]) => [k, canonical(x)]))
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
