//! `#[derive(Model)]`: schemas from Rust types, and the plan behaviour the attributes ask
//! for, inside nested attributes and collections.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::json;
use terrarium_sdk::model::schema::{AttributeType, BlockNesting, ObjectNesting};
use terrarium_sdk::testing::Harness;
use terrarium_sdk::{
    AnyResource, Attr, BigNumber, Model, Provider, Resource, Result, Set, Type, Value,
};

/// A thing with every kind of field.
///
/// Second paragraph.
#[derive(Serialize, Deserialize, Model)]
#[tf(version = 3)]
struct Everything {
    /// The ID.
    #[tf(computed, use_state_for_unknown)]
    id: Attr<String>,
    name: String,
    flag: Option<bool>,
    small: Option<i32>,
    ratio: Option<f64>,
    huge: Option<BigNumber>,
    names: Option<Vec<String>>,
    tags: Option<BTreeSet<String>>,
    unordered: Option<Set<i64>>,
    labels: Option<BTreeMap<String, String>>,
    hashed: Option<HashMap<String, bool>>,
    pair: Option<(String, i64)>,
    object: Option<Inner>,
    anything: Option<terrarium_sdk::Dynamic>,
    #[tf(sensitive, write_only)]
    secret: Option<String>,
    #[tf(deprecated = "use name")]
    old_name: Option<String>,
    #[tf(name = "renamed")]
    original: Option<String>,
    #[tf(skip)]
    #[serde(skip)]
    _ignored: (),
    #[tf(nested)]
    one: Option<Inner>,
    #[tf(nested)]
    many: Option<Vec<Inner>>,
    #[tf(nested)]
    unique: Option<Set<Inner>>,
    #[tf(nested)]
    named: Option<BTreeMap<String, Inner>>,
    #[tf(block)]
    single_block: Option<Inner>,
    #[tf(block, min_items = 1, max_items = 3)]
    list_block: Vec<Inner>,
    #[tf(block)]
    set_block: Set<Inner>,
    #[tf(block)]
    map_block: BTreeMap<String, Inner>,
    #[tf(group)]
    group_block: Inner,
}

/// An inner object.
#[derive(Serialize, Deserialize, Model, Clone, Debug, PartialEq)]
struct Inner {
    /// A value.
    value: Option<String>,
}

#[test]
fn the_schema_comes_from_the_types() {
    let schema = Everything::schema().to_model();
    assert_eq!(schema.version, 3);
    assert_eq!(
        schema.block.description.text,
        "A thing with every kind of field.\n\nSecond paragraph."
    );
    let attr = |name: &str| schema.block.attribute(name).unwrap_or_else(|| panic!("{name}"));
    let ty = |name: &str| match &attr(name).ty {
        AttributeType::Type(t) => t.clone(),
        AttributeType::Nested { .. } => panic!("{name} is nested"),
    };
    let inner = Type::object([("value", Type::String)]);
    assert_eq!(ty("id"), Type::String);
    assert!(attr("id").computed && !attr("id").optional && !attr("id").required);
    assert_eq!(attr("id").description.text, "The ID.");
    assert!(attr("name").required);
    assert!(attr("flag").optional && !attr("flag").required);
    assert_eq!(ty("flag"), Type::Bool);
    for number in ["small", "ratio", "huge"] {
        assert_eq!(ty(number), Type::Number, "{number}");
    }
    assert_eq!(ty("names"), Type::list(Type::String));
    assert_eq!(ty("tags"), Type::set(Type::String));
    assert_eq!(ty("unordered"), Type::set(Type::Number));
    assert_eq!(ty("labels"), Type::map(Type::String));
    assert_eq!(ty("hashed"), Type::map(Type::Bool));
    assert_eq!(ty("pair"), Type::Tuple(vec![Type::String, Type::Number]));
    assert_eq!(ty("object"), inner);
    assert_eq!(ty("anything"), Type::Dynamic);
    assert!(attr("secret").sensitive && attr("secret").write_only);
    assert!(attr("old_name").deprecated && attr("old_name").deprecation_message == "use name");
    assert!(
        schema.block.attribute("renamed").is_some() && schema.block.attribute("original").is_none()
    );
    assert!(schema.block.attribute("_ignored").is_none());
    for (name, nesting) in [
        ("one", ObjectNesting::Single),
        ("many", ObjectNesting::List),
        ("unique", ObjectNesting::Set),
        ("named", ObjectNesting::Map),
    ] {
        match &attr(name).ty {
            AttributeType::Nested { nesting: n, attributes } => {
                assert_eq!(*n, nesting, "{name}");
                assert_eq!(attributes[0].name, "value");
                assert_eq!(attributes[0].description.text, "A value.");
            }
            AttributeType::Type(_) => panic!("{name} is not nested"),
        }
    }
    for (name, nesting) in [
        ("single_block", BlockNesting::Single),
        ("list_block", BlockNesting::List),
        ("set_block", BlockNesting::Set),
        ("map_block", BlockNesting::Map),
        ("group_block", BlockNesting::Group),
    ] {
        let block = schema.block.block_type(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(block.nesting, nesting, "{name}");
        assert!(block.block.attribute("value").is_some());
    }
    let list_block = schema.block.block_type("list_block").unwrap();
    assert_eq!((list_block.min_items, list_block.max_items), (1, 3));
    // The implied type agrees with the derived TfType of the struct.
    assert_eq!(
        Everything::schema().implied_type(),
        <Everything as terrarium_sdk::TfType>::tf_type()
    );
    assert!(Everything::schema().check().is_empty(), "{:?}", Everything::schema().check());
}

#[test]
fn big_numbers_round_trip_exactly() {
    let value = terrarium_sdk::to_value(&BigNumber("1e400".into())).unwrap();
    assert!(matches!(&value, Value::Number(n) if n.to_string().len() > 300), "{value:?}");
    let back: BigNumber = terrarium_sdk::from_value(&value).unwrap();
    assert_eq!(
        terrarium_sdk::model::Number::parse(&back.0),
        terrarium_sdk::model::Number::parse("1e400")
    );
}

// --- Planning inside nested attributes and collections -------------------------------

#[derive(Default)]
struct Cloud;

impl Provider for Cloud {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(NetworkResource), Box::new(Liar)]
    }
}

struct NetworkResource;

/// A network.
#[derive(Serialize, Deserialize, Model, Debug)]
struct Network {
    #[tf(computed, use_state_for_unknown)]
    id: Attr<String>,
    #[tf(computed)]
    revision: Attr<i64>,
    name: String,
    #[tf(nested)]
    subnets: Option<Vec<Subnet>>,
    #[tf(nested)]
    rules: Option<Set<Rule>>,
    #[tf(nested)]
    settings: Option<Settings>,
    #[tf(block)]
    zone: Vec<Zone>,
}

#[derive(Serialize, Deserialize, Model, Debug, Clone)]
struct Subnet {
    cidr: String,
    /// Kept through updates: the ID of a subnet never changes.
    #[tf(computed, use_state_for_unknown)]
    subnet_id: Attr<String>,
    /// Recomputed when the subnet changes.
    #[tf(computed)]
    gateway: Attr<String>,
    #[tf(default = "standard", requires_replace)]
    tier: Attr<String>,
}

#[derive(Serialize, Deserialize, Model, Debug, Clone)]
struct Rule {
    port: i64,
    #[tf(default = "tcp")]
    protocol: Attr<String>,
    #[tf(computed, use_state_for_unknown)]
    rule_id: Attr<String>,
}

#[derive(Serialize, Deserialize, Model, Debug, Clone)]
struct Settings {
    #[tf(default = 1500)]
    mtu: Attr<i64>,
    #[tf(requires_replace)]
    region: Option<String>,
}

#[derive(Serialize, Deserialize, Model, Debug, Clone)]
struct Zone {
    zone_name: String,
    #[tf(default = 2)]
    replicas: Attr<i64>,
}

impl Resource for NetworkResource {
    const TYPE_NAME: &'static str = "cloud_network";
    type State = Network;

    fn create(&self, mut planned: Network) -> Result<Network> {
        planned.id = Attr::Known(format!("net-{}", planned.name));
        fill(&mut planned, 1);
        Ok(planned)
    }

    fn update(&self, prior: Network, mut planned: Network) -> Result<Network> {
        let revision = prior.revision.known().copied().unwrap_or(0) + 1;
        fill(&mut planned, revision);
        Ok(planned)
    }

    fn read(&self, current: Network) -> Result<Option<Network>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: Network) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

/// Sets whatever the plan left unknown, the way a real API would answer.
fn fill(n: &mut Network, revision: i64) {
    n.revision = Attr::Known(revision);
    for (i, s) in n.subnets.iter_mut().flatten().enumerate() {
        if s.subnet_id.is_unknown() {
            s.subnet_id = Attr::Known(format!("subnet-{}-r{revision}", s.cidr));
        }
        if s.gateway.is_unknown() {
            s.gateway = Attr::Known(format!("gw-{i}-r{revision}"));
        }
    }
    if let Some(rules) = &mut n.rules {
        for r in &mut rules.0 {
            if r.rule_id.is_unknown() {
                r.rule_id = Attr::Known(format!("rule-{}-r{revision}", r.port));
            }
        }
    }
}

fn network(h: &Harness<Cloud>, config: serde_json::Value) -> terrarium_sdk::testing::Outcome {
    h.create("cloud_network", config).unwrap_or_else(|e| panic!("{e}"))
}

fn at<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    path.iter().fold(v, |v, step| match (v, step.parse::<usize>()) {
        (Value::List(items) | Value::Set(items), Ok(i)) => &items[i],
        (Value::Map(m), _) if m.contains_key(*step) => &m[*step],
        _ => v.attr(step).unwrap_or_else(|| panic!("no {step} in {v:?}")),
    })
}

fn s(text: &str) -> Value {
    Value::string(text)
}

#[test]
fn defaults_apply_inside_nested_attributes_blocks_and_collections() {
    let h = Harness::new(Cloud);
    let created = network(
        &h,
        json!({
            "name": "a",
            "subnets": [{"cidr": "10.0.0.0/24"}, {"cidr": "10.0.1.0/24", "tier": "premium"}],
            "rules": [{"port": 22}, {"port": 53, "protocol": "udp"}],
            "settings": {"region": "eu"},
            "zone": [{"zone_name": "z1"}],
        }),
    );
    // Planned, not "known after apply".
    assert_eq!(at(&created.planned, &["subnets", "0", "tier"]), &s("standard"));
    assert_eq!(at(&created.planned, &["subnets", "1", "tier"]), &s("premium"));
    assert_eq!(at(&created.planned, &["settings", "mtu"]), &Value::Number(1500.into()));
    assert_eq!(at(&created.planned, &["zone", "0", "replicas"]), &Value::Number(2.into()));
    let protocols: BTreeSet<String> = match at(&created.planned, &["rules"]) {
        Value::Set(items) => items.iter().map(|r| format!("{:?}", r.attr("protocol"))).collect(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        protocols,
        BTreeSet::from([format!("{:?}", Some(s("tcp"))), format!("{:?}", Some(s("udp")))])
    );
    assert_eq!(at(&created.state, &["settings", "mtu"]), &Value::Number(1500.into()));

    // A second plan with the same configuration is empty: defaults are no change.
    let config = h
        .config(
            "cloud_network",
            json!({
                "name": "a",
                "subnets": [{"cidr": "10.0.0.0/24"}, {"cidr": "10.0.1.0/24", "tier": "premium"}],
                "rules": [{"port": 22}, {"port": 53, "protocol": "udp"}],
                "settings": {"region": "eu"},
                "zone": [{"zone_name": "z1"}],
            }),
        )
        .unwrap();
    let again = h.plan("cloud_network", &created.state, &config).unwrap();
    assert_eq!(again.planned_state, created.state, "no change");
}

#[test]
fn use_state_for_unknown_works_in_nested_lists() {
    let h = Harness::new(Cloud);
    let created = network(
        &h,
        json!({"name": "a", "subnets": [{"cidr": "10.0.0.0/24"}, {"cidr": "10.0.1.0/24"}]}),
    );
    assert_eq!(at(&created.state, &["subnets", "1", "subnet_id"]), &s("subnet-10.0.1.0/24-r1"));

    // Moving the second subnet: it changed, so its gateway is recomputed, but its ID is kept.
    // The first subnet did not change: it keeps everything.
    let config = h
        .config(
            "cloud_network",
            json!({"name": "a", "subnets": [{"cidr": "10.0.0.0/24"}, {"cidr": "10.0.9.0/24"}]}),
        )
        .unwrap();
    let plan = h.plan("cloud_network", &created.state, &config).unwrap();
    assert!(plan.requires_replace.is_empty(), "{:?}", plan.requires_replace);
    let planned = &plan.planned_state;
    assert_eq!(at(planned, &["subnets", "1", "subnet_id"]), &s("subnet-10.0.1.0/24-r1"), "kept");
    assert!(at(planned, &["subnets", "1", "gateway"]).is_unknown(), "recomputed");
    assert_eq!(
        at(planned, &["subnets", "0", "gateway"]),
        &s("gw-0-r1"),
        "an unchanged element keeps its values"
    );
    assert_eq!(at(planned, &["id"]), &s("net-a"), "use_state_for_unknown at the top level");
    assert!(
        at(planned, &["revision"]).is_unknown(),
        "the resource changed: its computed values are recomputed"
    );

    let updated = h
        .update(
            "cloud_network",
            &created.state,
            json!({"name": "a", "subnets": [{"cidr": "10.0.0.0/24"}, {"cidr": "10.0.9.0/24"}]}),
        )
        .unwrap();
    assert_eq!(at(&updated.state, &["subnets", "1", "subnet_id"]), &s("subnet-10.0.1.0/24-r1"));
    assert_eq!(at(&updated.state, &["subnets", "1", "gateway"]), &s("gw-1-r2"));
}

#[test]
fn use_state_for_unknown_works_in_nested_sets() {
    let h = Harness::new(Cloud);
    let created = network(&h, json!({"name": "a", "rules": [{"port": 22}, {"port": 443}]}));
    let id_of = |state: &Value, port: i64| match at(state, &["rules"]) {
        Value::Set(items) => items
            .iter()
            .find(|r| r.attr("port") == Some(&Value::Number(port.into())))
            .and_then(|r| r.attr("rule_id").cloned()),
        other => panic!("{other:?}"),
    };
    assert_eq!(id_of(&created.state, 22), Some(s("rule-22-r1")));

    // Adding an element, and listing the others in another order: the existing elements
    // are matched by their configuration and keep their IDs; only the new one is unknown.
    let config = h
        .config(
            "cloud_network",
            json!({"name": "a", "rules": [{"port": 80}, {"port": 443}, {"port": 22}]}),
        )
        .unwrap();
    let plan = h.plan("cloud_network", &created.state, &config).unwrap();
    assert_eq!(id_of(&plan.planned_state, 22), Some(s("rule-22-r1")));
    assert_eq!(id_of(&plan.planned_state, 443), Some(s("rule-443-r1")));
    assert!(id_of(&plan.planned_state, 80).is_some_and(|v| v.is_unknown()));

    let updated = h
        .update(
            "cloud_network",
            &created.state,
            json!({"name": "a", "rules": [{"port": 80}, {"port": 443}, {"port": 22}]}),
        )
        .unwrap();
    assert_eq!(id_of(&updated.state, 22), Some(s("rule-22-r1")));
    assert_eq!(id_of(&updated.state, 80), Some(s("rule-80-r2")));
}

#[test]
fn requires_replace_on_a_nested_path() {
    let h = Harness::new(Cloud);
    let created = network(
        &h,
        json!({"name": "a", "settings": {"region": "eu"}, "subnets": [{"cidr": "10.0.0.0/24"}]}),
    );

    let config = h.config("cloud_network", json!({"name": "a", "settings": {"region": "us"}, "subnets": [{"cidr": "10.0.0.0/24"}]})).unwrap();
    let plan = h.plan("cloud_network", &created.state, &config).unwrap();
    assert_eq!(
        plan.requires_replace,
        [terrarium_sdk::AttributePath::attribute("settings").attr("region")]
    );
    assert!(
        at(&plan.planned_state, &["id"]).is_unknown(),
        "a replacement is planned like a create"
    );

    // In a list element, the path has the index.
    let config = h
        .config("cloud_network", json!({"name": "a", "settings": {"region": "eu"}, "subnets": [{"cidr": "10.0.0.0/24", "tier": "premium"}]}))
        .unwrap();
    let plan = h.plan("cloud_network", &created.state, &config).unwrap();
    assert_eq!(
        plan.requires_replace,
        [terrarium_sdk::AttributePath::attribute("subnets").index(0).attr("tier")]
    );

    // The default counts as configured: going back to it replaces too; an mtu change does not.
    let config = h.config("cloud_network", json!({"name": "a", "settings": {"region": "eu", "mtu": 9000}, "subnets": [{"cidr": "10.0.0.0/24"}]})).unwrap();
    let plan = h.plan("cloud_network", &created.state, &config).unwrap();
    assert!(plan.requires_replace.is_empty());
}

#[test]
fn requires_replace_on_set_elements() {
    #[derive(Default)]
    struct P;
    impl Provider for P {
        fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
            vec![Box::new(Firewall)]
        }
    }
    struct Firewall;
    #[derive(Serialize, Deserialize, Model)]
    struct FirewallState {
        #[tf(computed)]
        id: Attr<String>,
        #[tf(nested)]
        rules: Set<FwRule>,
    }
    #[derive(Serialize, Deserialize, Model)]
    struct FwRule {
        #[tf(requires_replace)]
        port: i64,
        #[tf(computed)]
        hits: Attr<i64>,
    }
    impl Resource for Firewall {
        const TYPE_NAME: &'static str = "fw";
        type State = FirewallState;
        fn create(&self, mut planned: FirewallState) -> Result<FirewallState> {
            planned.id = Attr::Known("fw".into());
            for r in &mut planned.rules.0 {
                r.hits = Attr::Known(0);
            }
            Ok(planned)
        }

        fn read(&self, current: FirewallState) -> Result<Option<FirewallState>> {
            // Nothing outside Terraform's state to look at: keep the state as it is.
            Ok(Some(current))
        }

        fn delete(&self, _prior: FirewallState) -> Result<()> {
            // Nothing outside Terraform's state to delete: Terraform forgets it.
            Ok(())
        }
    }
    let h = Harness::new(P);
    let created = h.create("fw", json!({"rules": [{"port": 1}, {"port": 2}]})).unwrap();
    // Same elements in another order, computed values aside: no change.
    let same = h.config("fw", json!({"rules": [{"port": 2}, {"port": 1}]})).unwrap();
    let plan = h.plan("fw", &created.state, &same).unwrap();
    assert!(plan.requires_replace.is_empty());
    assert_eq!(plan.planned_state, created.state);
    // A new element value: the set's path forces replacement.
    let other = h.config("fw", json!({"rules": [{"port": 2}, {"port": 3}]})).unwrap();
    let plan = h.plan("fw", &created.state, &other).unwrap();
    assert_eq!(plan.requires_replace, [terrarium_sdk::AttributePath::attribute("rules")]);
}

// --- Consistency checks -----------------------------------------------------------------

/// A resource whose code does what it must not, chosen by `name`.
#[derive(Default)]
struct Liar;

#[derive(Serialize, Deserialize, Model, Debug)]
struct LiarState {
    /// Which mistake to make.
    name: String,
    size: Option<i64>,
    #[tf(computed, use_state_for_unknown)]
    id: Attr<String>,
    #[tf(computed)]
    items: Attr<Vec<String>>,
}

impl Resource for Liar {
    const TYPE_NAME: &'static str = "cloud_liar";
    type State = LiarState;

    fn plan(&self, plan: &mut terrarium_sdk::Plan) -> Result<()> {
        match plan.config().attr("name") {
            Some(Value::String(n)) if n == "plan-changes-config" => {
                plan.set_attribute("size", Value::Number(99.into()))
            }
            Some(Value::String(n)) if n == "plan-wrong-type" => {
                plan.set_attribute("size", s("big"))
            }
            _ => Ok(()),
        }
    }

    fn create(&self, mut planned: LiarState) -> Result<LiarState> {
        planned.id = Attr::Known("x".into());
        planned.items = Attr::Known(vec![]);
        match planned.name.as_str() {
            "apply-changes-config" => planned.size = Some(7),
            "apply-leaves-unknown" => planned.id = Attr::Unknown,
            _ => {}
        }
        Ok(planned)
    }

    fn update(&self, _prior: LiarState, mut planned: LiarState) -> Result<LiarState> {
        // The plan kept the prior id (use_state_for_unknown); changing it breaks the plan's
        // promise.
        planned.id = Attr::Known("changed".into());
        planned.items = Attr::Known(vec![]);
        Ok(planned)
    }

    fn read(&self, current: LiarState) -> Result<Option<LiarState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: LiarState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

#[test]
fn a_plan_that_changes_a_configured_value_is_named() {
    let h = Harness::new(Cloud);
    let err =
        h.create("cloud_liar", json!({"name": "plan-changes-config", "size": 1})).unwrap_err();
    assert_eq!(err.step, "plan");
    let d = &err.diagnostics[0];
    assert_eq!(d.summary, "Provider produced an inconsistent plan");
    assert_eq!(d.attribute.to_string(), "size");
    assert!(
        d.detail.contains("the configuration sets it to 1 but the plan has 99"),
        "{}",
        d.detail
    );
    assert!(d.detail.contains("cloud_liar"), "{}", d.detail);
}

#[test]
fn a_plan_of_the_wrong_type_is_named() {
    let h = Harness::new(Cloud);
    let err = h.create("cloud_liar", json!({"name": "plan-wrong-type"})).unwrap_err();
    let d = &err.diagnostics[0];
    assert_eq!(d.summary, "Provider produced an invalid plan");
    assert_eq!(d.attribute.to_string(), "size");
    assert!(d.detail.contains("expected number, found string"), "{}", d.detail);
}

#[test]
fn an_apply_that_changes_a_planned_value_is_named() {
    let h = Harness::new(Cloud);
    let err =
        h.create("cloud_liar", json!({"name": "apply-changes-config", "size": 1})).unwrap_err();
    assert_eq!(err.step, "apply");
    let d = &err.diagnostics[0];
    assert_eq!(d.summary, "Provider produced an inconsistent result after apply");
    assert_eq!(d.attribute.to_string(), "size");
    assert!(d.detail.contains("Resource::create of cloud_liar"), "{}", d.detail);
    assert!(d.detail.contains("the plan promised 1 but the result has 7"), "{}", d.detail);

    // A computed value the plan kept, changed by update.
    let created = h.create("cloud_liar", json!({"name": "ok", "size": 1})).unwrap();
    let err = h.update("cloud_liar", &created.state, json!({"name": "ok", "size": 2})).unwrap_err();
    let d = &err.diagnostics[0];
    assert_eq!(d.attribute.to_string(), "id");
    assert!(d.detail.contains("Resource::update of cloud_liar"), "{}", d.detail);
    assert!(d.detail.contains("unknown_on_update"), "{}", d.detail);
}

#[test]
fn unknowns_after_apply_are_named() {
    let h = Harness::new(Cloud);
    let err = h.create("cloud_liar", json!({"name": "apply-leaves-unknown"})).unwrap_err();
    let d = &err.diagnostics[0];
    assert_eq!(d.summary, "Provider returned an unknown value");
    assert_eq!(d.attribute.to_string(), "id");
    assert!(d.detail.contains("Resource::create of cloud_liar"), "{}", d.detail);
}

// --- Validators, at every depth --------------------------------------------------------

#[derive(Default)]
struct Validated;

impl Provider for Validated {
    fn schema(&self) -> terrarium_sdk::schema::Schema {
        ProviderConfig::schema()
    }

    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(Account)]
    }
}

#[derive(Serialize, Deserialize, Model)]
struct ProviderConfig {
    #[tf(validate = pattern("^https://"))]
    endpoint: Option<String>,
}

struct Account;

#[derive(Serialize, Deserialize, Model)]
struct AccountState {
    #[tf(validate = length(3, 8), validate = pattern("^[a-z]+$"))]
    name: String,
    #[tf(validate = one_of(["free", "pro"]), validate = conflicts_with(["plan_id"]))]
    tier: Option<String>,
    #[tf(validate = also_requires(["tier"]))]
    seats: Option<i64>,
    plan_id: Option<String>,
    #[tf(validate = exactly_one_of(["phone"]))]
    email: Option<String>,
    phone: Option<String>,
    #[tf(validate = at_least_one_of(["backup_region"]))]
    region: Option<String>,
    backup_region: Option<String>,
    #[tf(nested, validate = size(0, 2))]
    users: Option<Vec<User>>,
}

#[derive(Serialize, Deserialize, Model)]
struct User {
    #[tf(validate = range(18.0, 120.0), validate = custom("even", |v| match v {
        Value::Number(n) if n.as_i64().is_some_and(|i| i % 2 != 0) => Err(format!("{n} is odd")),
        _ => Ok(()),
    }))]
    age: i64,
}

impl Resource for Account {
    const TYPE_NAME: &'static str = "acct";
    type State = AccountState;
    fn create(&self, planned: AccountState) -> Result<AccountState> {
        Ok(planned)
    }

    fn read(&self, current: AccountState) -> Result<Option<AccountState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: AccountState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

fn problems(config: serde_json::Value) -> Vec<String> {
    let h = Harness::new(Validated);
    match h.validate("acct", config) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics.iter().map(|d| format!("{}: {}", d.attribute, d.summary)).collect(),
    }
}

#[test]
fn each_validator_runs_from_the_schema() {
    let ok = json!({"name": "abc", "email": "a@b", "region": "eu"});
    assert!(problems(ok.clone()).is_empty(), "{:?}", problems(ok));
    let with = |patch: serde_json::Value| {
        let mut c = json!({"name": "abc", "email": "a@b", "region": "eu"});
        for (k, v) in patch.as_object().unwrap() {
            c[k] = v.clone();
        }
        problems(c)
    };
    assert_eq!(with(json!({"name": "ab"})), ["name: Invalid attribute value"], "length");
    assert_eq!(with(json!({"name": "ABC"})), ["name: Invalid attribute value"], "pattern");
    assert_eq!(with(json!({"tier": "gold"})), ["tier: Invalid attribute value"], "one_of");
    assert_eq!(
        with(json!({"tier": "pro", "plan_id": "p"})),
        ["tier: Conflicting attributes"],
        "conflicts_with"
    );
    assert_eq!(with(json!({"seats": 3})), ["seats: Missing required attribute"], "also_requires");
    assert!(with(json!({"seats": 3, "tier": "pro"})).is_empty());
    assert_eq!(
        with(json!({"phone": "1"})),
        ["email: Conflicting attributes"],
        "exactly_one_of: two"
    );
    assert_eq!(with(json!({"email": null})), ["email: Missing attribute"], "exactly_one_of: none");
    assert_eq!(with(json!({"region": null})), ["region: Missing attribute"], "at_least_one_of");
    assert_eq!(
        with(json!({"users": [{"age": 20}, {"age": 20}, {"age": 20}]})),
        ["users: Invalid attribute value"],
        "size"
    );
    // Inside a nested list, at the element's path.
    assert_eq!(
        with(json!({"users": [{"age": 20}, {"age": 12}]})),
        ["users[1].age: Invalid attribute value"],
        "range"
    );
    assert_eq!(
        with(json!({"users": [{"age": 21}]})),
        ["users[0].age: Invalid attribute value"],
        "custom"
    );
}

#[test]
fn unknown_values_are_not_validated_yet() {
    let h = Harness::new(Validated);
    let mut config =
        h.config("acct", json!({"name": "abc", "email": "a@b", "region": "eu"})).unwrap();
    if let Value::Object(m) = &mut config {
        m.insert("name".into(), Value::unknown());
        m.insert("phone".into(), Value::unknown());
    }
    assert!(h.server().validate_resource_config("acct", &config).is_empty());
}

#[test]
fn provider_configuration_is_validated_from_its_schema() {
    let mut h = Harness::new(Validated);
    let err = h.configure(json!({"endpoint": "http://insecure"})).unwrap_err();
    assert_eq!(err.diagnostics[0].attribute.to_string(), "endpoint");
    h.configure(json!({"endpoint": "https://api"})).unwrap();
}

// --- Timeouts, private state, import, upgrade ------------------------------------------

#[derive(Default)]
struct Store;

impl Provider for Store {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(BucketResource)]
    }
}

struct BucketResource;

/// A bucket.
#[derive(Serialize, Deserialize, Model, Debug)]
#[tf(version = 1)]
struct Bucket {
    #[tf(computed, use_state_for_unknown)]
    id: Attr<String>,
    region: String,
    name: String,
    #[tf(block)]
    timeouts: Option<terrarium_sdk::Timeouts>,
}

impl Resource for BucketResource {
    const TYPE_NAME: &'static str = "store_bucket";
    type State = Bucket;

    fn plan(&self, plan: &mut terrarium_sdk::Plan) -> Result<()> {
        plan.private.set("planned_by", &"plan")
    }

    fn create(&self, _planned: Bucket) -> Result<Bucket> {
        unreachable!("create_with_private is overridden")
    }

    fn create_with_private(
        &self,
        mut planned: Bucket,
        private: &mut terrarium_sdk::PrivateState,
    ) -> Result<Bucket> {
        let timeout = terrarium_sdk::Timeouts::create_of(
            &planned.timeouts,
            std::time::Duration::from_secs(60),
        )?;
        private.set(
            "etag",
            &format!(
                "e1-{}s-{}",
                timeout.as_secs(),
                private.get::<String>("planned_by").unwrap_or_default()
            ),
        )?;
        planned.id = Attr::Known(format!("{}/{}", planned.region, planned.name));
        Ok(planned)
    }

    fn read_with_private(
        &self,
        current: Bucket,
        private: &mut terrarium_sdk::PrivateState,
    ) -> Result<Option<Bucket>> {
        // The etag from create must come back; a missing one means the SDK lost it.
        match private.get::<String>("etag") {
            Some(_) => Ok(Some(current)),
            None => Err(terrarium_sdk::Diagnostics::error("etag lost", "")),
        }
    }

    fn import(&self, id: &str) -> Result<Bucket> {
        let [region, name] = terrarium_sdk::import_composite(id, '/', ["REGION", "NAME"])?;
        Ok(Bucket {
            id: Attr::Known(id.to_string()),
            region: region.into(),
            name: name.into(),
            timeouts: None,
        })
    }

    fn upgrade(&self, version: i64, raw: Value) -> Result<Value> {
        // Version 0 called the region "location".
        match (version, raw) {
            (0, Value::Object(mut m)) => {
                let location = m.remove("location").unwrap_or(Value::Null);
                m.insert("region".into(), location);
                Ok(Value::Object(m))
            }
            (v, _) => {
                Err(terrarium_sdk::Diagnostics::error("Cannot upgrade", format!("version {v}")))
            }
        }
    }

    fn read(&self, _current: Bucket) -> Result<Option<Bucket>> {
        unreachable!("read_with_private is overridden")
    }

    fn delete(&self, _prior: Bucket) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

#[test]
fn timeouts_are_a_validated_block() {
    let h = Harness::new(Store);
    let created = h
        .create("store_bucket", json!({"region": "eu", "name": "b", "timeouts": {"create": "2m"}}))
        .unwrap();
    assert_eq!(created.state.attr("id"), Some(&s("eu/b")));
    let err = h
        .validate(
            "store_bucket",
            json!({"region": "eu", "name": "b", "timeouts": {"create": "soon"}}),
        )
        .unwrap_err();
    assert_eq!(err.diagnostics[0].attribute.to_string(), "timeouts.create");
}

#[test]
fn private_state_goes_from_plan_to_apply_to_read() {
    let h = Harness::new(Store);
    let created = h
        .create("store_bucket", json!({"region": "eu", "name": "b", "timeouts": {"create": "2m"}}))
        .unwrap();
    let private = terrarium_sdk::PrivateState::decode(&created.private);
    assert_eq!(private.get::<String>("etag").as_deref(), Some("e1-120s-plan"));
    assert!(h.read_with_private("store_bucket", &created.state, created.private.clone()).is_ok());
    assert!(h.read("store_bucket", &created.state).unwrap_err().mentions("etag lost"));
}

#[test]
fn import_by_composite_id_and_upgrade_by_version() {
    let h = Harness::new(Store);
    let err = h.import("store_bucket", "just-a-name").unwrap_err();
    assert!(err.mentions("REGION/NAME"), "{err}");
    let response = h.server().import_resource_state(terrarium_sdk::rpc::ImportRequest {
        type_name: "store_bucket".into(),
        id: "us/logs".into(),
        client: Default::default(),
        identity: None,
    });
    let state = &response.imported[0].state;
    assert_eq!((state.attr("region"), state.attr("name")), (Some(&s("us")), Some(&s("logs"))));

    let old = Value::Object(BTreeMap::from([
        ("id".to_string(), s("eu/b")),
        ("location".to_string(), s("eu")),
        ("name".to_string(), s("b")),
    ]));
    let upgraded = h.server().upgrade_resource_state(terrarium_sdk::rpc::UpgradeRequest {
        type_name: "store_bucket".into(),
        version: 0,
        raw_state: old,
    });
    assert!(upgraded.diagnostics.is_empty(), "{:?}", upgraded.diagnostics);
    assert_eq!(upgraded.upgraded_state.attr("region"), Some(&s("eu")));
    assert_eq!(upgraded.upgraded_state.attr("timeouts"), Some(&Value::Null));
}

// --- Semantic equality -------------------------------------------------------------------

#[derive(Default)]
struct Docs;

impl Provider for Docs {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(PolicyResource)]
    }
}

struct PolicyResource;

#[derive(Serialize, Deserialize, Model)]
struct Policy {
    #[tf(semantic_equality = terrarium_sdk::semantic::json)]
    document: String,
    #[tf(nested)]
    statements: Option<Vec<Statement>>,
}

#[derive(Serialize, Deserialize, Model)]
struct Statement {
    #[tf(semantic_equality = terrarium_sdk::semantic::json)]
    condition: String,
}

/// What a real API does: hands back documents in its own spelling.
fn normalise(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| text.to_string())
}

impl Resource for PolicyResource {
    const TYPE_NAME: &'static str = "docs_policy";
    type State = Policy;

    fn create(&self, mut planned: Policy) -> Result<Policy> {
        planned.document = normalise(&planned.document);
        for s in planned.statements.iter_mut().flatten() {
            s.condition = normalise(&s.condition);
        }
        Ok(planned)
    }

    fn read(&self, mut current: Policy) -> Result<Option<Policy>> {
        current.document = normalise(&current.document);
        Ok(Some(current))
    }

    fn delete(&self, _prior: Policy) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

#[test]
fn semantically_equal_results_keep_the_configured_spelling() {
    let h = Harness::new(Docs);
    let doc = "{ \"a\" : 1 }";
    // Without semantic equality, the normalised document would break the plan's promise.
    let created = h
        .create("docs_policy", json!({"document": doc, "statements": [{"condition": "[1, 2]"}]}))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(created.state.attr("document"), Some(&s(doc)));
    assert_eq!(at(&created.state, &["statements", "0", "condition"]), &s("[1, 2]"));
    // Read normalises too: no drift.
    let read = h.read("docs_policy", &created.state).unwrap();
    assert_eq!(read.state, created.state);
}

// --- Provider configuration shared with resources ----------------------------------------

#[derive(Default)]
struct Named {
    prefix: String,
}

#[derive(Serialize, Deserialize, Model)]
struct NamedConfig {
    #[tf(validate = length(1, 8))]
    prefix: String,
}

impl Provider for Named {
    fn schema(&self) -> terrarium_sdk::schema::Schema {
        NamedConfig::schema()
    }

    fn configure(&mut self, request: terrarium_sdk::rpc::ConfigureRequest) -> Result<()> {
        let config: NamedConfig = terrarium_sdk::from_value(&request.config)?;
        self.prefix = config.prefix;
        Ok(())
    }

    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(Thing { prefix: &self.prefix })]
    }
}

/// Borrows what the provider's configuration produced.
struct Thing<'p> {
    prefix: &'p str,
}

#[derive(Serialize, Deserialize, Model)]
struct ThingState {
    name: String,
    #[tf(computed)]
    id: Attr<String>,
}

impl Resource for Thing<'_> {
    const TYPE_NAME: &'static str = "named_thing";
    type State = ThingState;

    fn create(&self, planned: ThingState) -> Result<ThingState> {
        Ok(ThingState { id: Attr::Known(format!("{}-{}", self.prefix, planned.name)), ..planned })
    }

    fn read(&self, current: ThingState) -> Result<Option<ThingState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: ThingState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

#[test]
fn resources_see_the_provider_configuration() {
    let mut h = Harness::new(Named::default());
    h.configure(json!({"prefix": "prod"})).unwrap();
    let created = h.create("named_thing", json!({"name": "web"})).unwrap();
    assert_eq!(created.state.attr("id"), Some(&s("prod-web")));
}

// --- Computed defaults, dynamic values, tuples -------------------------------------------

#[derive(Default)]
struct Misc;

impl Provider for Misc {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(LabelResource)]
    }
}

struct LabelResource;

#[derive(Serialize, Deserialize, Model)]
struct Label {
    #[tf(nested)]
    items: Vec<LabelItem>,
    anything: Option<terrarium_sdk::Dynamic>,
    pair: Option<(String, i64)>,
}

#[derive(Serialize, Deserialize, Model)]
struct LabelItem {
    name: String,
    /// Defaults to the item's name, upper-cased.
    #[tf(default_with = shout)]
    display: Attr<String>,
}

fn shout(parent: &Value) -> Value {
    match parent.attr("name") {
        Some(Value::String(n)) => Value::String(n.to_uppercase()),
        _ => Value::Null,
    }
}

impl Resource for LabelResource {
    const TYPE_NAME: &'static str = "misc_label";
    type State = Label;
    fn create(&self, planned: Label) -> Result<Label> {
        Ok(planned)
    }

    fn read(&self, current: Label) -> Result<Option<Label>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: Label) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

#[test]
fn computed_defaults_dynamic_values_and_tuples() {
    let h = Harness::new(Misc);
    let created = h
        .create(
            "misc_label",
            json!({"items": [{"name": "a"}, {"name": "b", "display": "Bee"}], "anything": {"k": [1, "x"]}, "pair": ["p", 2]}),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        at(&created.planned, &["items", "0", "display"]),
        &s("A"),
        "computed from the sibling"
    );
    assert_eq!(at(&created.planned, &["items", "1", "display"]), &s("Bee"), "configured wins");
    // The dynamic value went through the typed struct with its type intact.
    match created.state.attr("anything") {
        Some(Value::Dynamic(d)) => {
            assert_eq!(d.ty, Type::object([("k", Type::Tuple(vec![Type::Number, Type::String]))]));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        created.state.attr("pair"),
        Some(&Value::Tuple(vec![s("p"), Value::Number(2.into())]))
    );
    let label: Label = created.typed().unwrap();
    assert_eq!(label.pair, Some(("p".to_string(), 2)));
}
