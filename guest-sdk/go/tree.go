package terrarium

import (
	"encoding/json"
	"sort"
	"strings"
)

// tree is a Terraform value as the SDK moves it between the WIT value (a flat node list)
// and Go values: one node per value, children in order. Numbers are decimal text.
type tree struct {
	kind  treeKind
	b     bool
	text  string // a string's value, a number's decimal text
	elems []*tree
	keys  []string // the keys of a map or object, beside elems
	typ   string   // the concrete type JSON of a dynamic value
}

type treeKind uint8

const (
	tNull treeKind = iota
	tUnknown
	tBool
	tNumber
	tString
	tList
	tSet
	tTuple
	tMap
	tObject
	tDynamic
)

var nullTree = &tree{kind: tNull}

// attr is the element for key k of a map or object tree, or nil.
func (t *tree) attr(k string) *tree {
	for i, key := range t.keys {
		if key == k {
			return t.elems[i]
		}
	}
	return nil
}

// index is the position of key k in a map or object tree's elems, or -1.
func (t *tree) index(k string) int {
	for i, key := range t.keys {
		if key == k {
			return i
		}
	}
	return -1
}

// tfType is a Terraform type.
type tfType struct {
	kind  string // "string" "number" "bool" "dynamic" "list" "set" "map" "object"
	elem  *tfType
	attrs []objectAttr // object attributes, in name order
}

type objectAttr struct {
	name     string
	typ      *tfType
	optional bool
}

var (
	stringType  = &tfType{kind: "string"}
	numberType  = &tfType{kind: "number"}
	boolType    = &tfType{kind: "bool"}
	dynamicType = &tfType{kind: "dynamic"}
)

// syntax is the type in Terraform's JSON type syntax, as Go values.
func (t *tfType) syntax() any {
	switch t.kind {
	case "list", "set", "map":
		return []any{t.kind, t.elem.syntax()}
	case "tuple":
		elems := make([]any, len(t.attrs))
		for i, a := range t.attrs {
			elems[i] = a.typ.syntax()
		}
		return []any{"tuple", elems}
	case "object":
		attrs := map[string]any{}
		var optional []string
		for _, a := range t.attrs {
			attrs[a.name] = a.typ.syntax()
			if a.optional {
				optional = append(optional, a.name)
			}
		}
		if len(optional) > 0 {
			sort.Strings(optional)
			return []any{"object", attrs, optional}
		}
		return []any{"object", attrs}
	}
	return t.kind
}

// json is the type in Terraform's JSON type syntax.
func (t *tfType) json() string {
	b, _ := json.Marshal(t.syntax())
	return string(b)
}

// fromJSON reads a JSON document (a file's contents, say) as a tree of the JSON's own shape:
// objects, tuples, strings, exact numbers, bools and nulls.
func jsonTree(data []byte) (*tree, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var build func(any) *tree
	build = func(v any) *tree {
		switch v := v.(type) {
		case nil:
			return nullTree
		case bool:
			return &tree{kind: tBool, b: v}
		case json.Number:
			return &tree{kind: tNumber, text: v.String()}
		case string:
			return &tree{kind: tString, text: v}
		case []any:
			t := &tree{kind: tTuple}
			for _, e := range v {
				t.elems = append(t.elems, build(e))
			}
			return t
		case map[string]any:
			t := &tree{kind: tObject}
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				t.keys = append(t.keys, k)
				t.elems = append(t.elems, build(v[k]))
			}
			return t
		}
		return nullTree
	}
	return build(v), nil
}
