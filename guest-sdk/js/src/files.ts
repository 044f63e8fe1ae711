// Files, for providers that keep things on disk. JavaScript in a component has no `fs`: this
// is a small synchronous one over WASI's file system, which shows the provider only the
// directories the user granted (`terrarium install --allow-dir DIR:rw`). A path outside every
// grant does not exist for the provider.

import { type wasiFilesystem, wasiPreopens } from './bindings.js';
import { TerraformError } from './diagnostics.js';

type Descriptor = wasiFilesystem.Descriptor;

// The engine has TextEncoder and TextDecoder (WHATWG); the ES library types do not say so.
const codec = globalThis as unknown as {
  TextEncoder: new () => { encode(s: string): Uint8Array };
  TextDecoder: new () => { decode(b: Uint8Array): string };
};

/**
 * A file-system error: `code` is WASI's error code (`no-entry`, `access`, `read-only`, ...).
 * Uncaught, it is an error diagnostic that says which grant would allow the access.
 */
export class FileError extends TerraformError {
  constructor(
    readonly code: string,
    readonly path: string,
    action: string,
  ) {
    const dir = path.slice(0, path.lastIndexOf('/')) || '/';
    const hint =
      code === 'no-entry' || code === 'access' || code === 'not-permitted' || code === 'read-only'
        ? ` Terrarium shows this provider only the directories its grants list; if ${dir} should be usable, grant it: \`terrarium install --allow-dir ${dir}:rw\`.`
        : '';
    super(`Cannot ${action} ${path}`, `${code}.${hint}`);
    this.name = 'FileError';
  }
}

function errorCode(e: unknown): string {
  const payload = (e as { payload?: unknown })?.payload;
  return typeof payload === 'string' ? payload : String(e);
}

/**
 * The granted directories, asked for once per instance: every `getDirectories()` hands out new
 * descriptors, which would stay open until the instance ends.
 */
let granted: Array<[Descriptor, string]> | undefined;

/**
 * Closes a file now rather than whenever the garbage collector gets to it: the host lets an
 * instance hold 1,024 handles at once, and a provider reading a file on every call reached
 * that in a few hundred calls. componentize-js gives every imported resource `Symbol.dispose`.
 */
function close(handle: object): void {
  const dispose = (Symbol as { dispose?: symbol }).dispose;
  if (dispose === undefined) return;
  const drop = (handle as Record<symbol, (() => void) | undefined>)[dispose];
  drop?.call(handle);
}

/** The granted directory holding `path`, and `path` relative to it. */
function locate(path: string, action: string): [Descriptor, string] {
  if (!path.startsWith('/')) throw new FileError('invalid', path, `${action} (not an absolute path)`);
  const normal = path.replace(/\/+$/, '');
  let best: [Descriptor, string] | undefined;
  let bestLength = -1;
  granted ??= wasiPreopens.getDirectories();
  for (const [descriptor, dir] of granted) {
    const d = dir.replace(/\/+$/, '');
    if ((normal === d || normal.startsWith(`${d}/`) || d === '') && d.length > bestLength) {
      best = [descriptor, normal.slice(d.length + 1) || '.'];
      bestLength = d.length;
    }
  }
  if (!best) throw new FileError('no-entry', path, action);
  return best;
}

function attempt<T>(path: string, action: string, body: () => T): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof FileError) throw e;
    throw new FileError(errorCode(e), path, action);
  }
}

/** The file's bytes. */
export function readBytes(path: string): Uint8Array {
  return attempt(path, 'read', () => {
    const [dir, rel] = locate(path, 'read');
    const file = dir.openAt({ symlinkFollow: true }, rel, {}, { read: true });
    const chunks: Uint8Array[] = [];
    let offset = 0n;
    try {
      for (;;) {
        const [chunk, end] = file.read(65536n, offset);
        chunks.push(chunk);
        offset += BigInt(chunk.length);
        if (end || chunk.length === 0) break;
      }
    } finally {
      close(file);
    }
    const out = new Uint8Array(Number(offset));
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  });
}

/** The file's text (UTF-8). */
export function readText(path: string): string {
  return new codec.TextDecoder().decode(readBytes(path));
}

/** Writes the file (created or truncated). */
export function writeBytes(path: string, data: Uint8Array): void {
  attempt(path, 'write', () => {
    const [dir, rel] = locate(path, 'write');
    const file = dir.openAt({ symlinkFollow: true }, rel, { create: true, truncate: true }, { write: true });
    try {
      let offset = 0;
      while (offset < data.length) {
        offset += Number(file.write(data.subarray(offset), BigInt(offset)));
      }
    } finally {
      close(file);
    }
  });
}

/** Writes the text as UTF-8. */
export function writeText(path: string, text: string): void {
  writeBytes(path, new codec.TextEncoder().encode(text));
}

/** Whether the file exists (and is visible to the provider). */
export function exists(path: string): boolean {
  try {
    const [dir, rel] = locate(path, 'look at');
    dir.statAt({ symlinkFollow: true }, rel);
    return true;
  } catch {
    return false;
  }
}

/** Removes the file; `false` when it did not exist. */
export function remove(path: string): boolean {
  try {
    attempt(path, 'remove', () => {
      const [dir, rel] = locate(path, 'remove');
      dir.unlinkFileAt(rel);
    });
    return true;
  } catch (e) {
    if (e instanceof FileError && e.code === 'no-entry') return false;
    throw e;
  }
}
