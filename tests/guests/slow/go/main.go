// `terrarium/slow` in Go: the slow_server of tests/guests/slow (Rust), for the conformance
// rows the Go SDK can run: what each SDK does when a create fails or is stopped part of the
// way.
//
// slow_server stands for a cloud server: create "starts" it at once (its id exists from then
// on) and then waits boot_seconds for it to boot (terrarium.Sleep). When Terraform is stopped
// (the first Ctrl-C) during the wait, create returns the server as it is, ready = false, so
// that Terraform records it instead of losing track of it. With fail_boot = true the server
// never comes up: create fails and keeps the started server with the error
// (terrarium.WithState), so Terraform records it as tainted. A server with protect = true
// refuses to be destroyed at plan time (PlanDestroy). Import takes `server-N`; a `moved` block
// takes a terraform_data (Go only). The ephemeral slow_lease is a token on a lease of seconds,
// renewed while Terraform uses it and closed when it is done; both are logged. slow_tag (Go
// only) exercises the Go SDK's hooks; the action slow_reboot reboots a server in steps,
// reporting each (the conformance row of actions). slow_server's
// schema is at version 1: version 0 called boot_seconds `boot` (the state-upgrade row).
// With report_url, create reports with a GET once it stops waiting (after a stop the SDK's
// transport sends nothing), and slow_page fetches a URL through the sandbox's HTTP grants:
// both are ordinary net/http.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"terrarium.dev/sdk"
	// net/http goes through the sandbox's HTTP grants (http.DefaultTransport).
	_ "terrarium.dev/sdk/wasihttp"
)

// Server is the state of a slow_server.
type Server struct {
	ID          terrarium.String `tf:"id,computed,use_state_for_unknown"`
	BootSeconds int64            `tf:"boot_seconds,requires_replace" doc:"How long the server takes to boot."`
	FailBoot    *bool            `tf:"fail_boot,requires_replace" doc:"Makes the server fail to boot."`
	Ready       terrarium.Bool   `tf:"ready,computed" doc:"Whether it finished booting before create returned."`
	Protect     *bool            `tf:"protect" doc:"Refuses to be destroyed while true."`
	ReportURL   *string          `tf:"report_url" doc:"Where create reports, with a GET, once it stops waiting for the boot."`
}

type serverResource struct{}

func (serverResource) Create(ctx context.Context, planned Server) (Server, error) {
	// The server exists from here on.
	planned.ID = terrarium.StringValue(fmt.Sprintf("server-%d", planned.BootSeconds))
	log := terrarium.Logger(ctx)
	log.Info("slow_server started", "id", planned.ID.Value())
	if planned.FailBoot != nil && *planned.FailBoot {
		planned.Ready = terrarium.BoolValue(false)
		return planned, terrarium.WithState(terrarium.NewError("Server failed to boot",
			"The server was started but never answered; it is kept so that the next apply replaces it"), planned)
	}
	err := terrarium.Sleep(ctx, secondsOf(planned.BootSeconds))
	switch {
	case errors.Is(err, terrarium.Stopped{}):
		log.Info("slow_server: Terraform is stopping; returning the server as it is", "id", planned.ID.Value())
		planned.Ready = terrarium.BoolValue(false)
	case err != nil:
		return Server{}, err
	default:
		planned.Ready = terrarium.BoolValue(true)
	}
	if planned.ReportURL != nil {
		// After a stop the SDK sends nothing: this fails at once.
		client := http.Client{Timeout: 10 * time.Second}
		if response, err := client.Get(*planned.ReportURL); err != nil {
			log.Info("slow_server: no report", "error", err.Error())
		} else {
			response.Body.Close()
		}
	}
	return planned, nil
}

// ImportState imports `server-N`, a server that boots in N seconds and is up.
func (serverResource) ImportState(_ context.Context, id string) (Server, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "server-"), 10, 64)
	if !strings.HasPrefix(id, "server-") || err != nil || n < 0 {
		return Server{}, terrarium.NewError("Cannot import", fmt.Sprintf("%q is not a server id (server-N)", id))
	}
	return Server{ID: terrarium.StringValue(id), BootSeconds: n, Ready: terrarium.BoolValue(true)}, nil
}

// SchemaVersion is 1: version 0 called boot_seconds `boot`.
func (serverResource) SchemaVersion() int64 { return 1 }

// UpgradeState renames version 0's `boot` to boot_seconds.
func (serverResource) UpgradeState(_ context.Context, _ int64, raw map[string]any) (map[string]any, error) {
	raw["boot_seconds"] = raw["boot"]
	delete(raw, "boot")
	return raw, nil
}

// PlanDestroy refuses to destroy a server with protect = true, at plan time.
func (serverResource) PlanDestroy(_ context.Context, prior Server) error {
	if prior.Protect != nil && *prior.Protect {
		return terrarium.NewError("Server is protected", "Set protect = false and apply before destroying it.")
	}
	return nil
}

// terraformData is what slow_server reads of a terraform_data's state.
type terraformData struct {
	ID string `tf:"id"`
}

// MoveState takes a terraform_data (`moved { from = terraform_data.x  to = slow_server.x }`):
// a server that boots at once, named after the terraform_data's id. (Go only: the e2e test
// of moved for the Go SDK.)
func (serverResource) MoveState(_ context.Context, source terrarium.MoveSource) (Server, error) {
	if source.TypeName != "terraform_data" {
		return Server{}, terrarium.NewError("Cannot move resource state",
			"slow_server takes the state of a terraform_data, not of a "+source.TypeName)
	}
	var data terraformData
	if err := source.Decode(&data); err != nil {
		return Server{}, err
	}
	return Server{ID: terrarium.StringValue("server-from-" + data.ID), Ready: terrarium.BoolValue(true)}, nil
}

func (serverResource) Read(_ context.Context, current Server) (*Server, error) {
	// Nothing outside Terraform's state to look at: keep the state as it is.
	return &current, nil
}

func (serverResource) Update(_ context.Context, _, planned Server) (Server, error) {
	return planned, nil
}

func (serverResource) Delete(context.Context, Server) error {
	// The server is imaginary: nothing to delete.
	return nil
}

// LeaseData is slow_lease: a token on a lease of seconds, renewed while Terraform uses it.
type LeaseData struct {
	Seconds int64            `tf:"seconds" doc:"How long each lease lasts."`
	Token   terrarium.String `tf:"token,computed" doc:"The leased token."`
}

type leaseResource struct{}

func renewAfter(seconds int64) time.Time { return time.Now().Add(secondsOf(max(seconds, 1))) }

func (leaseResource) Open(ctx context.Context, config LeaseData) (terrarium.Opened[LeaseData], error) {
	terrarium.Logger(ctx).Info("slow_lease opened", "seconds", config.Seconds)
	config.Token = terrarium.StringValue(fmt.Sprintf("token-%d", config.Seconds))
	return terrarium.Opened[LeaseData]{Result: config, Private: []byte(strconv.FormatInt(config.Seconds, 10)),
		RenewAt: renewAfter(config.Seconds)}, nil
}

// leaseSeconds is the lease's length, kept in its private data.
func leaseSeconds(private []byte) int64 {
	n, err := strconv.ParseInt(string(private), 10, 64)
	if err != nil {
		return 1
	}
	return n
}

func (leaseResource) Renew(ctx context.Context, private []byte) (terrarium.Renewed, error) {
	terrarium.Logger(ctx).Info("slow_lease renewed", "seconds", leaseSeconds(private))
	return terrarium.Renewed{Private: private, RenewAt: renewAfter(leaseSeconds(private))}, nil
}

func (leaseResource) Close(ctx context.Context, private []byte) error {
	terrarium.Logger(ctx).Info("slow_lease closed", "seconds", leaseSeconds(private))
	return nil
}

// Tag is slow_tag (Go only): a resource whose label defaults to what a hook computes and
// whose name a custom validator checks, for the e2e test of the Go SDK's hooks.
type Tag struct {
	Name  string           `tf:"name" validate:"custom(unreserved)"`
	Label terrarium.String `tf:"label" default_func:"label"`
}

// ComputeDefault is the label of a tag that the configuration leaves unset: `NAME-label`.
func (t Tag) ComputeDefault(_ context.Context, name string) (any, error) {
	return terrarium.StringValue(t.Name + "-label"), nil
}

// ValidateValue refuses the reserved name `admin`.
func (Tag) ValidateValue(_ context.Context, name string, value any) error {
	if value.(string) == "admin" {
		return terrarium.NewError("Reserved name", "admin is reserved; choose another name")
	}
	return nil
}

type tagResource struct{}

func (tagResource) Create(_ context.Context, planned Tag) (Tag, error) { return planned, nil }
func (tagResource) Read(_ context.Context, current Tag) (*Tag, error)  { return &current, nil }
func (tagResource) Update(_ context.Context, _, planned Tag) (Tag, error) {
	return planned, nil
}
func (tagResource) Delete(context.Context, Tag) error { return nil }

// Page is slow_page: a URL's status and text, fetched through the sandbox's HTTP grants.
type Page struct {
	URL    string  `tf:"url" doc:"What to fetch."`
	Status *int64  `tf:"status,computed" doc:"The HTTP status."`
	Text   *string `tf:"text,computed" doc:"The body, as text."`
}

type pageData struct{}

// Read fetches the page: a refused origin fails with a diagnostic that says how to grant it.
func (pageData) Read(_ context.Context, config Page) (Page, error) {
	client := http.Client{Timeout: 10 * time.Second}
	response, err := client.Get(config.URL)
	if err != nil {
		return Page{}, err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		return Page{}, err
	}
	status, text := int64(response.StatusCode), string(body)
	config.Status, config.Text = &status, &text
	return config, nil
}

// Reboot is the configuration of the action slow_reboot: it reboots a server in `steps`,
// reporting each.
type Reboot struct {
	ServerID string           `tf:"server_id"`
	Steps    terrarium.Number `tf:"steps"`
}

type rebootAction struct{}

func (rebootAction) Invoke(_ context.Context, config Reboot, progress terrarium.Progress) error {
	n, _ := config.Steps.Int64()
	for i := int64(1); i <= n; i++ {
		progress.Report(fmt.Sprintf("rebooting %s: step %d/%d", config.ServerID, i, n))
	}
	return nil
}

func init() {
	terrarium.Export(terrarium.Provider[struct{}]{
		Resources: []terrarium.ResourceType{
			terrarium.NewResource[Server]("slow_server", serverResource{}),
			terrarium.NewResource[Tag]("slow_tag", tagResource{}),
		},
		DataSources: []terrarium.DataSourceType{terrarium.NewDataSource[Page]("slow_page", pageData{})},
		Actions:     []terrarium.ActionType{terrarium.NewAction[Reboot]("slow_reboot", rebootAction{})},
		EphemeralResources: []terrarium.EphemeralResourceType{
			terrarium.NewEphemeralResource[LeaseData]("slow_lease", leaseResource{}),
		},
	})
}

// A component runs its init functions when loaded and never runs main.
func main() {}

func secondsOf(n int64) time.Duration { return time.Duration(n) * time.Second }
