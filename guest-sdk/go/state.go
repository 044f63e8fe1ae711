package terrarium

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// PrivateState is the provider-private data kept with a resource's state: Terraform stores it
// and hands it back, but never shows it. Keys map to JSON values; keys starting with `.` are
// reserved for the SDK. Create, Read, Update and Delete get the resource's with
// Private(ctx); what they set is stored with the new state (the Rust SDK's PrivateState, the
// same bytes).
type PrivateState struct {
	entries  map[string]json.RawMessage
	original []byte
	changed  bool
}

// decodePrivate reads stored bytes; anything that is not a JSON object (no private state
// yet, or another SDK's) reads as empty, and is handed back unchanged unless an entry is set.
func decodePrivate(b []byte) *PrivateState {
	p := &PrivateState{entries: map[string]json.RawMessage{}, original: b}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &p.entries); err != nil || p.entries == nil {
			p.entries = map[string]json.RawMessage{}
		}
	}
	return p
}

// encode is the bytes Terraform stores.
func (p *PrivateState) encode() []byte {
	switch {
	case !p.changed:
		if p.original == nil {
			return []byte{}
		}
		return p.original
	case len(p.entries) == 0:
		return []byte{}
	}
	b, err := json.Marshal(p.entries)
	if err != nil {
		return []byte{}
	}
	return b
}

// Get reads the value under key into v (as encoding/json does); false when there is none.
func (p *PrivateState) Get(key string, v any) (bool, error) {
	raw, ok := p.entries[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, NewError("Cannot read private state", key+": "+err.Error())
	}
	return true, nil
}

// Set stores v (JSON-encoded) under key.
func (p *PrivateState) Set(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return NewError("Cannot store private state", key+": "+err.Error())
	}
	p.entries[key] = raw
	p.changed = true
	return nil
}

// Remove removes the value under key.
func (p *PrivateState) Remove(key string) {
	if _, ok := p.entries[key]; ok {
		delete(p.entries, key)
		p.changed = true
	}
}

type privateKey struct{}

// Private is the private state of the resource the call in ctx is about: in Create (what
// the plan kept, empty for a new object), Read, Update and Delete. Outside those calls it is
// an empty PrivateState whose changes are not kept.
func Private(ctx context.Context) *PrivateState {
	if p, ok := ctx.Value(privateKey{}).(*PrivateState); ok {
		return p
	}
	return decodePrivate(nil)
}

func withPrivate(ctx context.Context, p *PrivateState) context.Context {
	return context.WithValue(ctx, privateKey{}, p)
}

// stateError is an error that carries the state a failed create or update reached.
type stateError struct {
	err   error
	state any
}

func (e *stateError) Error() string { return e.err.Error() }
func (e *stateError) Unwrap() error { return e.err }

// WithState is err, carrying the state a failed Create or Update reached: what it made or
// changed before it failed (the resource's state type S, or *S). Terraform records that
// state (tainted, after a create) instead of losing track of the object; unknown values in
// it are stored as null. Any other error leaves the state as it was before the call.
//
//	return server, terrarium.WithState(terrarium.NewError("Server failed to boot", "..."), server)
func WithState(err error, state any) error {
	if err == nil {
		return nil
	}
	return &stateError{err: err, state: state}
}

// reachedState is the state a WithState error carries, as a tree of type S (unknowns
// nulled), or nil when err carries none.
func reachedState[S any](err error) (*tree, error) {
	var se *stateError
	if !errors.As(err, &se) || se.state == nil {
		return nil, nil
	}
	v := reflect.ValueOf(se.state)
	if v.Kind() == reflect.Pointer && v.Type().Elem() == reflect.TypeFor[S]() {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	s, ok := v.Interface().(S)
	if !ok {
		return nil, NewError("Invalid state",
			fmt.Sprintf("WithState was given a %T; give it the resource's state (%s)", se.state, reflect.TypeFor[S]()))
	}
	t, err := encode(s)
	if err != nil {
		return nil, err
	}
	return withoutUnknowns(t), nil
}

// withoutUnknowns is t with every unknown value made null (a state holds no unknowns).
func withoutUnknowns(t *tree) *tree {
	if t == nil {
		return nil
	}
	if t.kind == tUnknown {
		return nullTree
	}
	if len(t.elems) == 0 {
		return t
	}
	out := *t
	out.elems = make([]*tree, len(t.elems))
	for i, e := range t.elems {
		out.elems[i] = withoutUnknowns(e)
	}
	return &out
}

// Stopped is the error Sleep returns when Terraform asks the provider to stop (Ctrl-C).
// Returned from a call it is an error diagnostic that says so; a Create that has made
// something should return WithState(Stopped{}, what it made) instead, so that Terraform
// records it.
type Stopped struct{}

func (Stopped) Error() string {
	return "Operation interrupted: Terraform asked the provider to stop (Ctrl-C), so the operation was not finished"
}

// stopping asks the host (host_wasip1.go); natively nothing stops a call. A variable so that
// the SDK's native tests can run Sleep.
var stopping = hostStopping

// sleepSlice is how often Sleep looks for a stop.
const sleepSlice = 100 * time.Millisecond

// Sleep waits for d, or until Terraform asks the provider to stop: then (and if it already
// had) it returns Stopped at once.
func Sleep(ctx context.Context, d time.Duration) error {
	until := time.Now().Add(d)
	for {
		if Stopping(ctx) {
			return Stopped{}
		}
		left := time.Until(until)
		if left <= 0 {
			return nil
		}
		time.Sleep(min(left, sleepSlice))
	}
}
