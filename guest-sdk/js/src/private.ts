// The provider-private data Terraform keeps beside a resource's state.

/**
 * Provider-private data kept with a resource's state: Terraform stores it and hands it back,
 * but never shows it. Keys map to JSON values (keys starting with `.` are reserved for the
 * SDK), stored as a JSON object, as the Rust and Python SDKs store it. Bytes that are not a
 * JSON object (none yet, or another SDK's) read as empty, and are handed back unchanged unless
 * an entry is set or deleted.
 */
export class PrivateState {
  private readonly entries: Record<string, unknown>;
  private readonly stored: Uint8Array;
  private readonly asRead: string;

  constructor(stored: Uint8Array = new Uint8Array()) {
    let entries: Record<string, unknown> = {};
    try {
      const parsed: unknown = stored.length > 0 ? JSON.parse(new TextDecoder().decode(stored)) : {};
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
        entries = parsed as Record<string, unknown>;
      }
    } catch {
      // Not JSON: another SDK's data, kept as it is unless an entry is set.
    }
    this.entries = entries;
    this.stored = stored;
    this.asRead = JSON.stringify(entries);
  }

  /** The value under `key`, if there is one. */
  get<T = unknown>(key: string): T | undefined {
    return Object.hasOwn(this.entries, key) ? (this.entries[key] as T) : undefined;
  }

  /** Stores `value` (anything JSON can hold) under `key`. */
  set(key: string, value: unknown): void {
    this.entries[key] = value;
  }

  /** Removes the value under `key`. */
  delete(key: string): void {
    delete this.entries[key];
  }

  /** The bytes Terraform stores. */
  encode(): Uint8Array {
    const now = JSON.stringify(this.entries);
    if (now === this.asRead) return this.stored;
    return Object.keys(this.entries).length === 0 ? new Uint8Array() : new TextEncoder().encode(now);
  }
}
