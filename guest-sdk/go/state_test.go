package terrarium

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
)

// server is a resource whose Create fails after it made the object (with the state it
// reached when half is set), and which keeps a token in its private state.
type server struct{ half bool }

func (s server) Create(ctx context.Context, planned testPet) (testPet, error) {
	planned.ID = StringValue("srv-1")
	if err := Private(ctx).Set("token", map[string]int{"n": 7}); err != nil {
		return testPet{}, err
	}
	if s.half {
		// Legs was unknown in the plan (a default the host had not filled in here): a
		// state holds no unknowns, so it is stored as null.
		return testPet{}, WithState(NewError("Server failed to boot", "it never answered"), &planned)
	}
	return planned, errors.New("no capacity")
}

func (server) Read(ctx context.Context, current testPet) (*testPet, error) {
	var token map[string]int
	if ok, err := Private(ctx).Get("token", &token); err != nil || !ok || token["n"] != 7 {
		return nil, NewError("No token", "the private state lost the token")
	}
	Private(ctx).Remove("token")
	return &current, nil
}

func (server) Update(_ context.Context, _, planned testPet) (testPet, error) {
	return planned, nil
}

func (server) Delete(context.Context, testPet) error { return errors.New("busy") }

func applyServer(tt *testing.T, half bool) p.ApplyResourceChangeResponse {
	tt.Helper()
	planned, err := encode(testPet{ID: StringUnknown(), Name: "web", Legs: NumberUnknown()})
	if err != nil {
		tt.Fatal(err)
	}
	e := &exports{&providerDef{resources: map[string]*typeDef{"x_server": NewResource[testPet]("x_server", server{half}).def}}}
	return e.ApplyResourceChange(p.ApplyResourceChangeRequest{TypeName: "x_server", PriorState: toWIT(nullTree),
		PlannedState: toWIT(planned), Config: toWIT(planned), PlannedPrivate: []uint8{}})
}

func TestAFailedCreateWithStateIsRecordedWithoutUnknowns(tt *testing.T) {
	r := applyServer(tt, true)
	state := fromWIT(r.NewState)
	if state.kind != tObject || state.attr("id").text != "srv-1" || state.attr("legs").kind != tNull {
		tt.Fatalf("the state reached should be recorded, unknowns as null: %+v", state)
	}
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Summary != "Server failed to boot" {
		tt.Fatalf("diagnostics %+v", r.Diagnostics)
	}
	if string(r.Private) != `{"token":{"n":7}}` {
		tt.Fatalf("private %q", r.Private)
	}
}

func TestAFailedCreateWithoutStateRecordsNothing(tt *testing.T) {
	r := applyServer(tt, false)
	if fromWIT(r.NewState).kind != tNull {
		tt.Fatalf("a plain error leaves the prior (null) state: %+v", fromWIT(r.NewState))
	}
	if len(r.Diagnostics) != 1 || !strings.Contains(r.Diagnostics[0].Detail, "no capacity") {
		tt.Fatalf("diagnostics %+v", r.Diagnostics)
	}
}

func TestAFailedDeleteKeepsThePriorState(tt *testing.T) {
	prior, _ := encode(testPet{ID: StringValue("srv-1"), Name: "web", Legs: NumberInt(4)})
	e := &exports{&providerDef{resources: map[string]*typeDef{"x_server": NewResource[testPet]("x_server", server{}).def}}}
	r := e.ApplyResourceChange(p.ApplyResourceChangeRequest{TypeName: "x_server", PriorState: toWIT(prior),
		PlannedState: toWIT(nullTree), Config: toWIT(nullTree), PlannedPrivate: []uint8("kept")})
	if fromWIT(r.NewState).attr("id").text != "srv-1" || string(r.Private) != "kept" {
		tt.Fatalf("state %+v, private %q", fromWIT(r.NewState), r.Private)
	}
}

func TestPrivateStateRoundTripsAndKeepsForeignBytes(tt *testing.T) {
	prior, _ := encode(testPet{ID: StringValue("srv-1"), Name: "web", Legs: NumberInt(4)})
	e := &exports{&providerDef{resources: map[string]*typeDef{"x_server": NewResource[testPet]("x_server", server{}).def}}}
	r := e.ReadResource(p.ReadResourceRequest{TypeName: "x_server", CurrentState: toWIT(prior),
		Private: []uint8(`{"token":{"n":7},"other":1}`)})
	if len(r.Diagnostics) != 0 || string(r.Private) != `{"other":1}` {
		tt.Fatalf("diagnostics %+v, private %q", r.Diagnostics, r.Private)
	}
	// Bytes that are not the SDK's JSON are handed back as they were when nothing is set.
	foreign := decodePrivate([]byte("\x00raw"))
	if string(foreign.encode()) != "\x00raw" {
		tt.Fatalf("foreign private bytes changed: %q", foreign.encode())
	}
	r = e.ReadResource(p.ReadResourceRequest{TypeName: "x_server", CurrentState: toWIT(prior), Private: []uint8{}})
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Summary != "No token" || len(r.Private) != 0 {
		tt.Fatalf("diagnostics %+v, private %q", r.Diagnostics, r.Private)
	}
}

func TestWithStateOfAnotherTypeIsAnError(tt *testing.T) {
	_, err := reached[testPet](WithState(errors.New("boom"), "not a pet"))
	if err == nil || !strings.Contains(err.Error(), "give it the resource's state") || !strings.Contains(err.Error(), "boom") {
		tt.Fatalf("%v", err)
	}
}

func TestSleepReturnsStoppedWhenTerraformStops(tt *testing.T) {
	// The host's lifecycle.stopping, which native tests cannot call: a stop arrives after
	// three looks.
	looks := 0
	stopping = func() bool { looks++; return looks > 3 }
	defer func() { stopping = hostStopping }()
	started := time.Now()
	err := Sleep(context.Background(), time.Hour)
	if !errors.Is(err, Stopped{}) || time.Since(started) > time.Minute {
		tt.Fatalf("Sleep returned %v after %s", err, time.Since(started))
	}
	ds := diagnosticsOf("create", WithState(err, nil))
	if len(ds) != 1 || ds[0].Summary != "Operation interrupted" {
		tt.Fatalf("diagnostics %v", ds)
	}
	looks = -1000
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		tt.Fatalf("Sleep without a stop returned %v", err)
	}
}
