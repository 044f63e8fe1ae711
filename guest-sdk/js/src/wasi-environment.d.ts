// The one WASI interface the TypeScript development runtime imports beyond the world's
// (`terrarium-js dev-runtime` adds it to the world it builds against): the variables
// `terrarium dev` sets to say where the author's compiled module is.
declare module 'wasi:cli/environment@0.2.12' {
  export function getEnvironment(): Array<[string, string]>;
}
