// Package gcgate lets Go's garbage collector start only while Go code may call the host.
//
// The host passes a value into the component (an exported function's arguments, an imported
// function's results) by calling the component's `cabi_realloc`, which allocates on the Go
// heap, and the component model forbids the component to call the host from there: wasmtime
// traps with "cannot leave component instance". An allocation can start a collection, and
// once the program has opened a file the runtime's netpoller is initialized, so every
// collection's start-the-world polls it, which under the wasip1 adapter is a call to the host
// (wasi:io/poll). A Go provider that reads files therefore crashed after a few hundred calls on
// one instance, whenever a collection happened to start inside `cabi_realloc`.
//
// Under wasip1 the collector is stopped (as GOGC=off) from the start, started again for the
// body of each exported function (Open, from the generated forwarders) and stopped around each
// imported function whose results the host allocates in the component (Hold). Stopping it
// waits for a running cycle's mark phase to end, so no cycle is in progress when the host
// calls `cabi_realloc`. Elsewhere (native tests) both are no-ops.
package gcgate

// Open lets the collector run; the function it returns stops it again. An exported function
// calls it first thing: `defer gcgate.Open()()`.
func Open() (stop func()) { return set(true) }

// Hold stops the collector around an imported function whose results the host allocates in
// the component (lists, strings, variants holding them); the function it returns lets it
// run again: `defer gcgate.Hold()()`.
func Hold() (resume func()) { return set(false) }
