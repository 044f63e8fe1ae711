package acctest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestChecksFindAttributesByAddressAndPath(t *testing.T) {
	var state map[string]any
	_ = json.Unmarshal([]byte(`{"outputs": {"greeting": {"value": "Hi"}}, "root_module": {"resources": [
		{"address": "pets_pet.rex", "values": {"legs": 4, "id": null, "toys": [{"kind": "ball"}]}}]}}`), &state)
	for _, ok := range []Check{Attr("pets_pet.rex", "legs", 4), Attr("pets_pet.rex", "legs", 4.0),
		Attr("pets_pet.rex", "toys.0.kind", "ball"), Output("greeting", "Hi")} {
		if err := ok(state); err != nil {
			t.Error(err)
		}
	}
	for want, failing := range map[string]Check{
		"is 4, expected 3":           Attr("pets_pet.rex", "legs", 3),
		"no pets_pet.tom":            Attr("pets_pet.tom", "legs", 4),
		"has no toys.1.kind":         Attr("pets_pet.rex", "toys.1.kind", "ball"),
		"pets_pet.rex.id is not set": AttrSet("pets_pet.rex", "id"),
		"no output farewell":         Output("farewell", "Bye"),
	} {
		if err := failing(state); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("expected %q, got %v", want, err)
		}
	}
}
