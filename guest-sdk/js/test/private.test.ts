// PrivateState: the bytes Terraform keeps beside a state, as the SDK reads and writes them.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { PrivateState } from '../src/private.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

test('entries set are stored as a JSON object and read back', () => {
  const first = new PrivateState();
  assert.equal(first.encode().length, 0, 'nothing set: nothing stored');
  first.set('created', 1);
  const stored = first.encode();
  assert.equal(text(stored), '{"created":1}');
  const again = new PrivateState(stored);
  assert.equal(again.get<number>('created'), 1);
  again.set('reads', (again.get<number>('reads') ?? 0) + 1);
  assert.deepEqual(JSON.parse(text(again.encode())), { created: 1, reads: 1 });
  again.delete('created');
  again.delete('reads');
  assert.equal(again.encode().length, 0, 'every entry deleted: nothing stored');
});

test('bytes that are not a JSON object are handed back unchanged unless an entry is set', () => {
  const foreign = bytes('\u0000another SDK');
  const kept = new PrivateState(foreign);
  assert.equal(kept.get('x'), undefined);
  assert.equal(kept.encode(), foreign);
  kept.set('x', true);
  assert.equal(text(kept.encode()), '{"x":true}');
});
