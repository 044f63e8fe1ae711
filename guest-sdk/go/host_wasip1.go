//go:build wasip1

package terrarium

import (
	"context"

	lifecycle "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_lifecycle"
)

// hostStopping is the host's lifecycle.stopping: whether Terraform asked to stop since the
// running call began.
func hostStopping() bool { return lifecycle.Stopping() }

// logError writes an error record to the host's log (TF_LOG_PROVIDER).
func logError(message string, args ...any) { Logger(context.Background()).Error(message, args...) }
