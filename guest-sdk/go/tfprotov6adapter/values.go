package tfprotov6adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	t "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_types"
)

// The precision tftypes decodes msgpack numbers with: decimals keep every digit Terraform sent.
const numberPrecision = 512

// fromWit is the WIT value tree v as a tftypes.Value of type typ.
func fromWit(v t.Value, typ tftypes.Type) (tftypes.Value, error) {
	if len(v.Nodes) == 0 {
		return tftypes.NewValue(typ, nil), nil
	}
	return fromNode(v.Nodes, 0, typ)
}

func fromNode(nodes []t.Node, i uint32, typ tftypes.Type) (tftypes.Value, error) {
	if int(i) >= len(nodes) {
		return tftypes.Value{}, fmt.Errorf("node %d is out of range (%d nodes)", i, len(nodes))
	}
	n := nodes[i]
	switch n.Tag() {
	case t.Node_Null:
		return tftypes.NewValue(typ, nil), nil
	case t.Node_Unknown:
		return tftypes.NewValue(typ, tftypes.UnknownValue), nil
	case t.Node_Dynamic:
		d := n.Dynamic()
		concrete, err := tftypes.ParseJSONType([]byte(d.Type))
		if err != nil {
			return tftypes.Value{}, fmt.Errorf("type %s: %w", d.Type, err)
		}
		return fromNode(nodes, d.Value, concrete)
	}
	children := func(idx []uint32, elem func(k int) tftypes.Type) ([]tftypes.Value, error) {
		out := make([]tftypes.Value, 0, len(idx))
		for k, c := range idx {
			v, err := fromNode(nodes, c, elem(k))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	switch n.Tag() {
	case t.Node_Bool:
		return tftypes.NewValue(tftypes.Bool, n.Bool()), nil
	case t.Node_Number:
		f, err := bigFloat(n.Number())
		if err != nil {
			return tftypes.Value{}, err
		}
		return tftypes.NewValue(tftypes.Number, f), nil
	case t.Node_String:
		return tftypes.NewValue(tftypes.String, n.String()), nil
	case t.Node_List:
		elem := tftypes.Type(tftypes.DynamicPseudoType)
		if l, ok := typ.(tftypes.List); ok {
			elem = l.ElementType
		}
		vs, err := children(n.List(), func(int) tftypes.Type { return elem })
		if err != nil {
			return tftypes.Value{}, err
		}
		return collection(tftypes.List{ElementType: elem}, elem, vs)
	case t.Node_Set:
		elem := tftypes.Type(tftypes.DynamicPseudoType)
		if s, ok := typ.(tftypes.Set); ok {
			elem = s.ElementType
		}
		vs, err := children(n.Set(), func(int) tftypes.Type { return elem })
		if err != nil {
			return tftypes.Value{}, err
		}
		return collection(tftypes.Set{ElementType: elem}, elem, vs)
	case t.Node_Tuple:
		tu, _ := typ.(tftypes.Tuple)
		vs, err := children(n.Tuple(), func(k int) tftypes.Type {
			if k < len(tu.ElementTypes) {
				return tu.ElementTypes[k]
			}
			return tftypes.DynamicPseudoType
		})
		if err != nil {
			return tftypes.Value{}, err
		}
		types := make([]tftypes.Type, len(vs))
		for k, v := range vs {
			types[k] = v.Type()
		}
		if len(tu.ElementTypes) == len(vs) {
			types = tu.ElementTypes
		}
		return tftypes.NewValue(tftypes.Tuple{ElementTypes: types}, vs), nil
	case t.Node_Map:
		elem := tftypes.Type(tftypes.DynamicPseudoType)
		if m, ok := typ.(tftypes.Map); ok {
			elem = m.ElementType
		}
		out := map[string]tftypes.Value{}
		for _, e := range n.Map() {
			v, err := fromNode(nodes, e.Value, elem)
			if err != nil {
				return tftypes.Value{}, err
			}
			out[e.Key] = v
		}
		if elem.Is(tftypes.DynamicPseudoType) {
			// A map whose element type is dynamic takes its elements' concrete type.
			for _, v := range out {
				elem = v.Type()
				break
			}
		}
		return tftypes.NewValue(tftypes.Map{ElementType: elem}, out), nil
	case t.Node_Object:
		o, isObject := typ.(tftypes.Object)
		out := map[string]tftypes.Value{}
		types := map[string]tftypes.Type{}
		for _, e := range n.Object() {
			at := tftypes.Type(tftypes.DynamicPseudoType)
			if isObject {
				if schemaType, ok := o.AttributeTypes[e.Key]; ok {
					at = schemaType
				}
			}
			v, err := fromNode(nodes, e.Value, at)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", e.Key, err)
			}
			out[e.Key] = v
			types[e.Key] = at
			if at.Is(tftypes.DynamicPseudoType) && !isObject {
				types[e.Key] = v.Type()
			}
		}
		if !isObject {
			return tftypes.NewValue(tftypes.Object{AttributeTypes: types}, out), nil
		}
		// Attributes the tree leaves out are null.
		for name, at := range o.AttributeTypes {
			if _, ok := out[name]; !ok {
				out[name] = tftypes.NewValue(at, nil)
			}
		}
		return tftypes.NewValue(o, out), nil
	}
	return tftypes.Value{}, fmt.Errorf("unknown node kind %d", n.Tag())
}

// collection builds a list or set; an element type left dynamic takes the elements' type.
func collection(typ tftypes.Type, elem tftypes.Type, vs []tftypes.Value) (tftypes.Value, error) {
	if elem.Is(tftypes.DynamicPseudoType) && len(vs) > 0 {
		elem = vs[0].Type()
		switch typ.(type) {
		case tftypes.List:
			typ = tftypes.List{ElementType: elem}
		case tftypes.Set:
			typ = tftypes.Set{ElementType: elem}
		}
	}
	return tftypes.NewValue(typ, vs), nil
}

func bigFloat(n t.Number) (*big.Float, error) {
	switch n.Tag() {
	case t.Number_Int:
		return new(big.Float).SetPrec(numberPrecision).SetInt64(n.Int()), nil
	case t.Number_Float:
		return new(big.Float).SetPrec(numberPrecision).SetFloat64(n.Float()), nil
	default:
		f, _, err := big.ParseFloat(n.Decimal(), 10, numberPrecision, big.ToNearestEven)
		if err != nil {
			return nil, fmt.Errorf("number %q: %w", n.Decimal(), err)
		}
		return f, nil
	}
}

// toWit is v as a WIT value tree; schema is the type the schema gives it (DynamicPseudoType
// where the schema says dynamic: such values carry their concrete type).
func toWit(v tftypes.Value, schema tftypes.Type) (t.Value, error) {
	b := &treeBuilder{}
	if _, err := b.add(v, schema); err != nil {
		return t.Value{}, err
	}
	return t.Value{Nodes: b.nodes}, nil
}

type treeBuilder struct{ nodes []t.Node }

func (b *treeBuilder) add(v tftypes.Value, schema tftypes.Type) (uint32, error) {
	at := uint32(len(b.nodes))
	b.nodes = append(b.nodes, t.MakeNodeNull())
	if !v.IsKnown() {
		b.nodes[at] = t.MakeNodeUnknown(t.Refinements{})
		return at, nil
	}
	if v.IsNull() {
		return at, nil
	}
	if schema == nil || schema.Is(tftypes.DynamicPseudoType) {
		typeJSON, err := v.Type().MarshalJSON()
		if err != nil {
			return 0, err
		}
		child, err := b.add(v, v.Type())
		if err != nil {
			return 0, err
		}
		b.nodes[at] = t.MakeNodeDynamic(t.Typed{Type: string(typeJSON), Value: child})
		return at, nil
	}
	typ := v.Type()
	var node t.Node
	switch {
	case typ.Is(tftypes.Bool):
		var x bool
		if err := v.As(&x); err != nil {
			return 0, err
		}
		node = t.MakeNodeBool(x)
	case typ.Is(tftypes.Number):
		x := new(big.Float)
		if err := v.As(&x); err != nil {
			return 0, err
		}
		node = t.MakeNodeNumber(witNumber(x))
	case typ.Is(tftypes.String):
		var x string
		if err := v.As(&x); err != nil {
			return 0, err
		}
		node = t.MakeNodeString(x)
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}), typ.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return 0, err
		}
		idx := make([]uint32, 0, len(elems))
		for k, e := range elems {
			var et tftypes.Type
			switch st := schema.(type) {
			case tftypes.List:
				et = st.ElementType
			case tftypes.Set:
				et = st.ElementType
			case tftypes.Tuple:
				if k < len(st.ElementTypes) {
					et = st.ElementTypes[k]
				}
			}
			c, err := b.add(e, et)
			if err != nil {
				return 0, err
			}
			idx = append(idx, c)
		}
		switch {
		case typ.Is(tftypes.List{}):
			node = t.MakeNodeList(idx)
		case typ.Is(tftypes.Set{}):
			node = t.MakeNodeSet(idx)
		default:
			node = t.MakeNodeTuple(idx)
		}
	case typ.Is(tftypes.Map{}), typ.Is(tftypes.Object{}):
		var attrs map[string]tftypes.Value
		if err := v.As(&attrs); err != nil {
			return 0, err
		}
		keys := make([]string, 0, len(attrs))
		for k := range attrs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		entries := make([]t.Entry, 0, len(keys))
		for _, k := range keys {
			var et tftypes.Type
			switch st := schema.(type) {
			case tftypes.Map:
				et = st.ElementType
			case tftypes.Object:
				et = st.AttributeTypes[k]
			}
			c, err := b.add(attrs[k], et)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", k, err)
			}
			entries = append(entries, t.Entry{Key: k, Value: c})
		}
		if typ.Is(tftypes.Map{}) {
			node = t.MakeNodeMap(entries)
		} else {
			node = t.MakeNodeObject(entries)
		}
	default:
		return 0, fmt.Errorf("a value of type %s has no WIT form", typ)
	}
	b.nodes[at] = node
	return at, nil
}

// witNumber is x exactly: an integer when it is one and fits, else its decimal text.
func witNumber(x *big.Float) t.Number {
	if x.IsInt() {
		if i, acc := x.Int64(); acc == big.Exact {
			return t.MakeNumberInt(i)
		}
		i, _ := x.Int(nil)
		return t.MakeNumberDecimal(i.String())
	}
	return t.MakeNumberDecimal(x.Text('f', -1))
}

// dynamicValue is the WIT value v encoded as the provider expects it (msgpack, with type typ).
func dynamicValue(v t.Value, typ tftypes.Type) (*tfprotov6.DynamicValue, error) {
	tv, err := fromWit(v, typ)
	if err != nil {
		return nil, err
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tv)
	if err != nil {
		return nil, err
	}
	return &dv, nil
}

// optionalDynamicValue is dynamicValue for an optional WIT value (nil when it is unset).
func optionalDynamicValue(v *t.Value, typ tftypes.Type) (*tfprotov6.DynamicValue, error) {
	if v == nil || typ == nil {
		return nil, nil
	}
	return dynamicValue(*v, typ)
}

// fromDynamicValue decodes what the provider answered; a missing value is null.
func fromDynamicValue(dv *tfprotov6.DynamicValue, typ tftypes.Type) (t.Value, error) {
	if dv == nil {
		return t.Value{Nodes: []t.Node{t.MakeNodeNull()}}, nil
	}
	v, err := dv.Unmarshal(typ)
	if err != nil {
		return t.Value{}, err
	}
	return toWit(v, typ)
}

// rawJSON is a schemaless WIT value (stored JSON state, as the host decoded it) as JSON text
// again, for tfprotov6.RawState.
func rawJSON(v t.Value) ([]byte, error) {
	if len(v.Nodes) == 0 {
		return []byte("null"), nil
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, v.Nodes, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeJSON(buf *bytes.Buffer, nodes []t.Node, i uint32) error {
	if int(i) >= len(nodes) {
		return fmt.Errorf("node %d is out of range", i)
	}
	n := nodes[i]
	writeScalar := func(x any) error {
		data, err := json.Marshal(x)
		buf.Write(data)
		return err
	}
	switch n.Tag() {
	case t.Node_Null, t.Node_Unknown:
		buf.WriteString("null")
	case t.Node_Bool:
		return writeScalar(n.Bool())
	case t.Node_String:
		return writeScalar(n.String())
	case t.Node_Number:
		f, err := bigFloat(n.Number())
		if err != nil {
			return err
		}
		buf.WriteString(witNumberText(f))
	case t.Node_List, t.Node_Set, t.Node_Tuple:
		var idx []uint32
		switch n.Tag() {
		case t.Node_List:
			idx = n.List()
		case t.Node_Set:
			idx = n.Set()
		default:
			idx = n.Tuple()
		}
		buf.WriteByte('[')
		for k, c := range idx {
			if k > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, nodes, c); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case t.Node_Map, t.Node_Object:
		entries := n.Object
		if n.Tag() == t.Node_Map {
			entries = n.Map
		}
		buf.WriteByte('{')
		for k, e := range entries() {
			if k > 0 {
				buf.WriteByte(',')
			}
			if err := writeScalar(e.Key); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := writeJSON(buf, nodes, e.Value); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case t.Node_Dynamic:
		return writeJSON(buf, nodes, n.Dynamic().Value)
	}
	return nil
}

func witNumberText(f *big.Float) string {
	if f.IsInt() {
		i, _ := f.Int(nil)
		return i.String()
	}
	return f.Text('g', -1)
}
