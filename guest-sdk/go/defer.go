package terrarium

import (
	"context"
	"errors"
	"fmt"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// DeferredReason says why a call asks Terraform to defer it to a later plan (Deferred). The
// names are terraform-plugin-go's (tfprotov6.DeferredReason...) and the other SDKs'
// (DeferredReason::ResourceConfigUnknown in Rust, DeferredReason.RESOURCE_CONFIG_UNKNOWN in
// Python).
type DeferredReason int

const (
	// DeferredReasonUnknown gives no reason.
	DeferredReasonUnknown DeferredReason = iota
	// DeferredReasonResourceConfigUnknown: the configuration has unknown values the
	// provider needs.
	DeferredReasonResourceConfigUnknown
	// DeferredReasonProviderConfigUnknown: the provider configuration has unknown values
	// the provider needs.
	DeferredReasonProviderConfigUnknown
	// DeferredReasonAbsentPrerequisite: something the resource needs does not exist yet.
	DeferredReasonAbsentPrerequisite
)

// String is the reason in words, as the error a Terraform that accepts no deferrals shows.
func (r DeferredReason) String() string {
	switch r {
	case DeferredReasonResourceConfigUnknown:
		return "the resource configuration has unknown values"
	case DeferredReasonProviderConfigUnknown:
		return "the provider configuration has unknown values"
	case DeferredReasonAbsentPrerequisite:
		return "something it needs does not exist yet"
	}
	return "reason not given"
}

func (r DeferredReason) wit() t.DeferredReason {
	switch r {
	case DeferredReasonResourceConfigUnknown:
		return t.DeferredReason_ResourceConfigUnknown
	case DeferredReasonProviderConfigUnknown:
		return t.DeferredReason_ProviderConfigUnknown
	case DeferredReasonAbsentPrerequisite:
		return t.DeferredReason_AbsentPrerequisite
	}
	return t.DeferredReason_Unknown
}

// DeferredError is the error Deferred returns.
type DeferredError struct{ Reason DeferredReason }

func (e *DeferredError) Error() string { return "deferred: " + e.Reason.String() }

// Deferred asks Terraform to defer this call to a later plan, as the Rust SDK's
// Diagnostics::deferred and Python's and TypeScript's TerraformError.deferred do. Return it
// from a resource's Plan, Read, ImportState or ImportByIdentity, a data source's Read, an
// ephemeral resource's Open or an action's Plan:
//
//	if config.Label.IsUnknown() {
//		return planned, terrarium.Deferred(terrarium.DeferredReasonResourceConfigUnknown)
//	}
//
// Terraform honours it when it accepts deferrals (`-allow-deferral`, experimental builds);
// otherwise the call fails with an error that says why the provider cannot go on and what
// to do. Warnings added with Warn are kept. Returned from any other call (Create, say), it is
// an error: nothing else can be deferred.
func Deferred(reason DeferredReason) error { return &DeferredError{Reason: reason} }

// takeDeferral finds a deferral in err (itself, wrapped, or joined with other errors): err
// without it, and its reason.
func takeDeferral(err error) (error, *DeferredReason) {
	var d *DeferredError
	if !errors.As(err, &d) {
		return err, nil
	}
	reason := d.Reason
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var rest []error
		for _, inner := range joined.Unwrap() {
			if left, found := takeDeferral(inner); found == nil {
				rest = append(rest, left)
			}
		}
		return errors.Join(rest...), &reason
	}
	return nil, &reason
}

// guardDeferrable is guard for a call Terraform may defer: the diagnostics and the deferral
// Terraform gets. A deferral Terraform does not accept (client) becomes an error that says
// why, as in the other SDKs; call names the code that deferred ("Plan of slow_vm").
func guardDeferrable(what, call string, client t.ClientCapabilities, run func(ctx context.Context) error) (
	Diagnostics, witTypes.Option[t.DeferredReason]) {
	var reason *DeferredReason
	ds := guard(what, func(ctx context.Context) error {
		var err error
		err, reason = takeDeferral(run(ctx))
		return err
	})
	switch {
	case reason == nil:
		return ds, witTypes.None[t.DeferredReason]()
	case client.DeferralAllowed:
		return ds, witTypes.Some(reason.wit())
	}
	return append(ds, NewError("Provider cannot proceed yet", fmt.Sprintf(
		"%s asked to defer this change (%s), but Terraform did not say it accepts deferred changes. "+
			"Apply the resources it depends on first (for example with -target), or run a Terraform that "+
			"supports deferral (-allow-deferral).", call, reason))), witTypes.None[t.DeferredReason]()
}
