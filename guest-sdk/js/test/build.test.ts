// A failed `terrarium-js build` says what is wrong in a line the author can act on (where, and
// what), plus the hint to see everything, not tsc's, esbuild's or componentize-js's whole
// output; the same as the Python SDK's build (guest-sdk/python/tests/test_build.py).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** guest-sdk/js: this file runs as dist-test/test/build.test.js. */
const sdk = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const NOTES = (mode: string, end: string) => `import { Provider, Resource, schema, serve, string, type State } from '@terrarium/sdk';

const note = schema({
  attributes: {
    name: string().required(),
    mode: string().default(${mode}),
  },
});

type Note = State<typeof note>;

class NoteResource extends Resource<typeof note> {
  typeName = 'notes_note';
  schema = note;
  create(planned: Note): Note {
    return planned;
  }
  read(current: Note): Note {
    return current;
  }
  delete(): void {}
}

class Notes extends Provider {
  typeName = 'notes';
  resources = [new NoteResource()];
}
${end}`;
const EXPORT = 'export const { provider, behaviour } = serve(new Notes());\n';

/** `terrarium-js build` of `source` as src/provider.ts of a fresh project (with a tsconfig
 * that resolves the SDK when `typeCheck`); its exit status and stderr. */
function build(source: string, typeCheck: boolean): Promise<{ code: number | null; stderr: string }> {
  const project = mkdtempSync(join(tmpdir(), 'terrarium-js-build-test-'));
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'provider.ts'), source);
  if (typeCheck) {
    const paths = { '@terrarium/sdk': [join(sdk, 'src', 'index.ts')] };
    const options = { target: 'es2022', module: 'esnext', moduleResolution: 'bundler', strict: true, noEmit: true, skipLibCheck: true, types: [], lib: ['es2022', 'dom'], paths };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, include: ['src'] }));
  }
  const args = [join(sdk, 'bin', 'terrarium-js.mjs'), 'build', 'src/provider.ts', '-o', 'out.wasm'];
  const env = { ...process.env };
  delete env.TERRARIUM_BUILD_VERBOSE;
  const child = spawn(process.execPath, typeCheck ? args : [...args, '--no-check'], { cwd: project, env });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((done) =>
    child.on('close', (code) => {
      rmSync(project, { recursive: true, force: true });
      done({ code, stderr: stderr.trim() });
    }),
  );
}

test('a failed build says what is wrong in one line, plus the verbose hint', async () => {
  const [typed, syntax, noExport, wrongDefault] = await Promise.all([
    build(NOTES('5', EXPORT), true),
    build(NOTES("'x'", 'export const { provider, behaviour } = serve(new Notes(;\n'), false),
    build(NOTES("'x'", ''), false),
    // What a JavaScript author, or a build with --no-check, can write.
    build(NOTES('5 as any', EXPORT), false),
  ]);
  for (const [name, failed] of Object.entries({ typed, syntax, noExport, wrongDefault })) {
    assert.notEqual(failed.code, 0, `${name} built`);
    const lines = failed.stderr.split('\n');
    assert.equal(lines.length, 2, `${name}: more than the error and the hint:\n${failed.stderr}`);
    assert.equal(lines[1], "(TERRARIUM_BUILD_VERBOSE=1 shows the tools' whole output)", failed.stderr);
  }
  assert.match(typed.stderr, /^terrarium-js: error: src\/provider\.ts:6:28: TS2345: Argument of type 'number' is not assignable[^\n]*; fix it, or build with --no-check$/m);
  assert.match(syntax.stderr, /^terrarium-js: error: src\/provider\.ts:28:56: Unexpected ";"/);
  assert.equal(
    noExport.stderr.split('\n')[0],
    'terrarium-js: error: src/provider.ts exports no provider: add this line at its end: ' +
      '`export const { provider, behaviour } = serve(new Notes());`',
  );
  assert.equal(
    wrongDefault.stderr.split('\n')[0],
    'terrarium-js: error: src/provider.ts: TypeError: NoteResource.mode: default 5 does not fit its type "string"',
  );
});
