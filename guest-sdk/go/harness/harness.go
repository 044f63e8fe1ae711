// Package harness tests a provider without terraform: a Harness drives the built component
// through `terrarium harness` (the repository's docs/harness.md), so a test sees the same
// planner, checks and sandbox as `terraform apply` does. It runs natively, in `go test`, not in
// the component; the names are those of the Python (`terrarium.testing`), TypeScript and Rust
// harnesses.
//
//	h, err := harness.Open("target/pets.wasm", harness.AllowDir(dir+":rw"))
//	defer h.Close()
//	h.Configure(map[string]any{"directory": dir})
//	pet, err := h.Create("pets_pet", map[string]any{"name": "rex"})
//	// pet.State["legs"] is json.Number("4")
//
// Values are plain JSON data (maps, slices, strings, bool, json.Number for numbers, so they
// stay exact); in plans, unknown values are Unknown. A step whose provider reports an error
// returns a *Failure with the diagnostics.
package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Unknown stands for a value that is known only after apply, in a Plan's Planned value.
var Unknown = unknown{}

type unknown struct{}

func (unknown) String() string { return "(known after apply)" }

// Diagnostic is a diagnostic the provider (or the host's checks) reported.
type Diagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
	// Attribute is the path as Terraform prints it (`toys[0].kind`); "" for the whole object.
	Attribute string `json:"attribute"`
}

func (d Diagnostic) String() string {
	at := ""
	if d.Attribute != "" {
		at = " (at " + d.Attribute + ")"
	}
	return fmt.Sprintf("%s: %s%s: %s", d.Severity, d.Summary, at, d.Detail)
}

// Failure is a step that failed: which step, and its error diagnostics.
type Failure struct {
	Step        string
	Diagnostics []Diagnostic
}

func (f *Failure) Error() string {
	lines := []string{f.Step + " failed:"}
	for _, d := range f.Diagnostics {
		lines = append(lines, "  "+d.String())
	}
	return strings.Join(lines, "\n")
}

// Mentions tells whether a diagnostic's summary or detail contains text.
func (f *Failure) Mentions(text string) bool {
	for _, d := range f.Diagnostics {
		if strings.Contains(d.Summary, text) || strings.Contains(d.Detail, text) {
			return true
		}
	}
	return false
}

// FunctionFailed is a provider function's error: its text and the argument at fault (-1 for
// none).
type FunctionFailed struct {
	Text     string
	Argument int
}

func (f *FunctionFailed) Error() string {
	if f.Argument < 0 {
		return f.Text
	}
	return fmt.Sprintf("argument %d: %s", f.Argument, f.Text)
}

// ProtocolError is a request the harness could not make (an unknown type, a value that does
// not fit the schema): a mistake in the test, not in the provider.
type ProtocolError struct{ Text string }

func (e *ProtocolError) Error() string { return "terrarium harness: " + e.Text }

// Plan is a planned change: Planned holds Unknown where the value is not known yet.
type Plan struct {
	Planned         any
	RequiresReplace []string
	Warnings        []Diagnostic
	// PlannedIdentity is the identity the plan promises, for a type with an identity (nil:
	// known only after apply).
	PlannedIdentity any
	raw             map[string]any
}

// Outcome is what a step produced: the state after it (nil after destroy, or when read found
// nothing) and, for steps that plan, the plan.
type Outcome struct {
	State    any
	Plan     *Plan
	Warnings []Diagnostic
	Private  string
	// Identity is the identity stored beside the state, for a type with an identity.
	Identity any
}

// Replaced tells whether the step's plan replaced the object.
func (o *Outcome) Replaced() bool { return o.Plan != nil && len(o.Plan.RequiresReplace) > 0 }

// Option is a grant of the component, as `terrarium install` takes it.
type Option func(*[]string)

// AllowDir grants a directory (`DIR` read-only, `DIR:rw` read-write).
func AllowDir(dir string) Option { return grant("--allow-dir", dir) }

// AllowHTTP grants outbound HTTP to an origin (`https://api.example.com`).
func AllowHTTP(origin string) Option { return grant("--allow-http", origin) }

// AllowEnv grants reading one environment variable.
func AllowEnv(name string) Option { return grant("--allow-env", name) }

func grant(flag, value string) Option {
	return func(args *[]string) { *args = append(*args, flag, value) }
}

// Terrarium is the terrarium binary the harness runs: TERRARIUM_BIN, else `terrarium` on the
// PATH.
func Terrarium() (string, error) {
	if bin := os.Getenv("TERRARIUM_BIN"); bin != "" {
		return bin, nil
	}
	found, err := exec.LookPath("terrarium")
	if err != nil {
		return "", errors.New("no terrarium binary: put it on the PATH or set TERRARIUM_BIN")
	}
	return found, nil
}

// Harness is one provider component, driven as terraform would drive it. Close it when done.
type Harness struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr bytes.Buffer
}

// Open starts `terrarium harness COMPONENT` with the grants given.
func Open(component string, grants ...Option) (*Harness, error) {
	bin, err := Terrarium()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(component); err != nil {
		return nil, fmt.Errorf("the component %s: %w (build it first)", component, err)
	}
	args := []string{"harness", component}
	for _, g := range grants {
		g(&args)
	}
	h := &Harness{cmd: exec.Command(bin, args...)}
	h.cmd.Stderr = &h.stderr
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	h.stdout = bufio.NewReader(out)
	if err := h.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s harness: %w", bin, err)
	}
	return h, nil
}

// Close ends the harness process and waits for it.
func (h *Harness) Close() error {
	if h.stdin == nil {
		return nil
	}
	h.stdin.Close()
	h.stdin = nil
	return h.cmd.Wait()
}

// Request makes one raw protocol request (docs/harness.md) and returns its answer.
func (h *Harness) Request(op string, fields map[string]any) (map[string]any, error) {
	request := map[string]any{"op": op}
	for k, v := range fields {
		request[k] = v
	}
	line, err := json.Marshal(request)
	if err != nil {
		return nil, err
	}
	if h.stdin == nil {
		return nil, &ProtocolError{"the harness is closed"}
	}
	if _, err := h.stdin.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("terrarium harness ended before %s: %w\n%s", line, err, h.stderr.String())
	}
	answer, err := h.stdout.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("terrarium harness ended before answering %s: %w\n%s", line, err, h.stderr.String())
	}
	decoder := json.NewDecoder(bytes.NewReader(answer))
	decoder.UseNumber()
	var parsed map[string]any
	if err := decoder.Decode(&parsed); err != nil {
		return nil, fmt.Errorf("terrarium harness answered %q: %w", answer, err)
	}
	if text, ok := parsed["error"].(string); ok {
		return nil, &ProtocolError{text}
	}
	return parsed, nil
}

func diagnostics(answer map[string]any) []Diagnostic {
	raw, _ := json.Marshal(answer["diagnostics"])
	var out []Diagnostic
	_ = json.Unmarshal(raw, &out)
	return out
}

// split is the warnings of an answer, or a *Failure with its errors.
func split(step string, answer map[string]any) ([]Diagnostic, error) {
	var errs, warnings []Diagnostic
	for _, d := range diagnostics(answer) {
		if d.Severity == "error" {
			errs = append(errs, d)
		} else {
			warnings = append(warnings, d)
		}
	}
	if len(errs) > 0 {
		return warnings, &Failure{Step: step, Diagnostics: errs}
	}
	return warnings, nil
}

// WithUnknowns is value with Unknown wherever the harness's mask says so.
func WithUnknowns(value, mask any) any {
	switch m := mask.(type) {
	case bool:
		if m {
			return Unknown
		}
	case map[string]any:
		if v, ok := value.(map[string]any); ok {
			out := make(map[string]any, len(v))
			for k, e := range v {
				out[k] = WithUnknowns(e, m[k])
			}
			return out
		}
	case []any:
		if v, ok := value.([]any); ok {
			out := make([]any, len(v))
			for i, e := range v {
				if i < len(m) {
					out[i] = WithUnknowns(e, m[i])
				} else {
					out[i] = e
				}
			}
			return out
		}
	}
	return value
}

// Schema is the provider's schema, as `terrarium inspect` prints it.
func (h *Harness) Schema() (map[string]any, error) { return h.Request("schema", nil) }

// Configure validates and configures the provider; its warnings.
func (h *Harness) Configure(config map[string]any) ([]Diagnostic, error) {
	if config == nil {
		config = map[string]any{}
	}
	answer, err := h.Request("configure", map[string]any{"config": config})
	if err != nil {
		return nil, err
	}
	return split("configure", answer)
}

// Validate validates a resource's configuration; its warnings.
func (h *Harness) Validate(typeName string, config map[string]any) ([]Diagnostic, error) {
	return h.validate("resource", typeName, config)
}

func (h *Harness) validate(kind, typeName string, config map[string]any) ([]Diagnostic, error) {
	answer, err := h.Request("validate", map[string]any{"kind": kind, "type": typeName, "config": config})
	if err != nil {
		return nil, err
	}
	return split("validate", answer)
}

// Plan plans a change from prior (nil: create) to config (nil: destroy).
func (h *Harness) Plan(typeName string, prior, config any) (*Plan, error) {
	return h.PlanWithIdentity(typeName, prior, nil, config)
}

// PlanWithIdentity is Plan of an object stored with its identity, as terraform sends it.
func (h *Harness) PlanWithIdentity(typeName string, prior, priorIdentity, config any) (*Plan, error) {
	answer, err := h.Request("plan", map[string]any{"type": typeName, "prior": prior, "prior_identity": priorIdentity,
		"config": config})
	if err != nil {
		return nil, err
	}
	warnings, err := split("plan", answer)
	if err != nil {
		return nil, err
	}
	var replace []string
	if paths, ok := answer["requires_replace"].([]any); ok {
		for _, p := range paths {
			replace = append(replace, fmt.Sprint(p))
		}
	}
	return &Plan{
		Planned:         WithUnknowns(answer["planned"], answer["planned_unknown"]),
		RequiresReplace: replace,
		Warnings:        warnings,
		PlannedIdentity: answer["planned_identity"],
		raw:             answer,
	}, nil
}

// Apply applies a plan from Plan.
func (h *Harness) Apply(typeName string, prior any, plan *Plan, config any) (*Outcome, error) {
	answer, err := h.Request("apply", map[string]any{
		"type":             typeName,
		"prior":            prior,
		"planned":          plan.raw["planned"],
		"planned_unknown":  plan.raw["planned_unknown"],
		"planned_private":  plan.raw["planned_private"],
		"planned_identity": plan.raw["planned_identity"],
		"config":           config,
	})
	if err != nil {
		return nil, err
	}
	warnings, err := split("apply", answer)
	if err != nil {
		return nil, err
	}
	private, _ := answer["private"].(string)
	return &Outcome{State: answer["state"], Plan: plan, Warnings: append(plan.Warnings, warnings...), Private: private,
		Identity: answer["identity"]}, nil
}

// Read refreshes a state; the Outcome's State is nil when the object is gone.
func (h *Harness) Read(typeName string, state any, private string) (*Outcome, error) {
	return h.ReadWithIdentity(typeName, state, private, nil)
}

// ReadWithIdentity is Read of an object stored with its identity, as terraform sends it.
func (h *Harness) ReadWithIdentity(typeName string, state any, private string, identity any) (*Outcome, error) {
	answer, err := h.Request("read", map[string]any{"type": typeName, "state": state, "private": private,
		"identity": identity})
	if err != nil {
		return nil, err
	}
	warnings, err := split("read", answer)
	if err != nil {
		return nil, err
	}
	newPrivate, _ := answer["private"].(string)
	return &Outcome{State: answer["state"], Warnings: warnings, Private: newPrivate, Identity: answer["identity"]}, nil
}

// ReadData validates a data source's configuration and reads it.
func (h *Harness) ReadData(typeName string, config map[string]any) (*Outcome, error) {
	if _, err := h.validate("data_source", typeName, config); err != nil {
		return nil, err
	}
	answer, err := h.Request("read_data", map[string]any{"type": typeName, "config": config})
	if err != nil {
		return nil, err
	}
	warnings, err := split("read", answer)
	if err != nil {
		return nil, err
	}
	return &Outcome{State: answer["state"], Warnings: warnings}, nil
}

// Call calls a provider function; its error is a *FunctionFailed.
func (h *Harness) Call(function string, arguments ...any) (any, error) {
	if arguments == nil {
		arguments = []any{}
	}
	answer, err := h.Request("call", map[string]any{"function": function, "arguments": arguments})
	if err != nil {
		return nil, err
	}
	if failed, ok := answer["function_error"].(map[string]any); ok {
		text, _ := failed["text"].(string)
		argument := -1
		if n, ok := failed["argument"].(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				argument = int(i)
			}
		}
		return nil, &FunctionFailed{Text: text, Argument: argument}
	}
	return answer["result"], nil
}

// Create validates, plans and applies a new object.
func (h *Harness) Create(typeName string, config map[string]any) (*Outcome, error) {
	if _, err := h.Validate(typeName, config); err != nil {
		return nil, err
	}
	plan, err := h.Plan(typeName, nil, config)
	if err != nil {
		return nil, err
	}
	return h.Apply(typeName, nil, plan, config)
}

// Update validates, plans and applies a change; a plan that requires replacement destroys the
// object and creates it anew, as terraform does.
func (h *Harness) Update(typeName string, state any, config map[string]any) (*Outcome, error) {
	if _, err := h.Validate(typeName, config); err != nil {
		return nil, err
	}
	plan, err := h.Plan(typeName, state, config)
	if err != nil {
		return nil, err
	}
	if len(plan.RequiresReplace) == 0 {
		return h.Apply(typeName, state, plan, config)
	}
	if _, err := h.Destroy(typeName, state); err != nil {
		return nil, err
	}
	created, err := h.Create(typeName, config)
	if err != nil {
		return nil, err
	}
	return &Outcome{State: created.State, Plan: plan, Warnings: append(plan.Warnings, created.Warnings...), Private: created.Private}, nil
}

// Destroy plans and applies the destruction of an object.
func (h *Harness) Destroy(typeName string, state any) (*Outcome, error) {
	plan, err := h.Plan(typeName, state, nil)
	if err != nil {
		return nil, err
	}
	return h.Apply(typeName, state, plan, nil)
}

// Import imports id and reads it, as `terraform import` does.
func (h *Harness) Import(typeName, id string) (*Outcome, error) {
	return h.importing(typeName, map[string]any{"type": typeName, "id": id}, id)
}

// ImportByIdentity imports the object with this identity and reads it, as an `import { to =
// ...  identity = {...} }` block does (the Rust harness's import_by_identity).
func (h *Harness) ImportByIdentity(typeName string, identity map[string]any) (*Outcome, error) {
	return h.importing(typeName, map[string]any{"type": typeName, "identity": identity}, fmt.Sprint(identity))
}

func (h *Harness) importing(typeName string, request map[string]any, what string) (*Outcome, error) {
	answer, err := h.Request("import", request)
	if err != nil {
		return nil, err
	}
	warnings, err := split("import", answer)
	if err != nil {
		return nil, err
	}
	imported, _ := answer["imported"].([]any)
	if len(imported) == 0 {
		return nil, &Failure{Step: "import", Diagnostics: []Diagnostic{{Severity: "error", Summary: "Nothing imported", Detail: what + " imported no object"}}}
	}
	first, _ := imported[0].(map[string]any)
	private, _ := first["private"].(string)
	read, err := h.ReadWithIdentity(typeName, first["state"], private, first["identity"])
	if err != nil {
		return nil, err
	}
	if read.State == nil {
		return nil, &Failure{Step: "import", Diagnostics: []Diagnostic{{Severity: "error", Summary: "Cannot import non-existent remote object", Detail: what + " was imported but read found nothing"}}}
	}
	return &Outcome{State: read.State, Warnings: append(warnings, read.Warnings...), Private: read.Private,
		Identity: read.Identity}, nil
}

// ListItem is one object a list resource found: its identity, the name people see, and its
// state when the listing asked for resource objects (nil otherwise).
type ListItem struct {
	Identity    any
	DisplayName string
	State       any
}

// Listing is what a list resource found, in the order it found it, and its warnings.
type Listing struct {
	Items    []ListItem
	Warnings []Diagnostic
}

// DisplayNames are the items' display names, in order.
func (l *Listing) DisplayNames() []string {
	names := make([]string, len(l.Items))
	for i, item := range l.Items {
		names[i] = item.DisplayName
	}
	return names
}

// List validates config (the list block's `config`) and lists, as `terraform query` does,
// with resource objects and no limit.
func (h *Harness) List(typeName string, config map[string]any) (*Listing, error) {
	return h.ListWith(typeName, config, true, 0)
}

// ListWith is List, saying whether items carry resource objects (`include_resource`) and how
// many terraform reads (`limit`; 0: all).
func (h *Harness) ListWith(typeName string, config map[string]any, includeResource bool, limit int64) (*Listing, error) {
	if config == nil {
		config = map[string]any{}
	}
	answer, err := h.Request("list", map[string]any{"type": typeName, "config": config,
		"include_resource": includeResource, "limit": limit})
	if err != nil {
		return nil, err
	}
	warnings, err := split("list", answer)
	if err != nil {
		return nil, err
	}
	listing := &Listing{Warnings: warnings}
	items, _ := answer["items"].([]any)
	for _, raw := range items {
		item, _ := raw.(map[string]any)
		name, _ := item["display_name"].(string)
		listing.Items = append(listing.Items, ListItem{Identity: item["identity"], DisplayName: name, State: item["state"]})
	}
	return listing, nil
}
