// Package tfprotov6adapter serves an existing terraform-plugin-go tfprotov6.ProviderServer
// (what terraform-plugin-framework's providerserver.NewProtocol6 returns) as a Terrarium
// component: each call of the WIT world becomes the matching tfprotov6 RPC.
//
// An author keeps the provider as it is and replaces the go-plugin server: a file built only
// for wasip1 registers the server in init (a c-shared wasip1 module is a reactor: it runs its
// init functions and never main):
//
//	//go:build wasip1
//
//	package main
//
//	import (
//		"github.com/hashicorp/terraform-plugin-framework/providerserver"
//		"terrarium.dev/sdk/tfprotov6adapter"
//	)
//
//	func init() {
//		tfprotov6adapter.Serve(providerserver.NewProtocol6(New(version)())())
//	}
//
//	func main() {}
//
// and the file holding the usual main (providerserver.Serve) gets `//go:build !wasip1`.
//
// The provider encodes and decodes its own values (msgpack, JSON state), so this adapter does
// too, inside the guest: a deliberate exception to "the host owns encoding". The host still
// checks every value the component returns against the schema. The component is built for the
// world `terrarium-provider` (not `terrarium-provider-with-behaviour`): the framework plans
// for itself, so PlanResourceChange reaches the provider with Terraform's proposed new state,
// as it does for Rust SDK components (scripts/go-component DIR OUT terrarium-provider).
package tfprotov6adapter

import (
	"context"
	"fmt"
	"runtime/debug"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	exc "terrarium.dev/sdk/internal/wit/exports/export_terrarium_provider_computed_blocks"
	exp "terrarium.dev/sdk/internal/wit/exports/export_terrarium_provider_provider"
	exr "terrarium.dev/sdk/internal/wit/exports/export_terrarium_provider_replacement"
	_ "terrarium.dev/sdk/internal/wit/exports/wit_exports" // the //go:wasmexport entry points
	cb "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_computed_blocks"
	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// Serve makes server answer the component's exported calls. Call it from an init function.
func Serve(server tfprotov6.ProviderServer) {
	exp.Impl = &adapter{server: server}
	exr.Impl = replacement{}
	exc.Impl = replacement{}
}

// replacement answers the WIT replacement interface: a tfprotov6 provider cannot say that a
// type must be deleted before its replacement (Terraform leaves the order to the
// configuration), so no type does.
type replacement struct{}

func (replacement) DeleteBeforeReplace() []string { return []string{} }

// ComputedBlocks answers the WIT computed-blocks interface (0.2.3): the terraform-plugin-go
// this adapter is built with has no computed blocks, so no block is one.
func (replacement) ComputedBlocks() []cb.ComputedBlock { return []cb.ComputedBlock{} }

type adapter struct {
	server tfprotov6.ProviderServer
	// The schemas, asked for on the first call that needs them (every instance of the
	// component asks once: the host may send any call to any instance).
	schema     *tfprotov6.GetProviderSchemaResponse
	identities map[string]*tfprotov6.ResourceIdentitySchema
	schemaDiag []*tfprotov6.Diagnostic
}

func (a *adapter) load() {
	if a.schema != nil {
		return
	}
	ctx := context.Background()
	resp, err := a.server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || resp == nil {
		resp = &tfprotov6.GetProviderSchemaResponse{Diagnostics: []*tfprotov6.Diagnostic{rpcError("GetProviderSchema", err)}}
	}
	a.schema = resp
	a.identities = map[string]*tfprotov6.ResourceIdentitySchema{}
	ids, err := a.server.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	switch {
	case err != nil:
		a.schemaDiag = append(a.schemaDiag, rpcError("GetResourceIdentitySchemas", err))
	case ids != nil:
		a.identities = ids.IdentitySchemas
		a.schemaDiag = append(a.schemaDiag, ids.Diagnostics...)
	}
}

func rpcError(rpc string, err error) *tfprotov6.Diagnostic {
	return &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError,
		Summary: rpc + " failed", Detail: fmt.Sprintf("The provider's %s returned an error: %v", rpc, err)}
}

func schemaType(s *tfprotov6.Schema) tftypes.Type {
	if s == nil || s.Block == nil {
		return tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}
	}
	return s.ValueType()
}

// kind names the tables of schemas a type name is looked up in.
type kind int

const (
	kindProvider kind = iota
	kindProviderMeta
	kindResource
	kindDataSource
	kindEphemeral
	kindList
	kindAction
)

// typeOf is the value type of the schema of typeName in the table k.
func (a *adapter) typeOf(k kind, typeName string) (tftypes.Type, error) {
	a.load()
	var table map[string]*tfprotov6.Schema
	switch k {
	case kindProvider:
		return schemaType(a.schema.Provider), nil
	case kindProviderMeta:
		if a.schema.ProviderMeta == nil {
			return nil, nil
		}
		return schemaType(a.schema.ProviderMeta), nil
	case kindResource:
		table = a.schema.ResourceSchemas
	case kindDataSource:
		table = a.schema.DataSourceSchemas
	case kindEphemeral:
		table = a.schema.EphemeralResourceSchemas
	case kindList:
		table = a.schema.ListResourceSchemas
	case kindAction:
		if as, ok := a.schema.ActionSchemas[typeName]; ok && as != nil {
			return schemaType(as.Schema), nil
		}
		return nil, fmt.Errorf("the provider has no action %q", typeName)
	}
	sch, ok := table[typeName]
	if !ok {
		return nil, fmt.Errorf("the provider has no schema for %q", typeName)
	}
	return schemaType(sch), nil
}

func (a *adapter) identityType(typeName string) tftypes.Type {
	a.load()
	if s, ok := a.identities[typeName]; ok && s != nil {
		return identityType(s)
	}
	return nil
}

// call runs one RPC: a panic or an encoding problem becomes an error diagnostic, so that the
// instance keeps serving.
func call(what string, run func(ctx context.Context) ([]*tfprotov6.Diagnostic, error)) (ds []t.Diagnostic) {
	defer func() {
		if r := recover(); r != nil {
			ds = append(ds, errorDiagnostic(what+" failed", fmt.Sprintf("panic: %v\n\n%s", r, debug.Stack())))
		}
	}()
	diags, err := run(context.Background())
	ds = witDiagnostics(diags)
	if err != nil {
		ds = append(ds, errorDiagnostic(what+" failed", err.Error()))
	}
	return ds
}

func nullValue() t.Value { return t.Value{Nodes: []t.Node{t.MakeNodeNull()}} }

func optionValue(v witTypes.Option[t.Value]) *t.Value {
	if v.IsSome() {
		x := v.Some()
		return &x
	}
	return nil
}

func identityData(v witTypes.Option[t.Value], typ tftypes.Type) (*tfprotov6.ResourceIdentityData, error) {
	dv, err := optionalDynamicValue(optionValue(v), typ)
	if err != nil || dv == nil {
		return nil, err
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: dv}, nil
}

func fromIdentityData(d *tfprotov6.ResourceIdentityData, typ tftypes.Type) (witTypes.Option[t.Value], error) {
	if d == nil || d.IdentityData == nil || typ == nil {
		return witTypes.None[t.Value](), nil
	}
	v, err := fromDynamicValue(d.IdentityData, typ)
	if err != nil {
		return witTypes.None[t.Value](), err
	}
	return witTypes.Some(v), nil
}

func deferred(d *tfprotov6.Deferred) witTypes.Option[t.DeferredReason] {
	if d == nil {
		return witTypes.None[t.DeferredReason]()
	}
	switch d.Reason {
	case tfprotov6.DeferredReasonResourceConfigUnknown:
		return witTypes.Some(t.DeferredReason_ResourceConfigUnknown)
	case tfprotov6.DeferredReasonProviderConfigUnknown:
		return witTypes.Some(t.DeferredReason_ProviderConfigUnknown)
	case tfprotov6.DeferredReasonAbsentPrereq:
		return witTypes.Some(t.DeferredReason_AbsentPrerequisite)
	default:
		return witTypes.Some(t.DeferredReason_Unknown)
	}
}

func (a *adapter) GetSchema() (out t.ProviderSchema) {
	a.load()
	sch := a.schema
	var problems []t.Diagnostic
	convert := func(what string, s *tfprotov6.Schema) t.Schema {
		w, err := witSchema(s)
		if err != nil {
			problems = append(problems, errorDiagnostic("Invalid schema", what+": "+err.Error()))
		}
		return w
	}
	named := func(table map[string]*tfprotov6.Schema) []t.NamedSchema {
		out := []t.NamedSchema{}
		for _, n := range sortedKeys(table) {
			out = append(out, t.NamedSchema{Name: n, Schema: convert(n, table[n])})
		}
		return out
	}
	out = t.ProviderSchema{
		Provider:           convert("the provider configuration", sch.Provider),
		ProviderMeta:       witTypes.None[t.Schema](),
		Resources:          named(sch.ResourceSchemas),
		DataSources:        named(sch.DataSourceSchemas),
		Functions:          []t.Function{},
		ResourceIdentities: []t.NamedIdentitySchema{},
		EphemeralResources: named(sch.EphemeralResourceSchemas),
		ListResources:      named(sch.ListResourceSchemas),
		Actions:            []t.NamedSchema{},
	}
	if sch.ProviderMeta != nil {
		out.ProviderMeta = witTypes.Some(convert("provider_meta", sch.ProviderMeta))
	}
	for _, n := range sortedKeys(sch.Functions) {
		f, err := witFunction(n, sch.Functions[n])
		if err != nil {
			problems = append(problems, errorDiagnostic("Invalid schema", "function "+n+": "+err.Error()))
			continue
		}
		out.Functions = append(out.Functions, f)
	}
	for _, n := range sortedKeys(a.identities) {
		is, err := witIdentitySchema(a.identities[n])
		if err != nil {
			problems = append(problems, errorDiagnostic("Invalid schema", "identity of "+n+": "+err.Error()))
			continue
		}
		out.ResourceIdentities = append(out.ResourceIdentities, t.NamedIdentitySchema{Name: n, Schema: is})
	}
	for _, n := range sortedKeys(sch.ActionSchemas) {
		if as := sch.ActionSchemas[n]; as != nil {
			out.Actions = append(out.Actions, t.NamedSchema{Name: n, Schema: convert("action "+n, as.Schema)})
		}
	}
	if c := sch.ServerCapabilities; c != nil {
		out.Capabilities = t.ServerCapabilities{
			PlanDestroy:               c.PlanDestroy,
			GetProviderSchemaOptional: c.GetProviderSchemaOptional,
			MoveResourceState:         c.MoveResourceState,
			GenerateResourceConfig:    c.GenerateResourceConfig,
		}
	}
	out.Diagnostics = append(witDiagnostics(append(append([]*tfprotov6.Diagnostic{}, sch.Diagnostics...), a.schemaDiag...)), problems...)
	return out
}

func (a *adapter) ValidateProviderConfig(config t.Value) []t.Diagnostic {
	return call("ValidateProviderConfig", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		typ, _ := a.typeOf(kindProvider, "")
		dv, err := dynamicValue(config, typ)
		if err != nil {
			return nil, err
		}
		resp, err := a.server.ValidateProviderConfig(ctx, &tfprotov6.ValidateProviderConfigRequest{Config: dv})
		if err != nil || resp == nil {
			return nil, err
		}
		return resp.Diagnostics, nil
	})
}

func (a *adapter) ValidateResourceConfig(typeName string, config t.Value, client t.ClientCapabilities) []t.Diagnostic {
	return call("ValidateResourceConfig", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		typ, err := a.typeOf(kindResource, typeName)
		if err != nil {
			return nil, err
		}
		dv, err := dynamicValue(config, typ)
		if err != nil {
			return nil, err
		}
		resp, err := a.server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{
			TypeName: typeName, Config: dv,
			ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: client.WriteOnlyAttributesAllowed},
		})
		if err != nil || resp == nil {
			return nil, err
		}
		return resp.Diagnostics, nil
	})
}

func (a *adapter) ValidateDataSourceConfig(typeName string, config t.Value) []t.Diagnostic {
	return call("ValidateDataResourceConfig", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		typ, err := a.typeOf(kindDataSource, typeName)
		if err != nil {
			return nil, err
		}
		dv, err := dynamicValue(config, typ)
		if err != nil {
			return nil, err
		}
		resp, err := a.server.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: typeName, Config: dv})
		if err != nil || resp == nil {
			return nil, err
		}
		return resp.Diagnostics, nil
	})
}

func (a *adapter) Configure(request p.ConfigureRequest) []t.Diagnostic {
	return call("ConfigureProvider", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		typ, _ := a.typeOf(kindProvider, "")
		dv, err := dynamicValue(request.Config, typ)
		if err != nil {
			return nil, err
		}
		resp, err := a.server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
			TerraformVersion:   request.TerraformVersion,
			Config:             dv,
			ClientCapabilities: &tfprotov6.ConfigureProviderClientCapabilities{DeferralAllowed: request.Client.DeferralAllowed},
		})
		if err != nil || resp == nil {
			return nil, err
		}
		return resp.Diagnostics, nil
	})
}

// resourceRequest is what ReadResource, PlanResourceChange and ApplyResourceChange hand the
// server besides their own fields: the states, the provider meta and the identity, encoded
// with the resource's types (kept to decode the answer).
type resourceRequest struct {
	typ, idType tftypes.Type
	states      []*tfprotov6.DynamicValue
	meta        *tfprotov6.DynamicValue
	identity    *tfprotov6.ResourceIdentityData
}

func (a *adapter) encodeResourceRequest(typeName string, states []t.Value, providerMeta, identity witTypes.Option[t.Value]) (r resourceRequest, err error) {
	if r.typ, err = a.typeOf(kindResource, typeName); err != nil {
		return r, err
	}
	metaType, _ := a.typeOf(kindProviderMeta, "")
	r.idType = a.identityType(typeName)
	r.states = make([]*tfprotov6.DynamicValue, len(states))
	for i, v := range states {
		if r.states[i], err = dynamicValue(v, r.typ); err != nil {
			return r, err
		}
	}
	if r.meta, err = optionalDynamicValue(optionValue(providerMeta), metaType); err != nil {
		return r, err
	}
	r.identity, err = identityData(identity, r.idType)
	return r, err
}

func (a *adapter) ReadResource(request p.ReadResourceRequest) (out p.ReadResourceResponse) {
	out.NewState = request.CurrentState
	out.Private = request.Private
	out.Diagnostics = call("ReadResource", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		r, err := a.encodeResourceRequest(request.TypeName, []t.Value{request.CurrentState}, request.ProviderMeta, request.CurrentIdentity)
		if err != nil {
			return nil, err
		}
		typ, idType := r.typ, r.idType
		resp, err := a.server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{
			TypeName: request.TypeName, CurrentState: r.states[0], Private: request.Private, ProviderMeta: r.meta,
			ClientCapabilities: &tfprotov6.ReadResourceClientCapabilities{DeferralAllowed: request.Client.DeferralAllowed},
			CurrentIdentity:    r.identity,
		})
		if err != nil || resp == nil {
			return nil, err
		}
		if out.NewState, err = fromDynamicValue(resp.NewState, typ); err != nil {
			return resp.Diagnostics, err
		}
		out.Private = resp.Private
		out.Deferred = deferred(resp.Deferred)
		out.NewIdentity, err = fromIdentityData(resp.NewIdentity, idType)
		return resp.Diagnostics, err
	})
	return out
}

func (a *adapter) PlanResourceChange(request p.PlanResourceChangeRequest) (out p.PlanResourceChangeResponse) {
	out.PlannedState = request.ProposedNewState
	out.RequiresReplace = [][]t.PathStep{}
	out.PlannedPrivate = request.PriorPrivate
	out.Diagnostics = call("PlanResourceChange", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		states := []t.Value{request.PriorState, request.ProposedNewState, request.Config}
		r, err := a.encodeResourceRequest(request.TypeName, states, request.ProviderMeta, request.PriorIdentity)
		if err != nil {
			return nil, err
		}
		typ, idType := r.typ, r.idType
		resp, err := a.server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName: request.TypeName, PriorState: r.states[0], ProposedNewState: r.states[1], Config: r.states[2],
			PriorPrivate: request.PriorPrivate, ProviderMeta: r.meta,
			ClientCapabilities: &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: request.Client.DeferralAllowed},
			PriorIdentity:      r.identity,
		})
		if err != nil || resp == nil {
			return nil, err
		}
		if out.PlannedState, err = fromDynamicValue(resp.PlannedState, typ); err != nil {
			return resp.Diagnostics, err
		}
		for _, path := range resp.RequiresReplace {
			out.RequiresReplace = append(out.RequiresReplace, witPath(path))
		}
		out.PlannedPrivate = resp.PlannedPrivate
		out.Deferred = deferred(resp.Deferred)
		out.PlannedIdentity, err = fromIdentityData(resp.PlannedIdentity, idType)
		return resp.Diagnostics, err
	})
	return out
}

func (a *adapter) ApplyResourceChange(request p.ApplyResourceChangeRequest) (out p.ApplyResourceChangeResponse) {
	out.NewState = request.PriorState
	out.Private = request.PlannedPrivate
	out.Diagnostics = call("ApplyResourceChange", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		states := []t.Value{request.PriorState, request.PlannedState, request.Config}
		r, err := a.encodeResourceRequest(request.TypeName, states, request.ProviderMeta, request.PlannedIdentity)
		if err != nil {
			return nil, err
		}
		typ, idType := r.typ, r.idType
		resp, err := a.server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
			TypeName: request.TypeName, PriorState: r.states[0], PlannedState: r.states[1], Config: r.states[2],
			PlannedPrivate: request.PlannedPrivate, ProviderMeta: r.meta, PlannedIdentity: r.identity,
		})
		if err != nil || resp == nil {
			return nil, err
		}
		if out.NewState, err = fromDynamicValue(resp.NewState, typ); err != nil {
			return resp.Diagnostics, err
		}
		out.Private = resp.Private
		out.NewIdentity, err = fromIdentityData(resp.NewIdentity, idType)
		return resp.Diagnostics, err
	})
	return out
}

func (a *adapter) ImportResourceState(request p.ImportResourceStateRequest) (out p.ImportResourceStateResponse) {
	out.Imported = []p.ImportedResource{}
	out.Diagnostics = call("ImportResourceState", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		identity, err := identityData(request.Identity, a.identityType(request.TypeName))
		if err != nil {
			return nil, err
		}
		resp, err := a.server.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{
			TypeName: request.TypeName, ID: request.Id,
			ClientCapabilities: &tfprotov6.ImportResourceStateClientCapabilities{DeferralAllowed: request.Client.DeferralAllowed},
			Identity:           identity,
		})
		if err != nil || resp == nil {
			return nil, err
		}
		out.Deferred = deferred(resp.Deferred)
		for _, r := range resp.ImportedResources {
			typ, err := a.typeOf(kindResource, r.TypeName)
			if err != nil {
				return resp.Diagnostics, err
			}
			state, err := fromDynamicValue(r.State, typ)
			if err != nil {
				return resp.Diagnostics, err
			}
			id, err := fromIdentityData(r.Identity, a.identityType(r.TypeName))
			if err != nil {
				return resp.Diagnostics, err
			}
			out.Imported = append(out.Imported, p.ImportedResource{TypeName: r.TypeName, State: state, Private: r.Private, Identity: id})
		}
		return resp.Diagnostics, nil
	})
	return out
}

func (a *adapter) UpgradeResourceState(request p.UpgradeResourceStateRequest) (out p.UpgradeResourceStateResponse) {
	out.UpgradedState = nullValue()
	out.Diagnostics = call("UpgradeResourceState", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		typ, err := a.typeOf(kindResource, request.TypeName)
		if err != nil {
			return nil, err
		}
		raw, err := rawJSON(request.RawState)
		if err != nil {
			return nil, err
		}
		resp, err := a.server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
			TypeName: request.TypeName, Version: request.Version, RawState: &tfprotov6.RawState{JSON: raw},
		})
		if err != nil || resp == nil {
			return nil, err
		}
		out.UpgradedState, err = fromDynamicValue(resp.UpgradedState, typ)
		return resp.Diagnostics, err
	})
	return out
}

func (a *adapter) UpgradeResourceIdentity(request p.UpgradeResourceIdentityRequest) (out p.UpgradeResourceIdentityResponse) {
	out.UpgradedIdentity = nullValue()
	out.Diagnostics = call("UpgradeResourceIdentity", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		idType := a.identityType(request.TypeName)
		if idType == nil {
			return nil, fmt.Errorf("the resource type %q has no identity schema", request.TypeName)
		}
		raw, err := rawJSON(request.RawIdentity)
		if err != nil {
			return nil, err
		}
		resp, err := a.server.UpgradeResourceIdentity(ctx, &tfprotov6.UpgradeResourceIdentityRequest{
			TypeName: request.TypeName, Version: request.Version, RawIdentity: &tfprotov6.RawState{JSON: raw},
		})
		if err != nil || resp == nil {
			return nil, err
		}
		if resp.UpgradedIdentity != nil {
			out.UpgradedIdentity, err = fromDynamicValue(resp.UpgradedIdentity.IdentityData, idType)
		}
		return resp.Diagnostics, err
	})
	return out
}

func (a *adapter) MoveResourceState(request p.MoveResourceStateRequest) (out p.MoveResourceStateResponse) {
	out.TargetState = nullValue()
	out.TargetIdentity = witTypes.None[t.Value]()
	out.Diagnostics = call("MoveResourceState", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		typ, err := a.typeOf(kindResource, request.TargetTypeName)
		if err != nil {
			return nil, err
		}
		raw, err := rawJSON(request.SourceState)
		if err != nil {
			return nil, err
		}
		req := &tfprotov6.MoveResourceStateRequest{
			SourcePrivate: request.SourcePrivate, SourceProviderAddress: request.SourceProviderAddress,
			SourceSchemaVersion: request.SourceSchemaVersion, SourceState: &tfprotov6.RawState{JSON: raw},
			SourceTypeName: request.SourceTypeName, TargetTypeName: request.TargetTypeName,
			SourceIdentitySchemaVersion: request.SourceIdentitySchemaVersion,
		}
		if request.SourceIdentity.IsSome() {
			rawID, err := rawJSON(request.SourceIdentity.Some())
			if err != nil {
				return nil, err
			}
			req.SourceIdentity = &tfprotov6.RawState{JSON: rawID}
		}
		resp, err := a.server.MoveResourceState(ctx, req)
		if err != nil || resp == nil {
			return nil, err
		}
		if out.TargetState, err = fromDynamicValue(resp.TargetState, typ); err != nil {
			return resp.Diagnostics, err
		}
		out.TargetPrivate = resp.TargetPrivate
		out.TargetIdentity, err = fromIdentityData(resp.TargetIdentity, a.identityType(request.TargetTypeName))
		return resp.Diagnostics, err
	})
	return out
}

func (a *adapter) GenerateResourceConfig(typeName string, state t.Value) (out p.GenerateResourceConfigResponse) {
	out.Config = nullValue()
	out.Diagnostics = call("GenerateResourceConfig", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		typ, err := a.typeOf(kindResource, typeName)
		if err != nil {
			return nil, err
		}
		dv, err := dynamicValue(state, typ)
		if err != nil {
			return nil, err
		}
		resp, err := a.server.GenerateResourceConfig(ctx, &tfprotov6.GenerateResourceConfigRequest{TypeName: typeName, State: dv})
		if err != nil || resp == nil {
			return nil, err
		}
		out.Config, err = fromDynamicValue(resp.Config, typ)
		return resp.Diagnostics, err
	})
	return out
}

func (a *adapter) ReadDataSource(request p.ReadDataSourceRequest) (out p.ReadDataSourceResponse) {
	out.State = nullValue()
	out.Diagnostics = call("ReadDataSource", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		typ, err := a.typeOf(kindDataSource, request.TypeName)
		if err != nil {
			return nil, err
		}
		metaType, _ := a.typeOf(kindProviderMeta, "")
		config, err := dynamicValue(request.Config, typ)
		if err != nil {
			return nil, err
		}
		meta, err := optionalDynamicValue(optionValue(request.ProviderMeta), metaType)
		if err != nil {
			return nil, err
		}
		resp, err := a.server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{
			TypeName: request.TypeName, Config: config, ProviderMeta: meta,
			ClientCapabilities: &tfprotov6.ReadDataSourceClientCapabilities{DeferralAllowed: request.Client.DeferralAllowed},
		})
		if err != nil || resp == nil {
			return nil, err
		}
		out.Deferred = deferred(resp.Deferred)
		out.State, err = fromDynamicValue(resp.State, typ)
		return resp.Diagnostics, err
	})
	return out
}

func (a *adapter) CallFunction(name string, arguments []t.Value) (result witTypes.Result[t.Value, p.FunctionError]) {
	fail := func(text string, argument *int64) witTypes.Result[t.Value, p.FunctionError] {
		arg := witTypes.None[uint32]()
		if argument != nil && *argument >= 0 {
			arg = witTypes.Some(uint32(*argument))
		}
		return witTypes.Err[t.Value](p.FunctionError{Text: text, Argument: arg})
	}
	defer func() {
		if r := recover(); r != nil {
			result = fail(fmt.Sprintf("the function %s panicked: %v", name, r), nil)
		}
	}()
	a.load()
	f, ok := a.schema.Functions[name]
	if !ok || f == nil {
		return fail("the provider has no function "+name, nil)
	}
	args := make([]*tfprotov6.DynamicValue, 0, len(arguments))
	for i, v := range arguments {
		var typ tftypes.Type = tftypes.DynamicPseudoType
		switch {
		case i < len(f.Parameters):
			typ = f.Parameters[i].Type
		case f.VariadicParameter != nil:
			typ = f.VariadicParameter.Type
		}
		dv, err := dynamicValue(v, typ)
		if err != nil {
			return fail(fmt.Sprintf("argument %d: %v", i, err), nil)
		}
		args = append(args, dv)
	}
	resp, err := a.server.CallFunction(context.Background(), &tfprotov6.CallFunctionRequest{Name: name, Arguments: args})
	if err != nil {
		return fail(err.Error(), nil)
	}
	if resp == nil {
		return fail("the function "+name+" returned nothing", nil)
	}
	if resp.Error != nil {
		return fail(resp.Error.Text, resp.Error.FunctionArgument)
	}
	ret := tftypes.Type(tftypes.DynamicPseudoType)
	if f.Return != nil && f.Return.Type != nil {
		ret = f.Return.Type
	}
	v, err := fromDynamicValue(resp.Result, ret)
	if err != nil {
		return fail("the function's result: "+err.Error(), nil)
	}
	return witTypes.Ok[t.Value, p.FunctionError](v)
}

func (a *adapter) Stop() witTypes.Option[string] {
	resp, err := a.server.StopProvider(context.Background(), &tfprotov6.StopProviderRequest{})
	switch {
	case err != nil:
		return witTypes.Some(err.Error())
	case resp != nil && resp.Error != "":
		return witTypes.Some(resp.Error)
	}
	return witTypes.None[string]()
}

func unsupported(what string) t.Diagnostic {
	return errorDiagnostic("Not supported", "This provider does not support "+what+" when served as a Terrarium component (tfprotov6adapter).")
}
