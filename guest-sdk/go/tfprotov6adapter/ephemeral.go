package tfprotov6adapter

import (
	"context"
	"time"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

func optionBytes(b []byte) witTypes.Option[[]uint8] {
	if b == nil {
		return witTypes.None[[]uint8]()
	}
	return witTypes.Some(b)
}

func renewAt(at time.Time) witTypes.Option[t.Timestamp] {
	if at.IsZero() {
		return witTypes.None[t.Timestamp]()
	}
	return witTypes.Some(t.Timestamp{Seconds: at.Unix(), Nanoseconds: uint32(at.Nanosecond())})
}

func (a *adapter) ValidateEphemeralResourceConfig(typeName string, config t.Value) []t.Diagnostic {
	return call("ValidateEphemeralResourceConfig", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		typ, err := a.typeOf(kindEphemeral, typeName)
		if err != nil {
			return nil, err
		}
		dv, err := dynamicValue(config, typ)
		if err != nil {
			return nil, err
		}
		resp, err := a.server.ValidateEphemeralResourceConfig(ctx, &tfprotov6.ValidateEphemeralResourceConfigRequest{TypeName: typeName, Config: dv})
		if err != nil || resp == nil {
			return nil, err
		}
		return resp.Diagnostics, nil
	})
}

func (a *adapter) OpenEphemeralResource(request p.OpenEphemeralResourceRequest) (out p.OpenEphemeralResourceResponse) {
	out.Result = nullValue()
	out.Diagnostics = call("OpenEphemeralResource", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		typ, err := a.typeOf(kindEphemeral, request.TypeName)
		if err != nil {
			return nil, err
		}
		dv, err := dynamicValue(request.Config, typ)
		if err != nil {
			return nil, err
		}
		resp, err := a.server.OpenEphemeralResource(ctx, &tfprotov6.OpenEphemeralResourceRequest{
			TypeName: request.TypeName, Config: dv,
			ClientCapabilities: &tfprotov6.OpenEphemeralResourceClientCapabilities{DeferralAllowed: request.Client.DeferralAllowed},
		})
		if err != nil || resp == nil {
			return nil, err
		}
		out.Private = optionBytes(resp.Private)
		out.RenewAt = renewAt(resp.RenewAt)
		out.Deferred = deferred(resp.Deferred)
		out.Result, err = fromDynamicValue(resp.Result, typ)
		return resp.Diagnostics, err
	})
	return out
}

func (a *adapter) RenewEphemeralResource(typeName string, private witTypes.Option[[]uint8]) (out p.RenewEphemeralResourceResponse) {
	out.Private = private
	out.Diagnostics = call("RenewEphemeralResource", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		resp, err := a.server.RenewEphemeralResource(ctx, &tfprotov6.RenewEphemeralResourceRequest{TypeName: typeName, Private: private.SomeOr(nil)})
		if err != nil || resp == nil {
			return nil, err
		}
		out.Private = optionBytes(resp.Private)
		out.RenewAt = renewAt(resp.RenewAt)
		return resp.Diagnostics, nil
	})
	return out
}

func (a *adapter) CloseEphemeralResource(typeName string, private witTypes.Option[[]uint8]) []t.Diagnostic {
	return call("CloseEphemeralResource", func(ctx context.Context) ([]*tfprotov6.Diagnostic, error) {
		resp, err := a.server.CloseEphemeralResource(ctx, &tfprotov6.CloseEphemeralResourceRequest{TypeName: typeName, Private: private.SomeOr(nil)})
		if err != nil || resp == nil {
			return nil, err
		}
		return resp.Diagnostics, nil
	})
}
