package terrarium

import (
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// A schema is a Go struct whose fields carry a `tf` tag:
//
//	type Pet struct {
//		ID   terrarium.String `tf:"id,computed,use_state_for_unknown" doc:"pet-N, assigned at create."`
//		Name string           `tf:"name,requires_replace" validate:"length(1,32)"`
//		Legs *int64           `tf:"legs" default:"4" validate:"range(0,8)"`
//		Tags []string         `tf:"tags,set"`
//	}
//
// The field's Go type gives the Terraform type: string, bool, the integer and float kinds,
// *big.Float, *big.Int, String, Bool and Number (which can also be unknown), []T (a list;
// a set with the `set` option), map[string]T, and structs (nested attributes; nested blocks
// with the `block` option). A pointer, slice or map may be null; the String, Bool and Number
// types may be null or unknown.
//
// The tag's name is the attribute's; its options:
//
//	required, optional, computed   the attribute's kind (by default: required for a type that
//	                               cannot be null, optional for one that can)
//	sensitive, write_only          as in Terraform
//	set                            a []T field is a set, not a list
//	block                          a struct, *struct or []struct field is a nested block
//	computed (on a block)          the provider sets the block's contents (a computed nested
//	                               block, protocol 6.11): the configuration may not write it;
//	                               the field is nil while the plan has it unknown (on create
//	                               and after a change), and Create and Update set it
//	min_items=N, max_items=N       bounds of a block's count
//	use_state_for_unknown          a computed value keeps its prior value in plans
//	unknown_on_update              a computed value is unknown on every update
//	requires_replace               a change replaces the resource
//	required_for_import            identity attributes (ResourceIdentity): an `import { identity
//	optional_for_import            = {...} }` block must, or may, give it
//
// Other tags: `doc:"..."` (the description), `default:"..."` (the value planned when the
// configuration leaves the attribute unset: text for a string, JSON for anything else; it makes
// the attribute optional and computed), `validate:"..."` (validators separated by `;`:
// length(min,max), pattern(regexp), one_of(a,b,c), range(min,max), size(min,max),
// conflicts_with(a,b), also_requires(a,b), exactly_one_of(a,b), at_least_one_of(a,b), and
// custom(NAME): the struct's ValidateValue, see ComputesDefaults), `default_func:"NAME"` (a
// default the struct's ComputeDefault computes), `requires_replace_if:"NAME"` (a change
// replaces the resource when the struct's RequiresReplaceIf says so) and
// `deprecated:"message"`.
type field struct {
	name        string
	index       int
	goType      reflect.Type
	typ         *tfType
	required    bool
	optional    bool
	computed    bool
	sensitive   bool
	writeOnly   bool
	deprecated  string
	description string
	block       bool
	nesting     string // "single", "list", "set" or "map" for nested attributes and blocks
	nested      *model
	minItems    uint64
	maxItems    uint64
	set         bool
	deflt       *string
	defaultFunc string // a method of the struct computing the default (a hook)
	useState    bool
	unknownOnUp bool
	replace     bool
	replaceIf   string // a hook of the struct deciding whether a change replaces
	validators  []validatorSpec
	// Identity attributes only (see ResourceIdentity).
	requiredForImport bool
	optionalForImport bool
}

type validatorSpec struct {
	kind string
	args []string
}

// model is a struct type read as a schema block.
type model struct {
	goType reflect.Type
	fields []*field
}

var (
	modelsMu sync.Mutex
	models   = map[reflect.Type]*model{}
)

var (
	stringGo    = reflect.TypeFor[String]()
	boolGo      = reflect.TypeFor[Bool]()
	numberGo    = reflect.TypeFor[Number]()
	bigFloatPtr = reflect.TypeFor[*big.Float]()
	bigIntPtr   = reflect.TypeFor[*big.Int]()
	anyGo       = reflect.TypeFor[any]()
)

// modelOf reads the schema of a struct type (cached); the error names the field at fault.
func modelOf(t reflect.Type) (*model, error) {
	modelsMu.Lock()
	defer modelsMu.Unlock()
	return modelOfLocked(t, map[reflect.Type]bool{})
}

func modelOfLocked(t reflect.Type, seen map[reflect.Type]bool) (*model, error) {
	if m, ok := models[t]; ok {
		return m, nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct; a schema is a struct with `tf` tags", t)
	}
	if seen[t] {
		return nil, fmt.Errorf("%s contains itself; Terraform schemas are not recursive", t)
	}
	seen[t] = true
	m := &model{goType: t}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("tf")
		if !ok || tag == "-" {
			continue
		}
		if !sf.IsExported() {
			return nil, fmt.Errorf("%s.%s has a tf tag but is not exported", t, sf.Name)
		}
		f, err := fieldOf(t, sf, tag, seen)
		if err != nil {
			return nil, err
		}
		f.index = i
		m.fields = append(m.fields, f)
	}
	delete(seen, t)
	models[t] = m
	return m, nil
}

func fieldOf(owner reflect.Type, sf reflect.StructField, tag string, seen map[reflect.Type]bool) (*field, error) {
	where := owner.String() + "." + sf.Name
	parts := strings.Split(tag, ",")
	f := &field{name: parts[0], goType: sf.Type, description: sf.Tag.Get("doc"), deprecated: sf.Tag.Get("deprecated")}
	if f.name == "" {
		return nil, fmt.Errorf("%s: the tf tag needs the attribute name first", where)
	}
	var explicitRequired, explicitOptional bool
	for _, opt := range parts[1:] {
		key, val, _ := strings.Cut(opt, "=")
		var err error
		switch key {
		case "required":
			explicitRequired = true
		case "optional":
			explicitOptional = true
		case "computed":
			f.computed = true
		case "sensitive":
			f.sensitive = true
		case "write_only":
			f.writeOnly = true
		case "set":
			f.set = true
		case "block":
			f.block = true
		case "min_items":
			f.minItems, err = strconv.ParseUint(val, 10, 64)
		case "max_items":
			f.maxItems, err = strconv.ParseUint(val, 10, 64)
		case "use_state_for_unknown":
			f.useState = true
		case "unknown_on_update":
			f.unknownOnUp = true
		case "requires_replace":
			f.replace = true
		case "required_for_import":
			f.requiredForImport = true
		case "optional_for_import":
			f.optionalForImport = true
		default:
			return nil, fmt.Errorf("%s: unknown tf tag option %q", where, opt)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s wants a count: %v", where, key, err)
		}
	}
	if d, ok := sf.Tag.Lookup("default"); ok {
		f.deflt = &d
	}
	if d := sf.Tag.Get("default_func"); d != "" {
		if f.deflt != nil {
			return nil, fmt.Errorf("%s: give default or default_func, not both", where)
		}
		f.defaultFunc = d
	}
	if r := sf.Tag.Get("requires_replace_if"); r != "" {
		if f.replace || f.block {
			return nil, fmt.Errorf("%s: requires_replace_if is for attributes without requires_replace", where)
		}
		f.replaceIf = r
	}
	if v := sf.Tag.Get("validate"); v != "" {
		specs, err := parseValidators(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		f.validators = specs
	}
	nullable := false
	base := sf.Type
	if base.Kind() == reflect.Pointer && base != bigFloatPtr && base != bigIntPtr {
		nullable = true
		base = base.Elem()
	}
	switch {
	case base.Kind() == reflect.Slice || base.Kind() == reflect.Map, base == stringGo, base == boolGo,
		base == numberGo, base == bigFloatPtr, base == bigIntPtr, base == anyGo:
		nullable = true
	}
	// Nested attributes and blocks: a struct, or a slice or map of structs.
	elem := base
	nesting := "single"
	switch base.Kind() {
	case reflect.Slice:
		elem, nesting = base.Elem(), "list"
		if f.set {
			nesting = "set"
		}
	case reflect.Map:
		elem, nesting = base.Elem(), "map"
	}
	if isModel(elem) {
		m, err := modelOfLocked(elem, seen)
		if err != nil {
			return nil, err
		}
		f.nested, f.nesting = m, nesting
	}
	if f.block {
		if f.nested == nil {
			return nil, fmt.Errorf("%s: a block holds structs, not %s", where, sf.Type)
		}
		if f.set && nesting != "set" {
			return nil, fmt.Errorf("%s: only a slice can be a set", where)
		}
		if f.computed && sf.Type.Kind() == reflect.Struct {
			return nil, fmt.Errorf("%s: a computed block is nil until the provider sets it; type it *%s, []%s or map[string]%s", where, sf.Type, sf.Type, sf.Type)
		}
	}
	typ, err := typeOf(base, f.set)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	f.typ = typ
	if f.block {
		return f, nil
	}
	switch {
	case f.deflt != nil || f.defaultFunc != "":
		f.optional, f.computed = true, true
	case explicitOptional:
		f.optional = true
	case explicitRequired:
	case f.computed:
	default:
		f.optional = nullable
	}
	f.required = !f.optional && !f.computed
	if !f.required && !nullable {
		return nil, fmt.Errorf("%s: an optional or computed attribute can be null; type it *%s (or terrarium.String, Bool, Number)", where, sf.Type)
	}
	return f, nil
}

// computedBlockPaths are the paths (block type names from the root down, under path) of the
// computed blocks of m: what the component names in the WIT computed-blocks export.
func computedBlockPaths(m *model, path []string) [][]string {
	var out [][]string
	for _, f := range m.fields {
		if !f.block {
			continue
		}
		here := append(append([]string{}, path...), f.name)
		if f.computed {
			out = append(out, here)
		}
		out = append(out, computedBlockPaths(f.nested, here)...)
	}
	return out
}

func isModel(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t != stringGo && t != boolGo && t != numberGo
}

// typeOf is the Terraform type of a Go type (pointers already removed at the top).
func typeOf(t reflect.Type, set bool) (*tfType, error) {
	switch t {
	case stringGo:
		return stringType, nil
	case boolGo:
		return boolType, nil
	case numberGo, bigFloatPtr, bigIntPtr:
		return numberType, nil
	case anyGo:
		return dynamicType, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeOf(t.Elem(), false)
	case reflect.String:
		return stringType, nil
	case reflect.Bool:
		return boolType, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return numberType, nil
	case reflect.Slice:
		e, err := typeOf(t.Elem(), false)
		if err != nil {
			return nil, err
		}
		if set {
			return &tfType{kind: "set", elem: e}, nil
		}
		return &tfType{kind: "list", elem: e}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map keys are strings in Terraform, not %s", t.Key())
		}
		e, err := typeOf(t.Elem(), false)
		if err != nil {
			return nil, err
		}
		return &tfType{kind: "map", elem: e}, nil
	case reflect.Struct:
		m, err := modelOfLocked(t, map[reflect.Type]bool{})
		if err != nil {
			return nil, err
		}
		return m.objectType(), nil
	}
	return nil, fmt.Errorf("%s has no Terraform type; use string, bool, a number type, terrarium.String/Bool/Number, a slice, a map[string]T or a struct", t)
}

// objectType is the object type of the model's values (blocks are attributes of it too).
func (m *model) objectType() *tfType {
	t := &tfType{kind: "object"}
	for _, f := range m.fields {
		t.attrs = append(t.attrs, objectAttr{name: f.name, typ: f.typ, optional: !f.required})
	}
	sortAttrs(t.attrs)
	return t
}

func sortAttrs(a []objectAttr) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].name < a[j-1].name; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// parseValidators reads `length(1,32); one_of(a,b)`.
func parseValidators(text string) ([]validatorSpec, error) {
	var out []validatorSpec
	for _, part := range strings.Split(text, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		open := strings.IndexByte(part, '(')
		if open < 0 || !strings.HasSuffix(part, ")") {
			return nil, fmt.Errorf("validator %q: write it name(args)", part)
		}
		kind := part[:open]
		inner := part[open+1 : len(part)-1]
		var args []string
		if kind == "pattern" {
			args = []string{inner}
		} else if inner != "" {
			for _, a := range strings.Split(inner, ",") {
				args = append(args, strings.TrimSpace(a))
			}
		}
		switch kind {
		case "length", "range", "size":
			if len(args) != 2 {
				return nil, fmt.Errorf("validator %s wants (min,max), got %q", kind, inner)
			}
		case "pattern", "one_of", "conflicts_with", "also_requires", "exactly_one_of", "at_least_one_of":
		case "custom":
			if len(args) != 1 || args[0] == "" {
				return nil, fmt.Errorf("validator custom wants the name of a method, got %q", inner)
			}
		default:
			return nil, fmt.Errorf("unknown validator %q (length, pattern, one_of, range, size, conflicts_with, also_requires, exactly_one_of, at_least_one_of, custom)", kind)
		}
		out = append(out, validatorSpec{kind: kind, args: args})
	}
	return out, nil
}
