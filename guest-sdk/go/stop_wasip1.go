//go:build wasip1

package terrarium

import lifecycle "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_lifecycle"

// hostStopping is the host's lifecycle.stopping: whether Terraform asked to stop since the
// running call began.
func hostStopping() bool { return lifecycle.Stopping() }
