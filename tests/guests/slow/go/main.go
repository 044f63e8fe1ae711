// `terrarium/slow` in Go: tests/guests/slow (Rust) in the Go SDK, for the conformance
// table's Go column.
//
// slow_server stands for a cloud server: create "starts" it at once (its id exists from then
// on) and then waits boot_seconds for it to boot (terrarium.Sleep). When Terraform is stopped
// (the first Ctrl-C) during the wait, create returns the server as it is, ready = false, so
// that Terraform records it instead of losing track of it. With fail_boot = true the server
// never comes up: create fails and keeps the started server with the error
// (terrarium.WithState), so Terraform records it as tainted. A server with protect = true
// refuses to be destroyed at plan time (PlanDestroy). Import takes `server-N`; a `moved` block
// takes a slow_vm, or a terraform_data (Go only). A server's identity is its id: `import {
// identity = { id = "server-N" } }` imports it as import by id does, and `list "slow_server"`
// (terraform query) lists server-1 to server-<count> (display names starting with prefix,
// server-<broken> not answering, the write-only admin_password the listing code returns
// dropped). slow_vm is what servers were before slow_server: a declared pattern, a default,
// a sensitive value, its creates and reads counted in its private state, and its plan
// deferred while its label is unknown. The ephemeral slow_lease is a token on a lease of
// seconds, renewed while Terraform uses it and closed when it is done; both are logged. The
// action slow_reboot reboots a server in steps, reporting each. slow_tag (Go only) exercises the Go
// SDK's hooks; its identity is its name, at identity schema version 1 (version 0 called it
// tag). slow_server's schema is at version 1: version 0 called boot_seconds `boot` (the
// state-upgrade row). With report_url, create reports with a GET once it stops waiting (after
// a stop the SDK's transport sends nothing), and slow_page fetches a URL through the
// sandbox's HTTP grants: both are ordinary net/http. slow_network's address blocks are the
// provider's to set (a computed block, `tf:"address,block,computed"`).
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
	"unicode/utf8"

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
	// AdminPassword is given to create and never stored.
	AdminPassword *string `tf:"admin_password,write_only" doc:"The administrator's password, given to create, never stored."`
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

// MoveState takes a slow_vm (`vm-N` becomes `server-N`, up), or a terraform_data (`moved {
// from = terraform_data.x  to = slow_server.x }`): a server that boots at once, named after
// the terraform_data's id. (The terraform_data is Go only: the e2e test of moved from another
// provider.)
func (serverResource) MoveState(_ context.Context, source terrarium.MoveSource) (Server, error) {
	if source.TypeName == "slow_vm" {
		var vm struct {
			Seconds int64 `tf:"seconds"`
		}
		if err := source.Decode(&vm); err != nil {
			return Server{}, err
		}
		return Server{ID: terrarium.StringValue(fmt.Sprintf("server-%d", vm.Seconds)), BootSeconds: vm.Seconds,
			Ready: terrarium.BoolValue(true)}, nil
	}
	if source.TypeName != "terraform_data" {
		return Server{}, terrarium.NewError("Cannot move resource state",
			"slow_server takes the state of a slow_vm or a terraform_data, not of a "+source.TypeName)
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

// ServerIdentity is a server's identity: its id.
type ServerIdentity struct {
	ID string "tf:\"id,required_for_import\" doc:\"The server's ID, `server-N`.\""
}

// IdentityOf is the state's id: unknown in the plan of a create (known after apply).
func (serverResource) IdentityOf(s Server) (ServerIdentity, bool) {
	return ServerIdentity{ID: s.ID.Value()}, s.ID.IsKnown()
}

// IdentityVersion is 1: version 0 called id server.
func (serverResource) IdentityVersion() int64 { return 1 }

// UpgradeIdentity renames version 0's server to id.
func (serverResource) UpgradeIdentity(_ context.Context, _ int64, raw map[string]any) (map[string]any, error) {
	return map[string]any{"id": raw["server"]}, nil
}

// ImportByIdentity imports `server-N` as ImportState does.
func (r serverResource) ImportByIdentity(ctx context.Context, identity ServerIdentity) (Server, error) {
	return r.ImportState(ctx, identity.ID)
}

// ServerFilter is the config block of `list "slow_server"`: which servers to list.
type ServerFilter struct {
	Count  int64   "tf:\"count\" doc:\"Lists `server-1` to `server-<count>`.\""
	Prefix *string "tf:\"prefix\" default:\"server-\" validate:\"pattern(^[a-z]+-$)\" doc:\"What each listed server's display name starts with. Defaults to `server-`.\""
	Broken *int64  `tf:"broken" doc:"A server that does not answer when listed: its item carries the error."`
}

// serverList lists slow_server (a type of its own: its Validate checks a ServerFilter).
type serverList struct{}

// Validate refuses a broken server that is not listed.
func (serverList) Validate(_ context.Context, filter ServerFilter) error {
	if filter.Broken != nil && (*filter.Broken < 1 || *filter.Broken > filter.Count) {
		return terrarium.NewError("Invalid list configuration",
			fmt.Sprintf("broken = %d is not one of the %d servers listed.", *filter.Broken, filter.Count))
	}
	return nil
}

// List lists server-1 to server-<count>: each is what importing it gives, with the
// password the API hands back (the SDK drops it: write-only), except server-<broken>,
// which does not answer.
func (serverList) List(ctx context.Context, filter ServerFilter, results *terrarium.ListResults[Server, ServerIdentity]) error {
	prefix := "server-"
	if filter.Prefix != nil {
		prefix = *filter.Prefix
	}
	for n := int64(1); n <= filter.Count; n++ {
		id := fmt.Sprintf("server-%d", n)
		state := func() (Server, error) {
			if filter.Broken != nil && *filter.Broken == n {
				return Server{}, terrarium.NewError("Server did not answer", id+" did not answer.")
			}
			server, err := serverResource{}.ImportState(ctx, id)
			password := "listed-secret"
			server.AdminPassword = &password
			return server, err
		}
		if !results.Push(ServerIdentity{ID: id}, fmt.Sprintf("%s%d", prefix, n), state) {
			break
		}
	}
	return nil
}

// Vm is slow_vm: what servers were before slow_server.
type Vm struct {
	ID          terrarium.String `tf:"id,computed,use_state_for_unknown"`
	Seconds     int64            `tf:"seconds,requires_replace" doc:"How long the VM takes to boot."`
	Label       terrarium.String `tf:"label" validate:"pattern(^[a-z][a-z0-9-]*$)" doc:"A name in lower case letters, digits and dashes."`
	Cpus        *int64           `tf:"cpus" default:"2" doc:"How many CPUs. Defaults to 2."`
	Password    *string          `tf:"password,sensitive" doc:"The console password, hidden in plans and output."`
	Token       *string          `tf:"token,write_only" doc:"A token the VM is given at create, never stored."`
	TokenLength terrarium.Number `tf:"token_length,computed" doc:"How many characters the token had."`
	Serial      *int64           `tf:"serial" doc:"A serial number (any integer, also beyond 2^53)."`
	NextSerial  terrarium.Number `tf:"next_serial,computed" doc:"The serial number after serial."`
	Disks       []Disk           `tf:"disks,set" doc:"The VM's disks."`
	Nic         []Nic            `tf:"nic,block,max_items=1" doc:"Its network interface."`
}

// Nic is slow_vm's `nic { ... }`: a nested block.
type Nic struct {
	Network string           `tf:"network,requires_replace" doc:"The network it is on; another network replaces the VM (requires-replace at depth)."`
	Mac     terrarium.String `tf:"mac,computed,use_state_for_unknown" doc:"Given when the VM is made, kept while it lives."`
	// Meta is a dynamic attribute inside a block.
	Meta any `tf:"meta" doc:"Anything, of the type the configuration gives it, kept as given (a dynamic attribute inside a block)."`
}

// Disk is one of slow_vm's disks: a nested attribute holding a set of objects.
type Disk struct {
	Size int64            `tf:"size" doc:"Its size in GB."`
	Kind *string          `tf:"kind" default:"ssd" doc:"Its kind. Defaults to ssd."`
	ID   terrarium.String `tf:"id,computed,use_state_for_unknown" doc:"Given when the disk is made; a disk keeps its id."`
}

// vmMade is the VM planned describes, made: what the provider computes set, an id for each
// new disk and a MAC address for a new network interface.
func vmMade(planned Vm) Vm {
	planned.ID = terrarium.StringValue(fmt.Sprintf("vm-%d", planned.Seconds))
	length := 0
	if planned.Token != nil {
		length = utf8.RuneCountInString(*planned.Token)
	}
	planned.TokenLength = terrarium.NumberInt(int64(length))
	planned.NextSerial = terrarium.NumberNull()
	if planned.Serial != nil {
		planned.NextSerial = terrarium.NumberInt(*planned.Serial + 1)
	}
	for i, d := range planned.Disks {
		if d.ID.IsUnknown() {
			kind := ""
			if d.Kind != nil {
				kind = *d.Kind
			}
			planned.Disks[i].ID = terrarium.StringValue(fmt.Sprintf("disk-%d-%s", d.Size, kind))
		}
	}
	for i, n := range planned.Nic {
		if n.Mac.IsUnknown() {
			planned.Nic[i].Mac = terrarium.StringValue("mac-" + n.Network)
		}
	}
	return planned
}

// vmResource counts in its private state what happened to the VM: created once, read N times.
type vmResource struct{}

func (vmResource) Create(ctx context.Context, planned Vm) (Vm, error) {
	return vmMade(planned), terrarium.Private(ctx).Set("created", 1)
}

func (vmResource) Read(ctx context.Context, current Vm) (*Vm, error) {
	private := terrarium.Private(ctx)
	var reads int64
	if _, err := private.Get("reads", &reads); err != nil {
		return nil, err
	}
	return &current, private.Set("reads", reads+1)
}

func (vmResource) Update(_ context.Context, _, planned Vm) (Vm, error) { return vmMade(planned), nil }

// Plan: a VM cannot be planned before its label is known, so the plan is deferred.
func (vmResource) Plan(_ context.Context, _ *Vm, planned, config Vm) (Vm, error) {
	if config.Label.IsUnknown() {
		return planned, terrarium.Deferred(terrarium.DeferredReasonResourceConfigUnknown)
	}
	return planned, nil
}

func (vmResource) Delete(context.Context, Vm) error { return nil }

// Network is slow_network: a network whose addresses the provider assigns. Address is a
// computed nested block (protocol 6.11), which a Terraform older than 1.16 sees as a computed
// attribute.
type Network struct {
	ID      terrarium.String `tf:"id,computed,use_state_for_unknown"`
	Size    int64            `tf:"size" doc:"How many addresses the network gets."`
	Note    *string          `tf:"note" doc:"A note; changing it updates the network in place."`
	Address []Address        `tf:"address,block,computed" doc:"The addresses the provider assigned."`
}

// Address is an address the provider assigned.
type Address struct {
	IP   terrarium.String `tf:"ip,computed"`
	Port terrarium.Number `tf:"port,computed"`
}

// networkAssigned is the network with its addresses (changed by the note, so that an update
// shows a new value).
func networkAssigned(planned Network) Network {
	port := int64(443)
	if planned.Note != nil {
		port = 8443
	}
	planned.ID = terrarium.StringValue(fmt.Sprintf("net-%d", planned.Size))
	planned.Address = nil
	for i := int64(1); i <= planned.Size; i++ {
		planned.Address = append(planned.Address, Address{IP: terrarium.StringValue(fmt.Sprintf("10.0.0.%d", i)), Port: terrarium.NumberInt(port)})
	}
	return planned
}

type networkResource struct{}

func (networkResource) Create(_ context.Context, planned Network) (Network, error) {
	return networkAssigned(planned), nil
}

func (networkResource) Read(_ context.Context, current Network) (*Network, error) {
	return &current, nil
}

func (networkResource) Update(_ context.Context, _, planned Network) (Network, error) {
	return networkAssigned(planned), nil
}

func (networkResource) Delete(context.Context, Network) error { return nil }

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

// Tag is slow_tag (Go only): a resource whose label defaults to what a hook computes, whose
// name a custom validator checks, whose priority is raised in place but lowered by a
// replacement (requires_replace_if), and whose Plan hook replaces it when renamed, for the e2e
// test of the Go SDK's hooks.
type Tag struct {
	Name     string           `tf:"name" validate:"custom(unreserved)"`
	Label    terrarium.String `tf:"label" default_func:"label"`
	Priority *int64           `tf:"priority" requires_replace_if:"lowered" doc:"Raised in place; lowering it replaces the tag."`
}

// RequiresReplaceIf: a lower priority replaces the tag (unset counts as 0).
func (Tag) RequiresReplaceIf(_ context.Context, name string, prior, planned any) bool {
	value := func(p any) int64 {
		if n := p.(*int64); n != nil {
			return *n
		}
		return 0
	}
	return value(planned) < value(prior)
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

// Plan: renaming a tag replaces it (terrarium.RequiresReplace in a Plan hook adds the path),
// and a tag named `sticky` is never replaced (the hook drops every path, the priority's from
// requires_replace_if too).
func (tagResource) Plan(ctx context.Context, prior *Tag, planned, _ Tag) (Tag, error) {
	if prior != nil && planned.Name != prior.Name {
		terrarium.RequiresReplace(ctx).Add(terrarium.Attr("name"))
	}
	if planned.Name == "sticky" {
		terrarium.RequiresReplace(ctx).Paths = nil
	}
	return planned, nil
}

// TagIdentity is a tag's identity: its name. Version 0 called it tag.
type TagIdentity struct {
	Name string `tf:"name,required_for_import" doc:"The tag's name."`
}

func (tagResource) IdentityOf(t Tag) (TagIdentity, bool) { return TagIdentity{Name: t.Name}, true }

// IdentityVersion is 1: version 0 called name tag.
func (tagResource) IdentityVersion() int64 { return 1 }

// UpgradeIdentity renames version 0's tag to name.
func (tagResource) UpgradeIdentity(_ context.Context, _ int64, raw map[string]any) (map[string]any, error) {
	return map[string]any{"name": raw["tag"]}, nil
}

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

// Reboot is the configuration of the action slow_reboot: it reboots a server in steps,
// reporting each.
type Reboot struct {
	ServerID string `tf:"server_id" doc:"The server to reboot."`
	Steps    *int64 `tf:"steps" default:"3" validate:"range(1,10)" doc:"How many steps the reboot takes, 1 to 10. Defaults to 3."`
}

type rebootAction struct{}

func (rebootAction) Description() string { return "Reboots a server in steps." }

func (rebootAction) Invoke(_ context.Context, config Reboot, progress terrarium.Progress) error {
	steps := int64(3)
	if config.Steps != nil {
		steps = *config.Steps
	}
	for step := int64(1); step <= steps; step++ {
		progress.Report(fmt.Sprintf("rebooting %s: step %d/%d", config.ServerID, step, steps))
	}
	return nil
}

func init() {
	terrarium.Export(terrarium.Provider[struct{}]{
		Resources: []terrarium.ResourceType{
			terrarium.NewResourceWithIdentity[Server, ServerIdentity]("slow_server", serverResource{}),
			terrarium.NewResource[Vm]("slow_vm", vmResource{}),
			terrarium.NewResource[Network]("slow_network", networkResource{}),
			terrarium.NewResourceWithIdentity[Tag, TagIdentity]("slow_tag", tagResource{}),
		},
		ListResources: []terrarium.ListResourceType{
			terrarium.NewListResource[ServerFilter, Server, ServerIdentity]("slow_server", serverList{}),
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
