"""`terrarium/pets` in Python: pets kept as JSON files in a granted directory. The same
provider exists in Rust and TypeScript; examples/pets/SPEC.md is what all of them do."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace

import terrarium
from terrarium import TerraformError, attribute, block, log
from terrarium.validators import between, length, one_of


@dataclass(kw_only=True)
class Config:
    directory: str = attribute(description="Where the pets are kept (grant it: --allow-dir DIR:rw).")


@dataclass(kw_only=True)
class Owner:
    name: str
    email: str | None = None
    notify: bool | None = attribute(default=False)


@dataclass(kw_only=True)
class Toy:
    kind: str
    color: str | None = attribute(default="red")
    serial: str | None = attribute(computed=True, use_state_for_unknown=True)


@dataclass(kw_only=True)
class Vaccine:
    name: str
    batch: str | None = attribute(computed=True, use_state_for_unknown=True)


@dataclass(kw_only=True)
class Collar:
    material: str | None = attribute(default="leather")
    size: str = attribute(requires_replace=True)


@dataclass(kw_only=True)
class Pet:
    """A pet, kept as a JSON file in the provider directory."""

    id: str | None = attribute(computed=True, use_state_for_unknown=True, description="pet-N, assigned at create.")
    name: str = attribute(requires_replace=True, validators=[length(1, 32)])
    species: str | None = attribute(default="dog", validators=[one_of("dog", "cat", "bird")])
    legs: int | None = attribute(default=4, validators=[between(0, 8)])
    tags: set[str] | None = None
    secret: str | None = attribute(sensitive=True)
    owner: Owner | None = None
    toys: list[Toy] | None = None
    vaccines: set[Vaccine] | None = None
    collar: list[Collar] = block(max_items=1)


class Pets(terrarium.Provider):
    config = Config
    directory = ""

    def configure(self, config: Config) -> None:
        if not config.directory.startswith("/"):
            raise TerraformError(
                "Relative directory", f"{config.directory} is relative; use an absolute path.", ("directory",)
            )
        self.directory = config.directory

    def file(self, id: str) -> str:
        return f"{self.directory}/{id}.json"

    def load(self, id: str) -> dict | None:
        """The stored pet ``id``, or None when there is no such file."""
        try:
            with open(self.file(id)) as f:
                return {**json.load(f), "id": id}
        except FileNotFoundError:
            return None

    def save(self, pet: Pet) -> None:
        stored = terrarium.to_json(pet)
        del stored["id"]
        with open(self.file(pet.id), "w") as f:
            json.dump(stored, f)

    def next_id(self) -> str:
        counter = f"{self.directory}/next-id"
        try:
            with open(counter) as f:
                n = int(f.read().strip())
        except FileNotFoundError:
            n = 1
        with open(counter, "w") as f:
            f.write(str(n + 1))
        return f"pet-{n}"


def with_serials(pet: Pet) -> Pet:
    """The computed values of new elements: toy serials ``<pet id>-toy-<index>``, vaccine
    batches ``<pet id>-<name>``."""
    toys = pet.toys and [
        t if isinstance(t.serial, str) else replace(t, serial=f"{pet.id}-toy-{i}") for i, t in enumerate(pet.toys)
    ]
    vaccines = pet.vaccines and [
        v if isinstance(v.batch, str) else replace(v, batch=f"{pet.id}-{v.name}") for v in pet.vaccines
    ]
    return replace(pet, toys=toys, vaccines=vaccines)


class PetResource(terrarium.Resource[Pet]):
    type_name = "pets_pet"
    state = Pet
    provider: Pets

    def create(self, planned: Pet) -> Pet:
        created = with_serials(replace(planned, id=self.provider.next_id()))
        self.provider.save(created)
        log.info("created a pet", id=created.id, name=created.name)
        return created

    def read(self, current: Pet) -> Pet | None:
        return self.provider.load(current.id)

    def update(self, prior: Pet, planned: Pet) -> Pet:
        updated = with_serials(planned)
        self.provider.save(updated)
        return updated

    def delete(self, prior: Pet) -> None:
        try:
            os.remove(self.provider.file(prior.id))
        except FileNotFoundError:
            pass

    def import_state(self, id: str) -> Pet:
        found = self.provider.load(id)
        if found is None:
            raise TerraformError("Cannot import", f"no pet with id {id}")
        return found


@dataclass(kw_only=True)
class PetInfo:
    id: str
    name: str | None = attribute(computed=True)
    species: str | None = attribute(computed=True)
    legs: int | None = attribute(computed=True)
    tags: set[str] | None = attribute(computed=True)


class PetData(terrarium.DataSource[PetInfo]):
    type_name = "pets_pet"
    state = PetInfo
    provider: Pets

    def read(self, config: PetInfo) -> PetInfo:
        found = self.provider.load(config.id)
        if found is None:
            raise TerraformError("No such pet", f"no pet with id {config.id}", ("id",))
        log.info("read a pet", id=config.id)
        return PetInfo(id=config.id, name=found["name"], species=found["species"], legs=found["legs"], tags=found.get("tags"))


@terrarium.function
def greeting(name: str) -> str:
    """A greeting for a pet."""
    if name == "":
        raise terrarium.FunctionError("name must not be empty", 0)
    return f"Hello, {name}!"


Pets.resources = [PetResource]
Pets.data_sources = [PetData]
Pets.functions = [greeting]

Provider, Behaviour = terrarium.export(Pets)
