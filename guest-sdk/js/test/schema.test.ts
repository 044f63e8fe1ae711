// Schemas as the host receives them: blocks flattened, nested attributes pointing at theirs.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { block, bool, length, nested, number, schema, schemaToWit, set, string } from '../src/schema.js';

const pet = schema({
  description: 'A pet.',
  attributes: {
    id: string().computed().useStateForUnknown(),
    name: string().required().requiresReplace().validate(length(1, 32)),
    legs: number().default(4),
    tags: set(string()),
    owner: nested.single({ name: string().required(), notify: bool().default(false) }).optional(),
  },
  blocks: {
    collar: block.list({ size: string().required() }, {}, { maxItems: 1 }),
  },
});

test('the kinds: computed alone, required, a default makes optional and computed', () => {
  const [root] = schemaToWit(pet).blocks;
  const flags = Object.fromEntries(root!.attributes.map((a) => [a.name, [a.required, a.optional, a.computed]]));
  assert.deepEqual(flags, {
    id: [false, false, true],
    name: [true, false, false],
    legs: [false, true, true],
    tags: [false, true, false],
    owner: [false, true, false],
  });
});

test('nested attributes and blocks are flattened, the root first', () => {
  const wit = schemaToWit(pet);
  assert.equal(wit.blocks.length, 3);
  const owner = wit.blocks[0]!.attributes.find((a) => a.name === 'owner');
  assert.equal(owner?.type, undefined);
  assert.equal(owner?.nested?.nesting, 'single');
  assert.deepEqual(
    wit.blocks[owner!.nested!.block]!.attributes.map((a) => a.name),
    ['name', 'notify'],
  );
  const collar = wit.blocks[0]!.blockTypes[0]!;
  assert.deepEqual([collar.typeName, collar.nesting, collar.maxItems], ['collar', 'list', 1n]);
  assert.deepEqual(wit.blocks[collar.block]!.attributes.map((a) => a.name), ['size']);
});

test('the object type of a whole value covers attributes and blocks', () => {
  assert.deepEqual(pet.type, [
    'object',
    {
      id: 'string',
      name: 'string',
      legs: 'number',
      tags: ['set', 'string'],
      owner: ['object', { name: 'string', notify: 'bool' }],
      collar: ['list', ['object', { size: 'string' }]],
    },
  ]);
});
