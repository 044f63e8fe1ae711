package terrarium

import (
	"context"
	"strings"
	"testing"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
)

// renamedPet is at schema version 2: version 0 called `name` `title`, version 1 kept `legs`
// as a string.
type renamedPet struct{ server }

func (renamedPet) SchemaVersion() int64 { return 2 }

func (renamedPet) UpgradeState(_ context.Context, version int64, raw map[string]any) (map[string]any, error) {
	if version == 0 {
		raw["name"] = raw["title"]
		delete(raw, "title")
	}
	if legs, ok := raw["legs"].(string); ok {
		n, err := NumberValue(legs)
		if err != nil {
			return nil, NewError("Cannot upgrade state", "legs is not a number: "+legs)
		}
		raw["legs"] = n
	}
	return raw, nil
}

func upgradingExports() *exports {
	return &exports{&providerDef{resources: map[string]*typeDef{
		"x_pet":    NewResource[testPet]("x_pet", renamedPet{}).def,
		"x_server": NewResource[testPet]("x_server", server{}).def,
	}}}
}

func upgrade(tt *testing.T, e *exports, typeName string, version int64, raw string) p.UpgradeResourceStateResponse {
	tt.Helper()
	state, err := jsonTree([]byte(raw))
	if err != nil {
		tt.Fatal(err)
	}
	return e.UpgradeResourceState(p.UpgradeResourceStateRequest{TypeName: typeName, Version: version, RawState: toWIT(state)})
}

func TestTheSchemaCarriesTheDeclaredVersion(tt *testing.T) {
	versions := map[string]int64{}
	for _, s := range upgradingExports().GetSchema().Resources {
		versions[s.Name] = s.Schema.Version
	}
	if versions["x_pet"] != 2 || versions["x_server"] != 0 {
		tt.Fatalf("schema versions %v, want x_pet 2 and x_server 0", versions)
	}
}

func TestAnOldStateIsUpgradedByUpgradeState(tt *testing.T) {
	e := upgradingExports()
	r := upgrade(tt, e, "x_pet", 0, `{"id": "pet-1", "title": "rex", "legs": "3.5", "tags": ["a"]}`)
	state := fromWIT(r.UpgradedState)
	if len(r.Diagnostics) != 0 || state.attr("name").text != "rex" || state.attr("legs").kind != tNumber ||
		state.attr("legs").text != "3.5" || state.attr("title") != nil || state.attr("tags").kind != tSet {
		tt.Fatalf("state %+v, diagnostics %+v", state, r.Diagnostics)
	}

	// The current version is read as it is, without UpgradeState.
	r = upgrade(tt, e, "x_pet", 2, `{"id": "pet-1", "name": "rex", "legs": 4}`)
	if state := fromWIT(r.UpgradedState); len(r.Diagnostics) != 0 || state.attr("name").text != "rex" {
		tt.Fatalf("a current state: %+v, diagnostics %+v", state, r.Diagnostics)
	}

	// An error of UpgradeState is the diagnostic.
	r = upgrade(tt, e, "x_pet", 1, `{"id": "pet-1", "name": "rex", "legs": "four"}`)
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Summary != "Cannot upgrade state" ||
		!strings.Contains(r.Diagnostics[0].Detail, "four") || fromWIT(r.UpgradedState).kind != tNull {
		tt.Fatalf("a failed upgrade: %+v", r.Diagnostics)
	}
}

func TestAStateOfAnUnknownVersionIsRefused(tt *testing.T) {
	e := upgradingExports()
	r := upgrade(tt, e, "x_pet", 3, `{"id": "pet-1", "name": "rex", "legs": 4}`)
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Summary != "State written by a newer provider" ||
		!strings.Contains(r.Diagnostics[0].Detail, "versions up to 2") {
		tt.Fatalf("a newer state: %+v", r.Diagnostics)
	}
	// A type without StateUpgrader is at version 0 and cannot upgrade; here from -1 (no
	// real Terraform sends that, but the type has no older version to come from).
	r = upgrade(tt, e, "x_server", -1, `{"id": "pet-1", "name": "rex", "legs": 4}`)
	if len(r.Diagnostics) != 1 || !strings.Contains(r.Diagnostics[0].Detail, "cannot upgrade x_server state from schema version -1") {
		tt.Fatalf("a type without UpgradeState: %+v", r.Diagnostics)
	}
}
