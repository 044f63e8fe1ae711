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
// validates: a computed default (`default_func:"NAME"`), a custom validator
// (`validate:"custom(NAME)"`) and a replacement decided by code (`requires_replace_if:"NAME"`,
// see DecidesReplacements). The struct that holds the attribute answers them by name, with
// its configuration as the receiver:
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

// DecidesReplacements is a schema struct with an attribute tagged requires_replace_if:"NAME"
// (the Rust SDK's requires_replace_if, Python's requires_replace=FUNCTION, TypeScript's
// requiresReplaceIf): when the attribute's value changes, RequiresReplaceIf tells whether the
// change replaces the resource (true) or is updated in place (false). prior and planned are
// of the attribute's Go type and differ; planned may be unknown (use String, Bool and Number
// fields where that can happen). The receiver is the struct's zero value: decide from the two
// values alone.
//
//	type Volume struct {
//		Size int64 `tf:"size" requires_replace_if:"shrinks"`
//	}
//
//	// A volume grows in place; shrinking it makes a new one.
//	func (Volume) RequiresReplaceIf(_ context.Context, name string, prior, planned any) bool {
//		return planned.(int64) < prior.(int64)
//	}
//
// A value the Go type cannot hold, or a panic, replaces the resource (the plan shows it) and
// says why in the provider's log.
type DecidesReplacements interface {
	RequiresReplaceIf(ctx context.Context, name string, prior, planned any) bool
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
	computesDefaultsGo    = reflect.TypeFor[ComputesDefaults]()
	validatesValuesGo     = reflect.TypeFor[ValidatesValues]()
	decidesReplacementsGo = reflect.TypeFor[DecidesReplacements]()
)

type hookKind int

const (
	hookDefault hookKind = iota
	hookValidate
	hookReplace
)

// checkHookMethod checks that the struct parent answers the hooks its tags name.
func checkHookMethod(parent reflect.Type, name string, f *field, kind hookKind) error {
	switch {
	case kind == hookDefault && !parent.Implements(computesDefaultsGo):
		return fmt.Errorf("%s: default_func:%q needs a method ComputeDefault(context.Context, string) (any, error) on %s", f.name, name, parent)
	case kind == hookValidate && !parent.Implements(validatesValuesGo):
		return fmt.Errorf("%s: custom(%s) needs a method ValidateValue(context.Context, string, any) error on %s", f.name, name, parent)
	case kind == hookReplace && !parent.Implements(decidesReplacementsGo):
		return fmt.Errorf("%s: requires_replace_if:%q needs a method RequiresReplaceIf(context.Context, string, any, any) bool on %s", f.name, name, parent)
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

// DecideReplacements answers requires_replace_if hooks (DecidesReplacements).
func (e *exports) DecideReplacements(requests []b.ReplaceRequest) []bool {
	out := make([]bool, len(requests))
	for i, r := range requests {
		replace := true
		ds := guard("decide a replacement", func(ctx context.Context) error {
			table := e.hooks()
			if int(r.Id) >= len(table.hooks) {
				return fmt.Errorf("no hook %d (the provider declares %d)", r.Id, len(table.hooks))
			}
			h := &table.hooks[r.Id]
			decides, ok := reflect.New(h.parent).Elem().Interface().(DecidesReplacements)
			if !ok {
				return fmt.Errorf("%s has no RequiresReplaceIf method", h.parent)
			}
			prior, planned := reflect.New(h.field.goType).Elem(), reflect.New(h.field.goType).Elem()
			at := Path{Attr(h.field.name)}
			if err := decodeInto(fromWIT(r.Prior), prior, at); err != nil {
				return err
			}
			if err := decodeInto(fromWIT(r.Planned), planned, at); err != nil {
				return err
			}
			replace = decides.RequiresReplaceIf(ctx, h.name, prior.Interface(), planned.Interface())
			return nil
		})
		// Decide-replacements answers yes or no only: what failed replaces the resource
		// (Terraform shows the replacement) and says why in the provider's log.
		for _, d := range ds {
			if d.Severity == Error {
				replace = true
				logError("a requires_replace_if decision failed", "summary", d.Summary, "detail", d.Detail)
			}
		}
		out[i] = replace
	}
	return out
}
