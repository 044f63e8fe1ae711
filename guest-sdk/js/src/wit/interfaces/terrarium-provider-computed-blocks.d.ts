declare module 'terrarium:provider/computed-blocks@0.2.3' {
  /**
   * Every computed nested block of the provider's schemas. Asked once, when the component
   * loads, after `get-schema`; a path that names no nested block of that schema is an
   * error the host reports at load.
   */
  export function computedBlocks(): Array<ComputedBlock>;
  /**
   * Which kind of schema a computed block is in.
   * # Variants
   * 
   * ## `"resource"`
   * 
   * ## `"data-source"`
   */
  export type SchemaKind = 'resource' | 'data-source';
  /**
   * One computed nested block.
   */
  export interface ComputedBlock {
    kind: SchemaKind,
    /**
     * The managed resource type or data source.
     */
    typeName: string,
    /**
     * The block type names from the root block down to the computed block: `["status"]`
     * for the block `status` of the root, `["status", "endpoint"]` for one inside it.
     */
    path: Array<string>,
  }
}
