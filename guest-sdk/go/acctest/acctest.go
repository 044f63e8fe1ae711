// Package acctest runs acceptance tests of a provider with a real terraform: a TestCase
// installs the built component with `terrarium install` into a filesystem mirror of its own,
// then applies each Step's configuration and checks the state, as Terrarium's Rust
// `terrarium-acctest` (and terraform-plugin-testing) do. It runs natively, in `go test`.
//
//	acctest.TestCase{
//		Provider: acctest.Provider{Component: "target/pets.wasm", Source: "example/pets"},
//		Steps: []acctest.Step{{
//			Config: `resource "pets_pet" "rex" { name = "rex" }`,
//			Checks: []acctest.Check{acctest.Attr("pets_pet.rex", "legs", 4)},
//		}},
//	}.Run(t)
//
// terraform is TERRAFORM, else `terraform` on the PATH; terrarium is TERRARIUM_BIN, else
// `terrarium` on the PATH.
package acctest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"terrarium.dev/sdk/harness"
)

// Provider is the component under test and the address configurations give it.
type Provider struct {
	// Component is the built .wasm file.
	Component string
	// Source is the provider's source address ([HOST/]NAMESPACE/NAME).
	Source string
	// Version is the version it is installed as (default 0.1.0).
	Version string
	// Grants are `terrarium install` arguments (`--allow-dir`, `DIR:rw`, ...).
	Grants []string
}

func (p Provider) version() string {
	if p.Version == "" {
		return "0.1.0"
	}
	return p.Version
}

// name is the provider's local name: the last part of its source.
func (p Provider) name() string { return p.Source[strings.LastIndex(p.Source, "/")+1:] }

// Check checks the state after a step: the values of `terraform show -json`.
type Check func(state map[string]any) error

// Step is one configuration, applied; its checks run on the state after it. With ExpectError
// the apply must fail with that text in its errors (whitespace compared loosely, as terraform
// wraps lines) and the checks are not run.
type Step struct {
	Config      string
	Checks      []Check
	ExpectError string
}

// TestCase is a provider and the steps applied with it, in order, then destroyed.
type TestCase struct {
	Provider Provider
	Steps    []Step
}

// Run runs every step, then destroys; the first failure fails the test with the step's number
// and terraform's output. After each step that applies, a plan must find nothing left to do.
func (c TestCase) Run(t testing.TB) {
	t.Helper()
	if err := c.run(t.TempDir()); err != nil {
		t.Fatal(err)
	}
}

// Terraform is the terraform the tests run: TERRAFORM, else `terraform` on the PATH.
func Terraform() (string, error) {
	if bin := os.Getenv("TERRAFORM"); bin != "" {
		return bin, nil
	}
	found, err := exec.LookPath("terraform")
	if err != nil {
		return "", errors.New("no terraform binary: put it on the PATH or set TERRAFORM")
	}
	return found, nil
}

type workspace struct {
	dir, terraform string
	env            []string
}

// run runs terraform with args; its combined output, and whether it succeeded.
func (w workspace) run(args ...string) (string, bool) {
	cmd := exec.Command(w.terraform, args...)
	cmd.Dir = w.dir
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func (c TestCase) run(dir string) error {
	terraform, err := Terraform()
	if err != nil {
		return err
	}
	terrarium, err := harness.Terrarium()
	if err != nil {
		return err
	}
	p := c.Provider
	component, err := filepath.Abs(p.Component)
	if err != nil {
		return err
	}
	mirror := filepath.Join(dir, "mirror")
	install := exec.Command(terrarium, append([]string{"install", component, "--source", p.Source,
		"--version", p.version(), "--mirror", mirror}, p.Grants...)...)
	if out, err := install.CombinedOutput(); err != nil {
		return fmt.Errorf("terrarium install %s: %w\n%s", component, err, out)
	}
	cliConfig := filepath.Join(dir, "terraform.tfrc")
	text := fmt.Sprintf("disable_checkpoint = true\n\nprovider_installation {\n  filesystem_mirror {\n"+
		"    path    = %s\n    include = [%s]\n  }\n}\n", strconv.Quote(mirror), strconv.Quote(p.Source))
	if err := os.WriteFile(cliConfig, []byte(text), 0o644); err != nil {
		return err
	}
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		return err
	}
	w := workspace{dir: work, terraform: terraform, env: append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		"TF_PLUGIN_CACHE_DIR=", "TF_DATA_DIR="+filepath.Join(work, ".terraform"))}
	header := fmt.Sprintf("terraform {\n  required_providers {\n    %s = {\n      source  = %s\n"+
		"      version = %s\n    }\n  }\n}\n", p.name(), strconv.Quote(p.Source), strconv.Quote(p.version()))
	write := func(config string) error {
		return os.WriteFile(filepath.Join(work, "main.tf"), []byte(config), 0o644)
	}
	lastApplied := header
	for i, step := range c.Steps {
		n := i + 1
		config := header + "\n" + step.Config + "\n"
		if err := write(config); err != nil {
			return err
		}
		if i == 0 {
			if out, ok := w.run("init", "-input=false", "-no-color"); !ok {
				return fmt.Errorf("step %d: terraform init failed\n%s", n, out)
			}
		}
		out, ok := w.run("apply", "-input=false", "-no-color", "-auto-approve")
		if step.ExpectError != "" {
			if ok {
				return fmt.Errorf("step %d: expected an error, the apply succeeded\n%s", n, out)
			}
			if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(step.ExpectError), " ")) {
				return fmt.Errorf("step %d: expected %q in the errors\n%s", n, step.ExpectError, out)
			}
			continue
		}
		if !ok {
			return fmt.Errorf("step %d: apply failed\n%s", n, out)
		}
		lastApplied = config
		state, err := w.state()
		if err != nil {
			return fmt.Errorf("step %d: %w", n, err)
		}
		for _, check := range step.Checks {
			if err := check(state); err != nil {
				shown, _ := json.MarshalIndent(state, "", "  ")
				return fmt.Errorf("step %d: %w\nstate:\n%s", n, err, shown)
			}
		}
		if out, ok := w.run("plan", "-input=false", "-no-color", "-detailed-exitcode"); !ok {
			return fmt.Errorf("step %d: the plan after apply is not empty (or failed)\n%s", n, out)
		}
	}
	if err := write(lastApplied); err != nil {
		return err
	}
	if out, ok := w.run("destroy", "-input=false", "-no-color", "-auto-approve"); !ok {
		return fmt.Errorf("destroy failed\n%s", out)
	}
	return nil
}

// state is `terraform show -json`'s values.
func (w workspace) state() (map[string]any, error) {
	cmd := exec.Command(w.terraform, "show", "-json")
	cmd.Dir, cmd.Env = w.dir, w.env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("terraform show -json: %w", err)
	}
	decoder := json.NewDecoder(bytes.NewReader(out))
	decoder.UseNumber()
	var shown struct {
		Values map[string]any `json:"values"`
	}
	if err := decoder.Decode(&shown); err != nil {
		return nil, fmt.Errorf("terraform show -json: %w", err)
	}
	return shown.Values, nil
}

// resource is the values of the resource (or `data.` source) at address in the state.
func resource(state map[string]any, address string) (map[string]any, error) {
	root, _ := state["root_module"].(map[string]any)
	resources, _ := root["resources"].([]any)
	for _, r := range resources {
		r, _ := r.(map[string]any)
		if r["address"] == address {
			values, _ := r["values"].(map[string]any)
			return values, nil
		}
	}
	return nil, fmt.Errorf("no %s in the state", address)
}

// lookup follows a path of attribute names and list indexes (`toys.0.kind`).
func lookup(values map[string]any, path string) (any, bool) {
	var at any = values
	for _, part := range strings.Split(path, ".") {
		switch v := at.(type) {
		case map[string]any:
			next, ok := v[part]
			if !ok {
				return nil, false
			}
			at = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			at = v[i]
		default:
			return nil, false
		}
	}
	return at, true
}

// Attr checks that the attribute at path (`name`, `toys.0.kind`) of the resource at address
// (`pets_pet.rex`, `data.pets_pet.rex`) is expected (compared as JSON: 4 equals 4.0).
func Attr(address, path string, expected any) Check {
	return func(state map[string]any) error {
		values, err := resource(state, address)
		if err != nil {
			return err
		}
		actual, ok := lookup(values, path)
		if !ok {
			return fmt.Errorf("%s has no %s", address, path)
		}
		want, err := json.Marshal(expected)
		if err != nil {
			return err
		}
		got, _ := json.Marshal(actual)
		var wantValue, gotValue any
		_ = json.Unmarshal(want, &wantValue)
		_ = json.Unmarshal(got, &gotValue)
		if fmt.Sprint(wantValue) != fmt.Sprint(gotValue) {
			return fmt.Errorf("%s.%s is %s, expected %s", address, path, got, want)
		}
		return nil
	}
}

// AttrSet checks that the attribute at path of the resource at address is set (not null).
func AttrSet(address, path string) Check {
	return func(state map[string]any) error {
		values, err := resource(state, address)
		if err != nil {
			return err
		}
		if actual, ok := lookup(values, path); !ok || actual == nil {
			return fmt.Errorf("%s.%s is not set", address, path)
		}
		return nil
	}
}

// Output checks that the root module's output name is expected (compared as JSON).
func Output(name string, expected any) Check {
	return func(state map[string]any) error {
		outputs, _ := state["outputs"].(map[string]any)
		output, ok := outputs[name].(map[string]any)
		if !ok {
			return fmt.Errorf("no output %s", name)
		}
		return Attr("output", "value", expected)(map[string]any{"root_module": map[string]any{
			"resources": []any{map[string]any{"address": "output", "values": output}}}})
	}
}
