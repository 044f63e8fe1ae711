// The acceptance-test checks on a state as `terraform show -json` gives it. (The whole
// TestCase runs through a real terraform in the scaffold's test: e2e `scaffold::`.)

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { AcceptanceError, Check, type State } from '../src/acctest.js';

const state: State = {
  outputs: { greeting: { sensitive: false, value: 'Hello, world!', type: 'string' } },
  root_module: {
    resources: [
      {
        address: 'pets_pet.rex',
        values: { id: 'rex', legs: 4, good: true, toys: [{ kind: 'ball', color: 'red' }], nick: null },
      },
    ],
  },
};

test('attr compares as JSON, through lists, object keys in any order', () => {
  Check.attr('pets_pet.rex', 'legs', 4)(state);
  Check.attr('pets_pet.rex', 'toys.0.kind', 'ball')(state);
  Check.attr('pets_pet.rex', 'toys', [{ color: 'red', kind: 'ball' }])(state);
  assert.throws(() => Check.attr('pets_pet.rex', 'legs', 3)(state), {
    name: 'AcceptanceError',
    message: 'pets_pet.rex.legs is 4, expected 3',
  });
  assert.throws(() => Check.attr('pets_pet.rex', 'good', 1)(state), AcceptanceError);
});

test('a missing resource or attribute is named', () => {
  assert.throws(() => Check.attr('pets_pet.tom', 'legs', 4)(state), { message: 'no pets_pet.tom in the state' });
  assert.throws(() => Check.attr('pets_pet.rex', 'toys.1.kind', 'ball')(state), {
    message: 'pets_pet.rex has no toys.1.kind',
  });
});

test('attrSet refuses null and output reads the outputs', () => {
  Check.attrSet('pets_pet.rex', 'id')(state);
  assert.throws(() => Check.attrSet('pets_pet.rex', 'nick')(state), { message: 'pets_pet.rex.nick is not set' });
  Check.output('greeting', 'Hello, world!')(state);
  assert.throws(() => Check.output('farewell', 'Bye')(state), { message: 'no output farewell' });
});
