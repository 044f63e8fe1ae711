package terrarium

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
	cb "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_computed_blocks"
)

// lan's address blocks are the provider's (a computed block), and so is each address's
// route block inside them.
type lan struct {
	Size    int64     `tf:"size"`
	Address []address `tf:"address,block,computed"`
}

type address struct {
	IP    String  `tf:"ip,computed"`
	Route *route  `tf:"route,block,computed"`
	Notes []route `tf:"notes,block"`
}

type route struct {
	Via String `tf:"via,computed"`
}

type lanResource struct{}

func (lanResource) Create(_ context.Context, l lan) (lan, error) { return l, nil }
func (lanResource) Read(_ context.Context, l lan) (*lan, error)  { return &l, nil }
func (lanResource) Update(_ context.Context, _, l lan) (lan, error) {
	return l, nil
}
func (lanResource) Delete(context.Context, lan) error { return nil }

// Plan leaves the computed block as it was given: nil while it is unknown.
func (lanResource) Plan(_ context.Context, _ *lan, planned, _ lan) (lan, error) {
	return planned, nil
}

type lanData struct{}

func (lanData) Read(_ context.Context, l lan) (lan, error) { return l, nil }

func TestComputedBlocksAreExported(tt *testing.T) {
	e := &exports{&providerDef{
		resources:   map[string]*typeDef{"x_lan": NewResource[lan]("x_lan", lanResource{}).def},
		dataSources: map[string]*typeDef{"x_lan": NewDataSource[lan]("x_lan", lanData{}).def},
	}}
	var got []string
	for _, c := range e.ComputedBlocks() {
		got = append(got, fmt.Sprintf("%d:%s:%s", c.Kind, c.TypeName, strings.Join(c.Path, ".")))
	}
	want := []string{
		fmt.Sprintf("%d:x_lan:address", cb.SchemaKind_Resource),
		fmt.Sprintf("%d:x_lan:address.route", cb.SchemaKind_Resource),
		fmt.Sprintf("%d:x_lan:address", cb.SchemaKind_DataSource),
		fmt.Sprintf("%d:x_lan:address.route", cb.SchemaKind_DataSource),
	}
	if !reflect.DeepEqual(got, want) {
		tt.Fatalf("computed blocks %v, want %v", got, want)
	}
}

func TestAnUnknownComputedBlockIsNilAndStaysUnknownInAPlan(tt *testing.T) {
	planned := &tree{kind: tObject, keys: []string{"address", "size"},
		elems: []*tree{{kind: tUnknown}, {kind: tNumber, text: "2"}}}
	l, err := decode[lan](planned)
	if err != nil || l.Address != nil || l.Size != 2 {
		tt.Fatalf("decoded %+v, %v", l, err)
	}
	e := &exports{&providerDef{resources: map[string]*typeDef{"x_lan": NewResource[lan]("x_lan", lanResource{}).def}}}
	r := e.PlanResource(b.PlanResourceRequest{TypeName: "x_lan", PriorState: toWIT(nullTree),
		PlannedState: toWIT(planned), Config: toWIT(planned), PriorPrivate: []uint8{}})
	if len(r.Diagnostics) != 0 {
		tt.Fatalf("diagnostics %+v", r.Diagnostics)
	}
	if a := fromWIT(r.PlannedState).attr("address"); a == nil || a.kind != tUnknown {
		tt.Fatalf("the plan hook made the unknown computed block %+v", a)
	}
}

func TestAComputedBlockMustBeAbleToBeNil(tt *testing.T) {
	type bad struct {
		Status route `tf:"status,block,computed"`
	}
	_, err := modelOf(reflect.TypeOf(bad{}))
	if err == nil || !strings.Contains(err.Error(), "bad.Status") || !strings.Contains(err.Error(), "*terrarium.route") {
		tt.Errorf("got %v", err)
	}
}
