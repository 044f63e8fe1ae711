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
function urlOf(input: unknown): string {
  return input instanceof URL
    ? input.href
    : typeof Request !== 'undefined' && input instanceof Request
      ? input.url
      : String(input);
}

export function fetchFailed(input: unknown, thrown: unknown): TerraformError {
  const url = urlOf(input);
  const why = thrown instanceof Error ? thrown.message : String(thrown);
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return new TerraformError('HTTP request failed', `The request to ${url} failed: ${why}.`);
  }
  return new TerraformError(
    'HTTP request failed',
    `The request to ${url} failed: ${why}. If ${origin} is not granted to the provider, that is why ` +
      `(componentize-js reports a refusal as it reports a server it cannot reach). ${denialRemedy(origin)} ` +
      'If it is granted, the server could not be reached.',
  );
}

/**
 * What a person does to let the provider reach `origin` (the Rust and Python SDKs say the
 * same): grants are the person's, and Terraform's lock file hashes the package.
 */
export function denialRemedy(origin: string): string {
  return (
    'Terrarium runs providers deny-by-default, and only you grant them more. If you installed the provider ' +
    `with \`terrarium install\`, run that command again with \`--force --allow-http ${origin}\` added (the new ` +
    "install replaces its grants: keep its other grant flags), then delete the provider's entry from " +
    '.terraform.lock.hcl and run `terraform init` (the package changed, so the checksum Terraform locked for ' +
    `it did too). If \`terraform init\` installed it from a release, add "${origin}" to allow_http in the ` +
    'grants file that `terrarium grants show PACKAGE_DIR` says the provider runs with; nothing else needs to change. ' +
    `Under \`terrarium dev\`, add \`--allow-http ${origin}\` to its command.`
  );
}

/**
 * Makes the global `fetch` throw {@link fetchFailed}'s `TerraformError` when a request fails
 * (an HTTP error status is a response, as always), and send nothing once Terraform has asked
 * the provider to stop (`stopping`: the component's `lifecycle.stopping`, given by `serve`). `serve` calls it; calling it again does
 * nothing.
 */
export function installFetch(stopping: () => boolean = () => false): void {
  const platform = globalThis.fetch;
  if (installed || typeof platform !== 'function') return;
  installed = true;
  globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    if (stopping()) {
      // Terraform asked the provider to stop (Ctrl-C): no new request goes out, as with the
      // Rust SDK's client, so a call winding down does not start more work.
      throw new TerraformError(
        'Operation interrupted',
        `The request to ${urlOf(input)} was not sent: Terraform asked the provider to stop (Ctrl-C).`,
      );
    }
    try {
      return await platform(input, init);
    } catch (e) {
      throw fetchFailed(input, e);
    }
  };
}
