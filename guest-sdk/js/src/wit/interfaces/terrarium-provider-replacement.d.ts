declare module 'terrarium:provider/replacement@0.2.3' {
  /**
   * The resource types whose old object must be deleted before its replacement is created,
   * because two cannot exist at once (a fixed file name, a name unique in a remote system).
   * Terraform deletes first unless a configuration asks for `create_before_destroy`;
   * Pulumi's engine creates first unless told otherwise, so the host tells it
   * (`deleteBeforeReplace`) for these types. Asked once, when the component loads.
   */
  export function deleteBeforeReplace(): Array<string>;
}
