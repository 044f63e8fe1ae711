/// <reference path="./terrarium-provider-types.d.ts" />
declare module 'terrarium:provider/streams@0.2.3' {
  export type Value = import('terrarium:provider/types@0.2.3').Value;
  export type Diagnostic = import('terrarium:provider/types@0.2.3').Diagnostic;
  /**
   * One result of a list resource (`terraform query`).
   */
  export interface ListItem {
    /**
     * The listed object's identity, in the identity schema of the listed resource type.
     */
    identity: Value,
    /**
     * A short human-readable name for the object.
     */
    displayName: string,
    /**
     * The whole object in the resource type's schema; set only when the request asked
     * for resource objects.
     */
    resourceObject?: Value,
    /**
     * Problems with this item (an error diagnostic ends the listing in Terraform).
     */
    diagnostics: Array<Diagnostic>,
  }
  
  export class ActionProgress implements Disposable {
    /**
     * This type does not have a public constructor.
     */
    private constructor();
    /**
    * Sends a progress message that Terraform shows while the action runs.
    */
    report(message: string): void;
    [Symbol.dispose](): void;
  }
  
  export class ListResults implements Disposable {
    /**
     * This type does not have a public constructor.
     */
    private constructor();
    /**
    * Sends one item. Returns false once Terraform wants no more (its limit is reached
    * or it hung up): the guest should stop listing and return.
    */
    push(item: ListItem): boolean;
    [Symbol.dispose](): void;
  }
}
