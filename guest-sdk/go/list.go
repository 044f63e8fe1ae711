package terrarium

import (
	"context"
	"fmt"
	"reflect"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
	s "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_streams"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// ListResourceImpl is the code of a list resource (`terraform query`, Terraform 1.14+): it
// lists the existing objects of the managed resource type of its name, which must have an
// identity (NewResourceWithIdentity[S, I]), so that they can be imported or have
// configuration generated for them. C is the schema struct of the `config` block of a `list`
// block in a .tfquery.hcl file. List pushes the objects into results one by one, in a stable
// order; Terraform receives each as it is pushed. Optional methods: Validate (Validator[C]),
// Description.
//
//	func (petResource) List(ctx context.Context, filter PetFilter, results *terrarium.ListResults[Pet, PetIdentity]) error {
//		for _, pet := range pets(filter) {
//			// The state is built only when Terraform asked for resource objects.
//			if !results.Push(PetIdentity{Name: pet.Name}, pet.Name, func() (Pet, error) { return pet, nil }) {
//				break // Terraform has all it wants.
//			}
//		}
//		return nil
//	}
//
// An error ends the listing; the items pushed before it have been sent.
type ListResourceImpl[C, S, I any] interface {
	List(ctx context.Context, config C, results *ListResults[S, I]) error
}

// ListResourceType is a list resource, made by NewListResource.
type ListResourceType struct {
	def  *typeDef
	list func(ctx context.Context, config *tree, include bool, limit int64, sink func(listItem) bool) error
}

// NewListResource is the list resource of the managed resource type name (whose state is S
// and identity I), configured by the schema struct C, run by impl.
func NewListResource[C, S, I any](name string, impl ListResourceImpl[C, S, I]) ListResourceType {
	l := ListResourceType{def: newTypeDef[C](name, impl)}
	l.list = func(ctx context.Context, config *tree, include bool, limit int64, sink func(listItem) bool) error {
		c, err := decode[C](config)
		if err != nil {
			return err
		}
		results := &ListResults[S, I]{sink: sink, include: include, remaining: -1}
		if limit > 0 {
			results.remaining = limit
		}
		return impl.List(ctx, c, results)
	}
	return l
}

// listItem is one listed object, as it travels to Terraform.
type listItem struct {
	identity    *tree
	displayName string
	object      *tree // nil when not asked for
	diagnostics Diagnostics
}

// ListResults is where List sends the objects it finds.
type ListResults[S, I any] struct {
	sink      func(listItem) bool
	include   bool
	remaining int64 // items still wanted; -1 for no limit
	finished  bool
}

// Push sends one object: its identity, a short name for people (a file name, say), and a
// function that makes its state, called only when Terraform asked for resource objects.
//
// It returns false once Terraform wants no more (it has `limit` items, or an item carried an
// error): stop listing and return nil. Later pushes are ignored.
func (r *ListResults[S, I]) Push(identity I, displayName string, state func() (S, error)) bool {
	if r.finished {
		return false
	}
	item := listItem{displayName: displayName, identity: nullTree}
	if id, err := encode(identity); err != nil {
		item.diagnostics = append(item.diagnostics, aboutItem(displayName, "identity", err)...)
	} else if hasUnknown(id) {
		item.diagnostics = append(item.diagnostics, aboutItem(displayName, "identity",
			NewError("Invalid identity", "An identity must be wholly known."))...)
	} else {
		item.identity = id
	}
	if r.include {
		if object, err := knownObject[S](state); err != nil {
			item.diagnostics = append(item.diagnostics, aboutItem(displayName, "state", err)...)
		} else {
			item.object = object
		}
	}
	more := r.sink(item)
	if r.remaining > 0 {
		r.remaining--
	}
	r.finished = !more || item.diagnostics.HasError() || r.remaining == 0
	return !r.finished
}

// IncludesResourceObjects tells whether Terraform asked for each object's state (Push calls
// the state function only then).
func (r *ListResults[S, I]) IncludesResourceObjects() bool { return r.include }

// IsFinished tells whether Terraform wants no more items.
func (r *ListResults[S, I]) IsFinished() bool { return r.finished }

// knownObject is the state the function makes, wholly known, write-only values null.
func knownObject[S any](state func() (S, error)) (*tree, error) {
	if state == nil {
		return nil, NewError("No state", "Push was given no state function, and Terraform asked for resource objects.")
	}
	st, err := state()
	if err != nil {
		return nil, err
	}
	object, err := encode(st)
	if err != nil {
		return nil, err
	}
	if hasUnknown(object) {
		return nil, NewError("Invalid state", "A listed object's state must be wholly known.")
	}
	m, err := modelOf(reflect.TypeFor[S]())
	if err != nil {
		return nil, err
	}
	// Write-only values are never read back, whatever the code returned.
	return clearWriteOnly(m, object), nil
}

// clearWriteOnly is an object tree of model m with its write-only attributes null.
func clearWriteOnly(m *model, x *tree) *tree {
	if x == nil || x.kind != tObject {
		return x
	}
	out := *x
	out.elems = append([]*tree(nil), x.elems...)
	for _, f := range m.fields {
		for i, k := range out.keys {
			if k != f.name {
				continue
			}
			switch {
			case f.writeOnly:
				out.elems[i] = nullTree
			case f.nested != nil && f.nesting == "single":
				out.elems[i] = clearWriteOnly(f.nested, out.elems[i])
			case f.nested != nil:
				c := *out.elems[i]
				c.elems = make([]*tree, len(out.elems[i].elems))
				for j, e := range out.elems[i].elems {
					c.elems[j] = clearWriteOnly(f.nested, e)
				}
				out.elems[i] = &c
			}
		}
	}
	return &out
}

// aboutItem says which item a problem is about; the listing has no attribute to point at.
func aboutItem(displayName, part string, err error) Diagnostics {
	var out Diagnostics
	for _, d := range diagnosticsOf("list", err) {
		at := ""
		if len(d.Path) > 0 {
			at = " (at " + d.Path.String() + ")"
		}
		out = append(out, &Diagnostic{Severity: d.Severity, Summary: d.Summary,
			Detail: fmt.Sprintf("Listing %q, its %s%s: %s", displayName, part, at, d.Detail)})
	}
	return out
}

// listDefs is the list resources' config schemas and validators, by name.
func (d *providerDef) listDefs() map[string]*typeDef {
	out := make(map[string]*typeDef, len(d.lists))
	for n, l := range d.lists {
		out[n] = l.def
	}
	return out
}

// listProblems is what is wrong with the list resources as declared: each lists a managed
// resource type of its name that has an identity.
func (d *providerDef) listProblems() Diagnostics {
	var problems Diagnostics
	for _, n := range sortedNames(d.lists) {
		if r, ok := d.resources[n]; !ok || r.identity == nil {
			problems = append(problems, NewError("Invalid list resource", fmt.Sprintf(
				"The provider lists %q, but has no managed resource type of that name with an identity. "+
					"Register it in Provider.Resources with NewResourceWithIdentity.", n)))
		}
	}
	return problems
}

func (e *exports) ValidateListResourceConfig(typeName string, config t.Value) []t.Diagnostic {
	return e.validate("list resource", e.d.listDefs(), typeName, config)
}

func (e *exports) ListResource(r p.ListResourceRequest, results *s.ListResults) []t.Diagnostic {
	// Borrowed for this call: drop it before returning (see InvokeAction).
	defer results.Drop()
	return e.listResource(r, func(item s.ListItem) bool { return results.Push(item) })
}

// listResource lists into push, which returns false once Terraform wants no more.
func (e *exports) listResource(r p.ListResourceRequest, push func(s.ListItem) bool) []t.Diagnostic {
	return witDiagnostics(guard("list "+r.TypeName, func(ctx context.Context) error {
		if _, err := e.d.find("list resource", e.d.listDefs(), r.TypeName); err != nil {
			return err
		}
		l := e.d.lists[r.TypeName]
		return l.list(ctx, fromWIT(r.Config), r.IncludeResourceObject, r.Limit, func(item listItem) bool {
			object := witTypes.None[t.Value]()
			if item.object != nil {
				object = witTypes.Some(toWIT(item.object))
			}
			return push(s.ListItem{Identity: toWIT(item.identity), DisplayName: item.displayName,
				ResourceObject: object, Diagnostics: witDiagnostics(item.diagnostics)})
		})
	}))
}
