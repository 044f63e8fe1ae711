/// <reference path="./interfaces/terrarium-provider-behaviour.d.ts" />
/// <reference path="./interfaces/terrarium-provider-computed-blocks.d.ts" />
/// <reference path="./interfaces/terrarium-provider-lifecycle.d.ts" />
/// <reference path="./interfaces/terrarium-provider-log.d.ts" />
/// <reference path="./interfaces/terrarium-provider-provider.d.ts" />
/// <reference path="./interfaces/terrarium-provider-replacement.d.ts" />
/// <reference path="./interfaces/terrarium-provider-streams.d.ts" />
/// <reference path="./interfaces/terrarium-provider-types.d.ts" />
/// <reference path="./interfaces/wasi-clocks-wall-clock.d.ts" />
/// <reference path="./interfaces/wasi-filesystem-preopens.d.ts" />
/// <reference path="./interfaces/wasi-filesystem-types.d.ts" />
/// <reference path="./interfaces/wasi-io-error.d.ts" />
/// <reference path="./interfaces/wasi-io-poll.d.ts" />
/// <reference path="./interfaces/wasi-io-streams.d.ts" />
declare module 'terrarium:provider/terrarium-provider-js@0.2.3' {
  export type * as TerrariumProviderLifecycle023 from 'terrarium:provider/lifecycle@0.2.3'; // import terrarium:provider/lifecycle@0.2.3
  export type * as TerrariumProviderLog023 from 'terrarium:provider/log@0.2.3'; // import terrarium:provider/log@0.2.3
  export type * as TerrariumProviderStreams023 from 'terrarium:provider/streams@0.2.3'; // import terrarium:provider/streams@0.2.3
  export type * as TerrariumProviderTypes023 from 'terrarium:provider/types@0.2.3'; // import terrarium:provider/types@0.2.3
  export type * as WasiClocksWallClock0212 from 'wasi:clocks/wall-clock@0.2.12'; // import wasi:clocks/wall-clock@0.2.12
  export type * as WasiFilesystemPreopens0212 from 'wasi:filesystem/preopens@0.2.12'; // import wasi:filesystem/preopens@0.2.12
  export type * as WasiFilesystemTypes0212 from 'wasi:filesystem/types@0.2.12'; // import wasi:filesystem/types@0.2.12
  export type * as WasiIoError0212 from 'wasi:io/error@0.2.12'; // import wasi:io/error@0.2.12
  export type * as WasiIoPoll0212 from 'wasi:io/poll@0.2.12'; // import wasi:io/poll@0.2.12
  export type * as WasiIoStreams0212 from 'wasi:io/streams@0.2.12'; // import wasi:io/streams@0.2.12
  export * as behaviour from 'terrarium:provider/behaviour@0.2.3'; // export terrarium:provider/behaviour@0.2.3
  export * as provider from 'terrarium:provider/provider@0.2.3'; // export terrarium:provider/provider@0.2.3
  export * as replacement from 'terrarium:provider/replacement@0.2.3'; // export terrarium:provider/replacement@0.2.3
  export * as computedBlocks from 'terrarium:provider/computed-blocks@0.2.3'; // export terrarium:provider/computed-blocks@0.2.3
}
