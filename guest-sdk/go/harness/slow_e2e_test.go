//go:build e2e

// Run by the end-to-end suite (tests/tests/e2e/go.rs), which builds what it needs: the
// terrarium binary (TERRARIUM_BIN) and tests/guests/slow/go (TERRARIUM_SLOW_GO).

package harness

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

func openSlow(t *testing.T) *Harness {
	t.Helper()
	component := os.Getenv("TERRARIUM_SLOW_GO")
	if component == "" {
		t.Fatal("TERRARIUM_SLOW_GO names no component: run this through tests/tests/e2e/go.rs")
	}
	h, err := Open(component)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if _, err := h.Configure(nil); err != nil {
		t.Fatal(err)
	}
	return h
}

// slow_server's identity is its id: a create stores it, a plan keeps it, an import by
// identity reads it back.
func TestIdentitiesThroughTheHarness(t *testing.T) {
	h := openSlow(t)
	created, err := h.Create("slow_server", map[string]any{"boot_seconds": 0})
	if err != nil {
		t.Fatal(err)
	}
	if created.Plan.PlannedIdentity != nil {
		t.Fatalf("a create's identity is known only after apply, planned %v", created.Plan.PlannedIdentity)
	}
	want := map[string]any{"id": "server-0"}
	if !reflect.DeepEqual(created.Identity, want) {
		t.Fatalf("created with identity %v, want %v", created.Identity, want)
	}
	plan, err := h.PlanWithIdentity("slow_server", created.State, created.Identity,
		map[string]any{"boot_seconds": 0, "protect": true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plan.PlannedIdentity, want) || len(plan.RequiresReplace) != 0 {
		t.Fatalf("an update planned identity %v, replacing for %v", plan.PlannedIdentity, plan.RequiresReplace)
	}
	read, err := h.ReadWithIdentity("slow_server", created.State, created.Private, created.Identity)
	if err != nil || !reflect.DeepEqual(read.Identity, want) {
		t.Fatalf("read: identity %v, %v", read, err)
	}

	imported, err := h.ImportByIdentity("slow_server", map[string]any{"id": "server-7"})
	if err != nil {
		t.Fatal(err)
	}
	state, _ := imported.State.(map[string]any)
	if state["boot_seconds"] != json.Number("7") || !reflect.DeepEqual(imported.Identity, map[string]any{"id": "server-7"}) {
		t.Fatalf("imported %v with identity %v", imported.State, imported.Identity)
	}
	if _, err := h.ImportByIdentity("slow_server", map[string]any{"id": "vm-7"}); err == nil {
		t.Fatal("importing a bad identity succeeded")
	} else if f, ok := err.(*Failure); !ok || !f.Mentions("is not a server id") {
		t.Fatalf("importing a bad identity: %v", err)
	}
}

// list "slow_server" lists server-1 to server-<count>, as terraform query shows them.
func TestListsThroughTheHarness(t *testing.T) {
	h := openSlow(t)
	listing, err := h.List("slow_server", map[string]any{"count": 3})
	if err != nil {
		t.Fatal(err)
	}
	if names := listing.DisplayNames(); !reflect.DeepEqual(names, []string{"server-1", "server-2", "server-3"}) {
		t.Fatalf("listed %v", names)
	}
	first := listing.Items[0]
	state, _ := first.State.(map[string]any)
	if !reflect.DeepEqual(first.Identity, map[string]any{"id": "server-1"}) || state["ready"] != true {
		t.Fatalf("first item %+v", first)
	}
	limited, err := h.ListWith("slow_server", map[string]any{"count": 3}, false, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(limited.Items) != 2 || limited.Items[1].State != nil {
		t.Fatalf("limit 2 without resource objects: %+v", limited.Items)
	}
	if _, err := h.List("slow_nothing", nil); err == nil {
		t.Fatal("listing an unknown list resource succeeded")
	} else if _, ok := err.(*ProtocolError); !ok {
		t.Fatalf("listing an unknown list resource: %v", err)
	}
}

// slow_network's address blocks are computed (`tf:"address,block,computed"`): a create plans
// them unknown and stores the provider's, and a changed note plans them unknown again.
func TestAComputedBlockThroughTheHarness(t *testing.T) {
	h := openSlow(t)
	addresses := func(port string) []any {
		return []any{
			map[string]any{"ip": "10.0.0.1", "port": json.Number(port)},
			map[string]any{"ip": "10.0.0.2", "port": json.Number(port)},
		}
	}
	created, err := h.Create("slow_network", map[string]any{"size": 2})
	if err != nil {
		t.Fatal(err)
	}
	planned, _ := created.Plan.Planned.(map[string]any)
	state, _ := created.State.(map[string]any)
	if planned["address"] != Unknown || !reflect.DeepEqual(state["address"], addresses("443")) {
		t.Fatalf("create planned address %v, stored %v", planned["address"], state["address"])
	}
	updated, err := h.Update("slow_network", created.State, map[string]any{"size": 2, "note": "tls"})
	if err != nil {
		t.Fatal(err)
	}
	planned, _ = updated.Plan.Planned.(map[string]any)
	state, _ = updated.State.(map[string]any)
	if planned["address"] != Unknown || !reflect.DeepEqual(state["address"], addresses("8443")) {
		t.Fatalf("a changed note planned address %v, stored %v", planned["address"], state["address"])
	}
}
