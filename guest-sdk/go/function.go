package terrarium

import (
	"context"
	"errors"
	"fmt"
	"reflect"
)

// Function is a provider function (`provider::NAME::FUNCTION(...)` in Terraform), made by
// NewFunction.
type Function struct {
	name        string
	fn          reflect.Value
	params      []string
	summary     string
	description string
	err         error
}

var (
	contextGo = reflect.TypeFor[context.Context]()
	errorGo   = reflect.TypeFor[error]()
)

// NewFunction is the provider function name running fn, a Go function
// `func(ctx context.Context, a A, b B, ...) (R, error)` whose parameters are named params, in
// order. The parameter and result types are Terraform types as in schema structs; a pointer
// parameter accepts null. Return a *FunctionError (ArgumentError) for bad arguments.
func NewFunction(name string, fn any, params ...string) Function {
	f := Function{name: name, fn: reflect.ValueOf(fn), params: params}
	t := f.fn.Type()
	switch {
	case t.Kind() != reflect.Func:
		f.err = fmt.Errorf("function %s: %T is not a Go function", name, fn)
	case t.NumIn() == 0 || t.In(0) != contextGo:
		f.err = fmt.Errorf("function %s: the first parameter must be a context.Context", name)
	case t.NumIn()-1 != len(params):
		f.err = fmt.Errorf("function %s: it has %d parameters after the context and %d names", name, t.NumIn()-1, len(params))
	case t.NumOut() != 2 || t.Out(1) != errorGo:
		f.err = fmt.Errorf("function %s: it must return (result, error)", name)
	}
	return f
}

// WithSummary is the function with a one-line summary (its documentation's description).
func (f Function) WithSummary(s string) Function { f.summary = s; return f }

// WithDescription is the function with a longer description.
func (f Function) WithDescription(s string) Function { f.description = s; return f }

func (f *Function) paramType(i int) (*tfType, bool, error) {
	t := f.fn.Type().In(i + 1)
	nullable := t.Kind() == reflect.Pointer
	if nullable {
		t = t.Elem()
	}
	typ, err := typeOf(t, false)
	return typ, nullable, err
}

func (f *Function) returnType() (*tfType, error) {
	return typeOf(f.fn.Type().Out(0), false)
}

// call runs the function on argument trees.
func (f *Function) call(ctx context.Context, args []*tree) (*tree, *FunctionError) {
	if f.err != nil {
		return nil, &FunctionError{Text: f.err.Error()}
	}
	t := f.fn.Type()
	if len(args) != len(f.params) {
		return nil, &FunctionError{Text: fmt.Sprintf("%s takes %d arguments, got %d", f.name, len(f.params), len(args))}
	}
	in := []reflect.Value{reflect.ValueOf(ctx)}
	for i, a := range args {
		v := reflect.New(t.In(i + 1)).Elem()
		if err := decodeInto(a, v, Path{Attr(f.params[i])}); err != nil {
			return nil, ArgumentError(i, err.Error())
		}
		in = append(in, v)
	}
	out := f.fn.Call(in)
	if err, _ := out[1].Interface().(error); err != nil {
		var fe *FunctionError
		if errors.As(err, &fe) {
			return nil, fe
		}
		return nil, &FunctionError{Text: fmt.Sprintf("%s failed: %v", f.name, err)}
	}
	rt, err := f.returnType()
	if err != nil {
		return nil, &FunctionError{Text: err.Error()}
	}
	result, err := encodeValue(out[0], rt, nil)
	if err != nil {
		return nil, &FunctionError{Text: err.Error()}
	}
	return result, nil
}
