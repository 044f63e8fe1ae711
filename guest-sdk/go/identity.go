package terrarium

import (
	"context"
	"fmt"
	"reflect"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// Resource identity (Terraform 1.12+): the small, immutable data that names the remote object
// a resource manages, stored beside its state. Terraform uses it to import (`import { to = ...
// identity = { ... } }`), to list (`terraform query`, see ListResourceImpl) and to check that a
// refresh still talks about the same object.
//
// The identity is a schema struct of plain attributes (no maps, sets or objects) whose tags say
// which attributes an import block gives:
//
//	type ServerIdentity struct {
//		ID string `tf:"id,required_for_import" doc:"The server's ID."`
//	}
//
// and the resource type's code says which identity a state has:
//
//	func (serverResource) IdentityOf(s Server) (ServerIdentity, bool) {
//		// Unknown while a create is planned: the identity is then known after apply.
//		return ServerIdentity{ID: s.ID.Value()}, s.ID.IsKnown()
//	}
//
// Register it with NewResourceWithIdentity[Server, ServerIdentity]. The SDK then returns the
// identity from read, apply, import and move, plans it (an update keeps it; a create plans it
// when IdentityOf can already tell it, else it is known after apply), declares the identity
// schema, imports by identity (IdentityImporter) and upgrades stored identities of older
// versions (IdentityUpgrader). The Rust SDK's ResourceIdentity, with the same names.

// ResourceIdentity is the code of a managed resource type whose objects have an identity I
// (a schema struct). IdentityOf is the identity of the object whose state is s; false while s
// does not tell it yet (a planned create whose identifying attributes are unknown). After
// create, update, read, import and move it must tell it.
type ResourceIdentity[S, I any] interface {
	ResourceImpl[S]
	IdentityOf(s S) (I, bool)
}

// IdentityImporter is a resource type that `import { identity = {...} }` blocks can import:
// ImportByIdentity builds a state from the identity (attributes not required for import may
// be zero), which Terraform then reads. Without it import by identity is refused.
type IdentityImporter[S, I any] interface {
	ImportByIdentity(ctx context.Context, identity I) (S, error)
}

// IdentityUpgrader is a resource type whose identity schema has changed. IdentityVersion is
// the identity schema's version (0 without an IdentityUpgrader), which Terraform records with
// every identity; UpgradeIdentity turns an identity stored with an older version into the
// current one. raw is the stored JSON identity as untyped Go values (as in UpgradeState).
type IdentityUpgrader interface {
	IdentityVersion() int64
	UpgradeIdentity(ctx context.Context, version int64, raw map[string]any) (map[string]any, error)
}

// identityDef is a resource type's identity with its Go types erased.
type identityDef struct {
	model   *model
	err     error
	version int64
	// of is the identity of a state: false while the state does not tell it; an error when
	// the state does not decode.
	of       func(state *tree) (*tree, bool, error)
	importBy func(ctx context.Context, identity *tree) (*tree, error)
	upgrade  func(ctx context.Context, version int64, raw map[string]any) (map[string]any, error)
}

// NewResourceWithIdentity is NewResource for a resource type whose objects have an identity
// of the schema struct I.
func NewResourceWithIdentity[S, I any](name string, impl ResourceIdentity[S, I]) ResourceType {
	r := NewResource[S](name, impl)
	id := &identityDef{}
	id.model, id.err = modelOf(reflect.TypeFor[I]())
	if id.err == nil {
		id.err = checkIdentityModel(id.model)
	}
	id.of = func(state *tree) (*tree, bool, error) {
		s, err := decode[S](state)
		if err != nil {
			return nil, false, err
		}
		i, ok := impl.IdentityOf(s)
		if !ok {
			return nil, false, nil
		}
		it, err := encode(i)
		if err != nil {
			return nil, false, NewError("Invalid identity", err.Error())
		}
		return it, true, nil
	}
	if imp, ok := impl.(IdentityImporter[S, I]); ok {
		id.importBy = func(ctx context.Context, identity *tree) (*tree, error) {
			i, err := decode[I](identity)
			if err != nil {
				return nil, err
			}
			s, err := imp.ImportByIdentity(ctx, i)
			if err != nil {
				return nil, err
			}
			return encode(s)
		}
	}
	if up, ok := impl.(IdentityUpgrader); ok {
		id.version = up.IdentityVersion()
		id.upgrade = up.UpgradeIdentity
	}
	r.def.identity = id
	return r
}

// checkIdentityModel refuses what Terraform refuses in an identity schema.
func checkIdentityModel(m *model) error {
	if len(m.fields) == 0 {
		return fmt.Errorf("the identity %s has no attributes; it needs at least one `tf` field", m.goType)
	}
	for _, f := range m.fields {
		if f.block || f.nested != nil || containsMapSetOrObject(f.typ) {
			return fmt.Errorf("identity attribute %s has type %s; identity attributes may not be (or contain) maps, sets or objects",
				f.name, f.typ.json())
		}
		if f.requiredForImport && f.optionalForImport {
			return fmt.Errorf("identity attribute %s is both required_for_import and optional_for_import", f.name)
		}
	}
	return nil
}

func containsMapSetOrObject(t *tfType) bool {
	switch t.kind {
	case "map", "set", "object":
		return true
	case "list":
		return containsMapSetOrObject(t.elem)
	}
	return false
}

// witIdentitySchema is the identity schema Terraform sees.
func (id *identityDef) witSchema() t.IdentitySchema {
	out := t.IdentitySchema{Version: id.version, Attributes: []t.IdentityAttribute{}}
	for _, f := range id.model.fields {
		out.Attributes = append(out.Attributes, t.IdentityAttribute{Name: f.name, Type: f.typ.json(),
			RequiredForImport: f.requiredForImport, OptionalForImport: f.optionalForImport, Description: f.description})
	}
	return out
}

// hasUnknown tells whether a tree holds an unknown value anywhere.
func hasUnknown(x *tree) bool {
	if x.kind == tUnknown {
		return true
	}
	for _, e := range x.elems {
		if hasUnknown(e) {
			return true
		}
	}
	return false
}

// knownIdentity is the identity of a state that must tell it (after apply, read, import,
// move): nil for a resource type without identity.
func (td *typeDef) knownIdentity(state *tree, operation string) (*tree, error) {
	if td.identity == nil {
		return nil, nil
	}
	if td.identity.err != nil {
		return nil, NewError("Invalid identity schema", td.identity.err.Error())
	}
	identity, ok, err := td.identity.of(state)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, NewError("Provider returned no identity", fmt.Sprintf(
			"After %s, IdentityOf of %s returned false: the identity must be known once the object exists. This is a bug in the provider.",
			operation, td.name))
	case hasUnknown(identity):
		return nil, NewError("Provider returned an unknown identity", fmt.Sprintf(
			"After %s, the identity of %s has an unknown value. This is a bug in the provider.", operation, td.name))
	}
	return identity, nil
}

// plannedIdentity is the identity a plan promises: an update keeps the prior identity (an
// object's identity never changes); a create or replacement computes it from the planned
// state, null while IdentityOf cannot tell it yet (Terraform cannot show a plan with an
// unknown identity; a null one reads "known after apply").
func (td *typeDef) plannedIdentity(prior, planned *tree, priorIdentity witTypes.Option[t.Value], replaced bool) witTypes.Option[t.Value] {
	if prior.kind != tNull && !replaced && priorIdentity.IsSome() && fromWIT(priorIdentity.Some()).kind != tNull {
		return priorIdentity
	}
	if td.identity.err == nil {
		if identity, ok, err := td.identity.of(planned); err == nil && ok && !hasUnknown(identity) {
			return witTypes.Some(toWIT(identity))
		}
	}
	return witTypes.Some(witNull())
}

// someIdentity is a known identity tree as the WIT option (None for none).
func someIdentity(identity *tree) witTypes.Option[t.Value] {
	if identity == nil {
		return witTypes.None[t.Value]()
	}
	return witTypes.Some(toWIT(identity))
}

// resourceIdentities is the identity schemas of the resource types that have one, by name.
func (d *providerDef) resourceIdentities(problems *Diagnostics) []t.NamedIdentitySchema {
	out := []t.NamedIdentitySchema{}
	for _, n := range sortedNames(d.resources) {
		id := d.resources[n].identity
		if id == nil {
			continue
		}
		if id.err != nil {
			*problems = append(*problems, NewError("Invalid identity schema", fmt.Sprintf("%s: %v", n, id.err)))
			continue
		}
		out = append(out, t.NamedIdentitySchema{Name: n, Schema: id.witSchema()})
	}
	return out
}

func (e *exports) UpgradeResourceIdentity(r p.UpgradeResourceIdentityRequest) p.UpgradeResourceIdentityResponse {
	var identity *tree
	ds := guard("upgrade the identity of "+r.TypeName, func(ctx context.Context) error {
		td, err := e.d.find("resource", e.d.resources, r.TypeName)
		if err != nil {
			return err
		}
		id := td.identity
		if id == nil {
			return NewError("Resource has no identity", fmt.Sprintf(
				"Resources of type %s have no identity schema, so there is no identity to upgrade.", r.TypeName))
		}
		if id.err != nil {
			return NewError("Invalid identity schema", id.err.Error())
		}
		raw := fromWIT(r.RawIdentity)
		switch {
		case r.Version > id.version:
			return NewError("Identity written by a newer provider", fmt.Sprintf(
				"The %s identity has identity schema version %d, but this provider only knows versions up to %d. "+
					"Use the provider version that wrote the state, or newer.", r.TypeName, r.Version, id.version))
		case r.Version < id.version:
			if id.upgrade == nil {
				return NewError("Cannot upgrade identity", fmt.Sprintf(
					"The provider cannot upgrade %s identities from identity schema version %d.", r.TypeName, r.Version))
			}
			fields, ok := plain(raw).(map[string]any)
			if !ok {
				return NewError("Cannot upgrade identity", fmt.Sprintf(
					"The stored %s identity (identity schema version %d) is not an object.", r.TypeName, r.Version))
			}
			upgraded, err := id.upgrade(ctx, r.Version, fields)
			if err != nil {
				return err
			}
			if raw, err = encodeAny(upgraded, nil); err != nil {
				return NewError("Cannot upgrade identity", fmt.Sprintf(
					"UpgradeIdentity of %s returned a value that is not an identity: %v", r.TypeName, err))
			}
		}
		// Fit it to the identity type: read into the identity struct and written back.
		fitted, err := conform(raw, id.model.objectType())
		if err != nil {
			return NewError("Cannot upgrade identity", fmt.Sprintf(
				"The %s identity does not fit identity schema version %d: %v", r.TypeName, id.version, err))
		}
		identity = fitted
		return nil
	})
	if ds.HasError() {
		identity = nullTree
	}
	return p.UpgradeResourceIdentityResponse{UpgradedIdentity: toWIT(identity), Diagnostics: witDiagnostics(ds)}
}
