declare module 'terrarium:provider/types@0.2.3' {
  /**
   * A Terraform type, written in Terraform's own JSON type syntax:
   * `"string"`, `"number"`, `"bool"`, `"dynamic"`, `["list","string"]`,
   * `["object",{"a":"string"},["a"]]` (the optional third element names optional attributes).
   */
  export type TypeJson = string;
  /**
   * An exact number. Terraform numbers are arbitrary-precision decimals; most fit in
   * `int` or `float`, anything else travels as its decimal string (for example
   * `"123456789012345678901234567890"` or `"0.1"` when it must stay exact).
   */
  export type Number = NumberInt | NumberFloat | NumberDecimal;
  export interface NumberInt {
    tag: 'int',
    val: bigint,
  }
  export interface NumberFloat {
    tag: 'float',
    val: number,
  }
  export interface NumberDecimal {
    tag: 'decimal',
    val: string,
  }
  /**
   * One end of a number range refinement.
   */
  export interface NumberBound {
    value: Number,
    inclusive: boolean,
  }
  /**
   * What is known about an unknown value (Terraform's "refinements"). Every field is
   * optional; an unknown with nothing known has all of them unset.
   */
  export interface Refinements {
    /**
     * `some(false)`: the value is definitely not null once known.
     */
    nullable?: boolean,
    /**
     * A known prefix of a string value.
     */
    stringPrefix?: string,
    numberLower?: NumberBound,
    numberUpper?: NumberBound,
    /**
     * Inclusive bounds on the length of a collection.
     */
    lengthLower?: bigint,
    lengthUpper?: bigint,
  }
  /**
   * Index of a node inside the `nodes` list of the same `value`.
   */
  export type NodeIndex = number;
  /**
   * A key and a child node: an object attribute or a map element.
   */
  export interface Entry {
    key: string,
    value: NodeIndex,
  }
  /**
   * A value whose schema type is `dynamic` carries its concrete type with it.
   */
  export interface Typed {
    type: TypeJson,
    value: NodeIndex,
  }
  /**
   * One node of a value tree. Collections refer to their children by index.
   */
  export type Node = NodeNull | NodeUnknown | NodeBool | NodeNumber | NodeString | NodeList | NodeSet | NodeTuple | NodeMap | NodeObject | NodeDynamic;
  /**
   * A null of whatever type the schema says (an untyped null where it says `dynamic`).
   */
  export interface NodeNull {
    tag: 'null',
  }
  /**
   * Not known until apply.
   */
  export interface NodeUnknown {
    tag: 'unknown',
    val: Refinements,
  }
  export interface NodeBool {
    tag: 'bool',
    val: boolean,
  }
  export interface NodeNumber {
    tag: 'number',
    val: Number,
  }
  export interface NodeString {
    tag: 'string',
    val: string,
  }
  export interface NodeList {
    tag: 'list',
    val: Uint32Array,
  }
  export interface NodeSet {
    tag: 'set',
    val: Uint32Array,
  }
  export interface NodeTuple {
    tag: 'tuple',
    val: Uint32Array,
  }
  export interface NodeMap {
    tag: 'map',
    val: Array<Entry>,
  }
  export interface NodeObject {
    tag: 'object',
    val: Array<Entry>,
  }
  /**
   * A value of schema type `dynamic`, with its concrete type.
   */
  export interface NodeDynamic {
    tag: 'dynamic',
    val: Typed,
  }
  /**
   * A whole value as a flat tree: `nodes[0]` is the root, children are referred to by
   * index. WIT has no recursive types; this is the recursion, made explicit.
   */
  export interface Value {
    nodes: Array<Node>,
  }
  /**
   * One step of a path into a value.
   */
  export type PathStep = PathStepAttribute | PathStepKey | PathStepIndex;
  export interface PathStepAttribute {
    tag: 'attribute',
    val: string,
  }
  export interface PathStepKey {
    tag: 'key',
    val: string,
  }
  export interface PathStepIndex {
    tag: 'index',
    val: bigint,
  }
  /**
   * The attribute a diagnostic or a replacement is about.
   */
  export type AttributePath = Array<PathStep>;
  /**
   * # Variants
   * 
   * ## `"error"`
   * 
   * ## `"warning"`
   */
  export type Severity = 'error' | 'warning';
  export interface Diagnostic {
    severity: Severity,
    summary: string,
    detail: string,
    /**
     * Empty when the diagnostic is about the whole object.
     */
    attribute: AttributePath,
  }
  /**
   * # Variants
   * 
   * ## `"plain"`
   * 
   * ## `"markdown"`
   */
  export type TextKind = 'plain' | 'markdown';
  export interface Description {
    text: string,
    kind: TextKind,
  }
  /**
   * # Variants
   * 
   * ## `"single"`
   * 
   * ## `"list"`
   * 
   * ## `"set"`
   * 
   * ## `"map"`
   */
  export type ObjectNesting = 'single' | 'list' | 'set' | 'map';
  /**
   * Attributes that are themselves objects (protocol 6 "nested attributes").
   */
  export interface NestedAttributes {
    nesting: ObjectNesting,
    /**
     * Index into `schema.blocks`; only that block's attributes are used.
     */
    block: number,
  }
  export interface Attribute {
    name: string,
    /**
     * The attribute's type. Unset exactly when `nested` is set.
     */
    type?: TypeJson,
    nested?: NestedAttributes,
    description: Description,
    required: boolean,
    optional: boolean,
    computed: boolean,
    sensitive: boolean,
    writeOnly: boolean,
    deprecated: boolean,
    deprecationMessage: string,
  }
  /**
   * # Variants
   * 
   * ## `"single"`
   * 
   * ## `"list"`
   * 
   * ## `"set"`
   * 
   * ## `"map"`
   * 
   * ## `"group"`
   */
  export type BlockNesting = 'single' | 'list' | 'set' | 'map' | 'group';
  export interface NestedBlock {
    typeName: string,
    /**
     * Index into `schema.blocks`.
     */
    block: number,
    nesting: BlockNesting,
    minItems: bigint,
    maxItems: bigint,
  }
  export interface Block {
    attributes: Array<Attribute>,
    blockTypes: Array<NestedBlock>,
    description: Description,
    deprecated: boolean,
    deprecationMessage: string,
  }
  /**
   * A schema as a flat list of blocks: `blocks[0]` is the root block; nested blocks and
   * nested attribute objects refer to others by index.
   */
  export interface Schema {
    version: bigint,
    blocks: Array<Block>,
  }
  export interface NamedSchema {
    name: string,
    schema: Schema,
  }
  export interface Parameter {
    name: string,
    type: TypeJson,
    description: Description,
    allowNull: boolean,
    allowUnknown: boolean,
  }
  export interface Function {
    name: string,
    parameters: Array<Parameter>,
    variadic?: Parameter,
    'return': TypeJson,
    summary: string,
    description: Description,
    deprecationMessage: string,
  }
  /**
   * One attribute of a resource identity: the immutable data that names a remote object
   * (protocol 6.9 "resource identity"). Identity types may not be maps, sets or objects.
   */
  export interface IdentityAttribute {
    name: string,
    type: TypeJson,
    /**
     * Must be given in an `import { identity = {...} }` block.
     */
    requiredForImport: boolean,
    /**
     * May be given in an `import { identity = {...} }` block.
     */
    optionalForImport: boolean,
    description: string,
  }
  export interface IdentitySchema {
    version: bigint,
    attributes: Array<IdentityAttribute>,
  }
  /**
   * The identity schema of the managed resource type `name`.
   */
  export interface NamedIdentitySchema {
    name: string,
    schema: IdentitySchema,
  }
  export interface ServerCapabilities {
    planDestroy: boolean,
    getProviderSchemaOptional: boolean,
    moveResourceState: boolean,
    generateResourceConfig: boolean,
  }
  /**
   * Everything the provider declares. The host asks for it once per loaded component and
   * caches it; it drives every encode and decode.
   */
  export interface ProviderSchema {
    provider: Schema,
    providerMeta?: Schema,
    resources: Array<NamedSchema>,
    dataSources: Array<NamedSchema>,
    functions: Array<Function>,
    /**
     * Identity schemas of managed resource types (only those that have one).
     */
    resourceIdentities: Array<NamedIdentitySchema>,
    ephemeralResources: Array<NamedSchema>,
    /**
     * A list resource has the name of the managed resource type it lists, and that type
     * must have an identity schema. Its schema is the list block's `config` contents.
     */
    listResources: Array<NamedSchema>,
    actions: Array<NamedSchema>,
    capabilities: ServerCapabilities,
    diagnostics: Array<Diagnostic>,
  }
  export interface ClientCapabilities {
    deferralAllowed: boolean,
    writeOnlyAttributesAllowed: boolean,
  }
  /**
   * A point in time (for ephemeral resource renewal), as Unix time.
   */
  export interface Timestamp {
    seconds: bigint,
    nanoseconds: number,
  }
  /**
   * # Variants
   * 
   * ## `"unknown"`
   * 
   * ## `"resource-config-unknown"`
   * 
   * ## `"provider-config-unknown"`
   * 
   * ## `"absent-prerequisite"`
   */
  export type DeferredReason = 'unknown' | 'resource-config-unknown' | 'provider-config-unknown' | 'absent-prerequisite';
}
