// The behaviour the host plans and validates with, as a schema declares it.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Hooks, behaviourOf } from '../src/behaviour.js';
import { block, custom, length, nested, number, oneOf, range, schema, string } from '../src/schema.js';
import { fromWit } from '../src/values.js';

const pet = schema({
  attributes: {
    id: string().computed().useStateForUnknown(),
    plain: string(),
    name: string().required().requiresReplace().validate(length(1, 32)),
    species: string().default('dog').validate(oneOf('dog', 'cat')),
    legs: number().default(4).validate(range(0, 8.5)),
    nick: string().default((parent: { name: string }) => `${parent.name}!`),
    owner: nested.single({ notify: string().default('no'), phone: string().requiresReplaceIf(() => true) }),
    even: number().validate(custom('an even number', (v) => (Number(v) % 2 ? 'odd' : undefined))),
  },
  blocks: { collar: block.list({ size: string().default('m') }, {}, { requiresReplace: true }) },
});

test('every attribute with behaviour has an entry at its path; the others none', () => {
  const hooks = new Hooks();
  const b = behaviourOf(pet, hooks, true);
  assert.deepEqual(
    b.attributes.map((a) => a.path.join('.')),
    ['id', 'name', 'species', 'legs', 'nick', 'owner.notify', 'owner.phone', 'even', 'collar.size'],
  );
  assert.deepEqual(b.replaceBlocks, [['collar']]);
  assert.equal(b.planHook, true);
  const by = Object.fromEntries(b.attributes.map((a) => [a.path.join('.'), a]));
  assert.equal(by.id?.useStateForUnknown, true);
  assert.deepEqual(by.name?.requiresReplace, { tag: 'always' });
  assert.deepEqual(by.name?.validators, [{ tag: 'length', val: { min: 1n, max: 32n } }]);
  assert.equal(by.species?.default?.tag, 'value');
  assert.equal(by.species?.default?.tag === "value" && fromWit(by.species.default.val), "dog");
  assert.deepEqual(by.legs?.validators, [
    { tag: 'range', val: { min: { tag: 'int', val: 0n }, max: { tag: 'decimal', val: '8.5' } } },
  ]);
  assert.equal(by['owner.notify']?.default?.tag, 'value');
});

test('code is numbered hooks, the same numbers every time', () => {
  const first = new Hooks();
  const b = behaviourOf(pet, first);
  const again = new Hooks();
  assert.deepEqual(behaviourOf(pet, again), b);
  const by = Object.fromEntries(b.attributes.map((a) => [a.path.join('.'), a]));
  assert.deepEqual(by.nick?.default, { tag: 'computed', val: 0 });
  assert.deepEqual(by['owner.phone']?.requiresReplace, { tag: 'when-guest-says', val: 1 });
  assert.deepEqual(by.even?.validators, [{ tag: 'custom', val: { id: 2, description: 'an even number' } }]);
  assert.deepEqual(
    first.all.map((h) => h.kind),
    ['default', 'replace', 'validate'],
  );
});

test('a default that does not fit its attribute names the class and the field', () => {
  // `as never`: what a JavaScript author, or a build with --no-check, can write.
  const wrong = schema({ attributes: { name: string().required(), mode: string().default(5 as never) } });
  assert.throws(
    () => behaviourOf(wrong, new Hooks(), false, 'NoteResource'),
    (e: Error) => e.message === 'NoteResource.mode: default 5 does not fit its type "string"',
  );
});
