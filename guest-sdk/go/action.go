package terrarium

import (
	"context"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
	s "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_streams"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// ActionImpl is the code of an action (Terraform 1.14+ `action` blocks, run by `terraform
// apply -invoke=action.TYPE.NAME` or a resource's `action_trigger`) whose configuration is
// the schema struct S. Invoke runs it, reporting progress that Terraform shows as it goes.
// Optional methods: Plan (ActionPlanner), Validate (Validator), Description.
type ActionImpl[S any] interface {
	Invoke(ctx context.Context, config S, progress Progress) error
}

// ActionPlanner is an action that checks its configuration when Terraform plans the
// invocation (values may still be unknown then); an error stops the plan.
type ActionPlanner[S any] interface {
	Plan(ctx context.Context, config S) error
}

// Progress reports an action's progress: Terraform shows each message while it runs.
type Progress func(message string)

// Report sends one progress message.
func (r Progress) Report(message string) {
	if r != nil {
		r(message)
	}
}

// ActionType is an action, made by NewAction.
type ActionType struct {
	def    *typeDef
	plan   func(context.Context, *tree) error
	invoke func(context.Context, *tree, Progress) error
}

// NewAction is the action name whose configuration is S, run by impl.
func NewAction[S any](name string, impl ActionImpl[S]) ActionType {
	a := ActionType{def: newTypeDef[S](name, impl)}
	a.invoke = func(ctx context.Context, config *tree, progress Progress) error {
		c, err := decode[S](config)
		if err != nil {
			return err
		}
		return impl.Invoke(ctx, c, progress)
	}
	if planner, ok := impl.(ActionPlanner[S]); ok {
		a.plan = func(ctx context.Context, config *tree) error {
			c, err := decode[S](config)
			if err != nil {
				return err
			}
			return planner.Plan(ctx, c)
		}
	}
	return a
}

// actionDefs is the actions' schemas and validators, by name.
func (d *providerDef) actionDefs() map[string]*typeDef {
	out := make(map[string]*typeDef, len(d.actions))
	for n, a := range d.actions {
		out[n] = a.def
	}
	return out
}

func (e *exports) action(name string) (*ActionType, error) {
	if _, err := e.d.find("action", e.d.actionDefs(), name); err != nil {
		return nil, err
	}
	return e.d.actions[name], nil
}

func (e *exports) ValidateActionConfig(typeName string, config t.Value) []t.Diagnostic {
	return e.validate("action", e.d.actionDefs(), typeName, config)
}

func (e *exports) PlanAction(r p.ActionRequest) p.PlanActionResponse {
	ds, deferred := guardDeferrable("plan "+r.TypeName, "Plan of "+r.TypeName, r.Client, func(ctx context.Context) error {
		a, err := e.action(r.TypeName)
		if err != nil || a.plan == nil {
			return err
		}
		return a.plan(ctx, fromWIT(r.Config))
	})
	return p.PlanActionResponse{Deferred: deferred, Diagnostics: witDiagnostics(ds)}
}

func (e *exports) InvokeAction(r p.ActionRequest, progress *s.ActionProgress) []t.Diagnostic {
	// The progress stream is borrowed for this call: the canonical ABI wants the borrow
	// dropped before the call returns (else the host traps: "borrow handles still remain at
	// the end of the call"), and the generated bindings leave that to the callee.
	defer progress.Drop()
	return e.invokeAction(r, func(message string) { progress.Report(message) })
}

func (e *exports) invokeAction(r p.ActionRequest, progress Progress) []t.Diagnostic {
	return witDiagnostics(guard("invoke "+r.TypeName, func(ctx context.Context) error {
		a, err := e.action(r.TypeName)
		if err != nil {
			return err
		}
		return a.invoke(ctx, fromWIT(r.Config), progress)
	}))
}
