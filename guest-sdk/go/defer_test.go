package terrarium

import (
	"context"
	"errors"
	"strings"
	"testing"

	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// waitingPet defers its plan, read and import until its name is known (or, for import,
// always), with a warning beside the deferral; creating one defers too, which no call can.
type waitingPet struct{ server }

func (waitingPet) Plan(ctx context.Context, _ *testPet, planned, _ testPet) (testPet, error) {
	Warn(ctx, "Waiting", "The pet waits for its owner.")
	return planned, Deferred(DeferredReasonAbsentPrerequisite)
}

func (waitingPet) Read(context.Context, testPet) (*testPet, error) {
	return nil, errors.Join(Deferred(DeferredReasonProviderConfigUnknown))
}

func (waitingPet) ImportState(context.Context, string) (testPet, error) {
	return testPet{}, Deferred(DeferredReasonUnknown)
}

func (waitingPet) Create(context.Context, testPet) (testPet, error) {
	return testPet{}, Deferred(DeferredReasonResourceConfigUnknown)
}

func TestADeferralIsHonouredOnlyWhenTerraformAcceptsIt(tt *testing.T) {
	e := &exports{&providerDef{resources: map[string]*typeDef{"x_pet": NewResource[testPet]("x_pet", waitingPet{}).def}}}
	planned, _ := encode(testPet{ID: StringUnknown(), Name: "rex", Legs: NumberInt(4)})
	plan := func(allowed bool) b.PlanResourceResponse {
		return e.PlanResource(b.PlanResourceRequest{TypeName: "x_pet", PriorState: toWIT(nullTree),
			PlannedState: toWIT(planned), Config: toWIT(planned), PriorPrivate: []uint8{},
			Client: t.ClientCapabilities{DeferralAllowed: allowed}})
	}

	r := plan(true)
	if !r.Deferred.IsSome() || r.Deferred.Some() != t.DeferredReason_AbsentPrerequisite || len(r.Diagnostics) != 1 ||
		r.Diagnostics[0].Severity != t.Severity_Warning || fromWIT(r.PlannedState).attr("name").text != "rex" {
		tt.Fatalf("allowed: deferred %+v, diagnostics %+v", r.Deferred, r.Diagnostics)
	}

	r = plan(false)
	if r.Deferred.IsSome() || len(r.Diagnostics) != 2 || r.Diagnostics[1].Summary != "Provider cannot proceed yet" ||
		!strings.HasPrefix(r.Diagnostics[1].Detail, "Plan of x_pet asked to defer this change (something it needs does "+
			"not exist yet), but Terraform did not say it accepts deferred changes. Apply the resources it depends on "+
			"first (for example with -target), or run a Terraform that supports deferral (-allow-deferral).") {
		tt.Fatalf("refused: deferred %+v, diagnostics %+v", r.Deferred, r.Diagnostics)
	}

	current, _ := encode(testPet{ID: StringValue("pet-rex"), Name: "rex", Legs: NumberInt(4)})
	read := e.ReadResource(p.ReadResourceRequest{TypeName: "x_pet", CurrentState: toWIT(current), Private: []uint8{},
		Client: t.ClientCapabilities{DeferralAllowed: true}})
	if !read.Deferred.IsSome() || read.Deferred.Some() != t.DeferredReason_ProviderConfigUnknown ||
		len(read.Diagnostics) != 0 || fromWIT(read.NewState).attr("id").text != "pet-rex" {
		tt.Fatalf("read: deferred %+v, diagnostics %+v, state %+v", read.Deferred, read.Diagnostics, fromWIT(read.NewState))
	}

	imported := e.ImportResourceState(p.ImportResourceStateRequest{TypeName: "x_pet", Id: "pet-rex",
		Client: t.ClientCapabilities{DeferralAllowed: true}})
	if !imported.Deferred.IsSome() || imported.Deferred.Some() != t.DeferredReason_Unknown || len(imported.Imported) != 0 {
		tt.Fatalf("import: %+v", imported)
	}

	created := e.ApplyResourceChange(p.ApplyResourceChangeRequest{TypeName: "x_pet", PriorState: toWIT(nullTree),
		PlannedState: toWIT(planned), Config: toWIT(planned), PlannedPrivate: []uint8{}})
	if len(created.Diagnostics) != 1 || created.Diagnostics[0].Summary != "Provider asked to defer a call that cannot be deferred" {
		tt.Fatalf("create: %+v", created.Diagnostics)
	}
}
