// The cache of the TypeScript development runtime (`terrarium-js dev-runtime`): where it is,
// the key a runtime is built for, and the pruning that keeps only the few used last. Its own
// module so that the SDK's tests (test/dev-runtime.test.ts) run the very code the bin does.

import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdkDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const witDir = resolve(sdkDir, '..', '..', 'wit');

/** How many runtimes of one language the cache keeps: the one in use and the ones used last
 * before it (another checkout's SDK, a branch switched back to). As in the Python SDK. */
export const KEEP = 3;

/** A `*.partial` file older than this many milliseconds was left by a build that crashed (a
 * build takes well under a minute). */
export const PARTIAL_AGE_MS = 3600 * 1000;

/** Where the development runtime is cached: TERRARIUM_DEV_RUNTIME_CACHE, else
 * $XDG_CACHE_HOME/terrarium/dev-runtime (~/.cache/terrarium/dev-runtime), as for Python. */
export function devRuntimeCache() {
  if (process.env.TERRARIUM_DEV_RUNTIME_CACHE) return resolve(process.env.TERRARIUM_DEV_RUNTIME_CACHE);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'terrarium', 'dev-runtime');
}

/** What the runtime is built from: this SDK's sources and build script (bin/terrarium-js.mjs),
 * the WIT and componentize-js's version. */
export function devRuntimeKey() {
  const digest = createHash('sha256');
  const files = [
    ...listFiles(join(sdkDir, 'src')).filter((f) => f.endsWith('.ts')),
    ...listFiles(witDir).filter((f) => f.endsWith('.wit')),
    join(sdkDir, 'bin', 'terrarium-js.mjs'),
  ].sort();
  for (const file of files) digest.update(`${relative(sdkDir, file)}\0`).update(readFileSync(file)).update('\0');
  const componentizeJs = JSON.parse(
    readFileSync(join(sdkDir, 'node_modules', '@bytecodealliance', 'componentize-js', 'package.json'), 'utf8'),
  ).version;
  digest.update(`componentize-js ${componentizeJs}`);
  return digest.digest('hex').slice(0, 20);
}

/** Marks `used` (`dir/LANGUAGE-KEY.wasm`) as just used (its mtime), keeps it and the `keep - 1`
 * other runtimes of `language` in `dir` used most recently, and removes the rest of them and
 * `language`'s `*.partial` files older than PARTIAL_AGE_MS; returns the paths it removed. Never
 * `used`, nor another language's files. The Python SDK's `terrarium.dev_runtime.prune` does the
 * same.
 *
 * A `terrarium dev` reads its runtime once, when it starts: removing one that another process
 * still serves does not disturb it. Files that vanish meanwhile (a concurrent prune) or cannot
 * be removed are passed over: the cache is tidied, never a reason to fail. */
export function pruneDevRuntimes(dir, language, used, keep = KEEP) {
  const now = Date.now();
  try {
    utimesSync(used, now / 1000, now / 1000);
  } catch {
    // Not ours to touch (a read-only cache): it is still returned.
  }
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const runtimes = [];
  const removed = [];
  for (const name of names) {
    if (!name.startsWith(`${language}-`)) continue;
    const path = join(dir, name);
    let mtime;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {
      continue;
    }
    if (name.endsWith('.partial')) {
      if (now - mtime > PARTIAL_AGE_MS) removed.push(path);
    } else if (name.endsWith('.wasm') && resolve(path) !== resolve(used)) {
      runtimes.push({ mtime, path });
    }
  }
  runtimes.sort((a, b) => b.mtime - a.mtime);
  removed.push(...runtimes.slice(Math.max(keep - 1, 0)).map((r) => r.path));
  return removed.filter((path) => {
    try {
      unlinkSync(path);
      return true;
    } catch {
      return false;
    }
  });
}

export function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)],
  );
}
