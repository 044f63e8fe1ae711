//! `terrarium/pets` in Rust: pets kept as JSON files in a granted directory. The same
//! provider exists in Python and TypeScript; `examples/pets/SPEC.md` is what all of them do,
//! and the conformance suite (`tests/tests/e2e/pets.rs`) holds them to it through terraform.
//!
//! Read it beside `examples/pets/python/provider.py` and
//! `examples/pets/typescript/src/provider.ts`: one struct per resource is both its state and
//! its schema, `#[tf(...)]` says how each attribute plans (defaults at any depth, kept
//! computed values, replacements), and the code is only what is really the provider's own:
//! the files. In Rust the plan is made inside the component, by the same `framework` crate
//! the host uses to plan for Python and TypeScript components.
//!
//! ```hcl
//! provider "pets" {
//!   directory = "/srv/pets"   # granted: terrarium install --allow-dir /srv/pets:rw
//! }
//!
//! resource "pets_pet" "rex" {
//!   name = "rex"
//!   toys = [{ kind = "ball" }]
//!   collar {
//!     size = "m"
//!   }
//! }
//!
//! data "pets_pet" "same" {
//!   id = pets_pet.rex.id
//! }
//!
//! output "greeting" {
//!   value = provider::pets::greeting(data.pets_pet.same.name)
//! }
//! ```

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use terrarium_sdk::function::{Arguments, Function, FunctionError, Parameter, Signature};
use terrarium_sdk::rpc::ConfigureRequest;
use terrarium_sdk::schema::Schema;
use terrarium_sdk::{
    AnyDataSource, AnyFunction, AnyResource, Attr, DataSource, Diagnostics, Model, Provider,
    Resource, Result, Set, TfType, Type, from_value, json, log,
};

// `provider "pets" { directory = "..." }`. (Doc comments on a model and its fields are the
// descriptions Terraform and the generated docs show, so notes for readers of the code are
// plain comments. A default is said in words: the host cannot read a Rust provider's
// defaults, which are code, while Python and TypeScript declare theirs as data and
// `terrarium docs` states them.)
#[derive(Deserialize, Model)]
pub struct PetsConfig {
    /// Where the pets are kept (grant it: --allow-dir DIR:rw).
    pub directory: String,
}

/// The provider. `configure` keeps the directory; the resource and the data source borrow
/// it as a [`Store`].
#[derive(Default)]
pub struct Pets {
    directory: PathBuf,
}

impl Provider for Pets {
    fn schema(&self) -> Schema {
        PetsConfig::schema()
    }

    fn configure(&mut self, request: ConfigureRequest) -> Result<()> {
        let config: PetsConfig = from_value(&request.config)?;
        if !Path::new(&config.directory).is_absolute() {
            return Err(Diagnostics::attribute_error(
                "directory",
                "Relative directory",
                format!("{} is relative; use an absolute path.", config.directory),
            ));
        }
        self.directory = PathBuf::from(config.directory);
        Ok(())
    }

    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(PetResource { store: self.store() })]
    }

    fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
        vec![Box::new(PetData { store: self.store() })]
    }

    fn functions(&self) -> Vec<Box<dyn AnyFunction + '_>> {
        vec![Box::new(Greeting)]
    }
}

impl Pets {
    fn store(&self) -> Store<'_> {
        Store { directory: &self.directory }
    }
}

// Makes `Pets` the component's implementation of the Terrarium world.
terrarium_sdk::export!(Pets);

/// A pet, kept as a JSON file in the provider directory.
#[derive(Debug, Clone, Serialize, Deserialize, Model)]
pub struct Pet {
    /// pet-N, assigned at create.
    #[tf(computed, use_state_for_unknown)]
    pub id: Attr<String>,
    // A new name is a new pet: the plan replaces it.
    #[tf(requires_replace, validate = length(1, 32))]
    pub name: String,
    // A default makes the attribute optional and computed: the plan has "dog" when the
    // configuration is silent, so create and update always see a species.
    /// Defaults to `"dog"`.
    #[tf(default = "dog", validate = one_of(["dog", "cat", "bird"]))]
    pub species: String,
    /// Defaults to `4`.
    #[tf(default = 4, validate = range(0, 8))]
    pub legs: i64,
    pub tags: Option<Set<String>>,
    #[tf(sensitive)]
    pub secret: Option<String>,
    #[tf(nested)]
    pub owner: Option<Owner>,
    #[tf(nested)]
    pub toys: Option<Vec<Toy>>,
    #[tf(nested)]
    pub vaccines: Option<Set<Vaccine>>,
    // A block, not an attribute: `collar { size = "m" }`, at most one.
    #[tf(block, max_items = 1)]
    pub collar: Vec<Collar>,
}

/// `owner = { ... }`: a nested attribute holding one object.
#[derive(Debug, Clone, Serialize, Deserialize, Model)]
pub struct Owner {
    pub name: String,
    pub email: Option<String>,
    // A default at depth: planned inside the owner object.
    /// Defaults to `false`.
    #[tf(default = false)]
    pub notify: bool,
}

/// `toys = [{ ... }]`: a nested attribute holding a list of objects.
#[derive(Debug, Clone, Serialize, Deserialize, Model)]
pub struct Toy {
    pub kind: String,
    // A default inside list elements.
    /// Defaults to `"red"`.
    #[tf(default = "red")]
    pub color: String,
    // Computed by the provider and kept on later plans (a toy keeps its serial), so only
    // a new toy's serial is unknown in the plan of an update.
    #[tf(computed, use_state_for_unknown)]
    pub serial: Attr<String>,
}

/// `vaccines = [{ ... }]`: a nested attribute holding a set of objects.
#[derive(Debug, Clone, Serialize, Deserialize, Model)]
pub struct Vaccine {
    pub name: String,
    // An unknown inside a set: the plan matches set elements by what is configured (the
    // name), so a vaccine the pet had keeps its batch and a new one is unknown.
    #[tf(computed, use_state_for_unknown)]
    pub batch: Attr<String>,
}

/// `collar { ... }`: a nested block.
#[derive(Debug, Clone, Serialize, Deserialize, Model)]
pub struct Collar {
    /// Defaults to `"leather"`.
    #[tf(default = "leather")]
    pub material: String,
    // Requires-replace on a nested path: the plan names `collar[0].size`.
    #[tf(requires_replace)]
    pub size: String,
}

/// `pets_pet`: each pet is a file of the [`Store`].
pub struct PetResource<'a> {
    store: Store<'a>,
}

impl Resource for PetResource<'_> {
    const TYPE_NAME: &'static str = "pets_pet";
    type State = Pet;

    // The plan comes in with the defaults and the unknowns the SDK planned from the
    // `#[tf(...)]` attributes: `id` and every serial and batch unknown.
    fn create(&self, planned: Pet) -> Result<Pet> {
        let id = self.store.next_id()?;
        let created = with_serials(Pet { id: Attr::Known(id.clone()), ..planned }, &id);
        self.store.save(&id, &created)?;
        log::info!("created a pet", id = id, name = created.name);
        Ok(created)
    }

    // Drift: the file as it is now; `None` when it is gone, so Terraform plans to create
    // the pet again.
    fn read(&self, current: Pet) -> Result<Option<Pet>> {
        self.store.load(id_of(&current)?)
    }

    // The id and the serials and batches of the elements the pet had are in the plan
    // already (use_state_for_unknown); only new toys and vaccines get theirs here.
    fn update(&self, _prior: Pet, planned: Pet) -> Result<Pet> {
        let id = id_of(&planned)?.to_owned();
        let updated = with_serials(planned, &id);
        self.store.save(&id, &updated)?;
        Ok(updated)
    }

    fn delete(&self, prior: Pet) -> Result<()> {
        self.store.remove(id_of(&prior)?)
    }

    // `terraform import pets_pet.x pet-3`, or an `import` block's `id`.
    fn import(&self, id: &str) -> Result<Pet> {
        self.store
            .load(id)?
            .ok_or_else(|| Diagnostics::error("Cannot import", format!("no pet with id {id}")))
    }
}

/// The pet's id: known in every state this provider wrote.
fn id_of(pet: &Pet) -> Result<&str> {
    pet.id.known().map(String::as_str).ok_or_else(|| {
        Diagnostics::attribute_error(
            "id",
            "Pet without an id",
            "This pet's state has no id; remove it with `terraform state rm` and import it by id.",
        )
    })
}

/// The computed values of new elements: toy serials `<pet id>-toy-<index>`, vaccine
/// batches `<pet id>-<name>` (elements the pet had keep theirs: the plan carries them).
fn with_serials(mut pet: Pet, id: &str) -> Pet {
    for (i, toy) in pet.toys.iter_mut().flatten().enumerate() {
        if toy.serial.is_unknown() {
            toy.serial = Attr::Known(format!("{id}-toy-{i}"));
        }
    }
    for vaccine in pet.vaccines.iter_mut().flat_map(|v| v.0.iter_mut()) {
        if vaccine.batch.is_unknown() {
            vaccine.batch = Attr::Known(format!("{id}-{}", vaccine.name));
        }
    }
    pet
}

// `data "pets_pet"`: a pet by id.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct PetInfo {
    pub id: String,
    #[tf(computed)]
    pub name: Attr<String>,
    #[tf(computed)]
    pub species: Attr<String>,
    #[tf(computed)]
    pub legs: Attr<i64>,
    #[tf(computed)]
    pub tags: Attr<Set<String>>,
}

pub struct PetData<'a> {
    store: Store<'a>,
}

impl DataSource for PetData<'_> {
    const TYPE_NAME: &'static str = "pets_pet";
    type State = PetInfo;

    fn read(&self, config: PetInfo) -> Result<PetInfo> {
        let Some(pet) = self.store.load::<Pet>(&config.id)? else {
            return Err(Diagnostics::attribute_error(
                "id",
                "No such pet",
                format!("no pet with id {}", config.id),
            ));
        };
        log::info!("read a pet", id = config.id);
        Ok(PetInfo {
            name: pet.name.into(),
            species: pet.species.into(),
            legs: pet.legs.into(),
            tags: pet.tags.into(),
            ..config
        })
    }
}

/// `provider::pets::greeting(name)`.
pub struct Greeting;

impl Function for Greeting {
    const NAME: &'static str = "greeting";
    type Output = String;

    fn signature(&self) -> Signature {
        Signature::new(Type::String)
            .summary("A greeting for a pet.")
            .parameter(Parameter::new("name", Type::String))
    }

    fn call(&self, args: &Arguments) -> std::result::Result<String, FunctionError> {
        let name: String = args.get(0)?;
        if name.is_empty() {
            // Naming the argument makes Terraform point at it in the configuration.
            return Err(FunctionError::argument(0, "name must not be empty"));
        }
        Ok(format!("Hello, {name}!"))
    }
}

/// The pets directory: the pet `pet-N` is the file `pet-N.json` (its state without the id,
/// as plain JSON), and `next-id` holds the next N. Plain `std::fs`: the sandbox shows the
/// provider only the directories the user granted.
#[derive(Clone, Copy)]
pub struct Store<'a> {
    directory: &'a Path,
}

impl Store<'_> {
    fn file(&self, id: &str) -> PathBuf {
        self.directory.join(format!("{id}.json"))
    }

    /// The stored pet `id` (a `Pet`, or any model of its attributes), or `None` when there
    /// is no such file.
    fn load<T: DeserializeOwned + TfType>(&self, id: &str) -> Result<Option<T>> {
        let file = self.file(id);
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.failed("read", &file, &e)),
        };
        let mut stored: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            Diagnostics::error(format!("Cannot read {}", file.display()), format!("{e}."))
        })?;
        if let Some(object) = stored.as_object_mut() {
            object.insert("id".to_owned(), id.into());
        }
        Ok(Some(json::from_json(&stored)?))
    }

    fn save(&self, id: &str, pet: &Pet) -> Result<()> {
        let mut stored = json::to_json(pet)?;
        if let Some(object) = stored.as_object_mut() {
            object.remove("id");
        }
        let file = self.file(id);
        std::fs::write(&file, stored.to_string()).map_err(|e| self.failed("write", &file, &e))
    }

    fn remove(&self, id: &str) -> Result<()> {
        let file = self.file(id);
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != ErrorKind::NotFound => Err(self.failed("delete", &file, &e)),
            _ => Ok(()),
        }
    }

    /// `pet-N` from the counter file, which then holds N+1: the same operations give the
    /// same ids in every language.
    fn next_id(&self) -> Result<String> {
        let counter = self.directory.join("next-id");
        let n: u64 = match std::fs::read_to_string(&counter) {
            Ok(text) => text.trim().parse().map_err(|_| {
                Diagnostics::error(
                    format!("Cannot read {}", counter.display()),
                    format!("It holds {text:?} instead of the next pet number."),
                )
            })?,
            Err(e) if e.kind() == ErrorKind::NotFound => 1,
            Err(e) => return Err(self.failed("read", &counter, &e)),
        };
        std::fs::write(&counter, (n + 1).to_string())
            .map_err(|e| self.failed("write", &counter, &e))?;
        Ok(format!("pet-{n}"))
    }

    /// A file-system error, with the grant to ask for when the sandbox is the reason.
    fn failed(&self, action: &str, file: &Path, e: &std::io::Error) -> Diagnostics {
        let dir = self.directory.display();
        Diagnostics::error(
            format!("Cannot {action} {}", file.display()),
            format!(
                "{e}. If {dir} is not granted to the provider, grant it: `terrarium install --allow-dir {dir}:rw`."
            ),
        )
    }
}
