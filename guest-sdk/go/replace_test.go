package terrarium

import (
	"context"
	"strings"
	"testing"

	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// volume grows in place and is replaced when it shrinks (requires_replace_if); its plan hook
// replaces it when its zone changes to "moved" (RequiresReplace) and drops the replacement
// the tags ask for when only the case of its name changed.
type volume struct {
	Name string `tf:"name,requires_replace"`
	Size Number `tf:"size" requires_replace_if:"shrinks"`
	Zone string `tf:"zone"`
}

func (volume) RequiresReplaceIf(_ context.Context, name string, prior, planned any) bool {
	if name != "shrinks" {
		panic("no such decision: " + name)
	}
	if !planned.(Number).IsKnown() {
		return true
	}
	was, _ := prior.(Number).Int64()
	will, _ := planned.(Number).Int64()
	return will < was
}

type volumeResource struct{}

func (volumeResource) Create(_ context.Context, v volume) (volume, error)    { return v, nil }
func (volumeResource) Read(_ context.Context, v volume) (*volume, error)     { return &v, nil }
func (volumeResource) Update(_ context.Context, _, v volume) (volume, error) { return v, nil }
func (volumeResource) Delete(context.Context, volume) error                  { return nil }

func (volumeResource) Plan(ctx context.Context, prior *volume, planned, _ volume) (volume, error) {
	if prior == nil {
		return planned, nil
	}
	if strings.EqualFold(prior.Name, planned.Name) {
		RequiresReplace(ctx).Paths = nil
	}
	if planned.Zone == "moved" {
		RequiresReplace(ctx).Add(Attr("zone"))
		RequiresReplace(ctx).Add(Attr("zone"))
	}
	return planned, nil
}

type unansweredReplace struct {
	Size int64 `tf:"size" requires_replace_if:"shrinks"`
}

func TestCodeDecidesReplacements(tt *testing.T) {
	e := &exports{&providerDef{resources: map[string]*typeDef{
		"x_volume": NewResource[volume]("x_volume", volumeResource{}).def,
	}}}
	var size b.AttributeBehaviour
	for _, a := range e.GetBehaviour().Resources[0].Behaviour.Attributes {
		if strings.Join(a.Path, ".") == "size" {
			size = a
		}
	}
	if size.RequiresReplace.Tag() != b.ReplaceRule_WhenGuestSays {
		tt.Fatalf("size's requires-replace rule is %+v", size.RequiresReplace)
	}
	id := size.RequiresReplace.WhenGuestSays()
	number := func(text string) t.Value { return toWIT(&tree{kind: tNumber, text: text}) }
	got := e.DecideReplacements([]b.ReplaceRequest{
		{Id: id, Prior: number("10"), Planned: number("20")},
		{Id: id, Prior: number("10"), Planned: number("5")},
		{Id: id, Prior: number("10"), Planned: toWIT(&tree{kind: tUnknown})},
		{Id: id, Prior: number("10"), Planned: toWIT(&tree{kind: tString, text: "not a number"})},
		{Id: id + 7, Prior: number("10"), Planned: number("20")},
	})
	if want := []bool{false, true, true, true, true}; len(got) != len(want) || got[0] || !got[1] || !got[2] || !got[3] || !got[4] {
		tt.Fatalf("decisions %v, want %v", got, want)
	}

	if _, err := witBehaviour(mustModel(tt, unansweredReplace{}), &hookTable{}); err == nil ||
		!strings.Contains(err.Error(), "needs a method RequiresReplaceIf") {
		tt.Fatalf("a struct without RequiresReplaceIf: %v", err)
	}

	plan := func(prior, planned volume, replace ...Path) b.PlanResourceResponse {
		p, _ := encode(prior)
		n, _ := encode(planned)
		paths := [][]t.PathStep{}
		for _, r := range replace {
			paths = append(paths, witPath(r))
		}
		return e.PlanResource(b.PlanResourceRequest{TypeName: "x_volume", PriorState: toWIT(p), PlannedState: toWIT(n),
			Config: toWIT(n), RequiresReplace: paths, PriorPrivate: []uint8{}})
	}
	paths := func(r b.PlanResourceResponse) string {
		var out []string
		for _, p := range r.RequiresReplace {
			out = append(out, pathOf(p).String())
		}
		return strings.Join(out, ",")
	}
	was := volume{Name: "data", Size: NumberInt(10), Zone: "a"}
	if r := plan(was, volume{Name: "logs", Size: NumberInt(10), Zone: "moved"}, Path{Attr("name")}); paths(r) != "name,zone" {
		tt.Fatalf("renamed and moved: %q %+v", paths(r), r.Diagnostics)
	}
	if r := plan(was, volume{Name: "DATA", Size: NumberInt(10), Zone: "a"}, Path{Attr("name")}); paths(r) != "" {
		tt.Fatalf("only the case changed: %q %+v", paths(r), r.Diagnostics)
	}
	if r := plan(was, volume{Name: "data", Size: NumberInt(10), Zone: "b"}); paths(r) != "" || r.RequiresReplace == nil {
		tt.Fatalf("another zone: %q", paths(r))
	}
}
