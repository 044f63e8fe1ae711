package terrarium

import (
	"context"
	"strings"
	"testing"

	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

type hookedServer struct {
	Name     string `tf:"name" validate:"length(1,20); custom(even)"`
	Hostname String `tf:"hostname" default_func:"hostname"`
	Port     Number `tf:"port" default:"80" validate:"custom(unprivileged)"`
}

func (s hookedServer) ComputeDefault(_ context.Context, name string) (any, error) {
	if name != "hostname" {
		return nil, NewError("No such default", name)
	}
	if s.Name == "boom" {
		return String{}, NewError("No hostname", "boom")
	}
	if s.Name == "wrong" {
		return "a plain string", nil
	}
	return StringValue(s.Name + ".internal"), nil
}

func (s hookedServer) ValidateValue(_ context.Context, name string, value any) error {
	switch name {
	case "even":
		if v := value.(string); len(v)%2 != 0 {
			return NewError("Odd name", v+" has an odd number of letters")
		}
	case "unprivileged":
		if n, _ := value.(Number).Int64(); n < 1024 && s.Name != "root" {
			return NewError("Privileged port", "only root may use a port below 1024")
		}
	}
	return nil
}

type badHooks struct {
	Name String `tf:"name" default_func:"name"`
}

func TestHooksComputeDefaultsAndValidate(tt *testing.T) {
	e := &exports{&providerDef{resources: map[string]*typeDef{
		"x_server": NewResource[hookedServer]("x_server", hookedDummy{}).def,
	}}}
	var name, hostname, port b.AttributeBehaviour
	for _, a := range e.GetBehaviour().Resources[0].Behaviour.Attributes {
		switch strings.Join(a.Path, ".") {
		case "name":
			name = a
		case "hostname":
			hostname = a
		case "port":
			port = a
		}
	}
	if hostname.Default.IsNone() || hostname.Default.Some().Tag() != b.DefaultValue_Computed {
		tt.Fatalf("hostname's default is not computed: %+v", hostname)
	}
	if len(name.Validators) != 2 || name.Validators[1].Tag() != b.Validator_Custom || port.Validators[0].Tag() != b.Validator_Custom {
		tt.Fatalf("custom validators %+v %+v", name.Validators, port.Validators)
	}
	defaultID := hostname.Default.Some().Computed()
	parent := func(s hookedServer) t.Value {
		v, _ := encode(s)
		return toWIT(v)
	}
	values := e.ComputeDefaults([]b.DefaultRequest{
		{Id: defaultID, ParentConfig: parent(hookedServer{Name: "web", Hostname: StringNull(), Port: NumberInt(80)})},
		{Id: defaultID, ParentConfig: parent(hookedServer{Name: "boom", Hostname: StringNull(), Port: NumberInt(80)})},
		{Id: defaultID, ParentConfig: parent(hookedServer{Name: "wrong", Hostname: StringNull(), Port: NumberInt(80)})},
	})
	if got := fromWIT(values[0]); got.kind != tString || got.text != "web.internal" {
		tt.Fatalf("computed default %+v", got)
	}
	if fromWIT(values[1]).kind != tNull || fromWIT(values[2]).kind != tNull {
		tt.Fatalf("a failed default (or one of another type) should be null: %+v", values[1:])
	}

	nameID := name.Validators[1].Custom().Id
	portID := port.Validators[0].Custom().Id
	str := func(s string) t.Value { return toWIT(&tree{kind: tString, text: s}) }
	ds := e.ValidateValues([]b.ValidateRequest{
		{Id: nameID, Value: str("abc"), Parent: parent(hookedServer{Name: "abc", Port: NumberInt(80)}), Path: witPath(Path{Attr("name")})},
		{Id: nameID, Value: str("ab"), Parent: parent(hookedServer{Name: "ab", Port: NumberInt(80)}), Path: witPath(Path{Attr("name")})},
		{Id: portID, Value: toWIT(&tree{kind: tNumber, text: "80"}), Parent: parent(hookedServer{Name: "ab", Port: NumberInt(80)}), Path: witPath(Path{Attr("port")})},
		{Id: portID, Value: toWIT(&tree{kind: tNumber, text: "80"}), Parent: parent(hookedServer{Name: "root", Port: NumberInt(80)}), Path: witPath(Path{Attr("port")})},
	})
	var got []string
	for _, d := range ds {
		got = append(got, d.Summary+"@"+pathOf(d.Attribute).String())
	}
	if strings.Join(got, ";") != "Odd name@name;Privileged port@port" {
		tt.Fatalf("validation %v", got)
	}

	if _, err := witBehaviour(mustModel(tt, badHooks{}), &hookTable{}); err == nil || !strings.Contains(err.Error(), "needs a method ComputeDefault") {
		tt.Fatalf("a struct without ComputeDefault: %v", err)
	}
}

type hookedDummy struct{}

func (hookedDummy) Create(_ context.Context, s hookedServer) (hookedServer, error) { return s, nil }
func (hookedDummy) Read(_ context.Context, s hookedServer) (*hookedServer, error)  { return &s, nil }
func (hookedDummy) Update(_ context.Context, _, s hookedServer) (hookedServer, error) {
	return s, nil
}
func (hookedDummy) Delete(context.Context, hookedServer) error { return nil }
