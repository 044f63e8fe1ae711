package terrarium

import (
	"context"
	"fmt"
	"reflect"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
)

// ResourceMover is a resource type that a `moved` block can move another resource type's
// state into (`moved { from = old_type.x  to = new_type.x }`, Terraform 1.8+), possibly from
// another provider: MoveState builds this type's state from the source's.
type ResourceMover[S any] interface {
	MoveState(ctx context.Context, source MoveSource) (S, error)
}

// MoveSource is the state a `moved` block moves from.
type MoveSource struct {
	// ProviderAddress is the source's provider, e.g. registry.terraform.io/hashicorp/random.
	ProviderAddress string
	// TypeName is the source's resource type.
	TypeName string
	// SchemaVersion is the schema version the source state was written with.
	SchemaVersion int64
	// Private is the source's private state (another provider's bytes, perhaps).
	Private []byte
	state   *tree
}

// Decode reads the source state into v, a pointer to a struct with `tf` tags naming the
// source's attributes (those it leaves out are ignored; those the state lacks are null).
func (m MoveSource) Decode(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("MoveSource.Decode needs a non-nil pointer, not %T", v)
	}
	if err := decodeInto(m.state, rv.Elem(), nil); err != nil {
		return NewError("Cannot read the moved state",
			fmt.Sprintf("The state of %s (schema version %d) does not fit: %v", m.TypeName, m.SchemaVersion, err))
	}
	return nil
}

func (e *exports) MoveResourceState(r p.MoveResourceStateRequest) p.MoveResourceStateResponse {
	var state, identity *tree
	private := decodePrivate(nil)
	ds := guard("move "+r.SourceTypeName+" to "+r.TargetTypeName, func(ctx context.Context) error {
		td, err := e.d.find("resource", e.d.resources, r.TargetTypeName)
		if err != nil {
			return err
		}
		if td.move == nil {
			return NewError("Cannot move resource state",
				fmt.Sprintf("The provider cannot move %s state into %s.", r.SourceTypeName, r.TargetTypeName))
		}
		state, err = td.move(withPrivate(ctx, private), MoveSource{ProviderAddress: r.SourceProviderAddress,
			TypeName: r.SourceTypeName, SchemaVersion: r.SourceSchemaVersion, Private: r.SourcePrivate,
			state: fromWIT(r.SourceState)})
		if err != nil {
			return err
		}
		identity, err = td.knownIdentity(state, "MoveState")
		return err
	})
	if ds.HasError() {
		state = nullTree
	}
	return p.MoveResourceStateResponse{TargetState: toWIT(state), TargetPrivate: private.encode(),
		TargetIdentity: someIdentity(identity), Diagnostics: witDiagnostics(ds)}
}

// movesState tells whether a resource type takes moved state: the provider then declares
// the capability, without which Terraform never asks.
func (d *providerDef) movesState() bool {
	for _, td := range d.resources {
		if td.move != nil {
			return true
		}
	}
	return false
}
