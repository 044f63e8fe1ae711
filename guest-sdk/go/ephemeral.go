package terrarium

import (
	"context"
	"time"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// EphemeralResourceImpl is the code of an ephemeral resource whose configuration and result
// are the schema struct S: a value Terraform uses during one run and never stores (a token,
// a lease, a connection). Open gets the configuration (computed attributes null) and returns
// it completed. Optional methods: Renew (EphemeralRenewer), Close (EphemeralCloser),
// Validate (Validator), Description.
type EphemeralResourceImpl[S any] interface {
	Open(ctx context.Context, config S) (Opened[S], error)
}

// Opened is what Open returns: the result Terraform uses, the private data Renew and Close
// get (Terraform keeps it only in memory), and when Terraform should call Renew (zero: never).
type Opened[S any] struct {
	Result  S
	Private []byte
	RenewAt time.Time
}

// Renewed is what Renew returns: the private data from now on (nil: none) and when to renew
// again (zero: never).
type Renewed struct {
	Private []byte
	RenewAt time.Time
}

// EphemeralRenewer is an ephemeral resource that Terraform renews, at the time Open (or the
// last Renew) asked for, while it still uses the value.
type EphemeralRenewer interface {
	Renew(ctx context.Context, private []byte) (Renewed, error)
}

// EphemeralCloser is an ephemeral resource that Terraform closes when it no longer needs the
// value (it ends a lease, a session).
type EphemeralCloser interface {
	Close(ctx context.Context, private []byte) error
}

// EphemeralResourceType is an ephemeral resource, made by NewEphemeralResource.
type EphemeralResourceType struct {
	def   *typeDef
	open  func(context.Context, *tree) (*tree, []byte, time.Time, error)
	renew func(context.Context, []byte) (Renewed, error)
	close func(context.Context, []byte) error
}

// NewEphemeralResource is the ephemeral resource name whose configuration and result are S,
// run by impl.
func NewEphemeralResource[S any](name string, impl EphemeralResourceImpl[S]) EphemeralResourceType {
	e := EphemeralResourceType{def: newTypeDef[S](name, impl)}
	e.open = func(ctx context.Context, config *tree) (*tree, []byte, time.Time, error) {
		c, err := decode[S](config)
		if err != nil {
			return nil, nil, time.Time{}, err
		}
		opened, err := impl.Open(ctx, c)
		if err != nil {
			return nil, nil, time.Time{}, err
		}
		result, err := encode(opened.Result)
		return result, opened.Private, opened.RenewAt, err
	}
	if r, ok := impl.(EphemeralRenewer); ok {
		e.renew = r.Renew
	}
	if c, ok := impl.(EphemeralCloser); ok {
		e.close = c.Close
	}
	return e
}

func witPrivate(b []byte) witTypes.Option[[]uint8] {
	if b == nil {
		return witTypes.None[[]uint8]()
	}
	return witTypes.Some(b)
}

func fromWITPrivate(o witTypes.Option[[]uint8]) []byte {
	if o.IsNone() {
		return nil
	}
	return o.Some()
}

func witTime(at time.Time) witTypes.Option[t.Timestamp] {
	if at.IsZero() {
		return witTypes.None[t.Timestamp]()
	}
	return witTypes.Some(t.Timestamp{Seconds: at.Unix(), Nanoseconds: uint32(at.Nanosecond())})
}

func (e *exports) ephemeral(name string) (*EphemeralResourceType, error) {
	if _, err := e.d.find("ephemeral resource", e.d.ephemeralDefs(), name); err != nil {
		return nil, err
	}
	return e.d.ephemeral[name], nil
}

func (e *exports) ValidateEphemeralResourceConfig(typeName string, config t.Value) []t.Diagnostic {
	return e.validate("ephemeral resource", e.d.ephemeralDefs(), typeName, config)
}

func (e *exports) OpenEphemeralResource(r p.OpenEphemeralResourceRequest) p.OpenEphemeralResourceResponse {
	var result *tree
	var private []byte
	var renewAt time.Time
	ds, deferred := guardDeferrable("open "+r.TypeName, "Open of "+r.TypeName, r.Client, func(ctx context.Context) error {
		er, err := e.ephemeral(r.TypeName)
		if err != nil {
			return err
		}
		result, private, renewAt, err = er.open(ctx, fromWIT(r.Config))
		return err
	})
	if ds.HasError() || deferred.IsSome() {
		return p.OpenEphemeralResourceResponse{Result: r.Config, Private: witTypes.None[[]uint8](),
			RenewAt: witTypes.None[t.Timestamp](), Deferred: deferred, Diagnostics: witDiagnostics(ds)}
	}
	return p.OpenEphemeralResourceResponse{Result: toWIT(result), Private: witPrivate(private), RenewAt: witTime(renewAt),
		Deferred: deferred, Diagnostics: witDiagnostics(ds)}
}

func (e *exports) RenewEphemeralResource(typeName string, private witTypes.Option[[]uint8]) p.RenewEphemeralResourceResponse {
	var renewed Renewed
	ds := guard("renew "+typeName, func(ctx context.Context) error {
		er, err := e.ephemeral(typeName)
		if err != nil || er.renew == nil {
			// Nothing to renew: Terraform asked because Open gave a time; keep what it has.
			renewed.Private = fromWITPrivate(private)
			return err
		}
		renewed, err = er.renew(ctx, fromWITPrivate(private))
		return err
	})
	return p.RenewEphemeralResourceResponse{Private: witPrivate(renewed.Private), RenewAt: witTime(renewed.RenewAt),
		Diagnostics: witDiagnostics(ds)}
}

func (e *exports) CloseEphemeralResource(typeName string, private witTypes.Option[[]uint8]) []t.Diagnostic {
	return witDiagnostics(guard("close "+typeName, func(ctx context.Context) error {
		er, err := e.ephemeral(typeName)
		if err != nil || er.close == nil {
			return err
		}
		return er.close(ctx, fromWITPrivate(private))
	}))
}

// ephemeralDefs is the ephemeral resources' schemas and validators, by name.
func (d *providerDef) ephemeralDefs() map[string]*typeDef {
	out := make(map[string]*typeDef, len(d.ephemeral))
	for n, er := range d.ephemeral {
		out[n] = er.def
	}
	return out
}
