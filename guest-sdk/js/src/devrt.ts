// The TypeScript development runtime's entry: the WIT `provider`, `behaviour`, `replacement`
// and `computed-blocks` exports, answered by the author's module, which is read from the directory
// `terrarium dev` grants read-only and evaluated on an instance's first call.
//
// `terrarium-js dev-runtime` builds this module (the engine and the SDK, none of the author's
// code) with componentize-js once and caches it; `terrarium dev provider.ts` bundles the
// author's module with esbuild on each save (CommonJS, with `@terrarium/sdk` left to this
// runtime), so a reload is a new instance that evaluates the new bundle, never a new build.

import { getEnvironment } from 'wasi:cli/environment@0.2.12';
import * as sdk from './index.js';
import { readText } from './files.js';
import { Provider } from './provider.js';
import { computedBlocks as servedBlocks, replacement as served, serve } from './serve.js';

/** The directory holding the author's bundle (granted read-only by `terrarium dev`). */
export const DIR_VAR = 'TERRARIUM_DEV_JS_DIR';
/** The bundle's file name in that directory (`provider.js`). */
export const MODULE_VAR = 'TERRARIUM_DEV_JS_MODULE';

type Exports = ReturnType<typeof serve>;

/** The author's module threw while it was evaluated. */
class ModuleLoadError extends Error {
  override name = 'ModuleLoadError';
}

let loaded: Exports | undefined;

/** What the bundle may `require`: the SDK this runtime holds, so that the author's `serve`
 * is the one whose state (`replacement`) these exports read. */
function requireFor(file: string): (name: string) => unknown {
  return (name: string) => {
    if (name === '@terrarium/sdk') return sdk;
    throw new Error(
      `${file} imports ${name}, which the TypeScript development runtime does not have: it holds ` +
        'only @terrarium/sdk (npm packages are bundled in); build the whole component ' +
        '(terrarium-js build) to use it',
    );
  };
}

/** The author's `provider` and `behaviour`, evaluated on this instance's first call. An error
 * while evaluating goes to stderr (the dev terminal) with its stack, then is thrown. */
function load(): Exports {
  if (loaded) return loaded;
  const env = new Map(getEnvironment());
  const dir = env.get(DIR_VAR);
  const name = env.get(MODULE_VAR);
  if (!dir || !name) {
    throw new Error(
      `the TypeScript development runtime needs ${DIR_VAR} and ${MODULE_VAR}: serve it with ` +
        '`terrarium dev provider.ts`, not as a component',
    );
  }
  const file = `${dir}/${name}`;
  const module: { exports: Record<string, unknown> } = { exports: {} };
  try {
    const source = readText(file);
    // The bundle is a CommonJS module: evaluated as a function body, as node would.
    const evaluate = new Function('require', 'module', 'exports', `${source}\n//# sourceURL=${file}\n`);
    evaluate(requireFor(file), module, module.exports);
  } catch (e) {
    // Said once, with the module's own stack (the engine's report of the error thrown below
    // has only this runtime's); the instance then fails to start, and the previous version
    // keeps serving.
    const what = e instanceof Error ? (e.name === 'Error' ? e.message : `${e.name}: ${e.message}`) : String(e);
    const stack = e instanceof Error && e.stack ? `\n${e.stack.trimEnd().replace(/^/gm, '    at ')}` : '';
    console.error(`${file} threw while loading: ${what}${stack}`);
    throw new ModuleLoadError(`${file} threw while loading: ${what}`);
  }
  const { provider, behaviour } = module.exports as Partial<Exports>;
  if (!provider || !behaviour) {
    throw new Error(
      `${file} exports no provider: add this line at the end of the entry module: ` +
        '`export const { provider, behaviour } = serve(new YourProvider());`',
    );
  }
  loaded = { provider, behaviour };
  return loaded;
}

/** The exports' shape (every function of each interface), from a provider with nothing in it. */
const shape = serve(new (class DevelopmentRuntime extends Provider {})());

/** An object with `of`'s functions, each calling the same function of the author's export. */
function forward<T extends object>(of: T, pick: (e: Exports) => T): T {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(of)) {
    out[key] = (...args: unknown[]) => (pick(load()) as Record<string, (...a: unknown[]) => unknown>)[key]!(...args);
  }
  return out as T;
}

export const provider = forward(shape.provider, (e) => e.provider);
export const behaviour = forward(shape.behaviour, (e) => e.behaviour);
export const replacement = {
  deleteBeforeReplace(): string[] {
    // The author's `serve` says which types delete first.
    load();
    return served.deleteBeforeReplace();
  },
};
export const computedBlocks = {
  computedBlocks(): ReturnType<typeof servedBlocks.computedBlocks> {
    // The author's `serve` says which blocks are computed (WIT 0.2.3).
    load();
    return servedBlocks.computedBlocks();
  },
};
