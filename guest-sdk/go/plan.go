package terrarium

import (
	"context"

	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
)

// ResourcePlanner is a resource type with a plan hook: the host makes the plan from the
// tags (defaults filled in, computed values unknown where they will change) and Plan adjusts
// it and returns it; the host checks the answer as Terraform will. prior is nil on create.
// Only resource types that implement it are asked.
type ResourcePlanner[S any] interface {
	Plan(ctx context.Context, prior *S, planned, config S) (S, error)
}

// DestroyPlanner is a resource type that checks a planned destroy: an error refuses it
// (an object that must not be deleted while something holds it, say). Implementing it
// declares the provider's plan-destroy capability, so Terraform asks before every destroy.
type DestroyPlanner[S any] interface {
	PlanDestroy(ctx context.Context, prior S) error
}

// planHooks fills in the typeDef's plan and planDestroy from impl's optional methods.
func planHooks[S any](d *typeDef, impl any) {
	if planner, ok := impl.(ResourcePlanner[S]); ok {
		d.plan = func(ctx context.Context, prior, planned, config *tree) (*tree, error) {
			var pr *S
			if prior.kind != tNull {
				p, err := decode[S](prior)
				if err != nil {
					return nil, err
				}
				pr = &p
			}
			pl, err := decode[S](planned)
			if err != nil {
				return nil, err
			}
			c, err := decode[S](config)
			if err != nil {
				return nil, err
			}
			s, err := planner.Plan(ctx, pr, pl, c)
			if err != nil {
				return nil, err
			}
			return encode(s)
		}
	}
	if destroy, ok := impl.(DestroyPlanner[S]); ok {
		d.planDestroy = func(ctx context.Context, prior *tree) error {
			p, err := decode[S](prior)
			if err != nil {
				return err
			}
			return destroy.PlanDestroy(ctx, p)
		}
	}
}

// plansDestroys tells whether a resource type checks planned destroys: the provider then
// declares the plan-destroy capability.
func (d *providerDef) plansDestroys() bool {
	for _, td := range d.resources {
		if td.planDestroy != nil {
			return true
		}
	}
	return false
}

func (e *exports) PlanResource(r b.PlanResourceRequest) b.PlanResourceResponse {
	planned := fromWIT(r.PlannedState)
	private := decodePrivate(r.PriorPrivate)
	ds := guard("plan "+r.TypeName, func(ctx context.Context) error {
		td, err := e.d.find("resource", e.d.resources, r.TypeName)
		if err != nil {
			return err
		}
		ctx = withPrivate(ctx, private)
		switch {
		case planned.kind == tNull:
			if td.planDestroy != nil {
				return td.planDestroy(ctx, fromWIT(r.PriorState))
			}
		case td.plan != nil:
			adjusted, err := td.plan(ctx, fromWIT(r.PriorState), planned, fromWIT(r.Config))
			if err != nil {
				return err
			}
			planned = adjusted
		}
		return nil
	})
	if ds.HasError() {
		planned = fromWIT(r.PlannedState)
	}
	plannedIdentity := r.PriorIdentity
	if td, err := e.d.find("resource", e.d.resources, r.TypeName); err == nil && td.identity != nil && planned.kind != tNull {
		plannedIdentity = td.plannedIdentity(fromWIT(r.PriorState), planned, r.PriorIdentity, len(r.RequiresReplace) > 0)
	}
	return b.PlanResourceResponse{PlannedState: toWIT(planned), RequiresReplace: r.RequiresReplace,
		PlannedPrivate: private.encode(), Diagnostics: witDiagnostics(ds), PlannedIdentity: plannedIdentity}
}
