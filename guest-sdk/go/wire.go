package terrarium

import (
	"encoding/json"
	"fmt"
	"strconv"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	b "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_behaviour"
	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// This file is the WIT data model to and from the SDK's trees, schemas and diagnostics. Only
// this file and export.go know the bindings.

func fromWIT(v t.Value) *tree {
	if len(v.Nodes) == 0 {
		return nullTree
	}
	var node func(i uint32) *tree
	node = func(i uint32) *tree {
		if int(i) >= len(v.Nodes) {
			return nullTree
		}
		n := v.Nodes[i]
		children := func(ids []uint32, k treeKind) *tree {
			out := &tree{kind: k, elems: make([]*tree, len(ids))}
			for j, c := range ids {
				out.elems[j] = node(c)
			}
			return out
		}
		entries := func(es []t.Entry, k treeKind) *tree {
			out := &tree{kind: k, elems: make([]*tree, len(es)), keys: make([]string, len(es))}
			for j, e := range es {
				out.keys[j], out.elems[j] = e.Key, node(e.Value)
			}
			return out
		}
		switch n.Tag() {
		case t.Node_Unknown:
			return &tree{kind: tUnknown}
		case t.Node_Bool:
			return &tree{kind: tBool, b: n.Bool()}
		case t.Node_Number:
			return &tree{kind: tNumber, text: numberText(n.Number())}
		case t.Node_String:
			return &tree{kind: tString, text: n.String()}
		case t.Node_List:
			return children(n.List(), tList)
		case t.Node_Set:
			return children(n.Set(), tSet)
		case t.Node_Tuple:
			return children(n.Tuple(), tTuple)
		case t.Node_Map:
			return entries(n.Map(), tMap)
		case t.Node_Object:
			return entries(n.Object(), tObject)
		case t.Node_Dynamic:
			d := n.Dynamic()
			return &tree{kind: tDynamic, typ: d.Type, elems: []*tree{node(d.Value)}}
		}
		return nullTree
	}
	return node(0)
}

func numberText(n t.Number) string {
	switch n.Tag() {
	case t.Number_Int:
		return strconv.FormatInt(n.Int(), 10)
	case t.Number_Float:
		return strconv.FormatFloat(n.Float(), 'g', -1, 64)
	}
	return n.Decimal()
}

func witNumber(text string) t.Number {
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return t.MakeNumberInt(i)
	}
	return t.MakeNumberDecimal(text)
}

func toWIT(tr *tree) t.Value {
	var nodes []t.Node
	var add func(*tree) uint32
	add = func(x *tree) uint32 {
		i := uint32(len(nodes))
		nodes = append(nodes, t.MakeNodeNull())
		var n t.Node
		switch x.kind {
		case tNull:
			n = t.MakeNodeNull()
		case tUnknown:
			n = t.MakeNodeUnknown(t.Refinements{})
		case tBool:
			n = t.MakeNodeBool(x.b)
		case tNumber:
			n = t.MakeNodeNumber(witNumber(x.text))
		case tString:
			n = t.MakeNodeString(x.text)
		case tList, tSet, tTuple:
			ids := make([]uint32, len(x.elems))
			for j, e := range x.elems {
				ids[j] = add(e)
			}
			n = map[treeKind]func([]uint32) t.Node{tList: t.MakeNodeList, tSet: t.MakeNodeSet, tTuple: t.MakeNodeTuple}[x.kind](ids)
		case tMap, tObject:
			es := make([]t.Entry, len(x.elems))
			for j, e := range x.elems {
				es[j] = t.Entry{Key: x.keys[j], Value: add(e)}
			}
			if x.kind == tMap {
				n = t.MakeNodeMap(es)
			} else {
				n = t.MakeNodeObject(es)
			}
		case tDynamic:
			n = t.MakeNodeDynamic(t.Typed{Type: x.typ, Value: add(x.elems[0])})
		}
		nodes[i] = n
		return i
	}
	if tr == nil {
		tr = nullTree
	}
	add(tr)
	return t.Value{Nodes: nodes}
}

func witNull() t.Value { return t.Value{Nodes: []t.Node{t.MakeNodeNull()}} }

func witPath(p Path) []t.PathStep {
	out := make([]t.PathStep, 0, len(p))
	for _, s := range p {
		switch s.kind {
		case stepAttr:
			out = append(out, t.MakePathStepAttribute(s.name))
		case stepKey:
			out = append(out, t.MakePathStepKey(s.name))
		case stepIndex:
			out = append(out, t.MakePathStepIndex(s.index))
		}
	}
	return out
}

func pathOf(steps []t.PathStep) Path {
	out := make(Path, 0, len(steps))
	for _, s := range steps {
		switch s.Tag() {
		case t.PathStep_Attribute:
			out = append(out, Attr(s.Attribute()))
		case t.PathStep_Key:
			out = append(out, Key(s.Key()))
		case t.PathStep_Index:
			out = append(out, Step{kind: stepIndex, index: s.Index()})
		}
	}
	return out
}

func witDiagnostics(ds Diagnostics) []t.Diagnostic {
	out := make([]t.Diagnostic, 0, len(ds))
	for _, d := range ds {
		sev := t.Severity_Error
		if d.Severity == Warning {
			sev = t.Severity_Warning
		}
		out = append(out, t.Diagnostic{Severity: sev, Summary: d.Summary, Detail: d.Detail, Attribute: witPath(d.Path)})
	}
	return out
}

func plainText(s string) t.Description { return t.Description{Text: s, Kind: t.TextKind_Plain} }

// witSchema is a model as a WIT schema: blocks[0] is the model, nested ones follow.
func witSchema(m *model, description string, version int64) t.Schema {
	var blocks []t.Block
	var add func(m *model, description string) uint32
	add = func(m *model, description string) uint32 {
		i := uint32(len(blocks))
		blocks = append(blocks, t.Block{})
		blk := t.Block{Description: plainText(description), Attributes: []t.Attribute{}, BlockTypes: []t.NestedBlock{}}
		for _, f := range m.fieldsOrNone() {
			if f.block {
				blk.BlockTypes = append(blk.BlockTypes, t.NestedBlock{
					TypeName: f.name, Block: add(f.nested, ""), Nesting: blockNesting[f.nesting],
					MinItems: f.minItems, MaxItems: f.maxItems,
				})
				continue
			}
			a := t.Attribute{
				Name: f.name, Description: plainText(f.description), Required: f.required, Optional: f.optional,
				Computed: f.computed, Sensitive: f.sensitive, WriteOnly: f.writeOnly,
				Deprecated: f.deprecated != "", DeprecationMessage: f.deprecated,
			}
			if f.nested != nil {
				a.Nested = witTypes.Some(t.NestedAttributes{Nesting: objectNesting[f.nesting], Block: add(f.nested, "")})
			} else {
				a.Type = witTypes.Some(f.typ.json())
			}
			blk.Attributes = append(blk.Attributes, a)
		}
		blocks[i] = blk
		return i
	}
	add(m, description)
	return t.Schema{Version: version, Blocks: blocks}
}

func (m *model) fieldsOrNone() []*field {
	if m == nil {
		return nil
	}
	return m.fields
}

var blockNesting = map[string]t.BlockNesting{
	"single": t.BlockNesting_Single, "list": t.BlockNesting_List, "set": t.BlockNesting_Set, "map": t.BlockNesting_Map,
}

var objectNesting = map[string]t.ObjectNesting{
	"single": t.ObjectNesting_Single, "list": t.ObjectNesting_List, "set": t.ObjectNesting_Set, "map": t.ObjectNesting_Map,
}

// witBehaviour is what a model's tags declare about planning and validation.
func witBehaviour(m *model, hooks *hookTable) (b.SchemaBehaviour, error) {
	out := b.SchemaBehaviour{Attributes: []b.AttributeBehaviour{}, ReplaceBlocks: [][]string{}}
	var walk func(m *model, path []string) error
	walk = func(m *model, path []string) error {
		for _, f := range m.fieldsOrNone() {
			here := append(append([]string(nil), path...), f.name)
			if f.block && f.replace {
				out.ReplaceBlocks = append(out.ReplaceBlocks, here)
			}
			if f.nested != nil {
				if err := walk(f.nested, here); err != nil {
					return err
				}
			}
			if f.block || !(f.deflt != nil || f.defaultFunc != "" || f.useState || f.unknownOnUp || f.replace || f.replaceIf != "" ||
				len(f.validators) > 0) {
				continue
			}
			a := b.AttributeBehaviour{
				Path: here, UseStateForUnknown: f.useState, UnknownOnUpdate: f.unknownOnUp,
				RequiresReplace: b.MakeReplaceRuleNever(), Validators: []b.Validator{},
			}
			if f.replace {
				a.RequiresReplace = b.MakeReplaceRuleAlways()
			}
			if f.replaceIf != "" {
				if err := checkHookMethod(m.goType, f.replaceIf, f, hookReplace); err != nil {
					return err
				}
				a.RequiresReplace = b.MakeReplaceRuleWhenGuestSays(hooks.add(m.goType, f.replaceIf, f))
			}
			if f.deflt != nil {
				v, err := defaultTree(*f.deflt, f.typ)
				if err != nil {
					return fmt.Errorf("the default of %s: %v", joinPath(here), err)
				}
				a.Default = witTypes.Some(b.MakeDefaultValueValue(toWIT(v)))
			}
			if f.defaultFunc != "" {
				if err := checkHookMethod(m.goType, f.defaultFunc, f, hookDefault); err != nil {
					return err
				}
				a.Default = witTypes.Some(b.MakeDefaultValueComputed(hooks.add(m.goType, f.defaultFunc, f)))
			}
			for _, spec := range f.validators {
				if spec.kind == "custom" {
					if err := checkHookMethod(m.goType, spec.args[0], f, hookValidate); err != nil {
						return err
					}
					id := hooks.add(m.goType, spec.args[0], f)
					a.Validators = append(a.Validators, b.MakeValidatorCustom(b.CustomValidator{Id: id, Description: spec.args[0]}))
					continue
				}
				v, err := witValidator(spec)
				if err != nil {
					return fmt.Errorf("a validator of %s: %v", joinPath(here), err)
				}
				a.Validators = append(a.Validators, v)
			}
			out.Attributes = append(out.Attributes, a)
		}
		return nil
	}
	err := walk(m, nil)
	return out, err
}

func joinPath(p []string) string {
	s := ""
	for i, n := range p {
		if i > 0 {
			s += "."
		}
		s += n
	}
	return s
}

// defaultTree reads a `default` tag: the text itself for a string, JSON for anything else.
func defaultTree(text string, typ *tfType) (*tree, error) {
	if typ.kind == "string" {
		return &tree{kind: tString, text: text}, nil
	}
	var probe any
	if err := json.Unmarshal([]byte(text), &probe); err != nil {
		return nil, fmt.Errorf("%q is not JSON: %v", text, err)
	}
	j, err := jsonTree([]byte(text))
	if err != nil {
		return nil, err
	}
	return conform(j, typ)
}

// conform gives a tree read from JSON the kinds of typ (tuples become lists or sets,
// objects maps).
func conform(x *tree, typ *tfType) (*tree, error) {
	if x.kind == tNull {
		return x, nil
	}
	switch typ.kind {
	case "string":
		if x.kind != tString {
			return nil, fmt.Errorf("want a string")
		}
	case "number":
		if x.kind != tNumber {
			return nil, fmt.Errorf("want a number")
		}
	case "bool":
		if x.kind != tBool {
			return nil, fmt.Errorf("want a bool")
		}
	case "list", "set":
		if x.kind != tTuple {
			return nil, fmt.Errorf("want a JSON array")
		}
		out := &tree{kind: tList}
		if typ.kind == "set" {
			out.kind = tSet
		}
		for _, e := range x.elems {
			c, err := conform(e, typ.elem)
			if err != nil {
				return nil, err
			}
			out.elems = append(out.elems, c)
		}
		return out, nil
	case "map", "object":
		if x.kind != tObject {
			return nil, fmt.Errorf("want a JSON object")
		}
		out := &tree{kind: tMap}
		if typ.kind == "object" {
			out.kind = tObject
			for _, a := range typ.attrs {
				e := x.attr(a.name)
				if e == nil {
					e = nullTree
				}
				c, err := conform(e, a.typ)
				if err != nil {
					return nil, err
				}
				out.keys, out.elems = append(out.keys, a.name), append(out.elems, c)
			}
			return out, nil
		}
		for i, e := range x.elems {
			c, err := conform(e, typ.elem)
			if err != nil {
				return nil, err
			}
			out.keys, out.elems = append(out.keys, x.keys[i]), append(out.elems, c)
		}
		return out, nil
	}
	return x, nil
}

func witValidator(v validatorSpec) (b.Validator, error) {
	count := func() (b.CountRange, error) {
		lo, err1 := strconv.ParseUint(v.args[0], 10, 64)
		hi, err2 := strconv.ParseUint(v.args[1], 10, 64)
		if err1 != nil || err2 != nil {
			return b.CountRange{}, fmt.Errorf("%s(%s,%s): the bounds are counts", v.kind, v.args[0], v.args[1])
		}
		return b.CountRange{Min: lo, Max: hi}, nil
	}
	switch v.kind {
	case "length", "size":
		c, err := count()
		if err != nil {
			return b.Validator{}, err
		}
		if v.kind == "length" {
			return b.MakeValidatorLength(c), nil
		}
		return b.MakeValidatorSize(c), nil
	case "range":
		bound := func(s string) (witTypes.Option[t.Number], error) {
			if s == "" || s == "_" {
				return witTypes.None[t.Number](), nil
			}
			c, err := canonicalNumber(s)
			if err != nil {
				return witTypes.None[t.Number](), err
			}
			return witTypes.Some(witNumber(c)), nil
		}
		lo, err := bound(v.args[0])
		if err != nil {
			return b.Validator{}, err
		}
		hi, err := bound(v.args[1])
		if err != nil {
			return b.Validator{}, err
		}
		return b.MakeValidatorRange(b.NumberRange{Min: lo, Max: hi}), nil
	case "pattern":
		return b.MakeValidatorPattern(v.args[0]), nil
	case "one_of":
		return b.MakeValidatorOneOf(v.args), nil
	case "conflicts_with":
		return b.MakeValidatorConflictsWith(v.args), nil
	case "also_requires":
		return b.MakeValidatorAlsoRequires(v.args), nil
	case "exactly_one_of":
		return b.MakeValidatorExactlyOneOf(v.args), nil
	case "at_least_one_of":
		return b.MakeValidatorAtLeastOneOf(v.args), nil
	}
	return b.Validator{}, fmt.Errorf("unknown validator %s", v.kind)
}
