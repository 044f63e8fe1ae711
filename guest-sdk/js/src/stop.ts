// Terraform's request to stop (Ctrl-C), as a running call sees it: `stopping()`, and a
// `sleep` that wakes as soon as a stop arrives.
//
// On the first Ctrl-C Terraform sends StopProvider and waits for the calls it made to return.
// A call that has already made something (a create waiting for its server to boot) should
// return the state it reached, so that Terraform records the object instead of losing track
// of it; the host interrupts a call still running after a grace period (5 s by default).
//
//     const server = await startServer(); // the object exists from here on
//     try {
//       while (!(await isReady(server))) await stop.sleep(2);
//     } catch (e) {
//       if (e instanceof stop.Stopped) return server; // recorded, not lost
//       throw e;
//     }

import { TerraformError } from './diagnostics.js';
import { stopping } from './log.js';

export { stopping };

/** How often `sleep` looks for a stop, in milliseconds. */
const SLICE_MS = 100;

/**
 * Terraform asked the provider to stop. Thrown, it is an error diagnostic that says so; a
 * method that has made something should return its state instead (or throw a
 * `TerraformError` `withState`).
 */
export class Stopped extends TerraformError {
  constructor() {
    super('Operation interrupted', 'Terraform asked the provider to stop (Ctrl-C), so the operation was not finished');
    this.name = 'Stopped';
  }
}

/** Waits `seconds`, or until Terraform asks the provider to stop: then (and if it already had) throws `Stopped`. */
export async function sleep(seconds: number): Promise<void> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    if (stopping()) throw new Stopped();
    const left = until - Date.now();
    if (left <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, SLICE_MS)));
  }
}
