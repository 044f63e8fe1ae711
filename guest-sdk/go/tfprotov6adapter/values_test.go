package tfprotov6adapter

import (
	"math/big"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

var objectType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"name":  tftypes.String,
	"legs":  tftypes.Number,
	"big":   tftypes.Number,
	"tenth": tftypes.Number,
	"good":  tftypes.Bool,
	"tags":  tftypes.Set{ElementType: tftypes.String},
	"toys": tftypes.List{ElementType: tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"kind": tftypes.String, "serial": tftypes.String,
	}}},
	"labels": tftypes.Map{ElementType: tftypes.String},
	"any":    tftypes.DynamicPseudoType,
	"none":   tftypes.DynamicPseudoType,
	"later":  tftypes.String,
}}

func number(text string) *big.Float {
	f, _, err := big.ParseFloat(text, 10, numberPrecision, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return f
}

func sample() tftypes.Value {
	toy := objectType.AttributeTypes["toys"].(tftypes.List).ElementType
	return tftypes.NewValue(objectType, map[string]tftypes.Value{
		"name":  tftypes.NewValue(tftypes.String, "rex"),
		"legs":  tftypes.NewValue(tftypes.Number, number("4")),
		"big":   tftypes.NewValue(tftypes.Number, number("123456789012345678901234567890")),
		"tenth": tftypes.NewValue(tftypes.Number, number("0.1")),
		"good":  tftypes.NewValue(tftypes.Bool, true),
		"tags": tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, []tftypes.Value{
			tftypes.NewValue(tftypes.String, "a"), tftypes.NewValue(tftypes.String, "b"),
		}),
		"toys": tftypes.NewValue(tftypes.List{ElementType: toy}, []tftypes.Value{
			tftypes.NewValue(toy, map[string]tftypes.Value{
				"kind":   tftypes.NewValue(tftypes.String, "ball"),
				"serial": tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
			}),
		}),
		"labels": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{
			"x": tftypes.NewValue(tftypes.String, "y"),
		}),
		"any": tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, []tftypes.Value{
			tftypes.NewValue(tftypes.Number, number("1.5")),
		}),
		"none":  tftypes.NewValue(tftypes.DynamicPseudoType, nil),
		"later": tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
	})
}

// A value goes to WIT and back unchanged, and through msgpack as the provider sees it.
func TestValuesRoundTrip(tt *testing.T) {
	want := sample()
	tree, err := toWit(want, objectType)
	if err != nil {
		tt.Fatal(err)
	}
	got, err := fromWit(tree, objectType)
	if err != nil {
		tt.Fatal(err)
	}
	if diff, _ := want.Diff(got); len(diff) > 0 || !want.Equal(got) {
		tt.Fatalf("round trip changed the value:\n%v\n%v\n%v", want, got, diff)
	}
	dv, err := dynamicValue(tree, objectType)
	if err != nil {
		tt.Fatal(err)
	}
	back, err := fromDynamicValue(dv, objectType)
	if err != nil {
		tt.Fatal(err)
	}
	if !reflect.DeepEqual(back, tree) {
		tt.Fatalf("msgpack round trip changed the tree:\n%#v\n%#v", tree, back)
	}
}

// Numbers stay exact: integers as integers, anything else as decimal text.
func TestNumbersAreExact(tt *testing.T) {
	tree, err := toWit(sample(), objectType)
	if err != nil {
		tt.Fatal(err)
	}
	seen := map[string]t.Number{}
	root := tree.Nodes[0].Object()
	for _, e := range root {
		if n := tree.Nodes[e.Value]; n.Tag() == t.Node_Number {
			seen[e.Key] = n.Number()
		}
	}
	if seen["legs"] != t.MakeNumberInt(4) {
		tt.Errorf("legs: %#v", seen["legs"])
	}
	if seen["big"] != t.MakeNumberDecimal("123456789012345678901234567890") {
		tt.Errorf("big: %#v", seen["big"])
	}
	if seen["tenth"] != t.MakeNumberDecimal("0.1") {
		tt.Errorf("tenth: %#v", seen["tenth"])
	}
}

// A dynamic attribute carries its concrete type; a dynamic null is a plain null.
func TestDynamicValuesCarryTheirType(tt *testing.T) {
	tree, err := toWit(sample(), objectType)
	if err != nil {
		tt.Fatal(err)
	}
	for _, e := range tree.Nodes[0].Object() {
		n := tree.Nodes[e.Value]
		switch e.Key {
		case "any":
			if n.Tag() != t.Node_Dynamic || n.Dynamic().Type != `["list","number"]` {
				tt.Errorf("any: %#v", n)
			}
		case "none":
			if n.Tag() != t.Node_Null {
				tt.Errorf("none: %#v", n)
			}
		}
	}
}

// Stored JSON state (schemaless, as the host decodes it) becomes JSON text again.
func TestRawStateIsJSONAgain(tt *testing.T) {
	tree := t.Value{Nodes: []t.Node{
		t.MakeNodeObject([]t.Entry{{Key: "id", Value: 1}, {Key: "n", Value: 2}, {Key: "xs", Value: 3}}),
		t.MakeNodeString("pet-1"),
		t.MakeNodeNumber(t.MakeNumberDecimal("0.5")),
		t.MakeNodeTuple([]uint32{4, 5}),
		t.MakeNodeBool(true),
		t.MakeNodeNull(),
	}}
	got, err := rawJSON(tree)
	if err != nil {
		tt.Fatal(err)
	}
	if string(got) != `{"id":"pet-1","n":0.5,"xs":[true,null]}` {
		tt.Fatalf("got %s", got)
	}
}

// Diagnostic paths keep attribute names, map keys and list indexes; a set element ends them.
func TestDiagnosticPaths(tt *testing.T) {
	path := tftypes.NewAttributePath().WithAttributeName("toys").WithElementKeyInt(1).WithAttributeName("kind")
	ds := witDiagnostics([]*tfprotov6.Diagnostic{{Severity: tfprotov6.DiagnosticSeverityWarning, Summary: "s", Detail: "d", Attribute: path}})
	want := t.AttributePath{t.MakePathStepAttribute("toys"), t.MakePathStepIndex(1), t.MakePathStepAttribute("kind")}
	if len(ds) != 1 || ds[0].Severity != t.Severity_Warning || !reflect.DeepEqual(ds[0].Attribute, want) {
		tt.Fatalf("got %#v", ds)
	}
	set := tftypes.NewAttributePath().WithAttributeName("tags").WithElementKeyValue(tftypes.NewValue(tftypes.String, "a"))
	if got := witPath(set); !reflect.DeepEqual(got, t.AttributePath{t.MakePathStepAttribute("tags")}) {
		tt.Fatalf("set path: %#v", got)
	}
}

// The framework's Deferred reaches the WIT answer with its reason (read, plan, import, data
// source, ephemeral open and action plan all go through deferred).
func TestTheFrameworksDeferralKeepsItsReason(tt *testing.T) {
	if deferred(nil).IsSome() {
		tt.Fatal("no deferral became one")
	}
	for reason, want := range map[tfprotov6.DeferredReason]t.DeferredReason{
		tfprotov6.DeferredReasonUnknown:               t.DeferredReason_Unknown,
		tfprotov6.DeferredReasonResourceConfigUnknown: t.DeferredReason_ResourceConfigUnknown,
		tfprotov6.DeferredReasonProviderConfigUnknown: t.DeferredReason_ProviderConfigUnknown,
		tfprotov6.DeferredReasonAbsentPrereq:          t.DeferredReason_AbsentPrerequisite,
	} {
		if got := deferred(&tfprotov6.Deferred{Reason: reason}); !got.IsSome() || got.Some() != want {
			tt.Errorf("%v became %+v, want %v", reason, got, want)
		}
	}
}
