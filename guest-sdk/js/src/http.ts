// `fetch` in a component: the platform's own (componentize-js, over wasi:http), whose
// failures become diagnostics that say what to grant.
//
// A request to an origin the provider is not granted never leaves Terrarium's sandbox (the
// host refuses it and logs the grant it needs), but componentize-js reports that exactly as
// it reports a refused connection: `TypeError: NetworkError when attempting to fetch
// resource`. So the diagnostic names the URL, the origin and the grant that allows it, and
// says that an unreachable server looks the same.

import { TerraformError } from './diagnostics.js';

let installed = false;

/** The error a failed `fetch` of `input` becomes (`thrown` is what the platform threw). */
export function fetchFailed(input: unknown, thrown: unknown): TerraformError {
  const url =
    input instanceof URL
      ? input.href
      : typeof Request !== 'undefined' && input instanceof Request
        ? input.url
        : String(input);
  const why = thrown instanceof Error ? thrown.message : String(thrown);
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return new TerraformError('HTTP request failed', `The request to ${url} failed: ${why}.`);
  }
  return new TerraformError(
    'HTTP request failed',
    `The request to ${url} failed: ${why}. Terrarium runs providers deny-by-default and refuses ` +
      `origins that are not granted; if ${origin} is not, grant it: add "${origin}" to allow_http in the ` +
      "provider's grants file (grants.toml beside the installed provider, then re-run `terraform init`), or " +
      `reinstall the provider with \`terrarium install --allow-http ${origin}\`. If it is granted, the server ` +
      'could not be reached.',
  );
}

/**
 * Makes the global `fetch` throw {@link fetchFailed}'s `TerraformError` when a request fails
 * (an HTTP error status is a response, as always). `serve` calls it; calling it again does
 * nothing.
 */
export function installFetch(): void {
  const platform = globalThis.fetch;
  if (installed || typeof platform !== 'function') return;
  installed = true;
  globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    try {
      return await platform(input, init);
    } catch (e) {
      throw fetchFailed(input, e);
    }
  };
}
