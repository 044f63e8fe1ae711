//! The code of guest-sdk/README.md, compiled and run: the walk-through must stay true.
//! (Keep the two in step: this file is the README's blocks, the `export!` left out; the
//! registration and `fn identity` lines section 6 asks for are in place.)

use serde::{Deserialize, Serialize};
use terrarium_sdk::identity::AnyIdentity;
use terrarium_sdk::{AnyResource, Attr, Model, Provider, Resource, Result};

/// A pet. (Doc comments are the descriptions Terraform shows.)
#[derive(Serialize, Deserialize, Model)]
pub struct Pet {
    /// The pet's ID, assigned when it is created.
    #[tf(computed, use_state_for_unknown)]
    pub id: Attr<String>,
    /// The pet's name; a new name is a new pet.
    #[tf(requires_replace, validate = length(1, 32))]
    pub name: String,
    /// How many legs, 4 unless configured.
    #[tf(default = 4, validate = range(0.0, 8.0))]
    pub legs: Attr<i64>,
    /// Toys, each with a computed serial number that stays put.
    #[tf(nested)]
    pub toys: Option<terrarium_sdk::Set<Toy>>,
}

#[derive(Serialize, Deserialize, Model)]
pub struct Toy {
    pub kind: String,
    #[tf(computed, use_state_for_unknown)]
    pub serial: Attr<String>,
}

pub struct PetResource;

impl Resource for PetResource {
    const TYPE_NAME: &'static str = "pets_pet";
    type State = Pet;

    fn create(&self, mut pet: Pet) -> Result<Pet> {
        pet.id = Attr::Known(format!("pet-{}", pet.name));
        for (i, toy) in pet.toys.iter_mut().flat_map(|t| t.0.iter_mut()).enumerate() {
            toy.serial = Attr::Known(format!("toy-{i}"));
        }
        Ok(pet)
    }

    fn identity(&self) -> Option<&dyn AnyIdentity<Pet>> {
        Some(self)
    }

    fn update(&self, _prior: Pet, mut pet: Pet) -> Result<Pet> {
        for toy in pet.toys.iter_mut().flat_map(|t| t.0.iter_mut()) {
            if toy.serial.is_unknown() {
                toy.serial = Attr::Known(format!("toy-{}", toy.kind));
            }
        }
        Ok(pet)
    }

    fn read(&self, current: Pet) -> Result<Option<Pet>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: Pet) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

#[derive(Default)]
pub struct Pets;

impl Provider for Pets {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(PetResource), Box::new(LicenseResource)]
    }

    fn ephemeral_resources(&self) -> Vec<Box<dyn AnyEphemeralResource + '_>> {
        vec![Box::new(ShopToken)]
    }
    fn list_resources(&self) -> Vec<Box<dyn AnyListResource + '_>> {
        vec![Box::new(PetResource)]
    }
    fn actions(&self) -> Vec<Box<dyn AnyAction + '_>> {
        vec![Box::new(Feed)]
    }
}

use terrarium_sdk::{AnyAction, AnyEphemeralResource, AnyListResource};

use std::time::Duration;

use terrarium_sdk::ephemeral::{EphemeralResource, Lease};

/// A short-lived token for the pet shop.
#[derive(Serialize, Deserialize, Model)]
pub struct ShopTokenData {
    /// What the token may do.
    #[tf(default = "read")]
    pub scope: String,
    /// The token.
    #[tf(computed, sensitive)]
    pub token: Attr<String>,
}

pub struct ShopToken;

impl EphemeralResource for ShopToken {
    const TYPE_NAME: &'static str = "pets_shop_token";
    type Data = ShopTokenData;

    fn open(&self, config: ShopTokenData, lease: &mut Lease) -> Result<ShopTokenData> {
        let token = format!("tok-{}", config.scope); // ask the shop, in real life
        lease.set("token", &token)?; // what renew and close will need
        lease.renew_after(Duration::from_secs(300));
        Ok(ShopTokenData { token: token.into(), ..config })
    }

    fn renew(&self, lease: &mut Lease) -> Result<()> {
        lease.renew_after(Duration::from_secs(300)); // extended: ask again in 5 minutes
        Ok(())
    }

    fn close(&self, lease: &Lease) -> Result<()> {
        let _revoke: Option<String> = lease.get("token");
        Ok(())
    }
}

use terrarium_sdk::identity::ResourceIdentity;
use terrarium_sdk::list::{ListResource, ListResults};

/// What names a pet for good.
#[derive(Serialize, Deserialize, Model)]
pub struct PetIdentity {
    #[tf(required_for_import)]
    pub id: String,
}

impl ResourceIdentity for PetResource {
    type Identity = PetIdentity;

    type Source = PetIdentity;

    fn identity_of(&self, source: PetIdentity) -> Option<PetIdentity> {
        Some(source)
    }
}

/// Which pets to list.
#[derive(Deserialize, Model)]
pub struct PetFilter {
    /// Only pets whose name starts with this.
    pub prefix: Option<String>,
}

impl ListResource for PetResource {
    type Config = PetFilter;

    fn list(&self, filter: PetFilter, results: &mut ListResults<Self>) -> Result<()> {
        let prefix = filter.prefix.unwrap_or_default();
        for name in ["rex", "rover", "tom"].into_iter().filter(|n| n.starts_with(&prefix)) {
            let id = format!("pet-{name}");
            let pet = || {
                Ok(Pet {
                    id: Attr::Known(id.clone()),
                    name: name.into(),
                    legs: Attr::Known(4),
                    toys: None,
                })
            };
            if !results.push(PetIdentity { id: id.clone() }, name, pet) {
                break;
            }
        }
        Ok(())
    }
}

use terrarium_sdk::action::{Action, Progress};

/// Feeds pets.
#[derive(Deserialize, Model)]
pub struct FeedConfig {
    /// The pets to feed, by name.
    pub pets: Vec<String>,
}

pub struct Feed;

impl Action for Feed {
    const TYPE_NAME: &'static str = "pets_feed";
    type Config = FeedConfig;

    fn invoke(&self, config: FeedConfig, progress: &Progress) -> Result<()> {
        for (i, pet) in config.pets.iter().enumerate() {
            progress.report(format!("fed {pet} ({}/{})", i + 1, config.pets.len()));
        }
        Ok(())
    }
}

use serde_json::json;
use terrarium_sdk::testing::Harness;

#[test]
fn a_pet_is_created_updated_and_replaced() {
    let h = Harness::new(Pets);
    let created = h.create("pets_pet", json!({"name": "rex", "toys": [{"kind": "ball"}]})).unwrap();
    assert_eq!(created.state.attr("legs"), Some(&terrarium_sdk::Value::Number(4.into())));

    let more_toys = json!({"name": "rex", "toys": [{"kind": "ball"}, {"kind": "rope"}]});
    let updated = h.update("pets_pet", &created.state, more_toys).unwrap();
    assert!(!updated.replaced); // the ball keeps its serial: matched, not replaced

    let renamed = h.update("pets_pet", &updated.state, json!({"name": "max"})).unwrap();
    assert!(renamed.replaced);

    let error = h.validate("pets_pet", json!({"name": ""})).unwrap_err();
    assert_eq!(error.diagnostics[0].attribute.to_string(), "name");
}

#[test]
fn tokens_pets_and_feeding() {
    let h = Harness::new(Pets);
    let token = h.open("pets_shop_token", json!({})).unwrap();
    assert_eq!(token.result.attr("token"), Some(&terrarium_sdk::Value::string("tok-read")));

    let listing = h.list("pets_pet", json!({"prefix": "r"})).unwrap();
    assert_eq!(listing.display_names(), ["rex", "rover"]);

    let fed = h.invoke("pets_feed", json!({"pets": ["rex", "tom"]})).unwrap();
    assert_eq!(fed.progress, ["fed rex (1/2)", "fed tom (2/2)"]);
}

// ---- section 7 ----

use terrarium_sdk::rpc::MoveRequest;
use terrarium_sdk::{DeferredReason, Diagnostics, Plan, Value};

/// A pet's license.
#[derive(Serialize, Deserialize, Model)]
pub struct License {
    /// The license number, assigned by the city.
    #[tf(computed, use_state_for_unknown)]
    pub number: Attr<String>,
    /// The licensed pet.
    #[tf(requires_replace)]
    pub pet: String,
    /// The PIN for renewing online: sent to the city, never stored.
    #[tf(write_only)]
    pub pin: Option<String>,
    /// Change it to send the PIN again.
    #[tf(requires_replace)]
    pub pin_version: Option<i64>,
}

/// What names a license for good. Version 1: version 0 called it `license`.
#[derive(Serialize, Deserialize, Model)]
#[tf(version = 1)]
pub struct LicenseIdentity {
    /// The license number.
    #[tf(required_for_import)]
    pub number: String,
}

pub struct LicenseResource;

impl Resource for LicenseResource {
    const TYPE_NAME: &'static str = "pets_license";
    type State = License;

    fn create(&self, license: License) -> Result<License> {
        let _for_the_city = license.pin.as_deref(); // the configured PIN, here and in update only
        Ok(License { number: Attr::Known(format!("L-{}", license.pet)), ..license })
    }

    fn plan(&self, plan: &mut Plan) -> Result<()> {
        // The city must know the pet before it can plan; wait for it where Terraform can.
        if plan.deferral_allowed() && plan.config().attr("pet").is_some_and(Value::is_unknown) {
            return Err(Diagnostics::deferred(DeferredReason::ResourceConfigUnknown));
        }
        Ok(())
    }

    fn import(&self, number: &str) -> Result<License> {
        let pet = number.strip_prefix("L-").unwrap_or(number).to_string();
        Ok(License { number: Attr::Known(number.to_string()), pet, pin: None, pin_version: None })
    }

    fn identity(&self) -> Option<&dyn AnyIdentity<License>> {
        Some(self)
    }

    // `moved { from = oldpets_license.x  to = pets_license.x }` from an older provider.
    const MOVES_FROM: &'static [&'static str] = &["oldpets_license"];

    fn move_state(&self, source: MoveRequest) -> Result<Value> {
        Ok(source.source_state) // fitted to this schema: attributes it lacks are dropped
    }

    fn read(&self, current: License) -> Result<Option<License>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: License) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

impl ResourceIdentity for LicenseResource {
    type Identity = LicenseIdentity;
    // The identity is the state's `number`: unknown until the city assigns it, so a
    // create's plan shows the identity as known after apply.
    type Source = LicenseIdentity;

    fn identity_of(&self, source: LicenseIdentity) -> Option<LicenseIdentity> {
        Some(source)
    }

    fn import_by_identity(&self, identity: LicenseIdentity) -> Result<License> {
        self.import(&identity.number)
    }

    fn upgrade_identity(&self, _version: i64, raw: Value) -> Result<Value> {
        let number = raw.attr("license").cloned().unwrap_or(Value::Null);
        Ok(Value::Object([("number".to_string(), number)].into()))
    }
}

#[test]
fn a_license() {
    let h = Harness::new(Pets);
    let license =
        h.create("pets_license", json!({"pet": "rex", "pin": "1234", "pin_version": 1})).unwrap();
    assert_eq!(license.state.attr("pin"), Some(&Value::Null)); // never stored
    let identity = Value::Object([("number".to_string(), Value::string("L-rex"))].into());
    assert_eq!(license.identity, Some(identity.clone()));

    let imported = h.import_by_identity("pets_license", json!({"number": "L-rex"})).unwrap();
    assert_eq!(imported.state.attr("pet"), Some(&Value::string("rex")));
    assert_eq!(
        h.upgrade_identity("pets_license", 0, json!({"license": "L-rex"})).unwrap(),
        identity
    );

    let moved = h.move_state("oldpets_license", &imported.state, "pets_license").unwrap();
    assert_eq!(moved.identity, Some(identity));
    let config = h.generate_config("pets_license", &imported.state).unwrap();
    assert_eq!(config.attr("number"), Some(&Value::Null)); // computed: not configuration
}

// ---- section 5 ----

mod notes {
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Serialize};
    use terrarium_sdk::rpc::ConfigureRequest;
    use terrarium_sdk::schema::Schema;
    use terrarium_sdk::{
        AnyDataSource, AnyResource, Attr, DataSource, Diagnostics, Model, Provider, Resource,
        Result, from_value,
    };

    /// `provider "notes" { directory = "/srv/notes" }`.
    #[derive(Deserialize, Model)]
    pub struct NotesConfig {
        /// Where the notes are kept (grant it: `terrarium install --allow-dir DIR:rw`).
        pub directory: String,
    }

    #[derive(Default)]
    pub struct Notes {
        directory: PathBuf,
    }

    impl Provider for Notes {
        fn schema(&self) -> Schema {
            NotesConfig::schema()
        }

        // Called before anything that needs the configuration; keep what it gives in `self`.
        fn configure(&mut self, request: ConfigureRequest) -> Result<()> {
            let config: NotesConfig = from_value(&request.config)?;
            self.directory = PathBuf::from(config.directory);
            Ok(())
        }

        // Resources and data sources borrow what configure kept.
        fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
            vec![Box::new(NoteResource { directory: &self.directory })]
        }

        fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
            vec![Box::new(NoteData { directory: &self.directory })]
        }
    }

    /// A note: a file in the provider's directory.
    #[derive(Serialize, Deserialize, Model)]
    pub struct Note {
        #[tf(requires_replace)]
        pub name: String,
        pub text: String,
    }

    pub struct NoteResource<'a> {
        directory: &'a Path,
    }

    fn failed(what: &str, e: std::io::Error) -> Diagnostics {
        Diagnostics::error(format!("Cannot {what} the note"), e.to_string())
    }

    impl Resource for NoteResource<'_> {
        const TYPE_NAME: &'static str = "notes_note";
        type State = Note;

        fn create(&self, note: Note) -> Result<Note> {
            std::fs::write(self.directory.join(&note.name), &note.text)
                .map_err(|e| failed("write", e))?;
            Ok(note)
        }

        fn update(&self, _prior: Note, note: Note) -> Result<Note> {
            self.create(note)
        }

        // Drift: what is on disk now. Edited outside Terraform: the new text, which the next
        // plan changes back. Deleted: `None`, and the next plan creates it again.
        fn read(&self, note: Note) -> Result<Option<Note>> {
            match std::fs::read_to_string(self.directory.join(&note.name)) {
                Ok(text) => Ok(Some(Note { text, ..note })),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(failed("read", e)),
            }
        }

        fn delete(&self, note: Note) -> Result<()> {
            match std::fs::remove_file(self.directory.join(&note.name)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(failed("delete", e)),
                _ => Ok(()),
            }
        }
    }

    /// `data "notes_note" "todo" { name = "todo" }`: reads a note someone else wrote.
    #[derive(Serialize, Deserialize, Model)]
    pub struct NoteText {
        pub name: String,
        #[tf(computed)]
        pub text: Attr<String>,
    }

    pub struct NoteData<'a> {
        directory: &'a Path,
    }

    impl DataSource for NoteData<'_> {
        const TYPE_NAME: &'static str = "notes_note";
        type State = NoteText;

        fn read(&self, config: NoteText) -> Result<NoteText> {
            let text = std::fs::read_to_string(self.directory.join(&config.name))
                .map_err(|e| failed("read", e))?;
            Ok(NoteText { text: Attr::Known(text), ..config })
        }
    }

    #[test]
    fn notes_are_configured_read_by_the_data_source_and_drift_is_seen() {
        use serde_json::json;
        use terrarium_sdk::Value;
        use terrarium_sdk::testing::Harness;

        let dir = std::env::temp_dir().join(format!("notes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut h = Harness::new(Notes::default());
        h.configure(json!({"directory": dir})).unwrap();

        let created = h.create("notes_note", json!({"name": "todo", "text": "milk"})).unwrap();
        let read = h.read_data("notes_note", json!({"name": "todo"})).unwrap();
        assert_eq!(read.state.attr("text"), Some(&Value::string("milk")));

        std::fs::remove_file(dir.join("todo")).unwrap(); // deleted outside Terraform
        let refreshed = h.read("notes_note", &created.state).unwrap();
        assert!(refreshed.state.is_null()); // gone: the next plan creates it again
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
