// The value conversions, without a component: what the host sends becomes plain JavaScript
// and back, exactly, by the schema type.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { wit } from '../src/bindings.js';
import { TerraformError, key, pathToString, pathToWit } from '../src/diagnostics.js';
import { Decimal, Unknown, fromWit, toWit, unknown } from '../src/values.js';

test('a nested value goes to WIT nodes and back unchanged', () => {
  const type = [
    'object',
    {
      name: 'string',
      legs: 'number',
      tags: ['set', 'string'],
      toys: ['list', ['object', { kind: 'string', serial: 'string' }]],
      labels: ['map', 'string'],
    },
  ] as const;
  const value = {
    name: 'rex',
    legs: 4,
    tags: ['a', 'b'],
    toys: [{ kind: 'ball', serial: unknown }],
    labels: { z: '1', a: '2' },
  };
  const wire = toWit(value, type as never);
  assert.deepEqual(wire.nodes[0]?.tag, 'object');
  assert.equal(wire.nodes.filter((n) => n.tag === 'set').length, 1);
  assert.deepEqual(fromWit(wire), value);
});

test('numbers stay exact: safe integers, floats, big integers and decimals', () => {
  const big = 2n ** 70n;
  const wire = toWit([1, 0.5, big, new Decimal('0.1'), 2n ** 40n], ['tuple', ['number', 'number', 'number', 'number', 'number']]);
  const back = fromWit(wire) as unknown[];
  assert.deepEqual(back.slice(0, 2), [1, 0.5]);
  assert.equal(String(back[2]), big.toString());
  assert.equal(String(back[3]), '0.1');
  assert.equal(back[4], 2 ** 40);
});

test('a missing attribute is null; an unknown keeps its refinements', () => {
  const wire = toWit({ a: new Unknown({ nullable: false, stringPrefix: 'pet-' }) }, ['object', { a: 'string', b: 'string' }]);
  const back = fromWit(wire) as Record<string, unknown>;
  assert.equal(back.b, null);
  assert.ok(back.a instanceof Unknown);
  assert.deepEqual((back.a as Unknown).refinements, { nullable: false, stringPrefix: 'pet-' });
});

test('a value that does not fit the type is an error naming its path', () => {
  assert.throws(
    () => toWit({ toys: [{ kind: 3 }] }, ['object', { toys: ['list', ['object', { kind: 'string' }]] }]),
    (e: unknown) =>
      e instanceof TerraformError &&
      e.diagnostics[0]?.detail === 'Expected a string at toys[0].kind, got number 3.' &&
      pathToString(e.diagnostics[0].path) === 'toys[0].kind',
  );
  assert.throws(() => toWit({ nmae: 'x' }, ['object', { name: 'string' }]), /nmae is not an attribute/);
});

test('a dynamic value carries the type inferred from it', () => {
  const wire = toWit({ d: { a: [1, 'x'] } }, ['object', { d: 'dynamic' }]);
  const dynamic = wire.nodes.find((n): n is wit.NodeDynamic => n.tag === 'dynamic');
  assert.equal(dynamic?.val.type, '["object",{"a":["tuple",["number","string"]]}]');
  assert.deepEqual(fromWit(wire), { d: { a: [1, 'x'] } });
});

test('paths name attributes, list indexes and map keys', () => {
  const path = ['labels', key('env'), 'toys', 2];
  assert.equal(pathToString(path), 'labels["env"].toys[2]');
  assert.deepEqual(pathToWit(path), [
    { tag: 'attribute', val: 'labels' },
    { tag: 'key', val: 'env' },
    { tag: 'attribute', val: 'toys' },
    { tag: 'index', val: 2n },
  ]);
});
