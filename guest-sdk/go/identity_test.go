package terrarium

import (
	"context"
	"fmt"
	"strings"
	"testing"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
	s "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_streams"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// box is a resource whose identity is its id, `box-NAME`.
type box struct {
	ID     String  `tf:"id,computed"`
	Name   string  `tf:"name"`
	Secret *string `tf:"secret,write_only"`
}

// boxIdentity is at identity schema version 1: version 0 was `{ name }`.
type boxIdentity struct {
	ID string `tf:"id,required_for_import" doc:"The box's id."`
}

// boxes: forget makes IdentityOf never tell the identity (a provider bug).
type boxes struct{ forget bool }

func (boxes) Create(_ context.Context, planned box) (box, error) {
	planned.ID = StringValue("box-" + planned.Name)
	return planned, nil
}
func (boxes) Read(_ context.Context, current box) (*box, error) { return &current, nil }
func (boxes) Update(_ context.Context, _, planned box) (box, error) {
	return planned, nil
}
func (boxes) Delete(context.Context, box) error { return nil }

func (x boxes) IdentityOf(s box) (boxIdentity, bool) {
	return boxIdentity{ID: s.ID.Value()}, s.ID.IsKnown() && !x.forget
}

func (boxes) ImportByIdentity(_ context.Context, id boxIdentity) (box, error) {
	name, ok := strings.CutPrefix(id.ID, "box-")
	if !ok {
		return box{}, NewError("Cannot import", fmt.Sprintf("%q is not a box id", id.ID))
	}
	return box{ID: StringValue(id.ID), Name: name}, nil
}

func (boxes) ImportState(_ context.Context, id string) (box, error) {
	return boxes{}.ImportByIdentity(context.Background(), boxIdentity{ID: id})
}

func (boxes) IdentityVersion() int64 { return 1 }

func (boxes) UpgradeIdentity(_ context.Context, _ int64, raw map[string]any) (map[string]any, error) {
	return map[string]any{"id": fmt.Sprint("box-", raw["name"])}, nil
}

// boxFilter lists boxes `box-0` ... `box-<count-1>` whose name starts with prefix.
type boxFilter struct {
	Count  int64   `tf:"count"`
	Prefix *string `tf:"prefix"`
}

func (boxes) List(_ context.Context, f boxFilter, results *ListResults[box, boxIdentity]) error {
	for i := range f.Count {
		name := fmt.Sprint(i)
		if f.Prefix != nil && !strings.HasPrefix(name, *f.Prefix) {
			continue
		}
		secret := "never listed"
		if !results.Push(boxIdentity{ID: "box-" + name}, "box "+name, func() (box, error) {
			return box{ID: StringValue("box-" + name), Name: name, Secret: &secret}, nil
		}) {
			break
		}
	}
	return nil
}

func identityExports(forget bool) *exports {
	d := &providerDef{
		resources: map[string]*typeDef{
			"x_box":   NewResourceWithIdentity[box, boxIdentity]("x_box", boxes{forget: forget}).def,
			"x_pet":   NewResource[testPet]("x_pet", server{}).def,
			"x_crate": NewResource[box]("x_crate", boxes{}).def,
		},
		lists: map[string]*ListResourceType{},
	}
	l := NewListResource[boxFilter, box, boxIdentity]("x_box", boxes{})
	d.lists["x_box"] = &l
	return &exports{d}
}

func objectTree(tt *testing.T, text string) *tree {
	tt.Helper()
	x, err := jsonTree([]byte(text))
	if err != nil {
		tt.Fatal(err)
	}
	return x
}

// boxTree is a box's state tree ({"id", "name", "secret"}), id unknown when empty.
func boxTree(id, name string) *tree {
	idTree := &tree{kind: tUnknown}
	if id != "" {
		idTree = &tree{kind: tString, text: id}
	}
	return &tree{kind: tObject, keys: []string{"id", "name", "secret"},
		elems: []*tree{idTree, {kind: tString, text: name}, nullTree}}
}

func identityText(tt *testing.T, o witTypes.Option[t.Value]) string {
	tt.Helper()
	if o.IsNone() {
		return "none"
	}
	x := fromWIT(o.Some())
	if x.kind == tNull {
		return "null"
	}
	return fmt.Sprint(plain(x))
}

func TestTheIdentitySchemaIsDeclaredAndPlanned(tt *testing.T) {
	e := identityExports(false)
	schema := e.GetSchema()
	if len(schema.Diagnostics) != 0 {
		tt.Fatalf("diagnostics: %+v", schema.Diagnostics)
	}
	if len(schema.ResourceIdentities) != 1 {
		tt.Fatalf("identities: %+v", schema.ResourceIdentities)
	}
	id := schema.ResourceIdentities[0]
	want := t.IdentityAttribute{Name: "id", Type: `"string"`, RequiredForImport: true, Description: "The box's id."}
	if id.Name != "x_box" || id.Schema.Version != 1 || len(id.Schema.Attributes) != 1 || id.Schema.Attributes[0] != want {
		tt.Fatalf("identity schema: %+v", id)
	}
	if len(schema.ListResources) != 1 || schema.ListResources[0].Name != "x_box" {
		tt.Fatalf("list resources: %+v", schema.ListResources)
	}
	hooked := map[string]bool{}
	for _, r := range e.GetBehaviour().Resources {
		hooked[r.Name] = r.Behaviour.PlanHook
	}
	if !hooked["x_box"] || hooked["x_pet"] || hooked["x_crate"] {
		tt.Fatalf("plan hooks: %v (the SDK plans the identities of x_box only)", hooked)
	}
}

func TestAnIdentityIsPlannedAppliedReadAndKept(tt *testing.T) {
	e := identityExports(false)
	plan := func(prior, planned *tree, priorIdentity witTypes.Option[t.Value], replace bool) string {
		r := b.PlanResourceRequest{TypeName: "x_box", PriorState: toWIT(prior), PlannedState: toWIT(planned),
			Config: toWIT(planned), PriorIdentity: priorIdentity, RequiresReplace: []t.AttributePath{}}
		if replace {
			r.RequiresReplace = []t.AttributePath{{t.MakePathStepAttribute("name")}}
		}
		res := e.PlanResource(r)
		if len(res.Diagnostics) != 0 {
			tt.Fatalf("plan: %+v", res.Diagnostics)
		}
		return identityText(tt, res.PlannedIdentity)
	}
	if got := plan(nullTree, boxTree("", "a"), witTypes.None[t.Value](), false); got != "null" {
		tt.Errorf("a create whose id is unknown plans identity %s, want null (known after apply)", got)
	}
	if got := plan(nullTree, boxTree("box-a", "a"), witTypes.None[t.Value](), false); got != "map[id:box-a]" {
		tt.Errorf("a create whose id is known plans identity %s", got)
	}
	prior := witTypes.Some(toWIT(objectTree(tt, `{"id": "box-a"}`)))
	if got := plan(boxTree("box-a", "a"), boxTree("box-a", "a"), prior, false); got != "map[id:box-a]" {
		tt.Errorf("an update plans identity %s, want the prior one", got)
	}
	if got := plan(boxTree("box-a", "a"), boxTree("", "b"), prior, true); got != "null" {
		tt.Errorf("a replacement plans identity %s, want null", got)
	}

	applied := e.ApplyResourceChange(p.ApplyResourceChangeRequest{TypeName: "x_box", PriorState: witNull(),
		PlannedState: toWIT(boxTree("", "a")), Config: toWIT(boxTree("", "a"))})
	if len(applied.Diagnostics) != 0 || identityText(tt, applied.NewIdentity) != "map[id:box-a]" {
		tt.Fatalf("create: identity %s, diagnostics %+v", identityText(tt, applied.NewIdentity), applied.Diagnostics)
	}
	read := e.ReadResource(p.ReadResourceRequest{TypeName: "x_box", CurrentState: applied.NewState,
		CurrentIdentity: applied.NewIdentity})
	if len(read.Diagnostics) != 0 || identityText(tt, read.NewIdentity) != "map[id:box-a]" {
		tt.Fatalf("read: identity %s, diagnostics %+v", identityText(tt, read.NewIdentity), read.Diagnostics)
	}
	gone := e.ApplyResourceChange(p.ApplyResourceChangeRequest{TypeName: "x_box", PriorState: applied.NewState,
		PlannedState: witNull(), Config: witNull(), PlannedIdentity: applied.NewIdentity})
	if len(gone.Diagnostics) != 0 || !gone.NewIdentity.IsNone() {
		tt.Fatalf("destroy: identity %s, diagnostics %+v", identityText(tt, gone.NewIdentity), gone.Diagnostics)
	}
	// A resource type without identity answers none.
	plain := e.ApplyResourceChange(p.ApplyResourceChangeRequest{TypeName: "x_crate", PriorState: witNull(),
		PlannedState: toWIT(boxTree("", "a")), Config: toWIT(boxTree("", "a"))})
	if len(plain.Diagnostics) != 0 || !plain.NewIdentity.IsNone() {
		tt.Fatalf("x_crate: identity %s, diagnostics %+v", identityText(tt, plain.NewIdentity), plain.Diagnostics)
	}
}

func TestAnIdentityIsRequiredOnceTheObjectExists(tt *testing.T) {
	e := identityExports(true)
	applied := e.ApplyResourceChange(p.ApplyResourceChangeRequest{TypeName: "x_box", PriorState: witNull(),
		PlannedState: toWIT(boxTree("", "a")), Config: toWIT(boxTree("", "a"))})
	if len(applied.Diagnostics) != 1 || applied.Diagnostics[0].Summary != "Provider returned no identity" ||
		!strings.Contains(applied.Diagnostics[0].Detail, "After create, IdentityOf of x_box returned false") {
		tt.Fatalf("diagnostics %+v", applied.Diagnostics)
	}
	if fromWIT(applied.NewState).kind != tNull {
		tt.Fatal("a create without identity should leave no state")
	}
}

func TestImportByIdAndByIdentity(tt *testing.T) {
	e := identityExports(false)
	byID := e.ImportResourceState(p.ImportResourceStateRequest{TypeName: "x_box", Id: "box-b"})
	if len(byID.Diagnostics) != 0 || len(byID.Imported) != 1 || identityText(tt, byID.Imported[0].Identity) != "map[id:box-b]" {
		tt.Fatalf("by id: %+v", byID)
	}
	given := witTypes.Some(toWIT(objectTree(tt, `{"id": "box-c"}`)))
	byIdentity := e.ImportResourceState(p.ImportResourceStateRequest{TypeName: "x_box", Identity: given})
	if len(byIdentity.Diagnostics) != 0 || len(byIdentity.Imported) != 1 ||
		identityText(tt, byIdentity.Imported[0].Identity) != "map[id:box-c]" ||
		fromWIT(byIdentity.Imported[0].State).attr("name").text != "c" {
		tt.Fatalf("by identity: %+v", byIdentity)
	}
	bad := e.ImportResourceState(p.ImportResourceStateRequest{TypeName: "x_box",
		Identity: witTypes.Some(toWIT(objectTree(tt, `{"id": "crate-c"}`)))})
	if len(bad.Diagnostics) != 1 || bad.Diagnostics[0].Summary != "Cannot import" || len(bad.Imported) != 0 {
		tt.Fatalf("a bad identity: %+v", bad)
	}
	none := e.ImportResourceState(p.ImportResourceStateRequest{TypeName: "x_crate", Identity: given})
	if len(none.Diagnostics) != 1 || none.Diagnostics[0].Summary != "Import by identity not supported" {
		tt.Fatalf("a type without identity: %+v", none.Diagnostics)
	}
}

func TestAnOldIdentityIsUpgraded(tt *testing.T) {
	e := identityExports(false)
	upgrade := func(version int64, raw string) p.UpgradeResourceIdentityResponse {
		return e.UpgradeResourceIdentity(p.UpgradeResourceIdentityRequest{TypeName: "x_box", Version: version,
			RawIdentity: toWIT(objectTree(tt, raw))})
	}
	if r := upgrade(0, `{"name": "d"}`); len(r.Diagnostics) != 0 || fmt.Sprint(plain(fromWIT(r.UpgradedIdentity))) != "map[id:box-d]" {
		tt.Fatalf("version 0: %+v", r)
	}
	if r := upgrade(1, `{"id": "box-e", "gone": 1}`); len(r.Diagnostics) != 0 || fmt.Sprint(plain(fromWIT(r.UpgradedIdentity))) != "map[id:box-e]" {
		tt.Fatalf("version 1: %+v", r)
	}
	if r := upgrade(2, `{"id": "box-f"}`); len(r.Diagnostics) != 1 || r.Diagnostics[0].Summary != "Identity written by a newer provider" {
		tt.Fatalf("version 2: %+v", r.Diagnostics)
	}
}

// list runs x_box's list resource with config, collecting the items; stopAfter > 0 makes the
// consumer hang up after that many.
func list(tt *testing.T, e *exports, config string, include bool, limit int64, stopAfter int) ([]s.ListItem, []t.Diagnostic) {
	tt.Helper()
	var items []s.ListItem
	ds := e.listResource(p.ListResourceRequest{TypeName: "x_box", Config: toWIT(objectTree(tt, config)),
		IncludeResourceObject: include, Limit: limit}, func(item s.ListItem) bool {
		items = append(items, item)
		return stopAfter == 0 || len(items) < stopAfter
	})
	return items, ds
}

func names(items []s.ListItem) string {
	var out []string
	for _, i := range items {
		out = append(out, i.DisplayName)
	}
	return strings.Join(out, ",")
}

func TestAListPushesIdentitiesAndObjects(tt *testing.T) {
	e := identityExports(false)
	items, ds := list(tt, e, `{"count": 3, "prefix": null}`, false, 0, 0)
	if len(ds) != 0 || names(items) != "box 0,box 1,box 2" {
		tt.Fatalf("items %s, diagnostics %+v", names(items), ds)
	}
	if fmt.Sprint(plain(fromWIT(items[1].Identity))) != "map[id:box-1]" || items[1].ResourceObject.IsSome() {
		tt.Fatalf("item 1: %+v", items[1])
	}
	items, _ = list(tt, e, `{"count": 12, "prefix": "1"}`, false, 0, 0)
	if names(items) != "box 1,box 10,box 11" {
		tt.Fatalf("prefix 1: %s", names(items))
	}
	items, _ = list(tt, e, `{"count": 12, "prefix": null}`, false, 2, 0)
	if names(items) != "box 0,box 1" {
		tt.Fatalf("limit 2: %s", names(items))
	}
	items, _ = list(tt, e, `{"count": 12, "prefix": null}`, false, 0, 3)
	if names(items) != "box 0,box 1,box 2" {
		tt.Fatalf("a consumer gone after 3: %s", names(items))
	}
	items, _ = list(tt, e, `{"count": 1, "prefix": null}`, true, 0, 0)
	object := fromWIT(items[0].ResourceObject.Some())
	if object.attr("id").text != "box-0" || object.attr("name").text != "0" || object.attr("secret").kind != tNull {
		tt.Fatalf("resource object %v (write-only values are never listed)", plain(object))
	}
}

func TestAListOfATypeWithoutIdentityIsRefused(tt *testing.T) {
	e := identityExports(false)
	l := NewListResource[boxFilter, box, boxIdentity]("x_crate", boxes{})
	e.d.lists["x_crate"] = &l
	ds := e.GetSchema().Diagnostics
	if len(ds) != 1 || ds[0].Summary != "Invalid list resource" || !strings.Contains(ds[0].Detail, `lists "x_crate"`) {
		tt.Fatalf("diagnostics %+v", ds)
	}
}
