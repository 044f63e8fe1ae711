package terrarium

import (
	"context"
	"testing"

	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
)

// plannedPet names a pet's id in its plan, and refuses to destroy pets called "keep".
type plannedPet struct{ server }

func (plannedPet) Plan(_ context.Context, prior *testPet, planned, _ testPet) (testPet, error) {
	if prior == nil {
		planned.ID = StringValue("pet-" + planned.Name)
	}
	return planned, nil
}

func (plannedPet) PlanDestroy(_ context.Context, prior testPet) error {
	if prior.Name == "keep" {
		return NewError("Pet is protected", "Rename it before destroying it.")
	}
	return nil
}

func TestThePlanHookAdjustsPlansAndRefusesDestroys(tt *testing.T) {
	e := &exports{&providerDef{resources: map[string]*typeDef{
		"x_pet":    NewResource[testPet]("x_pet", plannedPet{}).def,
		"x_server": NewResource[testPet]("x_server", server{}).def,
	}}}
	hooks := map[string]bool{}
	for _, nb := range e.GetBehaviour().Resources {
		hooks[nb.Name] = nb.Behaviour.PlanHook
	}
	if !hooks["x_pet"] || hooks["x_server"] || !e.GetSchema().Capabilities.PlanDestroy {
		tt.Fatalf("plan hooks %v, capabilities %+v", hooks, e.GetSchema().Capabilities)
	}
	planned, _ := encode(testPet{ID: StringUnknown(), Name: "rex", Legs: NumberInt(4)})
	r := e.PlanResource(b.PlanResourceRequest{TypeName: "x_pet", PriorState: toWIT(nullTree),
		PlannedState: toWIT(planned), Config: toWIT(planned), PriorPrivate: []uint8{}})
	if len(r.Diagnostics) != 0 || fromWIT(r.PlannedState).attr("id").text != "pet-rex" {
		tt.Fatalf("plan %+v, diagnostics %+v", fromWIT(r.PlannedState), r.Diagnostics)
	}
	kept, _ := encode(testPet{ID: StringValue("pet-keep"), Name: "keep", Legs: NumberInt(4)})
	r = e.PlanResource(b.PlanResourceRequest{TypeName: "x_pet", PriorState: toWIT(kept),
		PlannedState: toWIT(nullTree), Config: toWIT(nullTree), PriorPrivate: []uint8{}})
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Summary != "Pet is protected" || fromWIT(r.PlannedState).kind != tNull {
		tt.Fatalf("destroy plan %+v", r.Diagnostics)
	}
	gone, _ := encode(testPet{ID: StringValue("pet-rex"), Name: "rex", Legs: NumberInt(4)})
	r = e.PlanResource(b.PlanResourceRequest{TypeName: "x_pet", PriorState: toWIT(gone),
		PlannedState: toWIT(nullTree), Config: toWIT(nullTree), PriorPrivate: []uint8{}})
	if len(r.Diagnostics) != 0 {
		tt.Fatalf("an unprotected destroy was refused: %+v", r.Diagnostics)
	}
}
