/// <reference path="./terrarium-provider-types.d.ts" />
declare module 'terrarium:provider/behaviour@0.2.3' {
  /**
   * Called once per loaded component, after `provider.get-schema`.
   */
  export function getBehaviour(): ProviderBehaviour;
  /**
   * One value per request, in order, of the attribute's type.
   */
  export function computeDefaults(requests: Array<DefaultRequest>): Array<Value>;
  /**
   * One answer per request, in order: whether the change replaces the resource.
   */
  export function decideReplacements(requests: Array<ReplaceRequest>): Array<boolean>;
  /**
   * Every problem found, as error diagnostics at the requests' paths.
   */
  export function validateValues(requests: Array<ValidateRequest>): Array<Diagnostic>;
  /**
   * The host checks the answer as Terraform will (configured values kept, write-only
   * values null) before it reaches Terraform.
   */
  export function planResource(request: PlanResourceRequest): PlanResourceResponse;
  export type Value = import('terrarium:provider/types@0.2.3').Value;
  export type Diagnostic = import('terrarium:provider/types@0.2.3').Diagnostic;
  export type AttributePath = import('terrarium:provider/types@0.2.3').AttributePath;
  export type Number = import('terrarium:provider/types@0.2.3').Number;
  export type ClientCapabilities = import('terrarium:provider/types@0.2.3').ClientCapabilities;
  export type DeferredReason = import('terrarium:provider/types@0.2.3').DeferredReason;
  /**
   * A guest-chosen number naming one piece of code (a computed default, a replacement
   * decision, a custom validator) in the hook calls. The same schema must give the same
   * numbers in every instance of the component: the host may ask any instance.
   */
  export type HookId = number;
  /**
   * The value planned for an optional and computed attribute that the configuration
   * leaves null.
   */
  export type DefaultValue = DefaultValueValue | DefaultValueComputed;
  /**
   * Always this value (of the attribute's type).
   */
  export interface DefaultValueValue {
    tag: 'value',
    val: Value,
  }
  /**
   * Computed by the guest: `compute-defaults` answers with the configuration of the
   * object holding the attribute (its static defaults already filled in).
   */
  export interface DefaultValueComputed {
    tag: 'computed',
    val: HookId,
  }
  /**
   * When a change of the attribute's value replaces the resource.
   */
  export type ReplaceRule = ReplaceRuleNever | ReplaceRuleAlways | ReplaceRuleWhenGuestSays;
  /**
   * Changes are updated in place.
   */
  export interface ReplaceRuleNever {
    tag: 'never',
  }
  /**
   * Any change replaces the resource.
   */
  export interface ReplaceRuleAlways {
    tag: 'always',
  }
  /**
   * A change replaces the resource when `decide-replacements` says so.
   */
  export interface ReplaceRuleWhenGuestSays {
    tag: 'when-guest-says',
    val: HookId,
  }
  /**
   * Inclusive bounds on a count (characters of a string, elements of a collection).
   */
  export interface CountRange {
    min: bigint,
    max: bigint,
  }
  /**
   * Inclusive bounds on a number; an unset bound is open. Compared exactly, as decimals:
   * `decimal("0.1")` is 0.1, and integers beyond 2^53 are never rounded.
   */
  export interface NumberRange {
    min?: Number,
    max?: Number,
  }
  /**
   * A validator whose code the guest supplies.
   */
  export interface CustomValidator {
    id: HookId,
    /**
     * What it requires, in words ("an even number"), for documentation.
     */
    description: string,
  }
  /**
   * A check on a configured value. Value checks skip null and unknown values; the
   * sibling checks decide only once the siblings are known.
   */
  export type Validator = ValidatorLength | ValidatorPattern | ValidatorOneOf | ValidatorRange | ValidatorSize | ValidatorConflictsWith | ValidatorAlsoRequires | ValidatorExactlyOneOf | ValidatorAtLeastOneOf | ValidatorCustom;
  /**
   * A string of `min` to `max` characters (Unicode scalar values).
   */
  export interface ValidatorLength {
    tag: 'length',
    val: CountRange,
  }
  /**
   * A string matching this regular expression (Rust `regex` syntax; anchor it with
   * `^` and `$` to match the whole string).
   */
  export interface ValidatorPattern {
    tag: 'pattern',
    val: string,
  }
  /**
   * A string that is one of these.
   */
  export interface ValidatorOneOf {
    tag: 'one-of',
    val: Array<string>,
  }
  /**
   * A number within the bounds.
   */
  export interface ValidatorRange {
    tag: 'range',
    val: NumberRange,
  }
  /**
   * A list, set or map of `min` to `max` elements.
   */
  export interface ValidatorSize {
    tag: 'size',
    val: CountRange,
  }
  /**
   * When this attribute is set, none of these sibling attributes may be.
   */
  export interface ValidatorConflictsWith {
    tag: 'conflicts-with',
    val: Array<string>,
  }
  /**
   * When this attribute is set, every one of these sibling attributes must be too.
   */
  export interface ValidatorAlsoRequires {
    tag: 'also-requires',
    val: Array<string>,
  }
  /**
   * Exactly one of this attribute and these siblings is set.
   */
  export interface ValidatorExactlyOneOf {
    tag: 'exactly-one-of',
    val: Array<string>,
  }
  /**
   * At least one of this attribute and these siblings is set.
   */
  export interface ValidatorAtLeastOneOf {
    tag: 'at-least-one-of',
    val: Array<string>,
  }
  /**
   * `validate-values` checks it.
   */
  export interface ValidatorCustom {
    tag: 'custom',
    val: CustomValidator,
  }
  /**
   * The behaviour of one attribute. Attributes without any behaviour need no entry.
   */
  export interface AttributeBehaviour {
    /**
     * The names from the schema's root block, through nested blocks and nested
     * attributes, to the attribute: `["endpoint", "host"]`.
     */
    path: Array<string>,
    'default'?: DefaultValue,
    /**
     * A computed attribute keeps its prior value instead of becoming unknown when the
     * object holding it changes (at any depth; set elements are matched by their
     * configured attributes).
     */
    useStateForUnknown: boolean,
    /**
     * A computed attribute that is unknown on every update (a `last_modified`, say).
     */
    unknownOnUpdate: boolean,
    requiresReplace: ReplaceRule,
    /**
     * Run in this order.
     */
    validators: Array<Validator>,
  }
  /**
   * The behaviour declared for one schema (a resource type, a data source, ...).
   */
  export interface SchemaBehaviour {
    attributes: Array<AttributeBehaviour>,
    /**
     * Nested blocks any change inside which replaces the resource, each by its path of
     * names from the root block.
     */
    replaceBlocks: Array<Array<string>>,
    /**
     * Managed resource types only: whether the host calls `plan-resource` with its
     * default plan (the plan hook), or answers with the default plan directly.
     */
    planHook: boolean,
  }
  export interface NamedBehaviour {
    name: string,
    behaviour: SchemaBehaviour,
  }
  /**
   * The behaviour of every schema of `provider.get-schema`, by the same names. A schema
   * left out has no behaviour beyond what the schema itself says.
   */
  export interface ProviderBehaviour {
    provider: SchemaBehaviour,
    resources: Array<NamedBehaviour>,
    dataSources: Array<NamedBehaviour>,
    ephemeralResources: Array<NamedBehaviour>,
    listResources: Array<NamedBehaviour>,
    actions: Array<NamedBehaviour>,
  }
  export interface DefaultRequest {
    id: HookId,
    /**
     * The configuration of the object holding the attribute, static defaults filled in.
     */
    parentConfig: Value,
  }
  export interface ReplaceRequest {
    id: HookId,
    /**
     * The prior and planned values of the attribute; they differ.
     */
    prior: Value,
    planned: Value,
  }
  export interface ValidateRequest {
    id: HookId,
    /**
     * Known and not null.
     */
    value: Value,
    /**
     * The configuration of the object holding the attribute.
     */
    parent: Value,
    /**
     * Where the value is; diagnostics about it point here.
     */
    path: AttributePath,
  }
  /**
   * The plan hook of a managed resource type that asks for one: what
   * `provider.plan-resource-change` gets, plus the host's default plan to adjust.
   */
  export interface PlanResourceRequest {
    typeName: string,
    /**
     * Null on create.
     */
    priorState: Value,
    /**
     * The host's default plan. Null on destroy.
     */
    plannedState: Value,
    /**
     * The attributes the default plan replaces the resource for.
     */
    requiresReplace: Array<AttributePath>,
    config: Value,
    priorPrivate: Uint8Array,
    providerMeta?: Value,
    client: ClientCapabilities,
    priorIdentity?: Value,
  }
  /**
   * The whole plan, as `provider.plan-resource-change` answers it.
   */
  export interface PlanResourceResponse {
    plannedState: Value,
    /**
     * Every attribute that replaces the resource: the default plan's, unless the hook
     * drops them, and any the hook adds.
     */
    requiresReplace: Array<AttributePath>,
    plannedPrivate: Uint8Array,
    deferred?: DeferredReason,
    diagnostics: Array<Diagnostic>,
    plannedIdentity?: Value,
  }
}
