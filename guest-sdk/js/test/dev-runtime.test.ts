// The development runtime cache (`terrarium-js dev-runtime`) keeps only the few TypeScript
// runtimes used last: every change of the SDK, the WIT or componentize-js is a new ~20 MB file,
// and before, none was ever removed. The same policy as the Python SDK's
// (guest-sdk/python/tests/test_dev_runtime.py). Real files with real mtimes in a temporary
// directory; no runtime is built (the cached one is a stand-in: the cache never reads it).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** guest-sdk/js: this file runs as dist-test/test/dev-runtime.test.js. */
const sdk = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface DevRuntimeCache {
  pruneDevRuntimes(dir: string, language: string, used: string, keep?: number): string[];
  devRuntimeKey(): string;
}

/** bin/dev-runtime.mjs, the module the bin prunes with. */
const cache = (): Promise<DevRuntimeCache> =>
  import(pathToFileURL(join(sdk, 'bin', 'dev-runtime.mjs')).href) as Promise<DevRuntimeCache>;

const DAY = 86400;

/** `dir/name` with an mtime `age` seconds ago. */
function file(dir: string, name: string, age: number): string {
  const path = join(dir, name);
  writeFileSync(path, '\0asm');
  const when = Date.now() / 1000 - age;
  utimesSync(path, when, when);
  return path;
}

/** `dir/LANGUAGE-N.wasm` for each age in `ages` (seconds before now). */
function runtimes(dir: string, language: string, ages: number[]): string[] {
  return ages.map((age, n) => file(dir, `${language}-${n.toString(16).padStart(20, '0')}.wasm`, age));
}

function withDir(run: (dir: string) => void | Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'terrarium-js-devrt-test-'));
    try {
      await run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const names = (dir: string) => readdirSync(dir).sort();

test(
  'pruning keeps the used runtime and the ones used last',
  withDir(async (dir) => {
    const { pruneDevRuntimes } = await cache();
    const [recent, day, twoDays, threeDays] = runtimes(dir, 'typescript', [3600, DAY, 2 * DAY, 3 * DAY]);
    const used = file(dir, 'typescript-used.wasm', 30 * DAY);
    const otherLanguage = runtimes(dir, 'python', [10 * DAY, 20 * DAY, 30 * DAY, 40 * DAY]);
    const crashed = file(dir, `typescript-${'0'.repeat(20)}.wasm.123.partial`, 2 * 3600);
    const building = file(dir, `typescript-${'1'.repeat(20)}.wasm.456.partial`, 0);
    const unrelated = file(dir, 'typescript-notes.txt', 40 * DAY);

    const removed = pruneDevRuntimes(dir, 'typescript', used, 3);

    assert.deepEqual([...removed].sort(), [twoDays, threeDays, crashed].sort());
    const kept = [used, recent!, day!, building, unrelated, ...otherLanguage];
    assert.deepEqual(names(dir), kept.map((p) => p.slice(dir.length + 1)).sort());
    // The one in use is now the most recently used: the next prune keeps it over `day`.
    assert.ok(statSync(used).mtimeMs > statSync(recent!).mtimeMs);
    assert.deepEqual(pruneDevRuntimes(dir, 'typescript', recent!, 2), [day]);
    assert.ok(existsSync(used));
  }),
);

test(
  'pruning never removes the used runtime',
  withDir(async (dir) => {
    const { pruneDevRuntimes } = await cache();
    const [older, used] = runtimes(dir, 'typescript', [7200, 3600]);
    assert.deepEqual(pruneDevRuntimes(dir, 'typescript', used!, 0), [older]);
    assert.deepEqual(pruneDevRuntimes(dir, 'typescript', used!, 1), []);
    assert.deepEqual(names(dir), [used!.slice(dir.length + 1)]);
  }),
);

test(
  'terrarium-js dev-runtime prunes the others when its runtime is cached',
  withDir(async (dir) => {
    const { devRuntimeKey } = await cache();
    const current = file(dir, `typescript-${devRuntimeKey()}.wasm`, 9 * DAY);
    const old = runtimes(dir, 'typescript', [1, 2, 3, 4, 5].map((n) => n * DAY));

    const run = spawnSync(process.execPath, [join(sdk, 'bin', 'terrarium-js.mjs'), 'dev-runtime'], {
      env: { ...process.env, TERRARIUM_DEV_RUNTIME_CACHE: dir },
      encoding: 'utf8',
    });

    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.split('\n')[0], current);
    assert.deepEqual(names(dir), [current, old[0]!, old[1]!].map((p) => p.slice(dir.length + 1)).sort());
    assert.ok(statSync(current).mtimeMs > statSync(old[0]!).mtimeMs);
  }),
);
