package tfprotov6adapter

import (
	"sort"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

func description(text string, kind tfprotov6.StringKind) t.Description {
	if kind == tfprotov6.StringKindMarkdown {
		return t.Description{Text: text, Kind: t.TextKind_Markdown}
	}
	return t.Description{Text: text, Kind: t.TextKind_Plain}
}

func typeJSON(typ tftypes.Type) (string, error) {
	data, err := typ.MarshalJSON()
	return string(data), err
}

// witSchema flattens a tfprotov6 schema into WIT's list of blocks (the root first).
func witSchema(s *tfprotov6.Schema) (t.Schema, error) {
	out := t.Schema{Blocks: []t.Block{}}
	if s == nil {
		out.Blocks = append(out.Blocks, t.Block{Attributes: []t.Attribute{}, BlockTypes: []t.NestedBlock{}})
		return out, nil
	}
	out.Version = s.Version
	b := &blocks{}
	if _, err := b.block(s.Block); err != nil {
		return t.Schema{}, err
	}
	out.Blocks = b.list
	return out, nil
}

type blocks struct{ list []t.Block }

func (b *blocks) block(sb *tfprotov6.SchemaBlock) (uint32, error) {
	at := uint32(len(b.list))
	b.list = append(b.list, t.Block{})
	if sb == nil {
		b.list[at] = t.Block{Attributes: []t.Attribute{}, BlockTypes: []t.NestedBlock{}}
		return at, nil
	}
	attrs, err := b.attributes(sb.Attributes)
	if err != nil {
		return 0, err
	}
	nested := []t.NestedBlock{}
	for _, nb := range sb.BlockTypes {
		idx, err := b.block(nb.Block)
		if err != nil {
			return 0, err
		}
		nested = append(nested, t.NestedBlock{
			TypeName: nb.TypeName,
			Block:    idx,
			Nesting:  blockNesting(nb.Nesting),
			MinItems: uint64(max(nb.MinItems, 0)),
			MaxItems: uint64(max(nb.MaxItems, 0)),
		})
	}
	b.list[at] = t.Block{
		Attributes:         attrs,
		BlockTypes:         nested,
		Description:        description(sb.Description, sb.DescriptionKind),
		Deprecated:         sb.Deprecated,
		DeprecationMessage: sb.DeprecationMessage,
	}
	return at, nil
}

func (b *blocks) attributes(in []*tfprotov6.SchemaAttribute) ([]t.Attribute, error) {
	out := []t.Attribute{}
	for _, a := range in {
		wa := t.Attribute{
			Name:               a.Name,
			Type:               witTypes.None[string](),
			Nested:             witTypes.None[t.NestedAttributes](),
			Description:        description(a.Description, a.DescriptionKind),
			Required:           a.Required,
			Optional:           a.Optional,
			Computed:           a.Computed,
			Sensitive:          a.Sensitive,
			WriteOnly:          a.WriteOnly,
			Deprecated:         a.Deprecated,
			DeprecationMessage: a.DeprecationMessage,
		}
		if a.NestedType != nil {
			at := uint32(len(b.list))
			b.list = append(b.list, t.Block{})
			attrs, err := b.attributes(a.NestedType.Attributes)
			if err != nil {
				return nil, err
			}
			b.list[at] = t.Block{Attributes: attrs, BlockTypes: []t.NestedBlock{}}
			wa.Nested = witTypes.Some(t.NestedAttributes{Nesting: objectNesting(a.NestedType.Nesting), Block: at})
		} else {
			tj, err := typeJSON(a.Type)
			if err != nil {
				return nil, err
			}
			wa.Type = witTypes.Some(tj)
		}
		out = append(out, wa)
	}
	return out, nil
}

func blockNesting(n tfprotov6.SchemaNestedBlockNestingMode) t.BlockNesting {
	switch n {
	case tfprotov6.SchemaNestedBlockNestingModeList:
		return t.BlockNesting_List
	case tfprotov6.SchemaNestedBlockNestingModeSet:
		return t.BlockNesting_Set
	case tfprotov6.SchemaNestedBlockNestingModeMap:
		return t.BlockNesting_Map
	case tfprotov6.SchemaNestedBlockNestingModeGroup:
		return t.BlockNesting_Group
	default:
		return t.BlockNesting_Single
	}
}

func objectNesting(n tfprotov6.SchemaObjectNestingMode) t.ObjectNesting {
	switch n {
	case tfprotov6.SchemaObjectNestingModeList:
		return t.ObjectNesting_List
	case tfprotov6.SchemaObjectNestingModeSet:
		return t.ObjectNesting_Set
	case tfprotov6.SchemaObjectNestingModeMap:
		return t.ObjectNesting_Map
	default:
		return t.ObjectNesting_Single
	}
}

func witFunction(name string, f *tfprotov6.Function) (t.Function, error) {
	param := func(p *tfprotov6.FunctionParameter) (t.Parameter, error) {
		tj, err := typeJSON(p.Type)
		return t.Parameter{
			Name:         p.Name,
			Type:         tj,
			Description:  description(p.Description, p.DescriptionKind),
			AllowNull:    p.AllowNullValue,
			AllowUnknown: p.AllowUnknownValues,
		}, err
	}
	out := t.Function{
		Name:               name,
		Parameters:         []t.Parameter{},
		Variadic:           witTypes.None[t.Parameter](),
		Summary:            f.Summary,
		Description:        description(f.Description, f.DescriptionKind),
		DeprecationMessage: f.DeprecationMessage,
	}
	for _, p := range f.Parameters {
		wp, err := param(p)
		if err != nil {
			return t.Function{}, err
		}
		out.Parameters = append(out.Parameters, wp)
	}
	if f.VariadicParameter != nil {
		wp, err := param(f.VariadicParameter)
		if err != nil {
			return t.Function{}, err
		}
		out.Variadic = witTypes.Some(wp)
	}
	ret := tftypes.Type(tftypes.DynamicPseudoType)
	if f.Return != nil && f.Return.Type != nil {
		ret = f.Return.Type
	}
	tj, err := typeJSON(ret)
	if err != nil {
		return t.Function{}, err
	}
	out.Return = tj
	return out, nil
}

func witIdentitySchema(s *tfprotov6.ResourceIdentitySchema) (t.IdentitySchema, error) {
	out := t.IdentitySchema{Version: s.Version, Attributes: []t.IdentityAttribute{}}
	for _, a := range s.IdentityAttributes {
		tj, err := typeJSON(a.Type)
		if err != nil {
			return t.IdentitySchema{}, err
		}
		out.Attributes = append(out.Attributes, t.IdentityAttribute{
			Name:              a.Name,
			Type:              tj,
			RequiredForImport: a.RequiredForImport,
			OptionalForImport: a.OptionalForImport,
			Description:       a.Description,
		})
	}
	return out, nil
}

// identityType is the object type of an identity schema.
func identityType(s *tfprotov6.ResourceIdentitySchema) tftypes.Type {
	types := map[string]tftypes.Type{}
	for _, a := range s.IdentityAttributes {
		types[a.Name] = a.Type
	}
	return tftypes.Object{AttributeTypes: types}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// witPath is a tftypes path as WIT path steps. A step into a set element (which WIT paths
// cannot name) ends the path at the set.
func witPath(p *tftypes.AttributePath) t.AttributePath {
	out := t.AttributePath{}
	if p == nil {
		return out
	}
	for _, s := range p.Steps() {
		switch step := s.(type) {
		case tftypes.AttributeName:
			out = append(out, t.MakePathStepAttribute(string(step)))
		case tftypes.ElementKeyString:
			out = append(out, t.MakePathStepKey(string(step)))
		case tftypes.ElementKeyInt:
			out = append(out, t.MakePathStepIndex(int64(step)))
		default:
			return out
		}
	}
	return out
}

func witDiagnostics(ds []*tfprotov6.Diagnostic) []t.Diagnostic {
	out := []t.Diagnostic{}
	for _, d := range ds {
		if d == nil {
			continue
		}
		sev := t.Severity_Error
		if d.Severity == tfprotov6.DiagnosticSeverityWarning {
			sev = t.Severity_Warning
		}
		out = append(out, t.Diagnostic{Severity: sev, Summary: d.Summary, Detail: d.Detail, Attribute: witPath(d.Attribute)})
	}
	return out
}

func errorDiagnostic(summary, detail string) t.Diagnostic {
	return t.Diagnostic{Severity: t.Severity_Error, Summary: summary, Detail: detail, Attribute: t.AttributePath{}}
}
