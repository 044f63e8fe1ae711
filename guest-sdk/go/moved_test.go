package terrarium

import (
	"context"
	"strings"
	"testing"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
)

// petFromAnimal moves an `x_animal` ({"id", "label", "legs"}) into a pet.
type petFromAnimal struct{ server }

type animal struct {
	ID    string `tf:"id"`
	Label string `tf:"label"`
	Legs  Number `tf:"legs"`
}

func (petFromAnimal) MoveState(ctx context.Context, source MoveSource) (testPet, error) {
	if source.TypeName != "x_animal" {
		return testPet{}, NewError("Cannot move", source.TypeName+" is not an animal")
	}
	var a animal
	if err := source.Decode(&a); err != nil {
		return testPet{}, err
	}
	if err := Private(ctx).Set("moved_from", source.ProviderAddress); err != nil {
		return testPet{}, err
	}
	return testPet{ID: StringValue(a.ID), Name: a.Label, Legs: a.Legs}, nil
}

func movingExports() *exports {
	return &exports{&providerDef{resources: map[string]*typeDef{
		"x_pet":    NewResource[testPet]("x_pet", petFromAnimal{}).def,
		"x_server": NewResource[testPet]("x_server", server{}).def,
	}}}
}

func TestMovedStateIsReadFromTheSourceType(tt *testing.T) {
	e := movingExports()
	if !e.GetSchema().Capabilities.MoveResourceState {
		tt.Fatal("the provider should declare the move-resource-state capability")
	}
	source, err := jsonTree([]byte(`{"id": "a-1", "label": "rex", "legs": 3.5, "extra": [1]}`))
	if err != nil {
		tt.Fatal(err)
	}
	r := e.MoveResourceState(p.MoveResourceStateRequest{SourceProviderAddress: "registry.terraform.io/x/zoo",
		SourceTypeName: "x_animal", SourceState: toWIT(source), TargetTypeName: "x_pet", SourcePrivate: []uint8{}})
	state := fromWIT(r.TargetState)
	if len(r.Diagnostics) != 0 || state.attr("id").text != "a-1" || state.attr("name").text != "rex" ||
		state.attr("legs").text != "3.5" || string(r.TargetPrivate) != `{"moved_from":"registry.terraform.io/x/zoo"}` {
		tt.Fatalf("state %+v, private %q, diagnostics %+v", state, r.TargetPrivate, r.Diagnostics)
	}

	wrong, _ := jsonTree([]byte(`{"label": true}`))
	r = e.MoveResourceState(p.MoveResourceStateRequest{SourceTypeName: "x_animal", SourceState: toWIT(wrong),
		TargetTypeName: "x_pet"})
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Summary != "Cannot read the moved state" || fromWIT(r.TargetState).kind != tNull {
		tt.Fatalf("a source that does not fit: %+v", r.Diagnostics)
	}
	r = e.MoveResourceState(p.MoveResourceStateRequest{SourceTypeName: "x_animal", SourceState: toWIT(source),
		TargetTypeName: "x_server"})
	if len(r.Diagnostics) != 1 || !strings.Contains(r.Diagnostics[0].Detail, "cannot move x_animal state into x_server") {
		tt.Fatalf("a type without MoveState: %+v", r.Diagnostics)
	}
}

// fixedServer is a server whose objects cannot exist twice: a replacement deletes first.
type fixedServer struct{ server }

func (fixedServer) DeleteBeforeReplace() bool { return true }

func TestTheReplacementExportNamesTheTypesThatDeleteFirst(tt *testing.T) {
	e := &exports{&providerDef{resources: map[string]*typeDef{
		"x_server": NewResource[testPet]("x_server", server{}).def,
		"x_fixed":  NewResource[testPet]("x_fixed", fixedServer{}).def,
	}}}
	if got := e.DeleteBeforeReplace(); len(got) != 1 || got[0] != "x_fixed" {
		tt.Fatalf("DeleteBeforeReplace() = %q, want [x_fixed]", got)
	}
}
