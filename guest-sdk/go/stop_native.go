//go:build !wasip1

package terrarium

// hostStopping outside a component (native tests): nothing stops a call.
func hostStopping() bool { return false }
