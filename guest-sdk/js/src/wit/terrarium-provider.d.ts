/// <reference path="./interfaces/terrarium-provider-lifecycle.d.ts" />
/// <reference path="./interfaces/terrarium-provider-log.d.ts" />
/// <reference path="./interfaces/terrarium-provider-provider.d.ts" />
/// <reference path="./interfaces/terrarium-provider-streams.d.ts" />
/// <reference path="./interfaces/terrarium-provider-types.d.ts" />
declare module 'terrarium:provider/terrarium-provider@0.2.0' {
  export type * as TerrariumProviderLifecycle020 from 'terrarium:provider/lifecycle@0.2.0'; // import terrarium:provider/lifecycle@0.2.0
  export type * as TerrariumProviderLog020 from 'terrarium:provider/log@0.2.0'; // import terrarium:provider/log@0.2.0
  export type * as TerrariumProviderStreams020 from 'terrarium:provider/streams@0.2.0'; // import terrarium:provider/streams@0.2.0
  export type * as TerrariumProviderTypes020 from 'terrarium:provider/types@0.2.0'; // import terrarium:provider/types@0.2.0
  export * as provider from 'terrarium:provider/provider@0.2.0'; // export terrarium:provider/provider@0.2.0
}
