// `terrarium/pets` in Go: pets kept as JSON files in a granted directory. The same provider
// exists in Rust, Python and TypeScript; examples/pets/SPEC.md is what all of them do.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"terrarium.dev/sdk"
)

// Config is the provider configuration.
type Config struct {
	Directory string `tf:"directory" doc:"Where the pets are kept (grant it: --allow-dir DIR:rw)."`
}

// Owner is a pet's owner (a single nested attribute).
type Owner struct {
	Name   string         `tf:"name" json:"name"`
	Email  *string        `tf:"email" json:"email"`
	Notify terrarium.Bool `tf:"notify" default:"false" json:"notify"`
}

// Toy is one of a pet's toys (a list of nested attributes).
type Toy struct {
	Kind   string           `tf:"kind" json:"kind"`
	Color  terrarium.String `tf:"color" default:"red" json:"color"`
	Serial terrarium.String `tf:"serial,computed,use_state_for_unknown" json:"serial"`
}

// Vaccine is one of a pet's vaccines (a set of nested attributes).
type Vaccine struct {
	Name  string           `tf:"name" json:"name"`
	Batch terrarium.String `tf:"batch,computed,use_state_for_unknown" json:"batch"`
}

// Collar is a pet's collar (a list block of at most one).
type Collar struct {
	Material terrarium.String `tf:"material" default:"leather" json:"material"`
	Size     string           `tf:"size,requires_replace" json:"size"`
}

// Pet is the state of a pets_pet, and what its file holds (without the id).
type Pet struct {
	ID       terrarium.String `tf:"id,computed,use_state_for_unknown" doc:"pet-N, assigned at create." json:"-"`
	Name     string           `tf:"name,requires_replace" validate:"length(1,32)" json:"name"`
	Species  terrarium.String `tf:"species" default:"dog" validate:"one_of(dog,cat,bird)" json:"species"`
	Legs     terrarium.Number `tf:"legs" default:"4" validate:"range(0,8)" json:"legs"`
	Tags     []string         `tf:"tags,set" json:"tags"`
	Secret   *string          `tf:"secret,sensitive" json:"secret"`
	Owner    *Owner           `tf:"owner" json:"owner"`
	Toys     []Toy            `tf:"toys" json:"toys"`
	Vaccines []Vaccine        `tf:"vaccines,set" json:"vaccines"`
	Collar   []Collar         `tf:"collar,block,max_items=1" json:"collar"`
}

type pets struct {
	directory string
}

func (p *pets) configure(_ context.Context, c Config) error {
	if !strings.HasPrefix(c.Directory, "/") {
		return terrarium.NewError("Relative directory", c.Directory+" is relative; use an absolute path.").
			At(terrarium.Attr("directory"))
	}
	p.directory = c.Directory
	return nil
}

func (p *pets) file(id string) string { return p.directory + "/" + id + ".json" }

// load is the stored pet id, or nil when there is no such file.
func (p *pets) load(id string) (*Pet, error) {
	data, err := os.ReadFile(p.file(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var pet Pet
	if err := json.Unmarshal(data, &pet); err != nil {
		return nil, fmt.Errorf("%s: %w", p.file(id), err)
	}
	pet.ID = terrarium.StringValue(id)
	return &pet, nil
}

func (p *pets) save(pet Pet) error {
	data, err := json.Marshal(pet)
	if err != nil {
		return err
	}
	return os.WriteFile(p.file(pet.ID.Value()), data, 0o644)
}

func (p *pets) nextID() (string, error) {
	counter := p.directory + "/next-id"
	n := 1
	data, err := os.ReadFile(counter)
	switch {
	case err == nil:
		if n, err = strconv.Atoi(strings.TrimSpace(string(data))); err != nil {
			return "", fmt.Errorf("%s: %w", counter, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if err := os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf("pet-%d", n), nil
}

// withSerials fills in the computed values of new elements: toy serials
// `<pet id>-toy-<index>`, vaccine batches `<pet id>-<name>` (elements the pet had keep
// theirs: the plan carries them).
func withSerials(pet Pet) Pet {
	id := pet.ID.Value()
	toys := append([]Toy(nil), pet.Toys...)
	for i := range toys {
		if !toys[i].Serial.IsKnown() {
			toys[i].Serial = terrarium.StringValue(fmt.Sprintf("%s-toy-%d", id, i))
		}
	}
	vaccines := append([]Vaccine(nil), pet.Vaccines...)
	for i := range vaccines {
		if !vaccines[i].Batch.IsKnown() {
			vaccines[i].Batch = terrarium.StringValue(id + "-" + vaccines[i].Name)
		}
	}
	if pet.Toys != nil {
		pet.Toys = toys
	}
	if pet.Vaccines != nil {
		pet.Vaccines = vaccines
	}
	return pet
}

type petResource struct{ *pets }

func (petResource) Description() string {
	return "A pet, kept as a JSON file in the provider directory."
}

func (r petResource) Create(ctx context.Context, planned Pet) (Pet, error) {
	id, err := r.nextID()
	if err != nil {
		return Pet{}, err
	}
	planned.ID = terrarium.StringValue(id)
	created := withSerials(planned)
	if err := r.save(created); err != nil {
		return Pet{}, err
	}
	terrarium.Logger(ctx).Info("created a pet", "id", id, "name", created.Name)
	return created, nil
}

func (r petResource) Read(_ context.Context, current Pet) (*Pet, error) {
	return r.load(current.ID.Value())
}

func (r petResource) Update(_ context.Context, _, planned Pet) (Pet, error) {
	updated := withSerials(planned)
	return updated, r.save(updated)
}

func (r petResource) Delete(_ context.Context, prior Pet) error {
	err := os.Remove(r.file(prior.ID.Value()))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func (r petResource) ImportState(_ context.Context, id string) (Pet, error) {
	found, err := r.load(id)
	if err != nil {
		return Pet{}, err
	}
	if found == nil {
		return Pet{}, terrarium.NewError("Cannot import", "no pet with id "+id)
	}
	return *found, nil
}

// PetInfo is the data source pets_pet: a pet by id.
type PetInfo struct {
	ID      string           `tf:"id"`
	Name    *string          `tf:"name,computed"`
	Species *string          `tf:"species,computed"`
	Legs    terrarium.Number `tf:"legs,computed"`
	Tags    []string         `tf:"tags,set,computed"`
}

type petData struct{ *pets }

func (d petData) Read(ctx context.Context, c PetInfo) (PetInfo, error) {
	found, err := d.load(c.ID)
	if err != nil {
		return PetInfo{}, err
	}
	if found == nil {
		return PetInfo{}, terrarium.NewError("No such pet", "no pet with id "+c.ID).At(terrarium.Attr("id"))
	}
	terrarium.Logger(ctx).Info("read a pet", "id", c.ID)
	species := found.Species.Value()
	return PetInfo{ID: c.ID, Name: &found.Name, Species: &species, Legs: found.Legs, Tags: found.Tags}, nil
}

func greeting(_ context.Context, name string) (string, error) {
	if name == "" {
		return "", terrarium.ArgumentError(0, "name must not be empty")
	}
	return "Hello, " + name + "!", nil
}

func init() {
	p := &pets{}
	terrarium.Export(terrarium.Provider[Config]{
		Configure:   p.configure,
		Resources:   []terrarium.ResourceType{terrarium.NewResource[Pet]("pets_pet", petResource{p})},
		DataSources: []terrarium.DataSourceType{terrarium.NewDataSource[PetInfo]("pets_pet", petData{p})},
		Functions: []terrarium.Function{
			terrarium.NewFunction("greeting", greeting, "name").WithSummary("A greeting for a pet."),
		},
	})
}

// A component runs its init functions when loaded and never runs main.
func main() {}
