//! The code of guest-sdk/README.md, compiled and run: the walk-through must stay true.
//! (Keep the two in step: this file is the README's blocks, the `export!` left out.)

use serde::{Deserialize, Serialize};
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
