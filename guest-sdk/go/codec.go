package terrarium

import (
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
)

// decodeInto sets v (settable) from the tree; path names the place for errors.
func decodeInto(t *tree, v reflect.Value, path Path) error {
	gt := v.Type()
	if t.kind == tDynamic {
		t = t.elems[0]
	}
	switch gt {
	case stringGo:
		switch t.kind {
		case tNull:
			v.Set(reflect.ValueOf(StringNull()))
		case tUnknown:
			v.Set(reflect.ValueOf(StringUnknown()))
		case tString:
			v.Set(reflect.ValueOf(StringValue(t.text)))
		default:
			return mismatch(path, "a string", t)
		}
		return nil
	case boolGo:
		switch t.kind {
		case tNull:
			v.Set(reflect.ValueOf(BoolNull()))
		case tUnknown:
			v.Set(reflect.ValueOf(BoolUnknown()))
		case tBool:
			v.Set(reflect.ValueOf(BoolValue(t.b)))
		default:
			return mismatch(path, "a bool", t)
		}
		return nil
	case numberGo:
		switch t.kind {
		case tNull:
			v.Set(reflect.ValueOf(NumberNull()))
		case tUnknown:
			v.Set(reflect.ValueOf(NumberUnknown()))
		case tNumber:
			n, err := NumberValue(t.text)
			if err != nil {
				return fmt.Errorf("%s: %v", where(path), err)
			}
			v.Set(reflect.ValueOf(n))
		default:
			return mismatch(path, "a number", t)
		}
		return nil
	}
	if t.kind == tUnknown {
		return fmt.Errorf("%s is unknown here, and its Go type %s cannot hold an unknown value; use terrarium.String, Bool or Number", where(path), gt)
	}
	if t.kind == tNull {
		switch gt.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			v.Set(reflect.Zero(gt))
			return nil
		}
		return fmt.Errorf("%s is null, and its Go type %s cannot hold null; use a pointer or terrarium.String, Bool or Number", where(path), gt)
	}
	switch gt {
	case bigFloatPtr:
		if t.kind != tNumber {
			return mismatch(path, "a number", t)
		}
		f, _, err := big.ParseFloat(t.text, 10, 512, big.ToNearestEven)
		if err != nil {
			return fmt.Errorf("%s: %v", where(path), err)
		}
		v.Set(reflect.ValueOf(f))
		return nil
	case bigIntPtr:
		if t.kind != tNumber {
			return mismatch(path, "a number", t)
		}
		i, ok := new(big.Int).SetString(t.text, 10)
		if !ok {
			return fmt.Errorf("%s: %s is not an integer", where(path), t.text)
		}
		v.Set(reflect.ValueOf(i))
		return nil
	case anyGo:
		v.Set(reflect.ValueOf(plain(t)))
		return nil
	}
	switch gt.Kind() {
	case reflect.Pointer:
		p := reflect.New(gt.Elem())
		if err := decodeInto(t, p.Elem(), path); err != nil {
			return err
		}
		v.Set(p)
	case reflect.String:
		if t.kind != tString {
			return mismatch(path, "a string", t)
		}
		v.SetString(t.text)
	case reflect.Bool:
		if t.kind != tBool {
			return mismatch(path, "a bool", t)
		}
		v.SetBool(t.b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if t.kind != tNumber {
			return mismatch(path, "a number", t)
		}
		i, err := strconv.ParseInt(t.text, 10, gt.Bits())
		if err != nil {
			return fmt.Errorf("%s: %s does not fit in %s", where(path), t.text, gt)
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if t.kind != tNumber {
			return mismatch(path, "a number", t)
		}
		i, err := strconv.ParseUint(t.text, 10, gt.Bits())
		if err != nil {
			return fmt.Errorf("%s: %s does not fit in %s", where(path), t.text, gt)
		}
		v.SetUint(i)
	case reflect.Float32, reflect.Float64:
		if t.kind != tNumber {
			return mismatch(path, "a number", t)
		}
		f, err := strconv.ParseFloat(t.text, gt.Bits())
		if err != nil {
			return fmt.Errorf("%s: %s does not fit in %s", where(path), t.text, gt)
		}
		v.SetFloat(f)
	case reflect.Slice:
		if t.kind != tList && t.kind != tSet && t.kind != tTuple {
			return mismatch(path, "a list or set", t)
		}
		s := reflect.MakeSlice(gt, len(t.elems), len(t.elems))
		for i, e := range t.elems {
			if err := decodeInto(e, s.Index(i), append(path, Index(i))); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		if t.kind != tMap && t.kind != tObject {
			return mismatch(path, "a map", t)
		}
		m := reflect.MakeMapWithSize(gt, len(t.elems))
		for i, e := range t.elems {
			ev := reflect.New(gt.Elem()).Elem()
			if err := decodeInto(e, ev, append(path, Key(t.keys[i]))); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(t.keys[i]).Convert(gt.Key()), ev)
		}
		v.Set(m)
	case reflect.Struct:
		if t.kind != tObject {
			return mismatch(path, "an object", t)
		}
		m, err := modelOf(gt)
		if err != nil {
			return err
		}
		for _, f := range m.fields {
			e := t.attr(f.name)
			if e == nil {
				e = nullTree
			}
			if f.block && f.computed && e.kind == tUnknown {
				// A computed block the plan has unknown: nil until the provider sets it.
				continue
			}
			if err := decodeInto(e, v.Field(f.index), append(path, Attr(f.name))); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s: Go type %s has no Terraform type", where(path), gt)
	}
	return nil
}

func where(p Path) string {
	if len(p) == 0 {
		return "the value"
	}
	return p.String()
}

func mismatch(path Path, want string, t *tree) error {
	return fmt.Errorf("%s should be %s, got a %s value", where(path), want, kindName(t.kind))
}

func kindName(k treeKind) string {
	return [...]string{"null", "unknown", "bool", "number", "string", "list", "set", "tuple", "map", "object", "dynamic"}[k]
}

// plain is a tree as untyped Go values (for `any` fields): nil, bool, Number, string,
// []any, map[string]any.
func plain(t *tree) any {
	switch t.kind {
	case tBool:
		return t.b
	case tNumber:
		n, _ := NumberValue(t.text)
		return n
	case tString:
		return t.text
	case tList, tSet, tTuple:
		out := make([]any, len(t.elems))
		for i, e := range t.elems {
			out[i] = plain(e)
		}
		return out
	case tMap, tObject:
		out := map[string]any{}
		for i, e := range t.elems {
			out[t.keys[i]] = plain(e)
		}
		return out
	case tDynamic:
		return plain(t.elems[0])
	}
	return nil
}

// encodeValue is the tree of the Go value v of Terraform type typ.
func encodeValue(v reflect.Value, typ *tfType, path Path) (*tree, error) {
	gt := v.Type()
	switch gt {
	case stringGo:
		s := v.Interface().(String)
		return stateTree(s.state, func() *tree { return &tree{kind: tString, text: s.value} }), nil
	case boolGo:
		b := v.Interface().(Bool)
		return stateTree(b.state, func() *tree { return &tree{kind: tBool, b: b.value} }), nil
	case numberGo:
		n := v.Interface().(Number)
		return stateTree(n.state, func() *tree { return &tree{kind: tNumber, text: n.text} }), nil
	case bigFloatPtr:
		if v.IsNil() {
			return nullTree, nil
		}
		return &tree{kind: tNumber, text: v.Interface().(*big.Float).Text('g', -1)}, nil
	case bigIntPtr:
		if v.IsNil() {
			return nullTree, nil
		}
		return &tree{kind: tNumber, text: v.Interface().(*big.Int).String()}, nil
	}
	switch gt.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nullTree, nil
		}
		if gt.Kind() == reflect.Interface {
			return encodeAny(v.Elem().Interface(), path)
		}
		return encodeValue(v.Elem(), typ, path)
	case reflect.String:
		return &tree{kind: tString, text: v.String()}, nil
	case reflect.Bool:
		return &tree{kind: tBool, b: v.Bool()}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &tree{kind: tNumber, text: strconv.FormatInt(v.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &tree{kind: tNumber, text: strconv.FormatUint(v.Uint(), 10)}, nil
	case reflect.Float32, reflect.Float64:
		return &tree{kind: tNumber, text: strconv.FormatFloat(v.Float(), 'g', -1, gt.Bits())}, nil
	case reflect.Slice:
		if v.IsNil() {
			return nullTree, nil
		}
		kind := tList
		if typ.kind == "set" {
			kind = tSet
		}
		t := &tree{kind: kind}
		for i := range v.Len() {
			e, err := encodeValue(v.Index(i), typ.elem, append(path, Index(i)))
			if err != nil {
				return nil, err
			}
			t.elems = append(t.elems, e)
		}
		return t, nil
	case reflect.Map:
		if v.IsNil() {
			return nullTree, nil
		}
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		t := &tree{kind: tMap}
		for _, k := range keys {
			e, err := encodeValue(v.MapIndex(reflect.ValueOf(k).Convert(gt.Key())), typ.elem, append(path, Key(k)))
			if err != nil {
				return nil, err
			}
			t.keys = append(t.keys, k)
			t.elems = append(t.elems, e)
		}
		return t, nil
	case reflect.Struct:
		m, err := modelOf(gt)
		if err != nil {
			return nil, err
		}
		t := &tree{kind: tObject}
		for _, f := range m.fields {
			e, err := encodeValue(v.Field(f.index), f.typ, append(path, Attr(f.name)))
			if err != nil {
				return nil, err
			}
			if f.block && e.kind == tNull && f.nesting != "single" {
				// An absent list, set or map block is empty, never null.
				e = &tree{kind: map[string]treeKind{"list": tList, "set": tSet, "map": tMap}[f.nesting]}
			}
			t.keys = append(t.keys, f.name)
			t.elems = append(t.elems, e)
		}
		return t, nil
	}
	return nil, fmt.Errorf("%s: Go type %s has no Terraform type", where(path), gt)
}

func stateTree(s valueState, known func() *tree) *tree {
	switch s {
	case null:
		return nullTree
	case unknown:
		return &tree{kind: tUnknown}
	}
	return known()
}

// encodeAny is a dynamic value: its concrete type inferred from the Go value.
func encodeAny(x any, path Path) (*tree, error) {
	switch x := x.(type) {
	case nil:
		return nullTree, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t := &tree{kind: tObject}
		for _, k := range keys {
			e, err := encodeAny(x[k], append(path, Attr(k)))
			if err != nil {
				return nil, err
			}
			t.keys, t.elems = append(t.keys, k), append(t.elems, e)
		}
		return t, nil
	case []any:
		t := &tree{kind: tTuple}
		for i, e := range x {
			et, err := encodeAny(e, append(path, Index(i)))
			if err != nil {
				return nil, err
			}
			t.elems = append(t.elems, et)
		}
		return t, nil
	}
	v := reflect.ValueOf(x)
	typ, err := typeOf(v.Type(), false)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where(path), err)
	}
	return encodeValue(v, typ, path)
}

// inferType is the concrete type of a tree of a dynamic value.
func inferType(t *tree) *tfType {
	switch t.kind {
	case tBool:
		return boolType
	case tNumber:
		return numberType
	case tObject:
		o := &tfType{kind: "object"}
		for i, e := range t.elems {
			o.attrs = append(o.attrs, objectAttr{name: t.keys[i], typ: inferType(e)})
		}
		return o
	case tTuple, tList, tSet:
		// Written as a tuple of its elements' types.
		return &tfType{kind: "tuple", attrs: tupleAttrs(t)}
	}
	return stringType
}

func tupleAttrs(t *tree) []objectAttr {
	out := make([]objectAttr, len(t.elems))
	for i, e := range t.elems {
		out[i] = objectAttr{typ: inferType(e)}
	}
	return out
}

// keepUnknownBlocks keeps unknown, in the tree a plan hook returned (out, of model m), each
// computed block that the planned tree it was given (in) had unknown and that the hook left
// nil: a Go nil cannot say "unknown", and planning such a block as known and empty would be
// contradicted by the apply.
func keepUnknownBlocks(m *model, in, out *tree) {
	if m == nil || in == nil || out == nil || in.kind != tObject || out.kind != tObject {
		return
	}
	for _, f := range m.fields {
		if !f.block {
			continue
		}
		before, i := in.attr(f.name), out.index(f.name)
		if before == nil || i < 0 {
			continue
		}
		after := out.elems[i]
		switch {
		case f.computed && before.kind == tUnknown:
			if after.kind == tNull || len(after.elems) == 0 {
				out.elems[i] = &tree{kind: tUnknown}
			}
		case f.nested != nil && f.nesting == "single":
			keepUnknownBlocks(f.nested, before, after)
		case f.nested != nil && len(before.elems) == len(after.elems) && after.kind != tSet:
			for j := range after.elems {
				keepUnknownBlocks(f.nested, before.elems[j], after.elems[j])
			}
		}
	}
}
