//go:build wasip1

package gcgate

import "runtime/debug"

// percent is the collector's setting when the program started (100, or GOGC), restored
// whenever the collector may run.
var percent = debug.SetGCPercent(-1)

// running says whether the collector may start now.
var running = false

func set(run bool) func() {
	if running == run {
		return nothing
	}
	apply(run)
	if run {
		return stopped
	}
	return started
}

func apply(run bool) {
	running = run
	if run {
		debug.SetGCPercent(percent)
	} else {
		debug.SetGCPercent(-1)
	}
}

func nothing() {}
func stopped() { apply(false) }
func started() { apply(true) }
