declare module 'terrarium:provider/log@0.2.3' {
  /**
   * Whether a message at `level` would be written; lets a guest skip building it.
   */
  export function enabled(level: Level): boolean;
  export function log(level: Level, message: string, fields: Array<Field>): void;
  /**
   * # Variants
   * 
   * ## `"trace"`
   * 
   * ## `"debug"`
   * 
   * ## `"info"`
   * 
   * ## `"warn"`
   * 
   * ## `"error"`
   */
  export type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';
  export interface Field {
    key: string,
    /**
     * Written as a JSON value when it parses as one, else as a string.
     */
    value: string,
  }
}
