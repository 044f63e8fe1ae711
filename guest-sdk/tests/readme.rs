//! The code of guest-sdk/README.md, compiled and run: the walk-through must stay true.
//! (Keep the two in step: this file is the README's blocks, the `export!` left out; the
//! registration and `fn identity` lines section 5 asks for are in place.)

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
}

#[derive(Default)]
pub struct Pets;

impl Provider for Pets {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(PetResource)]
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

    fn identity_of(&self, pet: &Pet) -> Option<PetIdentity> {
        pet.id.known().map(|id| PetIdentity { id: id.clone() })
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
            let pet = || Ok(Pet { id: Attr::Known(id.clone()), name: name.into(), legs: Attr::Known(4), toys: None });
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
