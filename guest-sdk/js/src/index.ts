// @terrarium/sdk: Terraform providers in TypeScript, built into WebAssembly components that
// Terrarium serves. See README.md for a walk-through.

export {
  DeferredReason,
  Diagnostics,
  type Diagnostic,
  key,
  type Path,
  pathToString,
  TerraformError,
} from './diagnostics.js';
export { log, stopping } from './log.js';
export * as stop from './stop.js';
export {
  Action,
  type ConfigureContext,
  DataSource,
  EphemeralResource,
  FunctionError,
  type ListResults,
  type MovedState,
  type Opened,
  type Parameter,
  param,
  type PlanAnswer,
  type PlanRequest,
  type Progress,
  Provider,
  ProviderFunction,
  Resource,
} from './provider.js';
export {
  alsoRequires,
  atLeastOneOf,
  Attribute,
  block,
  bool,
  conflictsWith,
  dynamic,
  exactlyOneOf,
  length,
  list,
  map,
  nested,
  number,
  object,
  oneOf,
  pattern,
  range,
  Schema,
  schema,
  set,
  size,
  type State,
  string,
  typeOfAttribute,
  type Validator,
} from './schema.js';
export { PrivateState } from './private.js';
export { serve } from './serve.js';
export type { MaybePromise, TypeJson } from './types.js';
export { Decimal, isUnknown, type Refinements, type TfValue, Unknown, unknown, valuesEqual } from './values.js';
export * as files from './files.js';
export { FileError } from './files.js';
