// The TypeScript pets provider through the host's planner, without terraform: the same
// edge cases the conformance suite checks with terraform (defaults inside list elements, a
// computed value kept for matched elements, a replacement forced by a nested block attribute).

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { DiagnosticsError, FunctionCallError, Harness } from '@terrarium/sdk/harness';

const component = process.env.PETS_TS_WASM ?? 'pets.wasm';
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'pets-ts-')));
let h: Harness;

before(async () => {
  h = await Harness.start(component, { allowDir: [`${dir}:rw`] });
  await h.configure({ directory: dir });
});
after(() => h.close());

test('a pet is planned with its defaults at every depth and created', async () => {
  const config = { name: 'rex', owner: { name: 'ann' }, toys: [{ kind: 'ball' }], collar: [{ size: 'm' }] };
  const pet = await h.create('pets_pet', config);
  assert.deepEqual(pet.plan.plannedUnknown, { id: true, toys: [{ serial: true }] });
  const state = pet.state!;
  assert.equal(state.species, 'dog');
  assert.equal(state.legs, 4);
  assert.deepEqual(state.owner, { name: 'ann', email: null, notify: false });
  assert.deepEqual(state.toys, [{ kind: 'ball', color: 'red', serial: `${state.id}-toy-0` }]);
  assert.deepEqual(state.collar, [{ material: 'leather', size: 'm' }]);
  const stored = JSON.parse(readFileSync(join(dir, `${state.id}.json`), 'utf8'));
  assert.equal(stored.name, 'rex');
});

test('one instance reads a pet a thousand times: no file handle is left open', async () => {
  const created = (await h.create('pets_pet', { name: 'ivy' })).state!;
  for (let i = 0; i < 1000; i++) {
    assert.equal((await h.read('pets_pet', created)).state?.name, 'ivy');
  }
});

test('an update keeps the id and the serials of the toys it keeps; a collar size replaces', async () => {
  const base = { name: 'max', toys: [{ kind: 'ball' }], collar: [{ size: 'm' }] };
  const created = (await h.create('pets_pet', base)).state!;
  const more = await h.update('pets_pet', created, { ...base, toys: [{ kind: 'ball' }, { kind: 'rope' }] });
  assert.equal(more.replaced, false);
  assert.equal(more.state!.id, created.id);
  assert.deepEqual(
    (more.state!.toys as { serial: string }[]).map((t) => t.serial),
    [`${created.id}-toy-0`, `${created.id}-toy-1`],
  );
  const resized = await h.update('pets_pet', more.state!, { ...base, collar: [{ size: 'l' }] });
  assert.equal(resized.replaced, true);
  assert.deepEqual(resized.requiresReplace, ['collar[0].size']);
  assert.notEqual(resized.state!.id, created.id);
});

test('an unknown inside a nested set: only the new element is planned unknown', async () => {
  const created = (await h.create('pets_pet', { name: 'vax', vaccines: [{ name: 'rabies' }] })).state!;
  const plan = await h.plan('pets_pet', created, { name: 'vax', vaccines: [{ name: 'rabies' }, { name: 'flu' }] });
  const planned = (plan.planned as { vaccines: { name: string }[] }).vaccines;
  const mask = (plan.plannedUnknown as { vaccines: unknown[] }).vaccines;
  const flu = planned.findIndex((v) => v.name === 'flu');
  assert.deepEqual(mask[flu], { batch: true });
  assert.equal(mask[1 - flu], false);
});

test('validators report the attribute; import, the data source and the function work', async () => {
  await assert.rejects(h.validate('pets_pet', { name: '', species: 'fish' }), (e: DiagnosticsError) => {
    assert.deepEqual(e.attributes.sort(), ['name', 'species']);
    return true;
  });
  const created = (await h.create('pets_pet', { name: 'bo', tags: ['a'] })).state!;
  assert.deepEqual((await h.import('pets_pet', created.id as string)).state, created);
  const read = (await h.readData('pets_pet', { id: created.id as string })).state!;
  assert.deepEqual([read.name, read.tags], ['bo', ['a']]);
  assert.equal(await h.call('greeting', 'bo'), 'Hello, bo!');
  await assert.rejects(h.call('greeting', ''), (e: FunctionCallError) => e.argument === 0);
});
