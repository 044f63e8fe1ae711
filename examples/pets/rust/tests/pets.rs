//! examples/pets/rust natively, through the SDK's `Harness`: the SPEC.md behaviour without
//! Wasm or terraform (the conformance suite, tests/tests/e2e/pets.rs, runs the component
//! through terraform). The same cases as examples/pets/python/test_pets.py.

// Test code: a failed unwrap is a failed test with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value as Json, json};
use terrarium_sdk::function::AnyFunction;
use terrarium_sdk::testing::Harness;
use terrarium_sdk::{Value, json as tf_json};

use pets_rs::{Greeting, Pet, Pets};

/// A configured provider over a fresh directory.
fn pets() -> (tempfile::TempDir, Harness<Pets>) {
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::new(Pets::default());
    h.configure(json!({"directory": dir.path()})).unwrap();
    (dir, h)
}

/// A state as plain JSON (unknowns are an error there, so plans go through [`unknown_at`]).
fn plain(state: &Value) -> Json {
    tf_json::value_to_json(state).unwrap()
}

fn unknown_at(value: &Value, path: &[&str]) -> bool {
    let mut at = value;
    for step in path {
        at = match (at, step.parse::<usize>()) {
            (Value::List(items) | Value::Set(items), Ok(i)) => &items[i],
            _ => at.attr(step).unwrap(),
        };
    }
    at.is_unknown()
}

#[test]
fn create_plans_defaults_at_depth_and_unknown_computed_values() {
    let (dir, h) = pets();
    let config = json!({"name": "rex", "owner": {"name": "ann"}, "toys": [{"kind": "ball"}], "collar": [{"size": "M"}]});
    let plan =
        h.plan("pets_pet", &Value::Null, &h.config("pets_pet", config.clone()).unwrap()).unwrap();
    let planned = &plan.planned_state;
    assert!(unknown_at(planned, &["id"]) && unknown_at(planned, &["toys", "0", "serial"]));
    assert_eq!(planned.attr("species"), Some(&Value::string("dog")));
    assert_eq!(planned.attr("legs"), Some(&Value::Number(4.into())));
    assert_eq!(planned.attr("owner").and_then(|o| o.attr("notify")), Some(&Value::Bool(false)));

    let created = plain(&h.create("pets_pet", config).unwrap().state);
    assert_eq!(created["id"], "pet-1");
    assert_eq!(created["toys"], json!([{"kind": "ball", "color": "red", "serial": "pet-1-toy-0"}]));
    assert_eq!(created["collar"], json!([{"material": "leather", "size": "M"}]));
    let stored: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("pet-1.json")).unwrap())
            .unwrap();
    assert!(stored.get("id").is_none() && stored["name"] == "rex", "{stored}");
    assert_eq!(std::fs::read_to_string(dir.path().join("next-id")).unwrap(), "2");
}

#[test]
fn an_update_keeps_the_id_and_serials_and_a_name_change_replaces() {
    let (_dir, h) = pets();
    let created = h.create("pets_pet", json!({"name": "rex", "toys": [{"kind": "ball"}]})).unwrap();
    let more = json!({"name": "rex", "legs": 3, "tags": ["good"], "toys": [{"kind": "ball"}, {"kind": "rope"}]});
    let plan = h.plan("pets_pet", &created.state, &h.config("pets_pet", more.clone()).unwrap());
    let plan = plan.unwrap();
    assert!(plan.requires_replace.is_empty(), "{:?}", plan.requires_replace);
    assert_eq!(plan.planned_state.attr("id"), Some(&Value::string("pet-1")));
    assert!(!unknown_at(&plan.planned_state, &["toys", "0", "serial"]));
    assert!(unknown_at(&plan.planned_state, &["toys", "1", "serial"]));

    let updated = h.update("pets_pet", &created.state, more).unwrap();
    let state = plain(&updated.state);
    assert_eq!(state["toys"][0]["serial"], "pet-1-toy-0");
    assert_eq!(state["toys"][1]["serial"], "pet-1-toy-1");
    assert_eq!(state["tags"], json!(["good"]));

    let renamed = h.update("pets_pet", &updated.state, json!({"name": "max"})).unwrap();
    assert!(renamed.replaced);
    assert_eq!(
        renamed.requires_replace.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["name"]
    );
    assert_eq!(plain(&renamed.state)["id"], "pet-2");
}

#[test]
fn unknowns_in_a_nested_set_are_matched_by_name_and_kept() {
    let (_dir, h) = pets();
    let created =
        h.create("pets_pet", json!({"name": "rex", "vaccines": [{"name": "rabies"}]})).unwrap();
    assert_eq!(
        plain(&created.state)["vaccines"],
        json!([{"name": "rabies", "batch": "pet-1-rabies"}])
    );
    let more = json!({"name": "rex", "vaccines": [{"name": "flu"}, {"name": "rabies"}]});
    let plan =
        h.plan("pets_pet", &created.state, &h.config("pets_pet", more.clone()).unwrap()).unwrap();
    let Some(Value::Set(vaccines)) = plan.planned_state.attr("vaccines") else {
        panic!("vaccines: {:?}", plan.planned_state)
    };
    for vaccine in vaccines {
        let batch = vaccine.attr("batch").unwrap();
        if vaccine.attr("name") == Some(&Value::string("rabies")) {
            assert_eq!(batch, &Value::string("pet-1-rabies"));
        } else {
            assert!(batch.is_unknown(), "{vaccine:?}");
        }
    }
    let updated = plain(&h.update("pets_pet", &created.state, more).unwrap().state);
    let mut batches: Vec<&str> = updated["vaccines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["batch"].as_str().unwrap())
        .collect();
    batches.sort();
    assert_eq!(batches, ["pet-1-flu", "pet-1-rabies"]);
}

#[test]
fn a_collar_size_change_replaces_on_a_nested_path() {
    let (_dir, h) = pets();
    let created = h.create("pets_pet", json!({"name": "rex", "collar": [{"size": "M"}]})).unwrap();
    let bigger = h.config("pets_pet", json!({"name": "rex", "collar": [{"size": "L"}]})).unwrap();
    let plan = h.plan("pets_pet", &created.state, &bigger).unwrap();
    let paths: Vec<String> = plan.requires_replace.iter().map(ToString::to_string).collect();
    assert_eq!(paths, ["collar[0].size"]);
}

#[test]
fn drift_import_and_destroy() {
    let (dir, h) = pets();
    let created = h.create("pets_pet", json!({"name": "rex", "secret": "s3"})).unwrap();
    std::fs::remove_file(dir.path().join("pet-1.json")).unwrap();
    assert!(h.read("pets_pet", &created.state).unwrap().state.is_null());

    let again = h.create("pets_pet", json!({"name": "tom", "species": "cat"})).unwrap();
    let id = plain(&again.state)["id"].as_str().unwrap().to_owned();
    // Edited outside Terraform: the file is the new state.
    let file = dir.path().join(format!("{id}.json"));
    let edited = std::fs::read_to_string(&file).unwrap().replace("\"cat\"", "\"bird\"");
    std::fs::write(&file, edited).unwrap();
    let drifted = h.read("pets_pet", &again.state).unwrap();
    assert_eq!(plain(&drifted.state)["species"], "bird");

    let imported = h.import("pets_pet", &id).unwrap();
    assert_eq!(imported.state, drifted.state);
    let typed: Pet = imported.typed().unwrap();
    assert_eq!(typed.secret, None);
    let missing = h.import("pets_pet", "pet-9").unwrap_err();
    assert_eq!(missing.diagnostics[0].summary, "Cannot import");
    assert_eq!(missing.diagnostics[0].detail, "no pet with id pet-9");

    h.destroy("pets_pet", &drifted.state).unwrap();
    assert!(!file.exists());
}

#[test]
fn validators_and_diagnostics_carry_attribute_paths() {
    let (_dir, h) = pets();
    let bad =
        h.validate("pets_pet", json!({"name": "", "species": "fish", "legs": 9})).unwrap_err();
    let mut paths: Vec<String> = bad.diagnostics.iter().map(|d| d.attribute.to_string()).collect();
    paths.sort();
    assert_eq!(paths, ["legs", "name", "species"]);

    let mut relative = Harness::new(Pets::default());
    let error = relative.configure(json!({"directory": "pets"})).unwrap_err();
    let d = &error.diagnostics[0];
    assert_eq!(
        (d.summary.as_str(), d.attribute.to_string().as_str()),
        ("Relative directory", "directory")
    );
}

#[test]
fn the_data_source_and_the_function() {
    let (_dir, h) = pets();
    h.create("pets_pet", json!({"name": "rex", "tags": ["a", "b"]})).unwrap();
    let read = h.read_data("pets_pet", json!({"id": "pet-1"})).unwrap();
    assert_eq!(
        plain(&read.state),
        json!({"id": "pet-1", "name": "rex", "species": "dog", "legs": 4, "tags": ["a", "b"]})
    );
    let missing = h.read_data("pets_pet", json!({"id": "pet-7"})).unwrap_err();
    let d = &missing.diagnostics[0];
    assert_eq!((d.summary.as_str(), d.attribute.to_string().as_str()), ("No such pet", "id"));

    assert_eq!(
        Greeting.call_function(vec![Value::string("rex")]),
        Ok(Value::string("Hello, rex!"))
    );
    let empty = Greeting.call_function(vec![Value::string("")]).unwrap_err();
    assert_eq!((empty.text.as_str(), empty.argument), ("name must not be empty", Some(0)));
}
