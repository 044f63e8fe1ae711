//! One instance serving many calls, over real gRPC with mTLS against a `terrarium serve`
//! process: an SDK that leaks something per call (host handles, linear memory) fails only after
//! hundreds of calls on the same instance, which short tests never reach. The Go pets
//! (examples/pets/go, stock Go under the wasip1 adapter) read one pet from its file a thousand
//! times, one call after the other, so the pool keeps serving them from one instance.

use std::collections::BTreeMap;

use terrarium_codec as codec;
use terrarium_model::{Type, Value};
use terrarium_proto::tfplugin6 as pb;

use crate::served::{ServedProvider, guest};

fn pets_go() -> std::path::PathBuf {
    guest("pets_go.wasm", "examples/pets/go (`make build-guests`)")
}

/// The `pets_pet` state type of examples/pets/SPEC.md.
const PET_TYPE: &str = r#"["object",{
    "id":"string","name":"string","species":"string","legs":"number",
    "tags":["set","string"],"secret":"string",
    "owner":["object",{"name":"string","email":"string","notify":"bool"}],
    "toys":["list",["object",{"kind":"string","color":"string","serial":"string"}]],
    "vaccines":["set",["object",{"name":"string","batch":"string"}]],
    "collar":["list",["object",{"material":"string","size":"string"}]]}]"#;

/// `pet-1` as the provider stores it (SPEC.md: `DIR/pet-1.json`, the state without its id).
const PET_FILE: &str = r#"{"name":"rex","species":"dog","legs":4,"tags":["good","loud"],
    "secret":"s3cret","owner":{"name":"ann","email":"ann@example.com","notify":false},
    "toys":[{"kind":"ball","color":"red","serial":"pet-1-toy-0"}],
    "vaccines":[{"name":"rabies","batch":"pet-1-rabies"}],
    "collar":[{"material":"leather","size":"m"}]}"#;

fn pet() -> Value {
    let s = Value::string;
    let object = |fields: Vec<(&str, Value)>| {
        Value::Object(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    };
    object(vec![
        ("id", s("pet-1")),
        ("name", s("rex")),
        ("species", s("dog")),
        ("legs", Value::Number(4i32.into())),
        ("tags", Value::Set(vec![s("good"), s("loud")])),
        ("secret", s("s3cret")),
        (
            "owner",
            object(vec![
                ("name", s("ann")),
                ("email", s("ann@example.com")),
                ("notify", Value::Bool(false)),
            ]),
        ),
        (
            "toys",
            Value::List(vec![object(vec![
                ("kind", s("ball")),
                ("color", s("red")),
                ("serial", s("pet-1-toy-0")),
            ])]),
        ),
        (
            "vaccines",
            Value::Set(vec![object(vec![("name", s("rabies")), ("batch", s("pet-1-rabies"))])]),
        ),
        ("collar", Value::List(vec![object(vec![("material", s("leather")), ("size", s("m"))])])),
    ])
}

/// How many reads one instance serves: several times what a leak of one host handle per call
/// needs to reach the host's limit of 1,024.
const READS: usize = 1000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_go_pets_read_a_pet_a_thousand_times_on_one_instance() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("pet-1.json"), PET_FILE).expect("pet file");
    let grants = format!("allow_dir = [\"{}:rw\"]\n", dir.path().display());
    let mut p = ServedProvider::start_with_grants(&pets_go(), &[], Some(&grants)).await;

    let config_type = Type::object([("directory", Type::String)]);
    let config = Value::Object(BTreeMap::from([(
        "directory".to_string(),
        Value::string(dir.path().to_string_lossy()),
    )]));
    let configured = p
        .client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "1.15.0".into(),
            config: Some(pb::DynamicValue {
                msgpack: codec::encode_msgpack(&config, &config_type).expect("encodable"),
                json: Vec::new(),
            }),
            client_capabilities: None,
        })
        .await
        .expect("ConfigureProvider")
        .into_inner();
    assert!(configured.diagnostics.is_empty(), "{:?}", configured.diagnostics);

    let ty = Type::from_json(PET_TYPE).expect("the pet type");
    let state = codec::encode_msgpack(&pet(), &ty).expect("encodable");
    for i in 0..READS {
        let read = p
            .client
            .read_resource(pb::read_resource::Request {
                type_name: "pets_pet".into(),
                current_state: Some(pb::DynamicValue { msgpack: state.clone(), json: Vec::new() }),
                ..Default::default()
            })
            .await
            .expect("ReadResource answers")
            .into_inner();
        assert!(read.diagnostics.is_empty(), "read {} of {READS}: {:#?}", i + 1, read.diagnostics);
        let new_state = read.new_state.expect("a new state").msgpack;
        assert_eq!(
            codec::decode_msgpack(&new_state, &ty).expect("a pet"),
            pet(),
            "read {} of {READS}",
            i + 1
        );
    }
    assert!(p.is_running(), "the server exited");
}
