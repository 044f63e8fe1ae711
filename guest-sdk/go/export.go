package terrarium

import (
	"context"
	"fmt"
	"runtime/debug"
	"sort"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	exb "terrarium.dev/sdk/internal/wit/exports/export_terrarium_provider_behaviour"
	exc "terrarium.dev/sdk/internal/wit/exports/export_terrarium_provider_computed_blocks"
	exp "terrarium.dev/sdk/internal/wit/exports/export_terrarium_provider_provider"
	exr "terrarium.dev/sdk/internal/wit/exports/export_terrarium_provider_replacement"
	_ "terrarium.dev/sdk/internal/wit/exports/wit_exports" // the //go:wasmexport entry points
	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
	cb "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_computed_blocks"
	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// exports answers the component's exported interfaces (provider, behaviour, replacement and
// computed-blocks) from the provider given to Export.
type exports struct{ d *providerDef }

func install(d *providerDef) {
	e := &exports{d}
	exp.Impl = e
	exb.Impl = e
	exr.Impl = e
	exc.Impl = e
}

// ComputedBlocks names the computed nested blocks (WIT 0.2.3): the blocks tagged
// `block,computed` of the resource types and data sources.
func (e *exports) ComputedBlocks() []cb.ComputedBlock {
	out := []cb.ComputedBlock{}
	for _, kinds := range []struct {
		kind  cb.SchemaKind
		types map[string]*typeDef
	}{{cb.SchemaKind_Resource, e.d.resources}, {cb.SchemaKind_DataSource, e.d.dataSources}} {
		for _, n := range sortedNames(kinds.types) {
			td := kinds.types[n]
			if td.model == nil {
				continue
			}
			for _, path := range computedBlockPaths(td.model, nil) {
				out = append(out, cb.ComputedBlock{Kind: kinds.kind, TypeName: n, Path: path})
			}
		}
	}
	return out
}

// DeleteBeforeReplace names the resource types whose replacement deletes first.
func (e *exports) DeleteBeforeReplace() []string {
	names := []string{}
	for _, n := range sortedNames(e.d.resources) {
		if e.d.resources[n].deleteBeforeReplace {
			names = append(names, n)
		}
	}
	return names
}

// guard runs provider code: the diagnostics it returned or raised (a panic becomes an error
// diagnostic naming where it happened, and the instance keeps serving), plus the warnings it
// added with Warn.
func guard(what string, run func(ctx context.Context) error) (ds Diagnostics) {
	var warnings Diagnostics
	ctx := context.WithValue(context.Background(), warningsKey{}, &warnings)
	defer func() {
		if r := recover(); r != nil {
			ds = append(warnings, &Diagnostic{Severity: Error, Summary: what + " failed",
				Detail: fmt.Sprintf("panic: %v\n\n%s", r, debug.Stack())})
		}
	}()
	err := run(ctx)
	return append(warnings, diagnosticsOf(what, err)...)
}

func unsupported(what string) []t.Diagnostic {
	return witDiagnostics(Diagnostics{NewError("Not supported", "This provider does not support "+what+".")})
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (e *exports) GetSchema() t.ProviderSchema {
	d := e.d
	var problems Diagnostics
	named := func(table map[string]*typeDef) []t.NamedSchema {
		out := []t.NamedSchema{}
		for _, n := range sortedNames(table) {
			td := table[n]
			if td.err != nil {
				problems = append(problems, NewError("Invalid schema", fmt.Sprintf("%s: %v", n, td.err)))
				continue
			}
			out = append(out, t.NamedSchema{Name: n, Schema: witSchema(td.model, td.description, td.version)})
		}
		return out
	}
	if d.err != nil {
		problems = append(problems, NewError("Invalid schema", "the provider configuration: "+d.err.Error()))
	}
	functions := []t.Function{}
	for _, n := range sortedNames(d.functions) {
		f := d.functions[n]
		wf, err := witFunction(f)
		if err != nil {
			problems = append(problems, NewError("Invalid function", err.Error()))
			continue
		}
		functions = append(functions, wf)
	}
	identities := d.resourceIdentities(&problems)
	problems = append(problems, d.listProblems()...)
	return t.ProviderSchema{
		Provider:           witSchema(d.config, "", 0),
		ProviderMeta:       witTypes.None[t.Schema](),
		Resources:          named(d.resources),
		DataSources:        named(d.dataSources),
		Functions:          functions,
		ResourceIdentities: identities,
		EphemeralResources: named(d.ephemeralDefs()),
		ListResources:      named(d.listDefs()),
		Actions:            named(d.actionDefs()),
		Capabilities:       t.ServerCapabilities{MoveResourceState: d.movesState(), PlanDestroy: d.plansDestroys()},
		Diagnostics:        witDiagnostics(problems),
	}
}

func witFunction(f *Function) (t.Function, error) {
	if f.err != nil {
		return t.Function{}, f.err
	}
	wf := t.Function{Name: f.name, Summary: f.summary, Description: plainText(f.description),
		Variadic: witTypes.None[t.Parameter](), Parameters: []t.Parameter{}}
	for i, name := range f.params {
		typ, nullable, err := f.paramType(i)
		if err != nil {
			return t.Function{}, fmt.Errorf("function %s, parameter %s: %v", f.name, name, err)
		}
		wf.Parameters = append(wf.Parameters, t.Parameter{Name: name, Type: typ.json(), Description: plainText(""), AllowNull: nullable})
	}
	rt, err := f.returnType()
	if err != nil {
		return t.Function{}, fmt.Errorf("function %s, result: %v", f.name, err)
	}
	wf.Return = rt.json()
	return wf, nil
}

func (e *exports) ValidateProviderConfig(config t.Value) []t.Diagnostic {
	return nil
}

func (e *exports) validate(kind string, table map[string]*typeDef, name string, config t.Value) []t.Diagnostic {
	return witDiagnostics(guard("validate "+name, func(ctx context.Context) error {
		td, err := e.d.find(kind, table, name)
		if err != nil || td.validate == nil {
			return err
		}
		return td.validate(ctx, fromWIT(config))
	}))
}

func (e *exports) ValidateResourceConfig(typeName string, config t.Value, _ t.ClientCapabilities) []t.Diagnostic {
	return e.validate("resource", e.d.resources, typeName, config)
}

func (e *exports) ValidateDataSourceConfig(typeName string, config t.Value) []t.Diagnostic {
	return e.validate("data source", e.d.dataSources, typeName, config)
}

func (e *exports) Configure(request p.ConfigureRequest) []t.Diagnostic {
	return witDiagnostics(guard("configure", func(ctx context.Context) error {
		if e.d.err != nil {
			return NewError("Invalid schema", e.d.err.Error())
		}
		return e.d.configure(ctx, fromWIT(request.Config))
	}))
}

func (e *exports) ReadResource(r p.ReadResourceRequest) p.ReadResourceResponse {
	var state, identity *tree
	private := decodePrivate(r.Private)
	ds, deferred := guardDeferrable("read "+r.TypeName, "Read of "+r.TypeName, r.Client, func(ctx context.Context) error {
		td, err := e.d.find("resource", e.d.resources, r.TypeName)
		if err != nil {
			return err
		}
		state, err = td.read(withPrivate(ctx, private), fromWIT(r.CurrentState))
		if err != nil || state == nil {
			return err
		}
		identity, err = td.knownIdentity(state, "read")
		return err
	})
	if ds.HasError() || deferred.IsSome() {
		// The resource has not gone away because reading it failed (or was deferred): it
		// keeps its state and identity.
		return p.ReadResourceResponse{NewState: r.CurrentState, Private: r.Private, Diagnostics: witDiagnostics(ds),
			NewIdentity: r.CurrentIdentity, Deferred: deferred}
	}
	return p.ReadResourceResponse{NewState: toWIT(state), Private: private.encode(), Diagnostics: witDiagnostics(ds),
		NewIdentity: someIdentity(identity)}
}

func (e *exports) PlanResourceChange(r p.PlanResourceChangeRequest) p.PlanResourceChangeResponse {
	// A host that plans from the declared behaviour never calls this; one that does not
	// would plan none of it (defaults, unknowns, replacements), so say so.
	needs := NewError("This provider needs a newer Terrarium",
		"It declares its planning rules for the host to run (the behaviour interface), and this terrarium does not run them; install a newer terrarium.")
	return p.PlanResourceChangeResponse{PlannedState: r.ProposedNewState, PlannedPrivate: r.PriorPrivate,
		Diagnostics: witDiagnostics(Diagnostics{needs})}
}

func (e *exports) ApplyResourceChange(r p.ApplyResourceChangeRequest) p.ApplyResourceChangeResponse {
	var state, identity *tree
	private := decodePrivate(r.PlannedPrivate)
	ds := guard("apply "+r.TypeName, func(ctx context.Context) error {
		td, err := e.d.find("resource", e.d.resources, r.TypeName)
		if err != nil {
			return err
		}
		ctx = withPrivate(ctx, private)
		prior, planned := fromWIT(r.PriorState), fromWIT(r.PlannedState)
		switch {
		case planned.kind == tNull:
			if err := td.delete(ctx, prior); err != nil {
				return err
			}
			state = nullTree
			return nil
		case prior.kind == tNull:
			state, err = td.create(ctx, planned)
		default:
			state, err = td.update(ctx, prior, planned)
		}
		if err != nil {
			if state != nil {
				// The state a failed call reached: its identity, if it tells it.
				identity, _ = td.knownIdentity(state, "apply")
			}
			return err
		}
		identity, err = td.knownIdentity(state, map[bool]string{true: "create", false: "update"}[prior.kind == tNull])
		if err != nil {
			state = nil
		}
		return err
	})
	if ds.HasError() && state == nil {
		// Nothing changed that the provider reported: the prior state stays, with the
		// identity it had (none before a create).
		kept := witTypes.None[t.Value]()
		if fromWIT(r.PriorState).kind != tNull {
			kept = r.PlannedIdentity
		}
		return p.ApplyResourceChangeResponse{NewState: r.PriorState, Private: r.PlannedPrivate, Diagnostics: witDiagnostics(ds),
			NewIdentity: kept}
	}
	// Done, or failed with the state it reached (WithState): Terraform records that state,
	// tainted after a create, so the object is not lost.
	return p.ApplyResourceChangeResponse{NewState: toWIT(state), Private: private.encode(), Diagnostics: witDiagnostics(ds),
		NewIdentity: someIdentity(identity)}
}

func (e *exports) ImportResourceState(r p.ImportResourceStateRequest) p.ImportResourceStateResponse {
	var state, identity *tree
	private := decodePrivate(nil)
	ds, deferred := guardDeferrable("import "+r.TypeName, "import of "+r.TypeName, r.Client, func(ctx context.Context) error {
		ctx = withPrivate(ctx, private)
		td, err := e.d.find("resource", e.d.resources, r.TypeName)
		if err != nil {
			return err
		}
		var given *tree
		if r.Identity.IsSome() && fromWIT(r.Identity.Some()).kind != tNull {
			given = fromWIT(r.Identity.Some())
		}
		switch {
		case given != nil && td.identity == nil:
			return NewError("Import by identity not supported",
				fmt.Sprintf("Resources of type %s have no identity; import them by ID.", r.TypeName))
		case given != nil && td.identity.importBy == nil:
			return NewError("Import by identity not supported",
				fmt.Sprintf("Resources of type %s cannot be imported by identity.", r.TypeName))
		case given != nil:
			state, err = td.identity.importBy(ctx, given)
		case td.importState == nil:
			return NewError("Import not supported", fmt.Sprintf("The resource type %s cannot be imported.", r.TypeName))
		default:
			state, err = td.importState(ctx, r.Id)
		}
		if err != nil || td.identity == nil {
			return err
		}
		// The imported state may not tell the identity yet (read fills it in); when it does
		// not, an identity import keeps the identity it was given.
		identity = given
		if id, ok, err := td.identity.of(state); err == nil && ok && !hasUnknown(id) {
			identity = id
		}
		return nil
	})
	imported := []p.ImportedResource{}
	if !ds.HasError() && deferred.IsNone() && state != nil {
		imported = append(imported, p.ImportedResource{TypeName: r.TypeName, State: toWIT(state), Private: private.encode(),
			Identity: someIdentity(identity)})
	}
	return p.ImportResourceStateResponse{Imported: imported, Deferred: deferred, Diagnostics: witDiagnostics(ds)}
}

func (e *exports) UpgradeResourceState(r p.UpgradeResourceStateRequest) p.UpgradeResourceStateResponse {
	// A state of the current schema version is read into the state type and written back,
	// which gives it the schema's types; an older one goes through UpgradeState first.
	var state *tree
	ds := guard("upgrade the state of "+r.TypeName, func(ctx context.Context) error {
		td, err := e.d.find("resource", e.d.resources, r.TypeName)
		if err != nil {
			return err
		}
		raw := fromWIT(r.RawState)
		switch {
		case r.Version > td.version:
			return NewError("State written by a newer provider", fmt.Sprintf(
				"The %s state has schema version %d, but this provider only knows versions up to %d. "+
					"Use the provider version that wrote the state, or newer.", r.TypeName, r.Version, td.version))
		case r.Version < td.version:
			raw, err = td.upgradeRaw(ctx, r.Version, raw)
			if err != nil {
				return err
			}
		}
		state, err = td.normalize(raw)
		return err
	})
	if ds.HasError() {
		state = nullTree
	}
	return p.UpgradeResourceStateResponse{UpgradedState: toWIT(state), Diagnostics: witDiagnostics(ds)}
}

// upgradeRaw runs the type's UpgradeState on a stored state of an older schema version.
func (td *typeDef) upgradeRaw(ctx context.Context, version int64, raw *tree) (*tree, error) {
	if td.upgrade == nil {
		return nil, NewError("Cannot upgrade state",
			fmt.Sprintf("The provider cannot upgrade %s state from schema version %d.", td.name, version))
	}
	fields, ok := plain(raw).(map[string]any)
	if !ok {
		return nil, NewError("Cannot upgrade state",
			fmt.Sprintf("The stored %s state (schema version %d) is not an object.", td.name, version))
	}
	upgraded, err := td.upgrade(ctx, version, fields)
	if err != nil {
		return nil, err
	}
	t, err := encodeAny(upgraded, nil)
	if err != nil {
		return nil, NewError("Cannot upgrade state",
			fmt.Sprintf("UpgradeState of %s returned a value that is not a state: %v", td.name, err))
	}
	return t, nil
}

func (e *exports) GenerateResourceConfig(string, t.Value) p.GenerateResourceConfigResponse {
	return p.GenerateResourceConfigResponse{Config: witNull(), Diagnostics: unsupported("generating configuration")}
}

func (e *exports) ReadDataSource(r p.ReadDataSourceRequest) p.ReadDataSourceResponse {
	var state *tree
	ds, deferred := guardDeferrable("read "+r.TypeName, "Read of "+r.TypeName, r.Client, func(ctx context.Context) error {
		td, err := e.d.find("data source", e.d.dataSources, r.TypeName)
		if err != nil {
			return err
		}
		state, err = td.read(ctx, fromWIT(r.Config))
		return err
	})
	switch {
	case ds.HasError():
		state = nullTree
	case deferred.IsSome():
		// Not known yet: what the configuration says (Terraform takes the rest as unknown).
		state = fromWIT(r.Config)
	}
	return p.ReadDataSourceResponse{State: toWIT(state), Deferred: deferred, Diagnostics: witDiagnostics(ds)}
}

func (e *exports) CallFunction(name string, arguments []t.Value) (result witTypes.Result[t.Value, p.FunctionError]) {
	fail := func(fe *FunctionError) witTypes.Result[t.Value, p.FunctionError] {
		arg := witTypes.None[uint32]()
		if fe.Argument != nil {
			arg = witTypes.Some(uint32(*fe.Argument))
		}
		return witTypes.Err[t.Value](p.FunctionError{Text: fe.Text, Argument: arg})
	}
	f, ok := e.d.functions[name]
	if !ok {
		return fail(&FunctionError{Text: fmt.Sprintf("This provider has no function %q.", name)})
	}
	defer func() {
		if r := recover(); r != nil {
			result = fail(&FunctionError{Text: fmt.Sprintf("%s failed: panic: %v", name, r)})
		}
	}()
	args := make([]*tree, len(arguments))
	for i, a := range arguments {
		args[i] = fromWIT(a)
	}
	v, fe := f.call(context.Background(), args)
	if fe != nil {
		return fail(fe)
	}
	return witTypes.Ok[t.Value, p.FunctionError](toWIT(v))
}

func (e *exports) Stop() witTypes.Option[string] {
	return witTypes.None[string]()
}

// ---- behaviour ----

func (e *exports) GetBehaviour() b.ProviderBehaviour {
	return e.behaviour(&hookTable{})
}

// behaviour is what the provider declares, numbering its hooks in hooks (in this order,
// which is the same in every instance).
func (e *exports) behaviour(hooks *hookTable) b.ProviderBehaviour {
	d := e.d
	schema := func(m *model) b.SchemaBehaviour {
		sb, err := witBehaviour(m, hooks)
		if err != nil {
			// The schema's diagnostics (GetSchema) carry the problem; declare nothing.
			return b.SchemaBehaviour{Attributes: []b.AttributeBehaviour{}, ReplaceBlocks: [][]string{}}
		}
		return sb
	}
	named := func(table map[string]*typeDef) []b.NamedBehaviour {
		out := []b.NamedBehaviour{}
		for _, n := range sortedNames(table) {
			if table[n].err == nil {
				sb := schema(table[n].model)
				// The plan hook: only resource types with a Plan or PlanDestroy are asked,
				// and those with an identity (the SDK plans it).
				sb.PlanHook = table[n].plan != nil || table[n].planDestroy != nil || table[n].identity != nil
				out = append(out, b.NamedBehaviour{Name: n, Behaviour: sb})
			}
		}
		return out
	}
	return b.ProviderBehaviour{
		Provider:           schema(d.config),
		Resources:          named(d.resources),
		DataSources:        named(d.dataSources),
		EphemeralResources: named(d.ephemeralDefs()),
		ListResources:      named(d.listDefs()),
		Actions:            named(d.actionDefs()),
	}
}
