// Logging into the host's log (what `TF_LOG_PROVIDER` shows), and Terraform's Ctrl-C.

import { witLifecycle, witLog } from './bindings.js';

export type Fields = Record<string, unknown>;

function write(level: 'trace' | 'debug' | 'info' | 'warn' | 'error', message: string, fields: Fields): void {
  if (!witLog.enabled(level)) return;
  const entries = Object.entries(fields).map(([key, value]) => ({
    key,
    value: typeof value === 'string' ? value : JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
  }));
  witLog.log(level, message, entries);
}

/** `log.info('created', { id })`: structured messages in Terraform's provider log. */
export const log = {
  trace: (message: string, fields: Fields = {}) => write('trace', message, fields),
  debug: (message: string, fields: Fields = {}) => write('debug', message, fields),
  info: (message: string, fields: Fields = {}) => write('info', message, fields),
  warn: (message: string, fields: Fields = {}) => write('warn', message, fields),
  error: (message: string, fields: Fields = {}) => write('error', message, fields),
};

/** Whether Terraform asked the provider to stop (Ctrl-C) since the running call began. */
export function stopping(): boolean {
  return witLifecycle.stopping();
}
