// Schemas as the host receives them: blocks flattened, nested attributes pointing at theirs.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  type State,
  block,
  bool,
  computedBlockPaths,
  length,
  nested,
  number,
  schema,
  schemaToWit,
  set,
  string,
} from '../src/schema.js';
import { unknown } from '../src/values.js';

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

const lan = schema({
  attributes: { size: number().required() },
  blocks: {
    address: block.list(
      { ip: string().computed() },
      {
        route: block.single({ via: string().computed() }, {}, { computed: true }),
        notes: block.list({ text: string().computed() }),
      },
      { computed: true },
    ),
    tags: block.list({ name: string().required() }),
  },
});

test('computed blocks are named by their path of block type names, for the computed-blocks export', () => {
  assert.deepEqual(computedBlockPaths(lan), [['address'], ['address', 'route']]);
  assert.deepEqual(computedBlockPaths(pet), []);
  // A computed block is unknown in a plan until the provider sets it: its type says so.
  const planned: State<typeof lan> = { size: 2, address: unknown, tags: [] };
  assert.equal(planned.address, unknown);
  // @ts-expect-error a block that is not computed is never unknown
  const wrong: State<typeof lan> = { size: 2, address: [], tags: unknown };
  assert.equal(wrong.tags, unknown);
});
