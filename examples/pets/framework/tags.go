package main

// Beyond examples/pets/SPEC.md, what the tfprotov6 adapter forwards as streams or on request:
// `pets_tag`, a name tag whose identity is its name, listed by the list resource `pets_tag`
// (`terraform query`) and importable by id or identity, with configuration generated for an
// import (GenerateResourceConfig); and the action `pets_feed`, whose progress terraform shows.
// Tags are imaginary: `tag-NAME` exists for every NAME, and listing up to N lists `tag-1` to
// `tag-N`. tests/tests/e2e/framework.rs runs them natively and as a component.

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/action"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/list"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ provider.ProviderWithListResources = (*petsProvider)(nil)
	_ provider.ProviderWithActions       = (*petsProvider)(nil)
	_ resource.ResourceWithIdentity      = tagResource{}
	_ resource.ResourceWithImportState   = tagResource{}
	_ list.ListResource                  = tagResource{}
)

func (p *petsProvider) ListResources(context.Context) []func() list.ListResource {
	return []func() list.ListResource{func() list.ListResource { return tagResource{} }}
}

func (p *petsProvider) Actions(context.Context) []func() action.Action {
	return []func() action.Action{func() action.Action { return feedAction{} }}
}

type tagModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
}

type tagIdentity struct {
	Name types.String `tfsdk:"name"`
}

func tagOf(name string) tagModel {
	return tagModel{ID: types.StringValue("tag-" + name), Name: types.StringValue(name)}
}

type tagResource struct{}

func (tagResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tag"
}

func (tagResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A name tag.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, Description: "`tag-NAME`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, Description: "The tag's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		},
	}
}

func (tagResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"name": identityschema.StringAttribute{RequiredForImport: true, Description: "The tag's name."},
		},
	}
}

func (tagResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m tagModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m = tagOf(m.Name.ValueString())
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, tagIdentity{Name: m.Name})...)
}

func (tagResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m tagModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Identity.Set(ctx, tagIdentity{Name: m.Name})...)
}

func (tagResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	// Every change replaces a tag.
	resp.Diagnostics.AddError("Unexpected update", "A tag is replaced, never updated.")
}

func (tagResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// ImportState takes `tag-NAME` as the id, or the identity's name.
func (tagResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name := ""
	if req.ID != "" {
		var ok bool
		if name, ok = strings.CutPrefix(req.ID, "tag-"); !ok || name == "" {
			resp.Diagnostics.AddError("Cannot import", fmt.Sprintf("%q is not a tag id (tag-NAME)", req.ID))
			return
		}
	} else {
		var id tagIdentity
		resp.Diagnostics.Append(req.Identity.Get(ctx, &id)...)
		if resp.Diagnostics.HasError() {
			return
		}
		name = id.Name.ValueString()
	}
	m := tagOf(name)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, tagIdentity{Name: m.Name})...)
}

func (tagResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = lschema.Schema{
		Attributes: map[string]lschema.Attribute{
			"up_to": lschema.Int64Attribute{Required: true, Description: "Lists `tag-1` to `tag-<up_to>`."},
		},
	}
}

// List lists the tags named 1 to up_to. (The framework reserves the name `count`.)
func (tagResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var config struct {
		UpTo types.Int64 `tfsdk:"up_to"`
	}
	if diags := req.Config.Get(ctx, &config); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = func(push func(list.ListResult) bool) {
		for n := int64(1); n <= config.UpTo.ValueInt64(); n++ {
			m := tagOf(fmt.Sprint(n))
			result := req.NewListResult(ctx)
			result.DisplayName = m.ID.ValueString()
			result.Diagnostics.Append(result.Identity.Set(ctx, tagIdentity{Name: m.Name})...)
			if req.IncludeResource {
				result.Diagnostics.Append(result.Resource.Set(ctx, m)...)
			}
			if !push(result) {
				return
			}
		}
	}
}

// feedAction is the action `pets_feed`: it feeds a pet `times` times, reporting each meal.
type feedAction struct{}

func (feedAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_feed"
}

func (feedAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = aschema.Schema{
		Description: "Feeds a pet.",
		Attributes: map[string]aschema.Attribute{
			"pet":   aschema.StringAttribute{Required: true, Description: "Who is fed."},
			"times": aschema.Int64Attribute{Required: true, Description: "How many meals."},
		},
	}
}

func (feedAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var config struct {
		Pet   types.String `tfsdk:"pet"`
		Times types.Int64  `tfsdk:"times"`
	}
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	n := config.Times.ValueInt64()
	for i := int64(1); i <= n; i++ {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("feeding %s (%d/%d)", config.Pet.ValueString(), i, n)})
	}
	if n < 1 {
		resp.Diagnostics.AddAttributeError(path.Root("times"), "No meals", "Feed a pet at least once.")
	}
}
