package terrarium

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Severity says whether a diagnostic stops Terraform (Error) or only informs (Warning).
type Severity int

const (
	// Error stops the operation; Terraform shows it and exits non-zero.
	Error Severity = iota
	// Warning is shown and the operation goes on.
	Warning
)

// Step is one step of an attribute path: an attribute name, a map key or a list index. Make
// one with Attr, Key or Index.
type Step struct {
	kind  stepKind
	name  string
	index int64
}

type stepKind int

const (
	stepAttr stepKind = iota
	stepKey
	stepIndex
)

// Attr is the step to the attribute (or nested block) name.
func Attr(name string) Step { return Step{kind: stepAttr, name: name} }

// Key is the step to the element of a map with this key.
func Key(key string) Step { return Step{kind: stepKey, name: key} }

// Index is the step to the element of a list at this index (from 0).
func Index(i int) Step { return Step{kind: stepIndex, index: int64(i)} }

// Path is where in a value a diagnostic points: Path{Attr("owner"), Attr("name")} is
// `owner.name`. An empty path is the whole object.
type Path []Step

// String writes the path as Terraform shows it: owner.name, toys[0], tags["a"].
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch s.kind {
		case stepAttr:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		case stepKey:
			fmt.Fprintf(&b, "[%q]", s.name)
		case stepIndex:
			fmt.Fprintf(&b, "[%d]", s.index)
		}
	}
	return b.String()
}

// Diagnostic is a problem (or a warning) Terraform shows the user. A *Diagnostic is an
// error: return it from any call and it reaches Terraform as written, at its path.
type Diagnostic struct {
	Severity Severity
	Summary  string
	Detail   string
	// Path is the attribute the diagnostic is about; empty for the whole object.
	Path Path
}

// NewError is an error diagnostic with a summary (a short title) and a detail (what is
// wrong and what to do).
func NewError(summary, detail string) *Diagnostic {
	return &Diagnostic{Severity: Error, Summary: summary, Detail: detail}
}

// At places the diagnostic at an attribute: NewError(...).At(Attr("directory")).
func (d *Diagnostic) At(steps ...Step) *Diagnostic {
	d.Path = append(Path(nil), steps...)
	return d
}

func (d *Diagnostic) Error() string {
	if len(d.Path) > 0 {
		return fmt.Sprintf("%s: %s (at %s)", d.Summary, d.Detail, d.Path)
	}
	return fmt.Sprintf("%s: %s", d.Summary, d.Detail)
}

// Diagnostics is an error made of several diagnostics (errors.Join of *Diagnostic works too).
type Diagnostics []*Diagnostic

func (ds Diagnostics) Error() string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Error()
	}
	return strings.Join(parts, "; ")
}

// HasError says whether any of the diagnostics is an error.
func (ds Diagnostics) HasError() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// diagnosticsOf turns an error returned by provider code into diagnostics: *Diagnostic and
// Diagnostics as they are (also inside errors.Join, or wrapped with %w), anything else as one
// error diagnostic "<what> failed" with the error's text.
func diagnosticsOf(what string, err error) Diagnostics {
	switch e := err.(type) {
	case nil:
		return nil
	case *Diagnostic:
		return Diagnostics{e}
	case Diagnostics:
		return e
	case *stateError:
		return diagnosticsOf(what, e.err)
	case Stopped:
		return Diagnostics{NewError("Operation interrupted",
			"Terraform asked the provider to stop (Ctrl-C), so the operation was not finished.")}
	case *DeferredError:
		// Calls that can be deferred take the deferral out first (guardDeferrable).
		return Diagnostics{NewError("Provider asked to defer a call that cannot be deferred", fmt.Sprintf(
			"%s answered \"not yet\" (%s) where Terraform has no deferral: only read, plan and import can be "+
				"deferred. This is a bug in the provider.", what, e.Reason))}
	case interface{ Unwrap() []error }:
		var out Diagnostics
		for _, inner := range e.Unwrap() {
			out = append(out, diagnosticsOf(what, inner)...)
		}
		return out
	}
	var d *Diagnostic
	if errors.As(err, &d) {
		return Diagnostics{d}
	}
	var ds Diagnostics
	if errors.As(err, &ds) {
		return ds
	}
	if errors.As(err, &Stopped{}) {
		return diagnosticsOf(what, Stopped{})
	}
	var deferred *DeferredError
	if errors.As(err, &deferred) {
		return diagnosticsOf(what, deferred)
	}
	return Diagnostics{{Severity: Error, Summary: what + " failed", Detail: err.Error()}}
}

type warningsKey struct{}

// Warn adds a warning diagnostic to the answer of the call ctx belongs to.
func Warn(ctx context.Context, summary, detail string, path ...Step) {
	if w, ok := ctx.Value(warningsKey{}).(*Diagnostics); ok {
		*w = append(*w, &Diagnostic{Severity: Warning, Summary: summary, Detail: detail, Path: append(Path(nil), path...)})
	}
}

// FunctionError is what a provider function returns for bad arguments: Terraform shows the
// text, pointing at argument Argument (from 0) when it is not nil.
type FunctionError struct {
	Text     string
	Argument *int
}

func (e *FunctionError) Error() string { return e.Text }

// ArgumentError is a FunctionError about argument i (from 0).
func ArgumentError(i int, text string) *FunctionError {
	return &FunctionError{Text: text, Argument: &i}
}
