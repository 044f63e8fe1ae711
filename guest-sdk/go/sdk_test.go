package terrarium

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

type testOwner struct {
	Name   string `tf:"name"`
	Notify Bool   `tf:"notify" default:"false"`
}

type testCollar struct {
	Size string `tf:"size,requires_replace"`
}

type testPet struct {
	ID     String       `tf:"id,computed,use_state_for_unknown" doc:"pet-N"`
	Name   string       `tf:"name,requires_replace" validate:"length(1,32)"`
	Legs   Number       `tf:"legs" default:"4" validate:"range(0,8)"`
	Tags   []string     `tf:"tags,set"`
	Secret *string      `tf:"secret,sensitive"`
	Owner  *testOwner   `tf:"owner"`
	Collar []testCollar `tf:"collar,block,max_items=1"`
}

func mustModel(tb testing.TB, v any) *model {
	tb.Helper()
	m, err := modelOf(reflect.TypeOf(v))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func TestSchemaFromTags(tt *testing.T) {
	s := witSchema(mustModel(tt, testPet{}), "A pet.", 0)
	root := s.Blocks[0]
	if root.Description.Text != "A pet." {
		tt.Errorf("description %q", root.Description.Text)
	}
	kinds := map[string]string{}
	for _, a := range root.Attributes {
		k := ""
		for _, f := range []struct {
			on   bool
			name string
		}{{a.Required, "required"}, {a.Optional, "optional"}, {a.Computed, "computed"}, {a.Sensitive, "sensitive"}} {
			if f.on {
				k += f.name + " "
			}
		}
		kinds[a.Name] = strings.TrimSpace(k)
	}
	want := map[string]string{
		"id": "computed", "name": "required", "legs": "optional computed", "tags": "optional",
		"secret": "optional sensitive", "owner": "optional",
	}
	if !reflect.DeepEqual(kinds, want) {
		tt.Errorf("kinds %v, want %v", kinds, want)
	}
	for _, a := range root.Attributes {
		if a.Name == "tags" && a.Type.Some() != `["set","string"]` {
			tt.Errorf("tags type %s", a.Type.Some())
		}
		if a.Name == "owner" && (!a.Nested.IsSome() || a.Nested.Some().Nesting != t.ObjectNesting_Single) {
			tt.Errorf("owner is not a single nested attribute")
		}
	}
	if len(root.BlockTypes) != 1 || root.BlockTypes[0].TypeName != "collar" || root.BlockTypes[0].MaxItems != 1 ||
		root.BlockTypes[0].Nesting != t.BlockNesting_List {
		tt.Errorf("block types %+v", root.BlockTypes)
	}
}

func TestBehaviourFromTags(tt *testing.T) {
	sb, err := witBehaviour(mustModel(tt, testPet{}), &hookTable{})
	if err != nil {
		tt.Fatal(err)
	}
	paths := map[string]int{}
	for _, a := range sb.Attributes {
		paths[strings.Join(a.Path, ".")] = len(a.Validators)
	}
	want := map[string]int{"id": 0, "name": 1, "legs": 1, "owner.notify": 0, "collar.size": 0}
	if !reflect.DeepEqual(paths, want) {
		tt.Errorf("behaviour paths %v, want %v", paths, want)
	}
	for _, a := range sb.Attributes {
		if strings.Join(a.Path, ".") == "legs" {
			d := fromWIT(a.Default.Some().Value())
			if d.kind != tNumber || d.text != "4" {
				tt.Errorf("legs default %+v", d)
			}
		}
	}
}

func TestValuesRoundTripWithUnknownsAndExactNumbers(tt *testing.T) {
	secret := "chip"
	big, _ := NumberValue("123456789012345678901234567890.1")
	in := testPet{ID: StringUnknown(), Name: "rex", Legs: big, Tags: []string{"a"}, Secret: &secret,
		Owner: &testOwner{Name: "ann", Notify: BoolNull()}, Collar: nil}
	tr, err := encode(in)
	if err != nil {
		tt.Fatal(err)
	}
	// Through the WIT value and back.
	out, err := decode[testPet](fromWIT(toWIT(tr)))
	if err != nil {
		tt.Fatal(err)
	}
	if !out.ID.IsUnknown() || out.Legs.Text() != "123456789012345678901234567890.1" || !out.Owner.Notify.IsNull() {
		tt.Errorf("round trip lost something: %+v", out)
	}
	if out.Collar == nil || len(out.Collar) != 0 {
		tt.Errorf("an absent list block should come back empty, not null: %#v", out.Collar)
	}
	if tr.attr("tags").kind != tSet {
		tt.Errorf("tags should be a set")
	}
}

func TestUnknownInAPlainFieldNamesTheAttribute(tt *testing.T) {
	tr := &tree{kind: tObject, keys: []string{"name"}, elems: []*tree{{kind: tUnknown}}}
	_, err := decode[testPet](tr)
	if err == nil || !strings.Contains(err.Error(), "name is unknown") {
		tt.Errorf("got %v", err)
	}
}

func TestErrorsBecomeDiagnosticsAtTheirPaths(tt *testing.T) {
	ds := guard("create", func(ctx context.Context) error {
		Warn(ctx, "Careful", "a warning")
		return errors.Join(NewError("Bad", "bad name").At(Attr("owner"), Attr("name")), fmt.Errorf("disk full"))
	})
	if len(ds) != 3 || ds[0].Severity != Warning || ds[1].Path.String() != "owner.name" || ds[2].Summary != "create failed" {
		tt.Errorf("diagnostics %v", ds)
	}
	panicked := guard("read", func(context.Context) error { panic("boom") })
	if len(panicked) != 1 || !strings.Contains(panicked[0].Detail, "boom") {
		tt.Errorf("a panic should be an error diagnostic: %v", panicked)
	}
}

func TestBadTagsAreRefusedWithTheFieldNamed(tt *testing.T) {
	type bad struct {
		Name string `tf:"name,optional"`
	}
	_, err := modelOf(reflect.TypeOf(bad{}))
	if err == nil || !strings.Contains(err.Error(), "bad.Name") {
		tt.Errorf("got %v", err)
	}
}

func TestFunctionsCheckTheirArguments(tt *testing.T) {
	f := NewFunction("greeting", func(_ context.Context, name string) (string, error) {
		if name == "" {
			return "", ArgumentError(0, "name must not be empty")
		}
		return "Hello, " + name + "!", nil
	}, "name")
	got, fe := f.call(context.Background(), []*tree{{kind: tString, text: "rex"}})
	if fe != nil || got.text != "Hello, rex!" {
		tt.Errorf("got %v %v", got, fe)
	}
	_, fe = f.call(context.Background(), []*tree{{kind: tString}})
	if fe == nil || fe.Argument == nil || *fe.Argument != 0 {
		tt.Errorf("got %v", fe)
	}
}
