package terrarium

import (
	"context"
	"errors"
	"fmt"
	"reflect"
)

// Provider is a whole provider: its configuration type C (a schema struct; struct{} for a
// provider without configuration), what to do with the configuration, and its resource
// types, data sources and functions. Give it to Export in an init function:
//
//	func init() {
//		p := &pets{}
//		terrarium.Export(terrarium.Provider[Config]{
//			Configure: p.configure,
//			Resources: []terrarium.ResourceType{terrarium.NewResource[Pet]("pets_pet", &petResource{p})},
//		})
//	}
//
//	func main() {}
//
// A component built with -buildmode=c-shared runs its init functions when it is loaded and
// never runs main.
type Provider[C any] struct {
	// Configure receives the provider configuration before any call that needs it (and
	// again in every new instance of the component). An error stops Terraform.
	Configure   func(ctx context.Context, config C) error
	Resources   []ResourceType
	DataSources []DataSourceType
	Functions   []Function
	// EphemeralResources are values Terraform uses during one run and never stores.
	EphemeralResources []EphemeralResourceType
	// Actions are what `action` blocks invoke.
	Actions []ActionType
	// ListResources list the objects of managed resource types that have an identity
	// (`terraform query`): each has the name of the resource type it lists.
	ListResources []ListResourceType
}

// ResourceImpl is the code of a managed resource type whose state is the schema struct S.
// Terrarium plans for it from the schema's tags (defaults, unknown computed values,
// replacements, validators), so only the four operations are code. Optional methods:
// ImportState (ResourceImporter), MoveState (ResourceMover), SchemaVersion and
// UpgradeState (StateUpgrader), Plan (ResourcePlanner), PlanDestroy (DestroyPlanner),
// Validate (Validator), Description.
type ResourceImpl[S any] interface {
	// Create makes the object planned (computed values unknown) and returns its state.
	Create(ctx context.Context, planned S) (S, error)
	// Read returns the object's current state, or nil when it no longer exists.
	Read(ctx context.Context, current S) (*S, error)
	// Update changes the object from prior to planned and returns its new state.
	Update(ctx context.Context, prior, planned S) (S, error)
	// Delete removes the object.
	Delete(ctx context.Context, prior S) error
}

// ResourceImporter is a resource type that `terraform import` and `import` blocks can
// import by id. (Import by identity: IdentityImporter.)
type ResourceImporter[S any] interface {
	ImportState(ctx context.Context, id string) (S, error)
}

// StateUpgrader is a resource type whose schema has changed in a way its stored states do
// not fit (an attribute renamed or retyped, say). SchemaVersion is the schema's version
// (0 without a StateUpgrader), which Terraform records with every state; UpgradeState turns
// a state written with an older version into the current one. raw is the stored JSON state
// as untyped Go values (map[string]any, []any, string, Number, bool, nil); the map it returns
// is read into the state type the same way. It is called only for an older version: a state
// of the current version needs no code, and one of a newer version is refused.
type StateUpgrader interface {
	SchemaVersion() int64
	UpgradeState(ctx context.Context, version int64, raw map[string]any) (map[string]any, error)
}

// Validator checks a configuration beyond what the schema's tags declare. Values not yet
// known are unknown (use String, Bool and Number fields where that can happen).
type Validator[S any] interface {
	Validate(ctx context.Context, config S) error
}

// Describer gives the description of a resource type or data source (its documentation).
type Describer interface {
	Description() string
}

// DeletesBeforeReplace is implemented by a resource whose replacement must delete the old
// object before it creates the new one, because two cannot exist at once (a fixed file name,
// a name unique in a remote system). Terraform deletes first anyway unless a configuration
// asks for create_before_destroy; Pulumi creates first unless told, and the host tells it for
// the types whose DeleteBeforeReplace returns true.
type DeletesBeforeReplace interface {
	DeleteBeforeReplace() bool
}

// DataSourceImpl is the code of a data source whose configuration and result are the schema
// struct S: Read gets the configuration (computed attributes null) and returns it completed.
type DataSourceImpl[S any] interface {
	Read(ctx context.Context, config S) (S, error)
}

// ResourceType is a managed resource type, made by NewResource.
type ResourceType struct{ def *typeDef }

// DataSourceType is a data source, made by NewDataSource.
type DataSourceType struct{ def *typeDef }

// typeDef is a resource type or data source with its Go types erased: trees in, trees out.
type typeDef struct {
	name        string
	model       *model
	version     int64 // the schema version (StateUpgrader)
	err         error
	description string
	// deleteBeforeReplace: a replacement deletes the old object first (DeletesBeforeReplace).
	deleteBeforeReplace bool
	// create and update return the state a failed call reached (WithState) with its error.
	create      func(context.Context, *tree) (*tree, error)
	read        func(context.Context, *tree) (*tree, error)
	update      func(context.Context, *tree, *tree) (*tree, error)
	delete      func(context.Context, *tree) error
	importState func(context.Context, string) (*tree, error)
	move        func(context.Context, MoveSource) (*tree, error)
	plan        func(ctx context.Context, prior, planned, config *tree) (*tree, error)
	planDestroy func(context.Context, *tree) error
	validate    func(context.Context, *tree) error
	normalize   func(*tree) (*tree, error)
	upgrade     func(ctx context.Context, version int64, raw map[string]any) (map[string]any, error)
	identity    *identityDef // NewResourceWithIdentity
}

// NewResource is the managed resource type name whose state is S, run by impl.
func NewResource[S any](name string, impl ResourceImpl[S]) ResourceType {
	d := newTypeDef[S](name, impl)
	d.create = func(ctx context.Context, planned *tree) (*tree, error) {
		p, err := decode[S](planned)
		if err != nil {
			return nil, err
		}
		s, err := impl.Create(ctx, p)
		if err != nil {
			return reached[S](err)
		}
		return encode(s)
	}
	d.read = func(ctx context.Context, current *tree) (*tree, error) {
		c, err := decode[S](current)
		if err != nil {
			return nil, err
		}
		s, err := impl.Read(ctx, c)
		if err != nil || s == nil {
			return nil, err
		}
		return encode(*s)
	}
	d.update = func(ctx context.Context, prior, planned *tree) (*tree, error) {
		pr, err := decode[S](prior)
		if err != nil {
			return nil, err
		}
		pl, err := decode[S](planned)
		if err != nil {
			return nil, err
		}
		s, err := impl.Update(ctx, pr, pl)
		if err != nil {
			return reached[S](err)
		}
		return encode(s)
	}
	d.delete = func(ctx context.Context, prior *tree) error {
		p, err := decode[S](prior)
		if err != nil {
			return err
		}
		return impl.Delete(ctx, p)
	}
	planHooks[S](d, impl)
	if mover, ok := impl.(ResourceMover[S]); ok {
		d.move = func(ctx context.Context, source MoveSource) (*tree, error) {
			s, err := mover.MoveState(ctx, source)
			if err != nil {
				return nil, err
			}
			return encode(s)
		}
	}
	if up, ok := impl.(StateUpgrader); ok {
		d.version = up.SchemaVersion()
		d.upgrade = up.UpgradeState
	}
	if imp, ok := impl.(ResourceImporter[S]); ok {
		d.importState = func(ctx context.Context, id string) (*tree, error) {
			s, err := imp.ImportState(ctx, id)
			if err != nil {
				return nil, err
			}
			return encode(s)
		}
	}
	return ResourceType{d}
}

// NewDataSource is the data source name whose configuration and result are S, run by impl.
func NewDataSource[S any](name string, impl DataSourceImpl[S]) DataSourceType {
	d := newTypeDef[S](name, impl)
	d.read = func(ctx context.Context, config *tree) (*tree, error) {
		c, err := decode[S](config)
		if err != nil {
			return nil, err
		}
		s, err := impl.Read(ctx, c)
		if err != nil {
			return nil, err
		}
		return encode(s)
	}
	return DataSourceType{d}
}

func newTypeDef[S any](name string, impl any) *typeDef {
	d := &typeDef{name: name}
	d.model, d.err = modelOf(reflect.TypeFor[S]())
	if desc, ok := impl.(Describer); ok {
		d.description = desc.Description()
	}
	if r, ok := impl.(DeletesBeforeReplace); ok {
		d.deleteBeforeReplace = r.DeleteBeforeReplace()
	}
	if v, ok := impl.(Validator[S]); ok {
		d.validate = func(ctx context.Context, config *tree) error {
			c, err := decode[S](config)
			if err != nil {
				return err
			}
			return v.Validate(ctx, c)
		}
	}
	d.normalize = func(t *tree) (*tree, error) {
		s, err := decode[S](t)
		if err != nil {
			return nil, err
		}
		return encode(s)
	}
	return d
}

// reached is what a failed Create or Update returns: the state a WithState error carries
// (nil when none) and the error.
func reached[S any](err error) (*tree, error) {
	state, bad := reachedState[S](err)
	if bad != nil {
		return nil, errors.Join(err, bad)
	}
	return state, err
}

func decode[S any](t *tree) (S, error) {
	var s S
	if t == nil {
		t = nullTree
	}
	if err := decodeInto(t, reflect.ValueOf(&s).Elem(), nil); err != nil {
		return s, NewError("Unexpected value", err.Error())
	}
	return s, nil
}

func encode[S any](s S) (*tree, error) {
	v := reflect.ValueOf(&s).Elem()
	m, err := modelOf(v.Type())
	if err != nil {
		return nil, err
	}
	t, err := encodeValue(v, m.objectType(), nil)
	if err != nil {
		return nil, NewError("Invalid state", err.Error())
	}
	return t, nil
}

// providerDef is the exported provider with its Go types erased.
type providerDef struct {
	config      *model
	err         error
	configure   func(context.Context, *tree) error
	resources   map[string]*typeDef
	dataSources map[string]*typeDef
	functions   map[string]*Function
	ephemeral   map[string]*EphemeralResourceType
	actions     map[string]*ActionType
	lists       map[string]*ListResourceType
	hookState
}

// Export makes p the provider this component serves. Call it once, from an init function.
func Export[C any](p Provider[C]) {
	d := &providerDef{
		resources:   map[string]*typeDef{},
		dataSources: map[string]*typeDef{},
		functions:   map[string]*Function{},
		ephemeral:   map[string]*EphemeralResourceType{},
		actions:     map[string]*ActionType{},
		lists:       map[string]*ListResourceType{},
	}
	d.config, d.err = modelOf(reflect.TypeFor[C]())
	d.configure = func(ctx context.Context, t *tree) error {
		c, err := decode[C](t)
		if err != nil {
			return err
		}
		if p.Configure == nil {
			return nil
		}
		return p.Configure(ctx, c)
	}
	for _, r := range p.Resources {
		d.resources[r.def.name] = r.def
	}
	for _, ds := range p.DataSources {
		d.dataSources[ds.def.name] = ds.def
	}
	for i := range p.EphemeralResources {
		d.ephemeral[p.EphemeralResources[i].def.name] = &p.EphemeralResources[i]
	}
	for i := range p.Actions {
		d.actions[p.Actions[i].def.name] = &p.Actions[i]
	}
	for i := range p.ListResources {
		d.lists[p.ListResources[i].def.name] = &p.ListResources[i]
	}
	for i := range p.Functions {
		d.functions[p.Functions[i].name] = &p.Functions[i]
	}
	install(d)
}

func (d *providerDef) find(kind string, table map[string]*typeDef, name string) (*typeDef, error) {
	t, ok := table[name]
	if !ok {
		return nil, NewError("Unknown "+kind+" type", fmt.Sprintf("This provider has no %s type %q.", kind, name))
	}
	if t.err != nil {
		return nil, NewError("Invalid schema", t.err.Error())
	}
	return t, nil
}
