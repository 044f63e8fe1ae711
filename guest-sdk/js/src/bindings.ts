/// <reference path="./wit/terrarium-provider-js.d.ts" preserve="true" />
// The one place that names the WIT package version: everything else imports the world's
// types and functions from here. (The declarations in wit/ are generated from the repository's
// wit/ by `terrarium-js wit-types`.)

export type * as wit from 'terrarium:provider/types@0.2.3';
export type * as witProvider from 'terrarium:provider/provider@0.2.3';
export type * as witStreams from 'terrarium:provider/streams@0.2.3';
export * as witLog from 'terrarium:provider/log@0.2.3';
export * as witLifecycle from 'terrarium:provider/lifecycle@0.2.3';
export * as wasiPreopens from 'wasi:filesystem/preopens@0.2.12';
export type * as wasiFilesystem from 'wasi:filesystem/types@0.2.12';
export type * as witBehaviour from 'terrarium:provider/behaviour@0.2.3';
