// `fetch` failures as diagnostics, without a component: node's own fetch stands in for
// componentize-js's, which fails the same way (a TypeError) for a refused connection and
// for an origin Terrarium's sandbox did not let through.

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';

import { TerraformError } from '../src/diagnostics.js';
import { fetchFailed, installFetch } from '../src/http.js';

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

test('a failed fetch names the URL, the origin and the grant that allows it', () => {
  const error = fetchFailed(
    new URL('http://127.0.0.1:2379/v3/kv?x=1'),
    new TypeError('NetworkError when attempting to fetch resource'),
  );
  const [d] = error.diagnostics;
  assert.equal(d?.summary, 'HTTP request failed');
  assert.match(d?.detail ?? '', /^The request to http:\/\/127\.0\.0\.1:2379\/v3\/kv\?x=1 failed: NetworkError/);
  assert.ok(d?.detail.includes('`--force --allow-http http://127.0.0.1:2379`'), d?.detail);
  assert.ok(d?.detail.includes('delete the provider\'s entry from .terraform.lock.hcl'), d?.detail);
  assert.ok(d?.detail.includes('add "http://127.0.0.1:2379" to allow_http'), d?.detail);
  assert.equal(fetchFailed('not a url', new Error('bad')).diagnostics[0]?.detail, 'The request to not a url failed: bad.');
});

test('once installed, the global fetch throws that TerraformError, and answers as before', async () => {
  installFetch();
  installFetch(); // a second call does not wrap twice
  const origin = `http://127.0.0.1:${await closedPort()}`;
  await assert.rejects(fetch(`${origin}/motd`), (e: unknown) => {
    assert.ok(e instanceof TerraformError);
    assert.ok(e.diagnostics[0]?.detail.includes(`--allow-http ${origin}\``), e.diagnostics[0]?.detail);
    return true;
  });
  const data = await fetch('data:text/plain,hello');
  assert.equal(await data.text(), 'hello');
});
