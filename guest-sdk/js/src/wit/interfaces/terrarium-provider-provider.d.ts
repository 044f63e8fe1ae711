/// <reference path="./terrarium-provider-streams.d.ts" />
/// <reference path="./terrarium-provider-types.d.ts" />
declare module 'terrarium:provider/provider@0.2.3' {
  /**
   * The provider's whole schema. Called once per loaded component.
   */
  export function getSchema(): ProviderSchema;
  export function validateProviderConfig(config: Value): Array<Diagnostic>;
  export function validateResourceConfig(typeName: string, config: Value, client: ClientCapabilities): Array<Diagnostic>;
  export function validateDataSourceConfig(typeName: string, config: Value): Array<Diagnostic>;
  /**
   * Called once per instance before it serves any call that needs a configured provider.
   * The host records the request and replays it into every new instance.
   */
  export function configure(request: ConfigureRequest): Array<Diagnostic>;
  export function readResource(request: ReadResourceRequest): ReadResourceResponse;
  export function planResourceChange(request: PlanResourceChangeRequest): PlanResourceChangeResponse;
  export function applyResourceChange(request: ApplyResourceChangeRequest): ApplyResourceChangeResponse;
  export function importResourceState(request: ImportResourceStateRequest): ImportResourceStateResponse;
  export function upgradeResourceState(request: UpgradeResourceStateRequest): UpgradeResourceStateResponse;
  export function upgradeResourceIdentity(request: UpgradeResourceIdentityRequest): UpgradeResourceIdentityResponse;
  /**
   * Only called when the provider declares the `move-resource-state` capability.
   */
  export function moveResourceState(request: MoveResourceStateRequest): MoveResourceStateResponse;
  /**
   * `terraform plan -generate-config-out` and `terraform query -generate-config-out`.
   * Only called when the provider declares the `generate-resource-config` capability.
   */
  export function generateResourceConfig(typeName: string, state: Value): GenerateResourceConfigResponse;
  export function readDataSource(request: ReadDataSourceRequest): ReadDataSourceResponse;
  /**
   * ---- ephemeral resources (protocol 6.7): values that are never stored ----
   */
  export function validateEphemeralResourceConfig(typeName: string, config: Value): Array<Diagnostic>;
  export function openEphemeralResource(request: OpenEphemeralResourceRequest): OpenEphemeralResourceResponse;
  export function renewEphemeralResource(typeName: string, private_: Uint8Array | undefined): RenewEphemeralResourceResponse;
  export function closeEphemeralResource(typeName: string, private_: Uint8Array | undefined): Array<Diagnostic>;
  /**
   * ---- list resources (protocol 6.10, `terraform query`) ----
   */
  export function validateListResourceConfig(typeName: string, config: Value): Array<Diagnostic>;
  /**
   * Streams the matching objects into `results`; returns diagnostics about the listing
   * as a whole.
   */
  export function listResource(request: ListResourceRequest, results: ListResults): Array<Diagnostic>;
  /**
   * ---- actions (protocol 6.10, `action` blocks) ----
   */
  export function validateActionConfig(typeName: string, config: Value): Array<Diagnostic>;
  export function planAction(request: ActionRequest): PlanActionResponse;
  /**
   * Runs the action, reporting progress as it goes; returns its final diagnostics.
   */
  export function invokeAction(request: ActionRequest, progress: ActionProgress): Array<Diagnostic>;
  export function callFunction(name: string, arguments: Array<Value>): Value;
  /**
   * Terraform asks the provider to stop what it is doing (Ctrl-C). Called on instances
   * that are not serving a call, with a short deadline (2 s); a running call learns of
   * the stop from `lifecycle.stopping` instead. Returns an error text if it could not.
   */
  export function stop(): string | undefined;
  export type Value = import('terrarium:provider/types@0.2.3').Value;
  export type Diagnostic = import('terrarium:provider/types@0.2.3').Diagnostic;
  export type AttributePath = import('terrarium:provider/types@0.2.3').AttributePath;
  export type ProviderSchema = import('terrarium:provider/types@0.2.3').ProviderSchema;
  export type ClientCapabilities = import('terrarium:provider/types@0.2.3').ClientCapabilities;
  export type DeferredReason = import('terrarium:provider/types@0.2.3').DeferredReason;
  export type TypeJson = import('terrarium:provider/types@0.2.3').TypeJson;
  export type Timestamp = import('terrarium:provider/types@0.2.3').Timestamp;
  export type ListResults = import('terrarium:provider/streams@0.2.3').ListResults;
  export type ActionProgress = import('terrarium:provider/streams@0.2.3').ActionProgress;
  export interface ConfigureRequest {
    terraformVersion: string,
    config: Value,
    client: ClientCapabilities,
  }
  export interface ReadResourceRequest {
    typeName: string,
    currentState: Value,
    'private': Uint8Array,
    providerMeta?: Value,
    client: ClientCapabilities,
    /**
     * The identity stored with the state, for types with an identity schema.
     */
    currentIdentity?: Value,
  }
  export interface ReadResourceResponse {
    /**
     * A null value means the resource no longer exists.
     */
    newState: Value,
    'private': Uint8Array,
    deferred?: DeferredReason,
    diagnostics: Array<Diagnostic>,
    newIdentity?: Value,
  }
  export interface PlanResourceChangeRequest {
    typeName: string,
    /**
     * Null on create.
     */
    priorState: Value,
    /**
     * Null on destroy.
     */
    proposedNewState: Value,
    config: Value,
    priorPrivate: Uint8Array,
    providerMeta?: Value,
    client: ClientCapabilities,
    priorIdentity?: Value,
  }
  export interface PlanResourceChangeResponse {
    plannedState: Value,
    requiresReplace: Array<AttributePath>,
    plannedPrivate: Uint8Array,
    deferred?: DeferredReason,
    diagnostics: Array<Diagnostic>,
    plannedIdentity?: Value,
  }
  export interface ApplyResourceChangeRequest {
    typeName: string,
    priorState: Value,
    /**
     * Null on destroy.
     */
    plannedState: Value,
    config: Value,
    plannedPrivate: Uint8Array,
    providerMeta?: Value,
    plannedIdentity?: Value,
  }
  export interface ApplyResourceChangeResponse {
    newState: Value,
    'private': Uint8Array,
    diagnostics: Array<Diagnostic>,
    newIdentity?: Value,
  }
  export interface ImportResourceStateRequest {
    typeName: string,
    /**
     * The import ID; empty when importing by identity.
     */
    id: string,
    client: ClientCapabilities,
    /**
     * Set when importing by identity (`import { identity = {...} }`).
     */
    identity?: Value,
  }
  export interface ImportedResource {
    typeName: string,
    state: Value,
    'private': Uint8Array,
    identity?: Value,
  }
  export interface ImportResourceStateResponse {
    imported: Array<ImportedResource>,
    deferred?: DeferredReason,
    diagnostics: Array<Diagnostic>,
  }
  export interface UpgradeResourceStateRequest {
    typeName: string,
    /**
     * The schema version the state was written with.
     */
    version: bigint,
    /**
     * The stored JSON state, decoded without a schema: objects, arrays (as tuples),
     * strings, numbers, bools and nulls exactly as they were written.
     */
    rawState: Value,
  }
  export interface UpgradeResourceStateResponse {
    /**
     * The state in the provider's current schema.
     */
    upgradedState: Value,
    diagnostics: Array<Diagnostic>,
  }
  export interface UpgradeResourceIdentityRequest {
    typeName: string,
    /**
     * The identity schema version the stored identity was written with.
     */
    version: bigint,
    /**
     * The stored identity JSON, decoded without a schema (as in upgrade-resource-state).
     */
    rawIdentity: Value,
  }
  export interface UpgradeResourceIdentityResponse {
    /**
     * The identity in the type's current identity schema.
     */
    upgradedIdentity: Value,
    diagnostics: Array<Diagnostic>,
  }
  /**
   * A `moved` block whose source is another resource type (possibly of another provider).
   */
  export interface MoveResourceStateRequest {
    /**
     * Full provider address of the source, e.g. `registry.terraform.io/hashicorp/random`.
     */
    sourceProviderAddress: string,
    sourceTypeName: string,
    sourceSchemaVersion: bigint,
    /**
     * The source's stored JSON state, decoded without a schema.
     */
    sourceState: Value,
    targetTypeName: string,
    sourcePrivate: Uint8Array,
    /**
     * The source's stored identity JSON, decoded without a schema, if it had one.
     */
    sourceIdentity?: Value,
    sourceIdentitySchemaVersion: bigint,
  }
  export interface MoveResourceStateResponse {
    /**
     * The state in the target type's schema.
     */
    targetState: Value,
    targetPrivate: Uint8Array,
    targetIdentity?: Value,
    diagnostics: Array<Diagnostic>,
  }
  export interface GenerateResourceConfigResponse {
    /**
     * A configuration in the resource type's schema that would produce `state`
     * (computed-only attributes null).
     */
    config: Value,
    diagnostics: Array<Diagnostic>,
  }
  export interface ReadDataSourceRequest {
    typeName: string,
    config: Value,
    providerMeta?: Value,
    client: ClientCapabilities,
  }
  export interface ReadDataSourceResponse {
    state: Value,
    deferred?: DeferredReason,
    diagnostics: Array<Diagnostic>,
  }
  export interface OpenEphemeralResourceRequest {
    typeName: string,
    config: Value,
    client: ClientCapabilities,
  }
  export interface OpenEphemeralResourceResponse {
    result: Value,
    /**
     * Data the guest needs to renew or close it; Terraform keeps it only in memory.
     */
    'private'?: Uint8Array,
    /**
     * When Terraform should call renew, if ever.
     */
    renewAt?: Timestamp,
    deferred?: DeferredReason,
    diagnostics: Array<Diagnostic>,
  }
  export interface RenewEphemeralResourceResponse {
    'private'?: Uint8Array,
    renewAt?: Timestamp,
    diagnostics: Array<Diagnostic>,
  }
  export interface ListResourceRequest {
    typeName: string,
    /**
     * The contents of the list block's `config` block.
     */
    config: Value,
    /**
     * Whether each item should carry its whole resource object.
     */
    includeResourceObject: boolean,
    /**
     * Terraform stops reading after this many items; `push` then returns false.
     */
    limit: bigint,
  }
  export interface ActionRequest {
    typeName: string,
    config: Value,
    client: ClientCapabilities,
  }
  export interface PlanActionResponse {
    deferred?: DeferredReason,
    diagnostics: Array<Diagnostic>,
  }
  export interface FunctionError {
    text: string,
    /**
     * Which argument was at fault, counting from 0.
     */
    argument?: number,
  }
}
