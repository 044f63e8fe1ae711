package terrarium

import (
	"context"
	"strings"
	"testing"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
)

type testReboot struct {
	Server string `tf:"server"`
	Times  Number `tf:"times" default:"1"`
}

type reboot struct{}

func (reboot) Plan(_ context.Context, c testReboot) error {
	if c.Server == "prod" {
		return NewError("Not in production", "Reboot prod by hand.").At(Attr("server"))
	}
	return nil
}

func (reboot) Invoke(_ context.Context, c testReboot, progress Progress) error {
	n, _ := c.Times.Int64()
	for i := int64(0); i < n; i++ {
		progress.Report("rebooting " + c.Server)
	}
	if c.Server == "broken" {
		return NewError("Reboot failed", "it never came back")
	}
	return nil
}

func TestActionsPlanAndInvokeWithProgress(tt *testing.T) {
	e := &exports{&providerDef{actions: map[string]*ActionType{}}}
	a := NewAction[testReboot]("x_reboot", reboot{})
	e.d.actions["x_reboot"] = &a
	if s := e.GetSchema(); len(s.Actions) != 1 || s.Actions[0].Name != "x_reboot" {
		tt.Fatalf("schema %+v", s.Actions)
	}
	if len(e.GetBehaviour().Actions) != 1 {
		tt.Fatal("the action's behaviour (its default) is not declared")
	}
	config := func(server string) p.ActionRequest {
		c, _ := encode(testReboot{Server: server, Times: NumberInt(2)})
		return p.ActionRequest{TypeName: "x_reboot", Config: toWIT(c)}
	}
	if r := e.PlanAction(config("prod")); len(r.Diagnostics) != 1 || r.Diagnostics[0].Summary != "Not in production" {
		tt.Fatalf("plan %+v", r.Diagnostics)
	}
	var shown []string
	progress := func(m string) { shown = append(shown, m) }
	if ds := e.invokeAction(config("web"), progress); len(ds) != 0 || strings.Join(shown, ";") != "rebooting web;rebooting web" {
		tt.Fatalf("invoke %+v, progress %v", ds, shown)
	}
	if ds := e.invokeAction(config("broken"), progress); len(ds) != 1 || ds[0].Summary != "Reboot failed" {
		tt.Fatalf("a failed invoke %+v", ds)
	}
	if ds := e.ValidateActionConfig("x_nope", config("web").Config); len(ds) != 1 {
		tt.Fatalf("an unknown action %+v", ds)
	}
}
