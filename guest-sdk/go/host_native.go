//go:build !wasip1

package terrarium

import (
	"fmt"
	"os"
)

// What the host's imports do outside a component (the SDK's native tests): nothing stops a
// call, and the log is stderr.

func hostStopping() bool { return false }

func logError(message string, args ...any) {
	fmt.Fprintln(os.Stderr, append([]any{message}, args...)...)
}
