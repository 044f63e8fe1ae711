// `terrarium/pets` on terraform-plugin-framework: pets kept as JSON files in a directory
// (examples/pets/SPEC.md), written as any framework provider is. The same source builds into a
// native provider binary (main.go) and into a Terrarium component (component.go, through
// terrarium.dev/sdk/tfprotov6adapter); tests/tests/e2e/framework.rs runs both through
// terraform and expects the same plans, states and diagnostics.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/numberdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const version = "0.1.0"

// New is the provider factory, as providerserver wants it.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &petsProvider{version: version} }
}

type petsProvider struct{ version string }

// store is what Configure hands the resource and the data source: the pets directory.
type store struct{ directory string }

var (
	_ provider.Provider              = (*petsProvider)(nil)
	_ provider.ProviderWithFunctions = (*petsProvider)(nil)
)

func (p *petsProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "pets"
	resp.Version = p.version
}

func (p *petsProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{
		Description: "Pets kept as JSON files in a directory.",
		Attributes: map[string]pschema.Attribute{
			"directory": pschema.StringAttribute{
				Required:    true,
				Description: "Where the pets are kept (grant it: --allow-dir DIR:rw).",
			},
		},
	}
}

func (p *petsProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var config struct {
		Directory types.String `tfsdk:"directory"`
	}
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() || config.Directory.IsUnknown() {
		return
	}
	dir := config.Directory.ValueString()
	if !filepath.IsAbs(dir) {
		resp.Diagnostics.AddAttributeError(path.Root("directory"), "Relative directory",
			dir+" is relative; use an absolute path.")
		return
	}
	s := &store{directory: dir}
	resp.ResourceData = s
	resp.DataSourceData = s
}

func (p *petsProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &petResource{} },
		func() resource.Resource { return tagResource{} }, // tags.go
	}
}

func (p *petsProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{func() datasource.DataSource { return &petDataSource{} }}
}

func (p *petsProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{func() function.Function { return greeting{} }}
}

// ---- the stored file ----

// petFile is what DIR/<id>.json holds: the pet's state without its id.
type petFile struct {
	Name     string        `json:"name"`
	Species  *string       `json:"species"`
	Legs     *json.Number  `json:"legs"`
	Tags     []string      `json:"tags"`
	Secret   *string       `json:"secret"`
	Owner    *ownerFile    `json:"owner"`
	Toys     []toyFile     `json:"toys"`
	Vaccines []vaccineFile `json:"vaccines"`
	Collar   []collarFile  `json:"collar"`
}

type ownerFile struct {
	Name   string  `json:"name"`
	Email  *string `json:"email"`
	Notify *bool   `json:"notify"`
}

type toyFile struct {
	Kind   string  `json:"kind"`
	Color  *string `json:"color"`
	Serial *string `json:"serial"`
}

type vaccineFile struct {
	Name  string  `json:"name"`
	Batch *string `json:"batch"`
}

type collarFile struct {
	Material *string `json:"material"`
	Size     string  `json:"size"`
}

func (s *store) file(id string) string { return filepath.Join(s.directory, id+".json") }

// load is the stored pet id, or nil when there is no such file.
func (s *store) load(id string) (*petModel, error) {
	data, err := os.ReadFile(s.file(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f petFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", s.file(id), err)
	}
	m, err := modelOf(id, f)
	return &m, err
}

func (s *store) save(m petModel) error {
	data, err := json.Marshal(fileOf(m))
	if err != nil {
		return err
	}
	return os.WriteFile(s.file(m.ID.ValueString()), data, 0o644)
}

// nextID takes the next id from DIR/next-id (1 when the file does not exist).
func (s *store) nextID() (string, error) {
	counter := filepath.Join(s.directory, "next-id")
	n := 1
	data, err := os.ReadFile(counter)
	switch {
	case err == nil:
		if n, err = strconv.Atoi(strings.TrimSpace(string(data))); err != nil {
			return "", fmt.Errorf("%s: %w", counter, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if err := os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf("pet-%d", n), nil
}

// ---- the resource ----

type petModel struct {
	ID       types.String   `tfsdk:"id"`
	Name     types.String   `tfsdk:"name"`
	Species  types.String   `tfsdk:"species"`
	Legs     types.Number   `tfsdk:"legs"`
	Tags     []types.String `tfsdk:"tags"`
	Secret   types.String   `tfsdk:"secret"`
	Owner    *ownerModel    `tfsdk:"owner"`
	Toys     []toyModel     `tfsdk:"toys"`
	Vaccines []vaccineModel `tfsdk:"vaccines"`
	Collar   []collarModel  `tfsdk:"collar"`
}

type ownerModel struct {
	Name   types.String `tfsdk:"name"`
	Email  types.String `tfsdk:"email"`
	Notify types.Bool   `tfsdk:"notify"`
}

type toyModel struct {
	Kind   types.String `tfsdk:"kind"`
	Color  types.String `tfsdk:"color"`
	Serial types.String `tfsdk:"serial"`
}

type vaccineModel struct {
	Name  types.String `tfsdk:"name"`
	Batch types.String `tfsdk:"batch"`
}

type collarModel struct {
	Material types.String `tfsdk:"material"`
	Size     types.String `tfsdk:"size"`
}

func fileOf(m petModel) petFile {
	f := petFile{
		Name:    m.Name.ValueString(),
		Species: m.Species.ValueStringPointer(),
		Secret:  m.Secret.ValueStringPointer(),
	}
	if !m.Legs.IsNull() && !m.Legs.IsUnknown() {
		n := json.Number(numberText(m.Legs.ValueBigFloat()))
		f.Legs = &n
	}
	if m.Tags != nil {
		f.Tags = []string{}
		for _, t := range m.Tags {
			f.Tags = append(f.Tags, t.ValueString())
		}
	}
	if o := m.Owner; o != nil {
		f.Owner = &ownerFile{Name: o.Name.ValueString(), Email: o.Email.ValueStringPointer(), Notify: o.Notify.ValueBoolPointer()}
	}
	if m.Toys != nil {
		f.Toys = []toyFile{}
		for _, t := range m.Toys {
			f.Toys = append(f.Toys, toyFile{Kind: t.Kind.ValueString(), Color: t.Color.ValueStringPointer(), Serial: t.Serial.ValueStringPointer()})
		}
	}
	if m.Vaccines != nil {
		f.Vaccines = []vaccineFile{}
		for _, v := range m.Vaccines {
			f.Vaccines = append(f.Vaccines, vaccineFile{Name: v.Name.ValueString(), Batch: v.Batch.ValueStringPointer()})
		}
	}
	if m.Collar != nil {
		f.Collar = []collarFile{}
		for _, c := range m.Collar {
			f.Collar = append(f.Collar, collarFile{Material: c.Material.ValueStringPointer(), Size: c.Size.ValueString()})
		}
	}
	return f
}

func modelOf(id string, f petFile) (petModel, error) {
	m := petModel{
		ID:      types.StringValue(id),
		Name:    types.StringValue(f.Name),
		Species: types.StringPointerValue(f.Species),
		Legs:    types.NumberNull(),
		Secret:  types.StringPointerValue(f.Secret),
	}
	if f.Legs != nil {
		legs, _, err := big.ParseFloat(f.Legs.String(), 10, 512, big.ToNearestEven)
		if err != nil {
			return m, fmt.Errorf("legs: %w", err)
		}
		m.Legs = types.NumberValue(legs)
	}
	if f.Tags != nil {
		m.Tags = []types.String{}
		for _, t := range f.Tags {
			m.Tags = append(m.Tags, types.StringValue(t))
		}
	}
	if o := f.Owner; o != nil {
		m.Owner = &ownerModel{Name: types.StringValue(o.Name), Email: types.StringPointerValue(o.Email), Notify: types.BoolPointerValue(o.Notify)}
	}
	if f.Toys != nil {
		m.Toys = []toyModel{}
		for _, t := range f.Toys {
			m.Toys = append(m.Toys, toyModel{Kind: types.StringValue(t.Kind), Color: types.StringPointerValue(t.Color), Serial: types.StringPointerValue(t.Serial)})
		}
	}
	if f.Vaccines != nil {
		m.Vaccines = []vaccineModel{}
		for _, v := range f.Vaccines {
			m.Vaccines = append(m.Vaccines, vaccineModel{Name: types.StringValue(v.Name), Batch: types.StringPointerValue(v.Batch)})
		}
	}
	if f.Collar != nil {
		m.Collar = []collarModel{}
		for _, c := range f.Collar {
			m.Collar = append(m.Collar, collarModel{Material: types.StringPointerValue(c.Material), Size: types.StringValue(c.Size)})
		}
	}
	return m, nil
}

func numberText(f *big.Float) string {
	if f.IsInt() {
		i, _ := f.Int(nil)
		return i.String()
	}
	return f.Text('g', -1)
}

// withSerials fills in the computed values of new elements: toy serials
// `<pet id>-toy-<index>`, vaccine batches `<pet id>-<name>` (elements the pet had keep
// theirs: the plan carries them).
func withSerials(m petModel) petModel {
	id := m.ID.ValueString()
	for i := range m.Toys {
		if m.Toys[i].Serial.IsUnknown() || m.Toys[i].Serial.IsNull() {
			m.Toys[i].Serial = types.StringValue(fmt.Sprintf("%s-toy-%d", id, i))
		}
	}
	for i := range m.Vaccines {
		if m.Vaccines[i].Batch.IsUnknown() || m.Vaccines[i].Batch.IsNull() {
			m.Vaccines[i].Batch = types.StringValue(id + "-" + m.Vaccines[i].Name.ValueString())
		}
	}
	return m
}

type petResource struct{ store *store }

var (
	_ resource.ResourceWithConfigure   = (*petResource)(nil)
	_ resource.ResourceWithImportState = (*petResource)(nil)
)

func (r *petResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pet"
}

func (r *petResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store); ok {
		r.store = s
	}
}

var vaccineType = types.ObjectType{AttrTypes: map[string]attr.Type{"name": types.StringType, "batch": types.StringType}}

func (r *petResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A pet, kept as a JSON file in the provider directory.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "pet-N, assigned at create.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:      true,
				Validators:    []validator.String{stringvalidator.LengthBetween(1, 32)},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"species": schema.StringAttribute{
				Optional:   true,
				Computed:   true,
				Default:    stringdefault.StaticString("dog"),
				Validators: []validator.String{stringvalidator.OneOf("dog", "cat", "bird")},
			},
			"legs": schema.NumberAttribute{
				Optional:   true,
				Computed:   true,
				Default:    numberdefault.StaticBigFloat(big.NewFloat(4)),
				Validators: []validator.Number{numberBetween{min: 0, max: 8}},
			},
			"tags":   schema.SetAttribute{Optional: true, ElementType: types.StringType},
			"secret": schema.StringAttribute{Optional: true, Sensitive: true},
			"owner": schema.SingleNestedAttribute{
				Optional: true,
				Attributes: map[string]schema.Attribute{
					"name":  schema.StringAttribute{Required: true},
					"email": schema.StringAttribute{Optional: true},
					"notify": schema.BoolAttribute{
						Optional: true,
						Computed: true,
						Default:  booldefault.StaticBool(false),
					},
				},
			},
			"toys": schema.ListNestedAttribute{
				Optional: true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"kind": schema.StringAttribute{Required: true},
					"color": schema.StringAttribute{
						Optional: true,
						Computed: true,
						Default:  stringdefault.StaticString("red"),
					},
					"serial": schema.StringAttribute{
						Computed:      true,
						PlanModifiers: []planmodifier.String{serialFromState{}},
					},
				}},
			},
			"vaccines": schema.SetNestedAttribute{
				Optional:      true,
				PlanModifiers: []planmodifier.Set{batchesFromState{}},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":  schema.StringAttribute{Required: true},
					"batch": schema.StringAttribute{Computed: true},
				}},
			},
		},
		Blocks: map[string]schema.Block{
			"collar": schema.ListNestedBlock{
				Validators: []validator.List{listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"material": schema.StringAttribute{
						Optional: true,
						Computed: true,
						Default:  stringdefault.StaticString("leather"),
					},
					"size": schema.StringAttribute{
						Required:      true,
						PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
					},
				}},
			},
		},
	}
}

// numberBetween requires a number from min to max (terraform-plugin-framework-validators has
// ranges for int64 and float64 attributes, not for number ones).
type numberBetween struct{ min, max int64 }

func (v numberBetween) Description(context.Context) string {
	return fmt.Sprintf("value must be between %d and %d", v.min, v.max)
}

func (v numberBetween) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v numberBetween) ValidateNumber(ctx context.Context, req validator.NumberRequest, resp *validator.NumberResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	n := req.ConfigValue.ValueBigFloat()
	if n.Cmp(big.NewFloat(float64(v.min))) < 0 || n.Cmp(big.NewFloat(float64(v.max))) > 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value",
			fmt.Sprintf("Attribute %s %s, got: %s", req.Path, v.Description(ctx), numberText(n)))
	}
}

// serialFromState keeps the serial of a toy the pet already had (toys are matched by index)
// and leaves a new toy's unknown. stringplanmodifier.UseStateForUnknown cannot be used here:
// it only asks whether the resource has a prior state, so a toy added at the end of the list
// would be planned with its (missing, so null) prior serial, and the apply that sets one is
// then inconsistent with the plan.
type serialFromState struct{}

func (serialFromState) Description(context.Context) string {
	return "A toy the pet already had keeps its serial."
}

func (s serialFromState) MarkdownDescription(ctx context.Context) string { return s.Description(ctx) }

func (serialFromState) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || !req.PlanValue.IsUnknown() || req.ConfigValue.IsUnknown() {
		return
	}
	resp.PlanValue = req.StateValue
}

// batchesFromState keeps the batch of every vaccine the pet already had (set elements are
// matched by name): the framework's UseStateForUnknown cannot follow a set element whose
// planned value differs from its prior one.
type batchesFromState struct{}

func (batchesFromState) Description(context.Context) string {
	return "Vaccines the pet already had keep their batch."
}

func (b batchesFromState) MarkdownDescription(ctx context.Context) string { return b.Description(ctx) }

func (batchesFromState) PlanModifySet(ctx context.Context, req planmodifier.SetRequest, resp *planmodifier.SetResponse) {
	if req.StateValue.IsNull() || req.PlanValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	var prior, planned []vaccineModel
	resp.Diagnostics.Append(req.StateValue.ElementsAs(ctx, &prior, false)...)
	resp.Diagnostics.Append(req.PlanValue.ElementsAs(ctx, &planned, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for i := range planned {
		if !planned[i].Batch.IsUnknown() {
			continue
		}
		for _, p := range prior {
			if p.Name.Equal(planned[i].Name) && !p.Batch.IsNull() {
				planned[i].Batch = p.Batch
			}
		}
	}
	value, diags := types.SetValueFrom(ctx, vaccineType, planned)
	resp.Diagnostics.Append(diags...)
	resp.PlanValue = value
}

func (r *petResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var pet petModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &pet)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id, err := r.store.nextID()
	if err != nil {
		resp.Diagnostics.AddError("Cannot create the pet", err.Error())
		return
	}
	pet.ID = types.StringValue(id)
	pet = withSerials(pet)
	if err := r.store.save(pet); err != nil {
		resp.Diagnostics.AddError("Cannot create the pet", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, pet)...)
}

func (r *petResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var pet petModel
	resp.Diagnostics.Append(req.State.Get(ctx, &pet)...)
	if resp.Diagnostics.HasError() {
		return
	}
	found, err := r.store.load(pet.ID.ValueString())
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Cannot read the pet", err.Error())
	case found == nil:
		resp.State.RemoveResource(ctx)
	default:
		resp.Diagnostics.Append(resp.State.Set(ctx, found)...)
	}
}

func (r *petResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var pet petModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &pet)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pet = withSerials(pet)
	if err := r.store.save(pet); err != nil {
		resp.Diagnostics.AddError("Cannot update the pet", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, pet)...)
}

func (r *petResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var pet petModel
	resp.Diagnostics.Append(req.State.Get(ctx, &pet)...)
	if resp.Diagnostics.HasError() {
		return
	}
	err := os.Remove(r.store.file(pet.ID.ValueString()))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		resp.Diagnostics.AddError("Cannot delete the pet", err.Error())
	}
}

func (r *petResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	found, err := r.store.load(req.ID)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Cannot import", err.Error())
	case found == nil:
		resp.Diagnostics.AddError("Cannot import", "no pet with id "+req.ID)
	default:
		resp.Diagnostics.Append(resp.State.Set(ctx, found)...)
	}
}

// ---- the data source ----

type petDataSource struct{ store *store }

var _ datasource.DataSourceWithConfigure = (*petDataSource)(nil)

type petInfo struct {
	ID      types.String   `tfsdk:"id"`
	Name    types.String   `tfsdk:"name"`
	Species types.String   `tfsdk:"species"`
	Legs    types.Number   `tfsdk:"legs"`
	Tags    []types.String `tfsdk:"tags"`
}

func (d *petDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pet"
}

func (d *petDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store); ok {
		d.store = s
	}
}

func (d *petDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{
		Description: "A pet by id.",
		Attributes: map[string]dschema.Attribute{
			"id":      dschema.StringAttribute{Required: true},
			"name":    dschema.StringAttribute{Computed: true},
			"species": dschema.StringAttribute{Computed: true},
			"legs":    dschema.NumberAttribute{Computed: true},
			"tags":    dschema.SetAttribute{Computed: true, ElementType: types.StringType},
		},
	}
}

func (d *petDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var info petInfo
	resp.Diagnostics.Append(req.Config.Get(ctx, &info)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := info.ID.ValueString()
	found, err := d.store.load(id)
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Cannot read the pet", err.Error())
	case found == nil:
		resp.Diagnostics.AddAttributeError(path.Root("id"), "No such pet", "no pet with id "+id)
	default:
		info = petInfo{ID: info.ID, Name: found.Name, Species: found.Species, Legs: found.Legs, Tags: found.Tags}
		resp.Diagnostics.Append(resp.State.Set(ctx, info)...)
	}
}

// ---- the function ----

type greeting struct{}

func (greeting) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "greeting"
}

func (greeting) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary:    "Greets a pet.",
		Parameters: []function.Parameter{function.StringParameter{Name: "name"}},
		Return:     function.StringReturn{},
	}
}

func (greeting) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var name string
	resp.Error = req.Arguments.Get(ctx, &name)
	if resp.Error != nil {
		return
	}
	if name == "" {
		resp.Error = function.NewArgumentFuncError(0, "name must not be empty")
		return
	}
	resp.Error = resp.Result.Set(ctx, "Hello, "+name+"!")
}
