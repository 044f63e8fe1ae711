package tfprotov6adapter

import (
	"context"
	"fmt"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
	s "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_streams"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// List resources and actions: tfprotov6 streams their answers as Go iterators
// (ListResourceServerStream.Results, InvokeActionServerStream.Events), which the adapter
// forwards item by item to the WIT streams (list-results.push, action-progress.report). A
// server that implements neither (tfprotov6.ProviderServerWithListResource,
// ProviderServerWithActions) answers "Not supported".

func (a *adapter) listServer() (tfprotov6.ListResourceServer, error) {
	if l, ok := a.server.(tfprotov6.ListResourceServer); ok {
		return l, nil
	}
	return nil, fmt.Errorf("the provider serves no list resources (its server is no tfprotov6.ListResourceServer)")
}

func (a *adapter) actionServer() (tfprotov6.ActionServer, error) {
	if s, ok := a.server.(tfprotov6.ActionServer); ok {
		return s, nil
	}
	return nil, fmt.Errorf("the provider serves no actions (its server is no tfprotov6.ActionServer)")
}

func (a *adapter) ValidateListResourceConfig(typeName string, config t.Value) []t.Diagnostic {
	return call("ValidateListResourceConfig", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		server, err := a.listServer()
		if err != nil {
			return nil, err
		}
		typ, err := a.typeOf(kindList, typeName)
		if err != nil {
			return nil, err
		}
		dv, err := dynamicValue(config, typ)
		if err != nil {
			return nil, err
		}
		resp, err := server.ValidateListResourceConfig(ctx, &tfprotov6.ValidateListResourceConfigRequest{TypeName: typeName, Config: dv})
		if err != nil || resp == nil {
			return nil, err
		}
		return resp.Diagnostics, nil
	})
}

func (a *adapter) ListResource(request p.ListResourceRequest, results *s.ListResults) []t.Diagnostic {
	// Borrowed for this call: the canonical ABI wants the borrow dropped before the call
	// returns (else the host traps), and wit-bindgen's Go bindings leave that to the callee.
	defer results.Drop()
	return a.listResource(request, results.Push)
}

// listResource lists into push, which returns false once Terraform wants no more.
func (a *adapter) listResource(request p.ListResourceRequest, push func(s.ListItem) bool) []t.Diagnostic {
	return call("ListResource", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		server, err := a.listServer()
		if err != nil {
			return nil, err
		}
		typ, err := a.typeOf(kindList, request.TypeName)
		if err != nil {
			return nil, err
		}
		resourceType, err := a.typeOf(kindResource, request.TypeName)
		if err != nil {
			return nil, err
		}
		idType := a.identityType(request.TypeName)
		if idType == nil {
			return nil, fmt.Errorf("the resource type %q has no identity schema, which a list resource needs", request.TypeName)
		}
		dv, err := dynamicValue(request.Config, typ)
		if err != nil {
			return nil, err
		}
		stream, err := server.ListResource(ctx, &tfprotov6.ListResourceRequest{TypeName: request.TypeName, Config: dv,
			IncludeResource: request.IncludeResourceObject, Limit: request.Limit})
		if err != nil || stream == nil || stream.Results == nil {
			return nil, err
		}
		for result := range stream.Results {
			item := s.ListItem{Identity: nullValue(), DisplayName: result.DisplayName,
				ResourceObject: witTypes.None[t.Value](), Diagnostics: witDiagnostics(result.Diagnostics)}
			if id, err := fromIdentityData(result.Identity, idType); err != nil {
				item.Diagnostics = append(item.Diagnostics, errorDiagnostic("Invalid list item", "its identity: "+err.Error()))
			} else if id.IsSome() {
				item.Identity = id.Some()
			}
			if result.Resource != nil {
				if object, err := fromDynamicValue(result.Resource, resourceType); err != nil {
					item.Diagnostics = append(item.Diagnostics, errorDiagnostic("Invalid list item", "its resource object: "+err.Error()))
				} else {
					item.ResourceObject = witTypes.Some(object)
				}
			}
			if !push(item) {
				break
			}
		}
		return nil, nil
	})
}

func (a *adapter) ValidateActionConfig(typeName string, config t.Value) []t.Diagnostic {
	return call("ValidateActionConfig", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		server, err := a.actionServer()
		if err != nil {
			return nil, err
		}
		typ, err := a.typeOf(kindAction, typeName)
		if err != nil {
			return nil, err
		}
		dv, err := dynamicValue(config, typ)
		if err != nil {
			return nil, err
		}
		resp, err := server.ValidateActionConfig(ctx, &tfprotov6.ValidateActionConfigRequest{ActionType: typeName, Config: dv})
		if err != nil || resp == nil {
			return nil, err
		}
		return resp.Diagnostics, nil
	})
}

func (a *adapter) PlanAction(request p.ActionRequest) (out p.PlanActionResponse) {
	out.Diagnostics = call("PlanAction", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		server, err := a.actionServer()
		if err != nil {
			return nil, err
		}
		typ, err := a.typeOf(kindAction, request.TypeName)
		if err != nil {
			return nil, err
		}
		dv, err := dynamicValue(request.Config, typ)
		if err != nil {
			return nil, err
		}
		resp, err := server.PlanAction(ctx, &tfprotov6.PlanActionRequest{ActionType: request.TypeName, Config: dv,
			ClientCapabilities: &tfprotov6.PlanActionClientCapabilities{DeferralAllowed: request.Client.DeferralAllowed}})
		if err != nil || resp == nil {
			return nil, err
		}
		out.Deferred = deferred(resp.Deferred)
		return resp.Diagnostics, nil
	})
	return out
}

func (a *adapter) InvokeAction(request p.ActionRequest, progress *s.ActionProgress) []t.Diagnostic {
	defer progress.Drop() // borrowed for this call (see ListResource)
	return a.invokeAction(request, progress.Report)
}

// invokeAction runs the action, sending each progress message to report.
func (a *adapter) invokeAction(request p.ActionRequest, report func(string)) []t.Diagnostic {
	return call("InvokeAction", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		server, err := a.actionServer()
		if err != nil {
			return nil, err
		}
		typ, err := a.typeOf(kindAction, request.TypeName)
		if err != nil {
			return nil, err
		}
		dv, err := dynamicValue(request.Config, typ)
		if err != nil {
			return nil, err
		}
		stream, err := server.InvokeAction(ctx, &tfprotov6.InvokeActionRequest{ActionType: request.TypeName, Config: dv,
			ClientCapabilities: &tfprotov6.InvokeActionClientCapabilities{}})
		if err != nil || stream == nil || stream.Events == nil {
			return nil, err
		}
		var diags []*tfprotov6.Diagnostic
		for event := range stream.Events {
			switch e := event.Type.(type) {
			case tfprotov6.ProgressInvokeActionEventType:
				report(e.Message)
			case tfprotov6.CompletedInvokeActionEventType:
				diags = append(diags, e.Diagnostics...)
			}
		}
		return diags, nil
	})
}
