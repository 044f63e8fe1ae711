package terrarium

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// Hooks are the code a schema's tags name, which the host calls back while it plans and
// validates: a computed default (`default_func:"NAME"`) and a custom validator
// (`validate:"custom(NAME)"`). The struct that holds the attribute answers them by name,
// with its configuration as the receiver:
//
//	type Server struct {
//		Name     string           `tf:"name" validate:"custom(name)"`
//		Hostname terrarium.String `tf:"hostname" default_func:"hostname"`
//	}
//
//	// ComputeDefault is the value planned for an attribute tagged default_func:"NAME" that
//	// the configuration leaves unset, of the attribute's Go type.
//	func (s Server) ComputeDefault(ctx context.Context, name string) (any, error) {
//		return terrarium.StringValue(s.Name + ".internal"), nil
//	}
//
//	// ValidateValue checks a configured value (known, not null, of the attribute's Go type)
//	// tagged validate:"custom(NAME)"; the error is shown at the attribute.
//	func (Server) ValidateValue(ctx context.Context, name string, value any) error { ... }
//
// (Interfaces, not methods found by name: looking methods up by name would make Go's linker
// keep every exported method of the provider, a quarter more component.) The host may ask
// any instance of the component: hooks are numbered in schema order, the same in every
// instance.
type ComputesDefaults interface {
	ComputeDefault(ctx context.Context, name string) (any, error)
}

// ValidatesValues is a schema struct with custom validators: see ComputesDefaults.
type ValidatesValues interface {
	ValidateValue(ctx context.Context, name string, value any) error
}

type hook struct {
	parent reflect.Type // the struct holding the attribute
	name   string       // what the tag calls it
	field  *field
}

// hookTable numbers the hooks of every schema, in the order GetBehaviour declares them.
type hookTable struct {
	hooks []hook
}

func (h *hookTable) add(parent reflect.Type, name string, f *field) uint32 {
	h.hooks = append(h.hooks, hook{parent: parent, name: name, field: f})
	return uint32(len(h.hooks) - 1)
}

var (
	computesDefaultsGo = reflect.TypeFor[ComputesDefaults]()
	validatesValuesGo  = reflect.TypeFor[ValidatesValues]()
)

// checkHookMethod checks that the struct parent answers the hooks its tags name.
func checkHookMethod(parent reflect.Type, name string, f *field, isDefault bool) error {
	if isDefault && !parent.Implements(computesDefaultsGo) {
		return fmt.Errorf("%s: default_func:%q needs a method ComputeDefault(context.Context, string) (any, error) on %s", f.name, name, parent)
	}
	if !isDefault && !parent.Implements(validatesValuesGo) {
		return fmt.Errorf("%s: custom(%s) needs a method ValidateValue(context.Context, string, any) error on %s", f.name, name, parent)
	}
	return nil
}

// hooks is the provider's hook table, built once (deterministically) from its schemas.
func (e *exports) hooks() *hookTable {
	e.d.hooksOnce.Do(func() {
		e.d.hookTable = &hookTable{}
		e.behaviour(e.d.hookTable)
	})
	return e.d.hookTable
}

// hookReceiver is hook id and its struct, decoded from the parent configuration.
func (e *exports) hookReceiver(id uint32, parent *tree) (*hook, any, error) {
	table := e.hooks()
	if int(id) >= len(table.hooks) {
		return nil, nil, fmt.Errorf("no hook %d (the provider declares %d)", id, len(table.hooks))
	}
	h := &table.hooks[id]
	receiver := reflect.New(h.parent).Elem()
	if err := decodeInto(parent, receiver, nil); err != nil {
		return h, nil, err
	}
	return h, receiver.Interface(), nil
}

func (e *exports) ComputeDefaults(requests []b.DefaultRequest) []t.Value {
	out := make([]t.Value, len(requests))
	for i, r := range requests {
		value := nullTree
		ds := guard("compute a default", func(ctx context.Context) error {
			h, receiver, err := e.hookReceiver(r.Id, fromWIT(r.ParentConfig))
			if err != nil {
				return err
			}
			computes, ok := receiver.(ComputesDefaults)
			if !ok {
				return fmt.Errorf("%s has no ComputeDefault method", h.parent)
			}
			result, err := computes.ComputeDefault(ctx, h.name)
			if err != nil {
				return err
			}
			rv := reflect.ValueOf(result)
			if !rv.IsValid() || rv.Type() != h.field.goType {
				return fmt.Errorf("ComputeDefault(%q) returned a %T; the attribute %s is a %s", h.name, result, h.field.name, h.field.goType)
			}
			v, err := encodeValue(rv, h.field.typ, Path{Attr(h.field.name)})
			if err != nil {
				return err
			}
			value = v
			return nil
		})
		// Compute-defaults answers values only: a failed default is null, and says why in
		// the provider's log (the host then reports the attribute as unset).
		for _, d := range ds {
			logError("a computed default failed", "summary", d.Summary, "detail", d.Detail)
		}
		out[i] = toWIT(value)
	}
	return out
}

func (e *exports) ValidateValues(requests []b.ValidateRequest) []t.Diagnostic {
	var all Diagnostics
	for _, r := range requests {
		at := pathOf(r.Path)
		ds := guard("validate "+at.String(), func(ctx context.Context) error {
			h, receiver, err := e.hookReceiver(r.Id, fromWIT(r.Parent))
			if err != nil {
				return err
			}
			value := reflect.New(h.field.goType).Elem()
			if err := decodeInto(fromWIT(r.Value), value, at); err != nil {
				return err
			}
			validates, ok := receiver.(ValidatesValues)
			if !ok {
				return fmt.Errorf("%s has no ValidateValue method", h.parent)
			}
			return validates.ValidateValue(ctx, h.name, value.Interface())
		})
		for _, d := range ds {
			if len(d.Path) == 0 {
				d.Path = at
			}
		}
		all = append(all, ds...)
	}
	return witDiagnostics(all)
}

// hookState is what providerDef keeps of its hooks.
type hookState struct {
	hooksOnce sync.Once
	hookTable *hookTable
}
