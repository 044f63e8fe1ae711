//! Drives a small provider through [`Server`] the way the host drives a component.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use terrarium_sdk::function::{Arguments, Function, FunctionError, Parameter, Signature};
use terrarium_sdk::rpc::{
    ApplyRequest, ImportRequest, PlanRequest, ReadDataSourceRequest, ReadRequest, UpgradeRequest,
};
use terrarium_sdk::schema::{Attribute, Block, NestedBlock, Schema};
use terrarium_sdk::{
    AnyDataSource, AnyFunction, AnyResource, Attr, AttributePath, DataSource, Diagnostics, Number,
    Plan, Provider, Resource, Result, Server, Value,
};

#[derive(Default)]
struct Cloud;

impl Provider for Cloud {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(Machine), Box::new(Broken)]
    }
    fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
        vec![Box::new(Echo)]
    }
    fn functions(&self) -> Vec<Box<dyn AnyFunction + '_>> {
        vec![Box::new(Double)]
    }
}

struct Machine;

#[derive(Debug, Serialize, Deserialize)]
struct MachineState {
    id: Attr<String>,
    name: String,
    size: i64,
    last_modified: Attr<String>,
    disk: Vec<Disk>,
}

// The schema is written with the builder (see `schema`), not derived.
impl terrarium_sdk::Model for MachineState {}

#[derive(Debug, Serialize, Deserialize)]
struct Disk {
    label: String,
    uuid: Attr<String>,
}

impl Resource for Machine {
    const TYPE_NAME: &'static str = "cloud_machine";
    type State = MachineState;

    fn schema(&self) -> Schema {
        Schema::new()
            .version(2)
            .attribute(Attribute::string("id").computed().use_state_for_unknown())
            .attribute(Attribute::string("name").required().requires_replace())
            .attribute(Attribute::number("size").required())
            .attribute(Attribute::string("last_modified").computed().unknown_on_update())
            .block(NestedBlock::list(
                "disk",
                Block::new()
                    .attribute(Attribute::string("label").required())
                    .attribute(Attribute::string("uuid").computed()),
            ))
    }

    fn validate(&self, config: &Value) -> Result<()> {
        if let Some(Value::Number(n)) = config.attr("size")
            && n.as_f64() <= 0.0
        {
            return Err(Diagnostics::attribute_error(
                "size",
                "Invalid size",
                "The size must be positive.",
            ));
        }
        Ok(())
    }

    fn plan(&self, plan: &mut Plan) -> Result<()> {
        // A hook sees the default plan and may change it.
        if plan.is_create() && plan.attribute("name") == &Value::string("fixed-id") {
            plan.set_attribute("id", Value::string("fixed"))?;
        }
        Ok(())
    }

    fn create(&self, planned: MachineState) -> Result<MachineState> {
        let disk = planned
            .disk
            .into_iter()
            .enumerate()
            .map(|(i, d)| Disk { uuid: Attr::Known(format!("disk-{i}")), ..d })
            .collect();
        Ok(MachineState {
            id: planned.id.known().cloned().unwrap_or_else(|| format!("m-{}", planned.name)).into(),
            last_modified: Attr::Known("t1".into()),
            disk,
            ..planned
        })
    }

    fn update(&self, _prior: MachineState, planned: MachineState) -> Result<MachineState> {
        let disk = planned
            .disk
            .into_iter()
            .enumerate()
            .map(|(i, d)| match d.uuid {
                Attr::Known(_) => d,
                _ => Disk { uuid: Attr::Known(format!("disk-{i}")), ..d },
            })
            .collect();
        Ok(MachineState { last_modified: Attr::Known("t2".into()), disk, ..planned })
    }

    fn import(&self, id: &str) -> Result<MachineState> {
        Ok(MachineState {
            id: Attr::Known(id.to_string()),
            name: "imported".into(),
            size: 1,
            last_modified: Attr::Known("t0".into()),
            disk: Vec::new(),
        })
    }

    fn upgrade(&self, version: i64, raw: Value) -> Result<Value> {
        // Version 1 called `size` `cores`.
        let Value::Object(mut attrs) = raw else {
            return Err(Diagnostics::error(
                "Bad state",
                format!("version {version} state is not an object"),
            ));
        };
        if let Some(cores) = attrs.remove("cores") {
            attrs.insert("size".into(), cores);
        }
        Ok(Value::Object(attrs))
    }

    fn read(&self, current: MachineState) -> Result<Option<MachineState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: MachineState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

/// A resource whose create forgets to set a computed attribute.
struct Broken;

#[derive(Serialize, Deserialize)]
struct BrokenState {
    id: Attr<String>,
}

// The schema is written with the builder (see `schema`), not derived.
impl terrarium_sdk::Model for BrokenState {}

impl Resource for Broken {
    const TYPE_NAME: &'static str = "cloud_broken";
    type State = BrokenState;
    fn schema(&self) -> Schema {
        Schema::new().attribute(Attribute::string("id").computed())
    }
    fn create(&self, planned: BrokenState) -> Result<BrokenState> {
        Ok(planned)
    }

    fn read(&self, current: BrokenState) -> Result<Option<BrokenState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: BrokenState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

struct Echo;

#[derive(Serialize, Deserialize)]
struct EchoState {
    input: String,
    output: Attr<String>,
}

// The schema is written with the builder (see `schema`), not derived.
impl terrarium_sdk::Model for EchoState {}

impl DataSource for Echo {
    const TYPE_NAME: &'static str = "cloud_echo";
    type State = EchoState;
    fn schema(&self) -> Schema {
        Schema::new()
            .attribute(Attribute::string("input").required())
            .attribute(Attribute::string("output").computed())
    }
    fn read(&self, config: EchoState) -> Result<EchoState> {
        Ok(EchoState { output: Attr::Known(config.input.clone()), ..config })
    }
}

struct Double;

impl Function for Double {
    const NAME: &'static str = "double";
    type Output = i64;
    fn signature(&self) -> Signature {
        Signature::new(terrarium_sdk::Type::Number)
            .parameter(Parameter::new("n", terrarium_sdk::Type::Number))
    }
    fn call(&self, args: &Arguments) -> std::result::Result<i64, FunctionError> {
        let n: i64 = args.get(0)?;
        n.checked_mul(2).ok_or_else(|| FunctionError::argument(0, "too large"))
    }
}

fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn s(text: &str) -> Value {
    Value::string(text)
}

fn n(i: i64) -> Value {
    Value::Number(Number::Int(i))
}

fn disk(label: &str, uuid: Value) -> Value {
    obj([("label", s(label)), ("uuid", uuid)])
}

/// A configuration: what Terraform proposes on create, too.
fn config(name: &str, size: i64, disks: Vec<Value>) -> Value {
    obj([
        ("id", Value::Null),
        ("name", s(name)),
        ("size", n(size)),
        ("last_modified", Value::Null),
        ("disk", Value::List(disks)),
    ])
}

fn plan(
    server: &Server<Cloud>,
    prior: &Value,
    proposed: &Value,
    config: &Value,
) -> terrarium_sdk::rpc::PlanResponse {
    server.plan_resource_change(PlanRequest {
        type_name: "cloud_machine".into(),
        prior_state: prior.clone(),
        proposed_new_state: proposed.clone(),
        config: config.clone(),
        prior_private: b"private".to_vec(),
        client: Default::default(),
        prior_identity: None,
    })
}

fn apply(
    server: &Server<Cloud>,
    prior: &Value,
    planned: &Value,
) -> terrarium_sdk::rpc::ApplyResponse {
    server.apply_resource_change(ApplyRequest {
        type_name: "cloud_machine".into(),
        prior_state: prior.clone(),
        planned_state: planned.clone(),
        config: Value::Null,
        planned_private: b"private".to_vec(),
        planned_identity: None,
    })
}

/// Terraform's proposal for an update: the configuration, with prior values for computed
/// attributes the configuration leaves null.
fn propose(prior: &Value, config: &Value) -> Value {
    let (Value::Object(p), Value::Object(c)) = (prior, config) else { panic!("objects expected") };
    Value::Object(
        c.iter()
            .map(|(k, v)| {
                let v =
                    if v.is_null() { p.get(k).cloned().unwrap_or(Value::Null) } else { v.clone() };
                (k.clone(), v)
            })
            .collect(),
    )
}

#[test]
fn schema_lists_every_type_by_name() {
    let (schema, diagnostics) = Server::new(Cloud).get_schema();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(schema.resources.keys().collect::<Vec<_>>(), ["cloud_broken", "cloud_machine"]);
    assert_eq!(schema.data_sources.keys().collect::<Vec<_>>(), ["cloud_echo"]);
    assert_eq!(schema.functions.keys().collect::<Vec<_>>(), ["double"]);
    let machine = &schema.resources["cloud_machine"];
    assert_eq!(machine.version, 2);
    assert!(machine.block.attribute("id").unwrap().computed);
    assert_eq!(machine.block.block_type("disk").unwrap().block.attributes.len(), 2);
}

#[test]
fn create_plans_computed_attributes_unknown_and_apply_fills_them() {
    let server = Server::new(Cloud);
    let config = config("web", 2, vec![disk("root", Value::Null)]);
    let planned = plan(&server, &Value::Null, &config, &config);
    assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
    assert!(planned.requires_replace.is_empty());
    assert_eq!(planned.planned_private, b"private");
    let state = &planned.planned_state;
    assert!(state.attr("id").unwrap().is_unknown());
    assert!(state.attr("last_modified").unwrap().is_unknown());
    assert_eq!(state.attr("name"), Some(&s("web")));
    // Nested computed attributes too.
    assert_eq!(state.attr("disk"), Some(&Value::List(vec![disk("root", Value::unknown())])));

    let applied = apply(&server, &Value::Null, state);
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    assert_eq!(
        applied.new_state,
        obj([
            ("id", s("m-web")),
            ("name", s("web")),
            ("size", n(2)),
            ("last_modified", s("t1")),
            ("disk", Value::List(vec![disk("root", s("disk-0"))])),
        ])
    );
}

#[test]
fn the_plan_hook_sees_and_changes_the_default_plan() {
    let server = Server::new(Cloud);
    let config = config("fixed-id", 1, vec![]);
    let planned = plan(&server, &Value::Null, &config, &config);
    assert_eq!(planned.planned_state.attr("id"), Some(&s("fixed")));
}

#[test]
fn updates_keep_computed_values_and_mark_volatile_ones_unknown() {
    let server = Server::new(Cloud);
    let prior = obj([
        ("id", s("m-web")),
        ("name", s("web")),
        ("size", n(2)),
        ("last_modified", s("t1")),
        ("disk", Value::List(vec![disk("root", s("disk-0"))])),
    ]);

    // Nothing changed: the plan is the prior state.
    let same = config("web", 2, vec![disk("root", Value::Null)]);
    let proposed = obj([
        ("id", s("m-web")),
        ("name", s("web")),
        ("size", n(2)),
        ("last_modified", s("t1")),
        ("disk", Value::List(vec![disk("root", s("disk-0"))])),
    ]);
    let planned = plan(&server, &prior, &proposed, &same);
    assert_eq!(planned.planned_state, prior);

    // Size changed, and a disk was added: an update in place.
    let bigger = config("web", 4, vec![disk("root", Value::Null), disk("data", Value::Null)]);
    let mut proposed = propose(&prior, &bigger);
    if let Value::Object(m) = &mut proposed {
        m.insert(
            "disk".into(),
            Value::List(vec![disk("root", s("disk-0")), disk("data", Value::Null)]),
        );
    }
    let planned = plan(&server, &prior, &proposed, &bigger);
    assert!(planned.requires_replace.is_empty(), "{:?}", planned.requires_replace);
    let state = &planned.planned_state;
    assert_eq!(state.attr("id"), Some(&s("m-web")), "use_state_for_unknown keeps it");
    assert!(state.attr("last_modified").unwrap().is_unknown(), "unknown_on_update");
    assert_eq!(
        state.attr("disk"),
        Some(&Value::List(vec![disk("root", s("disk-0")), disk("data", Value::unknown())])),
        "a new nested object has no prior value"
    );

    let applied = apply(&server, &prior, state);
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    assert_eq!(applied.new_state.attr("last_modified"), Some(&s("t2")));
}

#[test]
fn changing_a_replace_forcing_attribute_plans_a_replacement() {
    let server = Server::new(Cloud);
    let prior = obj([
        ("id", s("m-web")),
        ("name", s("web")),
        ("size", n(2)),
        ("last_modified", s("t1")),
        ("disk", Value::List(vec![])),
    ]);
    let renamed = config("api", 2, vec![]);
    let planned = plan(&server, &prior, &propose(&prior, &renamed), &renamed);
    assert_eq!(planned.requires_replace, vec![AttributePath::attribute("name")]);
    // The replacement is a new object: its computed attributes are unknown again.
    assert!(planned.planned_state.attr("id").unwrap().is_unknown());

    // An unknown value may differ: it forces replacement too.
    let mut unknown_name = renamed.clone();
    if let Value::Object(m) = &mut unknown_name {
        m.insert("name".into(), Value::unknown());
    }
    let planned = plan(&server, &prior, &propose(&prior, &unknown_name), &unknown_name);
    assert_eq!(planned.requires_replace, vec![AttributePath::attribute("name")]);
}

#[test]
fn destroy_plans_null_and_apply_deletes() {
    let server = Server::new(Cloud);
    let prior = obj([
        ("id", s("m-web")),
        ("name", s("web")),
        ("size", n(2)),
        ("last_modified", s("t1")),
        ("disk", Value::List(vec![])),
    ]);
    let planned = plan(&server, &prior, &Value::Null, &Value::Null);
    assert_eq!(planned.planned_state, Value::Null);
    let applied = apply(&server, &prior, &Value::Null);
    assert!(applied.diagnostics.is_empty());
    assert_eq!(applied.new_state, Value::Null);
}

#[test]
fn read_keeps_the_state_by_default() {
    let server = Server::new(Cloud);
    let state = config("web", 1, vec![]);
    let Value::Object(mut state) = state else { unreachable!() };
    state.insert("id".into(), s("m-web"));
    state.insert("last_modified".into(), s("t1"));
    let state = Value::Object(state);
    let read = server.read_resource(ReadRequest {
        type_name: "cloud_machine".into(),
        current_state: state.clone(),
        private: vec![1],
        client: Default::default(),
        current_identity: None,
    });
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    assert_eq!(read.new_state, state);
    assert_eq!(read.private, vec![1]);
}

#[test]
fn validation_errors_point_at_the_attribute() {
    let server = Server::new(Cloud);
    let diagnostics = server.validate_resource_config("cloud_machine", &config("web", 0, vec![]));
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].attribute, AttributePath::attribute("size"));
    assert!(server.validate_resource_config("cloud_machine", &config("web", 3, vec![])).is_empty());
}

#[test]
fn unknown_type_names_get_a_clear_error() {
    let server = Server::new(Cloud);
    let planned = server.plan_resource_change(PlanRequest {
        type_name: "cloud_nope".into(),
        prior_state: Value::Null,
        proposed_new_state: Value::Null,
        config: Value::Null,
        prior_private: Vec::new(),
        client: Default::default(),
        prior_identity: None,
    });
    assert_eq!(planned.diagnostics.len(), 1);
    assert_eq!(planned.diagnostics[0].summary, "Unknown resource type");
    assert!(
        planned.diagnostics[0].detail.contains("cloud_machine"),
        "{}",
        planned.diagnostics[0].detail
    );

    let read = server.read_data_source(ReadDataSourceRequest {
        type_name: "cloud_nope".into(),
        config: Value::Null,
        client: Default::default(),
    });
    assert_eq!(read.diagnostics[0].summary, "Unknown data source");

    let err = server.call_function("nope", vec![]).unwrap_err();
    assert!(err.text.contains("double"), "{}", err.text);
}

#[test]
fn apply_refuses_to_store_unknown_values() {
    let server = Server::new(Cloud);
    let applied = server.apply_resource_change(ApplyRequest {
        type_name: "cloud_broken".into(),
        prior_state: Value::Null,
        planned_state: obj([("id", Value::unknown())]),
        config: obj([("id", Value::Null)]),
        planned_private: Vec::new(),
        planned_identity: None,
    });
    assert_eq!(applied.new_state, Value::Null);
    assert_eq!(applied.diagnostics.len(), 1);
    assert_eq!(applied.diagnostics[0].attribute, AttributePath::attribute("id"));
}

#[test]
fn import_upgrade_data_sources_and_functions() {
    let server = Server::new(Cloud);

    let imported = server.import_resource_state(ImportRequest {
        type_name: "cloud_machine".into(),
        id: "m-1".into(),
        client: Default::default(),
        identity: None,
    });
    assert!(imported.diagnostics.is_empty(), "{:?}", imported.diagnostics);
    assert_eq!(imported.imported.len(), 1);
    assert_eq!(imported.imported[0].type_name, "cloud_machine");
    assert_eq!(imported.imported[0].state.attr("id"), Some(&s("m-1")));

    let refused = server.import_resource_state(ImportRequest {
        type_name: "cloud_broken".into(),
        id: "x".into(),
        client: Default::default(),
        identity: None,
    });
    assert_eq!(refused.diagnostics[0].summary, "Import not supported");

    // Current version: fitted to the schema, leniently.
    let raw = obj([
        ("id", s("m-1")),
        ("name", s("web")),
        ("size", s("2")),
        ("last_modified", s("t1")),
        ("disk", Value::Tuple(vec![obj([("label", s("root")), ("uuid", s("u"))])])),
    ]);
    let upgraded = server.upgrade_resource_state(UpgradeRequest {
        type_name: "cloud_machine".into(),
        version: 2,
        raw_state: raw,
    });
    assert!(upgraded.diagnostics.is_empty(), "{:?}", upgraded.diagnostics);
    assert_eq!(upgraded.upgraded_state.attr("size"), Some(&n(2)));
    assert_eq!(
        upgraded.upgraded_state.attr("disk"),
        Some(&Value::List(vec![disk("root", s("u"))]))
    );

    // Older version: the resource's upgrade runs first.
    let old =
        obj([("id", s("m-1")), ("name", s("web")), ("cores", n(8)), ("last_modified", s("t1"))]);
    let upgraded = server.upgrade_resource_state(UpgradeRequest {
        type_name: "cloud_machine".into(),
        version: 1,
        raw_state: old,
    });
    assert!(upgraded.diagnostics.is_empty(), "{:?}", upgraded.diagnostics);
    assert_eq!(upgraded.upgraded_state.attr("size"), Some(&n(8)));
    assert_eq!(upgraded.upgraded_state.attr("disk"), Some(&Value::Null));

    // Newer version: refused.
    let upgraded = server.upgrade_resource_state(UpgradeRequest {
        type_name: "cloud_machine".into(),
        version: 3,
        raw_state: Value::Object(BTreeMap::new()),
    });
    assert_eq!(upgraded.diagnostics[0].summary, "State written by a newer provider");

    let read = server.read_data_source(ReadDataSourceRequest {
        type_name: "cloud_echo".into(),
        config: obj([("input", s("hi")), ("output", Value::Null)]),
        client: Default::default(),
    });
    assert_eq!(read.state, obj([("input", s("hi")), ("output", s("hi"))]));

    assert_eq!(server.call_function("double", vec![n(21)]), Ok(n(42)));
    let err = server.call_function("double", vec![s("x")]).unwrap_err();
    assert_eq!(err.argument, Some(0));
    let err = server.call_function("double", vec![n(i64::MAX)]).unwrap_err();
    assert_eq!(err, FunctionError::argument(0, "too large"));
}

#[test]
fn schema_mistakes_are_reported() {
    #[derive(Default)]
    struct Sloppy;
    struct Twice;
    impl Resource for Twice {
        const TYPE_NAME: &'static str = "sloppy_twice";
        type State = ();
        fn schema(&self) -> Schema {
            Schema::new()
                .attribute(Attribute::string("a").required().computed())
                .attribute(Attribute::string("b"))
                .attribute(Attribute::string("Bad-Name").optional())
                .attribute(Attribute::string("c").optional().unknown_on_update())
        }
        fn create(&self, planned: ()) -> Result<()> {
            Ok(planned)
        }
        fn read(&self, current: ()) -> Result<Option<()>> {
            Ok(Some(current))
        }
        fn delete(&self, _prior: ()) -> Result<()> {
            Ok(())
        }
    }
    impl Provider for Sloppy {
        fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
            vec![Box::new(Twice), Box::new(Twice)]
        }
    }
    let (_, diagnostics) = Server::new(Sloppy).get_schema();
    let paths: Vec<String> = diagnostics.iter().map(|d| d.attribute.to_string()).collect();
    // Each problem twice (the type is listed twice), plus the duplicate itself.
    assert_eq!(diagnostics.len(), 9, "{diagnostics:#?}");
    for expected in ["a", "b", "Bad-Name", "c"] {
        assert!(paths.iter().any(|p| p == expected), "no diagnostic for {expected}: {paths:?}");
    }
    assert!(diagnostics.iter().any(|d| d.detail.contains("more than once")));
}
