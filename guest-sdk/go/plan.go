package terrarium

import (
	"context"

	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// ResourcePlanner is a resource type with a plan hook: the host makes the plan from the
// tags (defaults filled in, computed values unknown where they will change) and Plan adjusts
// it and returns it; the host checks the answer as Terraform will. prior is nil on create.
// Only resource types that implement it are asked.
type ResourcePlanner[S any] interface {
	Plan(ctx context.Context, prior *S, planned, config S) (S, error)
}

// Replacements is, in a Plan hook, the list of attributes whose change replaces the resource
// (the Rust SDK's plan.requires_replace, TypeScript's requiresReplace): the host's plan
// fills it from the tags (requires_replace, requires_replace_if, at any depth) and Plan may
// add paths to it (Add) or drop them (Paths = nil: the change is updated in place). Terraform
// shows each path as "forces replacement".
type Replacements struct {
	Paths []Path
}

// Add marks the attribute at steps as replacing the resource, unless it already does.
func (r *Replacements) Add(steps ...Step) {
	path := append(Path(nil), steps...)
	for _, p := range r.Paths {
		if p.String() == path.String() {
			return
		}
	}
	r.Paths = append(r.Paths, path)
}

type replacementsKey struct{}

// RequiresReplace is the requires-replace list of the plan the Plan hook in ctx adjusts; its
// changes are kept. Outside a Plan hook it is an empty list whose changes are not kept.
//
//	func (r disks) Plan(ctx context.Context, prior *Disk, planned, config Disk) (Disk, error) {
//		if prior != nil && planned.Size < prior.Size {
//			terrarium.RequiresReplace(ctx).Add(terrarium.Attr("size")) // disks only grow in place
//		}
//		return planned, nil
//	}
func RequiresReplace(ctx context.Context) *Replacements {
	if r, ok := ctx.Value(replacementsKey{}).(*Replacements); ok {
		return r
	}
	return &Replacements{}
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
			out, err := encode(s)
			if err == nil {
				keepUnknownBlocks(d.model, planned, out)
			}
			return out, err
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
	call := "Plan of " + r.TypeName
	if planned.kind == tNull {
		call = "PlanDestroy of " + r.TypeName
	}
	replacements := &Replacements{}
	for _, path := range r.RequiresReplace {
		replacements.Paths = append(replacements.Paths, pathOf(path))
	}
	ds, deferred := guardDeferrable("plan "+r.TypeName, call, r.Client, func(ctx context.Context) error {
		td, err := e.d.find("resource", e.d.resources, r.TypeName)
		if err != nil {
			return err
		}
		ctx = context.WithValue(withPrivate(ctx, private), replacementsKey{}, replacements)
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
	requiresReplace := r.RequiresReplace
	switch {
	case ds.HasError() || deferred.IsSome():
		planned = fromWIT(r.PlannedState)
	case planned.kind != tNull:
		requiresReplace = [][]t.PathStep{}
		for _, path := range replacements.Paths {
			requiresReplace = append(requiresReplace, witPath(path))
		}
	}
	plannedIdentity := r.PriorIdentity
	if td, err := e.d.find("resource", e.d.resources, r.TypeName); err == nil && td.identity != nil && planned.kind != tNull {
		plannedIdentity = td.plannedIdentity(fromWIT(r.PriorState), planned, r.PriorIdentity, len(requiresReplace) > 0)
	}
	return b.PlanResourceResponse{PlannedState: toWIT(planned), RequiresReplace: requiresReplace,
		PlannedPrivate: private.encode(), Deferred: deferred, Diagnostics: witDiagnostics(ds), PlannedIdentity: plannedIdentity}
}
