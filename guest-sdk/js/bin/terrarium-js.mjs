#!/usr/bin/env node
// terrarium-js: builds a TypeScript (or JavaScript) Terraform provider into a WebAssembly
// component that `terrarium` serves.
//
//   terrarium-js build [ENTRY] [-o OUT.wasm] [--no-check] [--no-http]
//       type-checks the project (tsc --noEmit, when it has a tsconfig.json), bundles ENTRY
//       (default src/provider.ts) with esbuild into one ES module, and turns that into a
//       component with componentize-js against Terrarium's WIT world.
//   terrarium-js test [FILE...]
//       bundles the test files (default: test/*.test.ts) for node and runs them with node's
//       test runner; `@terrarium/sdk/harness` drives the built component through the host.
//   terrarium-js wit-types [OUT_DIR]
//       regenerates the TypeScript declarations of the WIT world (src/wit of this package).
//   terrarium-js dev-runtime
//       prints the path of the TypeScript development runtime (the engine and this SDK, none
//       of a provider's code), building it with componentize-js first unless it is cached
//       (the cache keeps the few used last: bin/dev-runtime.mjs), then the command that
//       bundles a save for it (a JSON array; see devBundleCommand).
//   terrarium-js dev-bundle ENTRY -o OUT.js
//       bundles ENTRY with esbuild for that runtime (no type check): what `terrarium dev
//       provider.ts` runs on each save.
//
// Errors are one line on stderr and exit status 1.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { devRuntimeCache, devRuntimeKey, listFiles, pruneDevRuntimes } from './dev-runtime.mjs';

const sdkDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/// The WIT world every component targets: the repository's wit/ (this package lives in
/// guest-sdk/js of the Terrarium repository).
const witDir = resolve(sdkDir, '..', '..', 'wit');
/// Terrarium's world plus the WASI file-system interfaces, which JavaScript has no built-in
/// access to (componentize-js adds what its own features need: clocks, random, stdio, http).
/// The host grants files only to the directories the user allows.
const worldName = 'terrarium-provider-js';
const wasiWit = join(sdkDir, 'node_modules', '@bytecodealliance', 'jco', 'lib', 'wit', 'builtin', '0.2.12');

/** Writes the world the component is built against into `dir`; returns `dir`. With
 * `environment` (the development runtime) the world also imports wasi:cli/environment, where
 * `terrarium dev` says which files to evaluate. */
function assembleWit(dir, { environment = false } = {}) {
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(witDir).filter((f) => f.endsWith('.wit'))) {
    writeFileSync(join(dir, file), readFileSync(join(witDir, file)));
  }
  const packageLine = readFileSync(join(witDir, 'provider.wit'), 'utf8')
    .split('\n')
    .find((line) => line.startsWith('package '));
  if (!packageLine) fail(`${join(witDir, 'provider.wit')} has no package line`);
  const extra = environment ? '    import wasi:cli/environment@0.2.12;\n' : '';
  writeFileSync(
    join(dir, 'js-guest.wit'),
    `${packageLine}\n\nworld ${worldName} {\n    include terrarium-provider-with-behaviour;\n` +
      `    import wasi:filesystem/preopens@0.2.12;\n    import wasi:filesystem/types@0.2.12;\n${extra}}\n`,
  );
  // wasi:cli's package names the other WASI packages' worlds, so it needs them all.
  const deps = ['wasi-filesystem', 'wasi-io', 'wasi-clocks'];
  if (environment) deps.push('wasi-cli', 'wasi-sockets', 'wasi-random');
  for (const dep of deps) {
    mkdirSync(join(dir, 'deps', dep), { recursive: true });
    writeFileSync(join(dir, 'deps', dep, 'package.wit'), readFileSync(join(wasiWit, dep, 'package.wit')));
  }
  return dir;
}

function fail(message) {
  process.stderr.write(`terrarium-js: error: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const positional = [];
  const flags = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-o' || arg === '--out') {
      if (i + 1 >= argv.length) fail(`${arg} needs a file name, e.g. ${arg} provider.wasm`);
      flags.set('out', argv[++i]);
    } else if (arg.startsWith('--')) {
      flags.set(arg.slice(2), true);
    } else {
      positional.push(arg);
    }
  }
  return { positional, flags };
}

function tool(name) {
  const path = join(sdkDir, 'node_modules', '.bin', name);
  if (!existsSync(path)) {
    fail(`${path} is missing; run the repository's scripts/setup (it installs the JavaScript toolchain)`);
  }
  return path;
}

async function build(argv) {
  const { positional, flags } = parseArgs(argv);
  const unknown = [...flags.keys()].filter((f) => !['out', 'no-check', 'no-http'].includes(f));
  if (unknown.length) fail(`unknown option --${unknown[0]}; options: -o FILE, --no-check, --no-http`);
  const entry = resolve(positional[0] ?? 'src/provider.ts');
  if (!existsSync(entry)) fail(`${entry} does not exist; name the provider's entry module, e.g. terrarium-js build src/provider.ts`);
  const out = resolve(flags.get('out') ?? 'provider.wasm');
  const project = process.cwd();

  const shown = relative(project, entry) || entry;

  if (!flags.get('no-check') && existsSync(join(project, 'tsconfig.json'))) {
    const check = spawnSync(tool('tsc'), ['--noEmit', '--pretty', 'false', '-p', project], { encoding: 'utf8' });
    if (check.status !== 0) {
      const output = `${check.stdout}${check.stderr}`.trim();
      const errors = output.split('\n').filter((l) => /^\S.*\(\d+,\d+\): error TS\d+:/.test(l));
      const first = (errors[0] ?? output.split('\n')[0]).replace(/^(.*)\((\d+),(\d+)\): error (TS\d+): /, '$1:$2:$3: $4: ');
      const more = errors.length > 1 ? ` (and ${errors.length - 1} more type errors)` : '';
      failBuild(`${first}${more}; fix it, or build with --no-check`, output);
    }
  }

  const scratch = mkdtempSync(join(tmpdir(), 'terrarium-js-'));
  try {
    const bundle = join(scratch, 'provider.js');
    // The component's exports: the entry's `provider` and `behaviour`, and what the SDK
    // exports on its own (`replacement`, `computed-blocks`), so that an entry names only those
    // two.
    const exports = join(scratch, 'component.ts');
    writeFileSync(
      exports,
      `export * from ${JSON.stringify(entry)};\n` +
        `export { replacement, computedBlocks } from ${JSON.stringify(join(sdkDir, 'src', 'serve.ts'))};\n`,
    );
    const esbuild = await import(join(sdkDir, 'node_modules', 'esbuild', 'lib', 'main.js'));
    await esbuild.build({
      entryPoints: [exports],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      outfile: bundle,
      // The world's imports are provided by the component model, not by files.
      external: ['terrarium:*', 'wasi:*'],
      // The SDK is the one running this build (also for a project that links it with npm).
      alias: sdkAliases,
      logLevel: 'silent',
    }).catch((e) => {
      const first = e.errors?.[0];
      const where = first?.location ? `${first.location.file}:${first.location.line}:${first.location.column + 1}: ` : '';
      const all = (e.errors ?? []).map((m) => `${m.location?.file ?? ''}:${m.location?.line ?? ''}: ${m.text}`);
      failBuild(first ? `${where}${first.text}` : `the bundle failed: ${e.message ?? e}`, all.join('\n'));
    });

    const { componentize } = await import(
      join(sdkDir, 'node_modules', '@bytecodealliance', 'componentize-js', 'src', 'componentize.js')
    );
    // `fetch` needs wasi:http; a provider that makes no requests can leave it out.
    const disableFeatures = flags.get('no-http') ? ['http', 'fetch-event'] : ['fetch-event'];
    const { component } = await componentize({
      sourcePath: bundle,
      witPath: assembleWit(join(scratch, 'wit')),
      worldName,
      disableFeatures,
    }).catch((e) => failBuild(componentizeFailure(entry, shown, String(e.message ?? e)), String(e.message ?? e)));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, component);
    process.stderr.write(`terrarium-js: wrote ${out} (${(component.length / 1e6).toFixed(1)} MB)\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Fails a build with `line`, what the author can act on, or with the tools' `whole` output
 * when TERRARIUM_BUILD_VERBOSE is set (as the Python SDK's build does). */
function failBuild(line, whole) {
  if (process.env.TERRARIUM_BUILD_VERBOSE && whole) fail(`${line}\n${whole}`);
  fail(`${line}\n(TERRARIUM_BUILD_VERBOSE=1 shows the tools' whole output)`);
}

/** The line of componentize-js's failure `message` that says what is wrong with the entry
 * module: for a module that exports nothing, the line to add; for one that throws while it
 * loads (a default that does not fit its attribute, say), the error it threw. */
function componentizeFailure(entry, shown, message) {
  if (message.includes('Unable to extract expected exports list')) {
    const source = readFileSync(entry, 'utf8');
    const provider = /class\s+(\w+)\s+extends\s+(?:\w+\.)?Provider\b/.exec(source)?.[1] ?? 'YourProvider';
    return (
      `${shown} exports no provider: add this line at its end: ` +
      `\`export const { provider, behaviour } = serve(new ${provider}());\``
    );
  }
  const lines = message.split('\n');
  const thrown = lines.indexOf('Exception while evaluating top-level script');
  if (thrown >= 0 && lines[thrown + 1]) {
    // `provider.js:962:7 Error: ...`: a place in the bundle, which the author never sees.
    return `${shown}: ${lines[thrown + 1].replace(/^\S+:\d+:\d+ /, '')}`;
  }
  return `componentize-js: ${lines[0]}`;
}

/** Where `@terrarium/sdk` and its subpaths come from in a bundle: this very SDK's sources. */
const sdkAliases = {
  '@terrarium/sdk/harness': join(sdkDir, 'src', 'harness.ts'),
  '@terrarium/sdk/acctest': join(sdkDir, 'src', 'acctest.ts'),
  '@terrarium/sdk': join(sdkDir, 'src', 'index.ts'),
};

async function test(argv) {
  const { positional } = parseArgs(argv);
  const project = process.cwd();
  const testDir = join(project, 'test');
  const files = positional.length
    ? positional.map((f) => resolve(f))
    : existsSync(testDir)
      ? readdirSync(testDir).filter((f) => /\.test\.[cm]?[jt]s$/.test(f)).map((f) => join(testDir, f))
      : [];
  if (files.length === 0) fail(`no tests: name test files, or put *.test.ts files in ${testDir}`);
  const scratch = mkdtempSync(join(tmpdir(), 'terrarium-js-test-'));
  try {
    const esbuild = await import(join(sdkDir, 'node_modules', 'esbuild', 'lib', 'main.js'));
    await esbuild.build({
      entryPoints: files,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outdir: scratch,
      outExtension: { '.js': '.mjs' },
      alias: sdkAliases,
      logLevel: 'error',
    }).catch(() => fail('the tests do not compile (errors above)'));
    const bundles = readdirSync(scratch).filter((f) => f.endsWith('.mjs')).map((f) => join(scratch, f));
    const run = spawnSync(process.execPath, ['--test', ...bundles], { stdio: 'inherit', cwd: project });
    process.exitCode = run.status ?? 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function devRuntime(argv) {
  const { positional, flags } = parseArgs(argv);
  if (positional.length || flags.size) fail('dev-runtime takes no arguments');
  const target = join(devRuntimeCache(), `typescript-${devRuntimeKey()}.wasm`);
  if (!existsSync(target)) {
    mkdirSync(dirname(target), { recursive: true });
    process.stderr.write(`terrarium-js: building the TypeScript development runtime (once): ${target}\n`);
    const scratch = mkdtempSync(join(tmpdir(), 'terrarium-js-devrt-'));
    try {
      const bundle = join(scratch, 'devrt.js');
      const esbuild = await import(join(sdkDir, 'node_modules', 'esbuild', 'lib', 'main.js'));
      await esbuild.build({
        entryPoints: [join(sdkDir, 'src', 'devrt.ts')],
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        target: 'es2022',
        outfile: bundle,
        external: ['terrarium:*', 'wasi:*'],
        logLevel: 'silent',
      }).catch((e) => fail(`bundling the development runtime failed: ${e.message ?? e}`));
      const { componentize } = await import(
        join(sdkDir, 'node_modules', '@bytecodealliance', 'componentize-js', 'src', 'componentize.js')
      );
      const { component } = await componentize({
        sourcePath: bundle,
        witPath: assembleWit(join(scratch, 'wit'), { environment: true }),
        worldName,
        disableFeatures: ['fetch-event'],
      }).catch((e) => fail(`componentize-js failed to build the development runtime: ${e.message ?? e}`));
      // Beside the target (one file system), renamed into place whole: a concurrent
      // `terrarium dev` never reads half a file.
      const partial = `${target}.${process.pid}.partial`;
      writeFileSync(partial, component);
      renameSync(partial, target);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  // The cache keeps the few TypeScript runtimes used last (bin/dev-runtime.mjs).
  pruneDevRuntimes(dirname(target), 'typescript', target);
  // The runtime, then the command `terrarium dev` bundles each save with (JSON).
  process.stdout.write(`${target}\n${JSON.stringify(devBundleCommand())}\n`);
}

/** The command that bundles a provider's entry for the development runtime, to which the
 * entry and `--outfile=OUT.js` are added: esbuild's own executable (a save is bundled in tens
 * of milliseconds, node's start included none), writing one CommonJS file with
 * `@terrarium/sdk` left for the runtime to supply (its own copy of the SDK). No type check:
 * esbuild only strips types (`terrarium-js build` checks them). */
function devBundleCommand() {
  return [
    join(sdkDir, 'node_modules', 'esbuild', 'bin', 'esbuild'),
    '--bundle',
    '--format=cjs',
    '--platform=neutral',
    '--target=es2022',
    '--external:@terrarium/sdk',
    '--external:terrarium:*',
    '--external:wasi:*',
    '--log-level=error',
  ];
}

function devBundle(argv) {
  const { positional, flags } = parseArgs(argv);
  const entry = positional[0] && resolve(positional[0]);
  const out = flags.get('out');
  if (!entry || typeof out !== 'string') fail('usage: terrarium-js dev-bundle ENTRY -o OUT.js');
  if (!existsSync(entry)) fail(`${entry} does not exist`);
  const [bin, ...args] = devBundleCommand();
  const run = spawnSync(bin, [...args, entry, `--outfile=${resolve(out)}`], { stdio: 'inherit' });
  if (run.error) fail(`cannot run ${bin}: ${run.error.message}; run the repository's scripts/setup`);
  process.exitCode = run.status ?? 1;
}

function witTypes(argv) {
  const { positional } = parseArgs(argv);
  const outDir = resolve(positional[0] ?? join(sdkDir, 'src', 'wit'));
  // jco's WIT reader sees the file system through its current directory: run it there and
  // give it relative paths.
  const scratch = mkdtempSync(join(tmpdir(), 'terrarium-js-types-'));
  try {
    assembleWit(join(scratch, 'wit'));
    const run = spawnSync(
      tool('jco'),
      ['guest-types', 'wit', '--world-name', worldName, '-o', 'types', '-q'],
      { cwd: scratch, encoding: 'utf8' },
    );
    if (run.status !== 0) fail(`jco guest-types failed: ${(run.stderr || run.stdout).trim().split('\n')[0]}`);
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    for (const file of listFiles(join(scratch, 'types'))) {
      const target = join(outDir, relative(join(scratch, 'types'), file));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, readFileSync(file));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const [command, ...rest] = process.argv.slice(2);
switch (command) {
  case 'build':
    await build(rest);
    break;
  case 'test':
    await test(rest);
    break;
  case 'wit-types':
    witTypes(rest);
    break;
  case 'dev-runtime':
    await devRuntime(rest);
    break;
  case 'dev-bundle':
    devBundle(rest);
    break;
  default:
    fail(`${command ? `unknown command ${command}` : 'no command'}; commands: build, test, wit-types, dev-runtime, dev-bundle`);
}
