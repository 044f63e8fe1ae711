//! Resource-level protocol features through the SDK, driven the way Terraform drives them
//! (in-process, with `testing::Harness` and `Server`): identity, write-only attributes,
//! moves, generated configuration, deferral and destroy plans.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use serde_json::json;
use terrarium_sdk::identity::{AnyIdentity, ResourceIdentity};
use terrarium_sdk::rpc::{ClientCapabilities, MoveRequest, PlanRequest};
use terrarium_sdk::testing::Harness;
use terrarium_sdk::{
    AnyDataSource, AnyResource, Attr, DataSource, DeferredReason, Diagnostics, Model, Plan,
    Provider, Resource, Result, Server, Value,
};

/// A "vault" of secrets: the remote system assigns each secret an ID, which is its identity.
#[derive(Default)]
struct Vault {
    /// What create and update were given for `password` (write-only), in order.
    passwords_seen: RefCell<Vec<Option<String>>>,
    /// What `plan_destroy` saw.
    destroys_planned: RefCell<Vec<String>>,
}

impl Provider for Vault {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![
            Box::new(SecretResource { vault: self }),
            Box::new(NoteResource),
            Box::new(PageResource),
            Box::new(PolicyResource),
        ]
    }

    fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
        vec![Box::new(Lookup)]
    }
}

/// A data source that cannot read a secret that is not there yet.
struct Lookup;

#[derive(Serialize, Deserialize, Model)]
struct LookupState {
    name: String,
    #[tf(computed)]
    fingerprint: Attr<String>,
}

impl DataSource for Lookup {
    const TYPE_NAME: &'static str = "vault_lookup";
    type State = LookupState;
    fn read(&self, config: LookupState) -> Result<LookupState> {
        if config.name == "later" {
            return Err(Diagnostics::deferred(DeferredReason::AbsentPrerequisite));
        }
        Ok(LookupState { fingerprint: Attr::Known("fp-0".into()), ..config })
    }
}

#[derive(Debug, Serialize, Deserialize, Model)]
struct Secret {
    #[tf(computed, use_state_for_unknown)]
    id: Attr<String>,
    name: String,
    /// Never stored.
    #[tf(write_only, sensitive)]
    password: Option<String>,
    #[tf(optional)]
    password_version: Option<i64>,
    #[tf(computed)]
    fingerprint: Attr<String>,
    #[tf(optional, computed, use_state_for_unknown)]
    comment: Attr<String>,
}

/// The identity of a secret.
#[derive(Debug, Serialize, Deserialize, Model)]
#[tf(version = 2)]
struct SecretIdentity {
    /// The secret's ID.
    #[tf(required_for_import)]
    id: String,
    /// Its region, which an import may leave out.
    #[tf(optional_for_import)]
    region: Option<String>,
}

/// The state attribute a secret's identity is made of.
#[derive(Deserialize)]
struct SecretId {
    id: String,
}

struct SecretResource<'a> {
    vault: &'a Vault,
}

fn fingerprint(password: &Option<String>) -> String {
    format!("fp-{}", password.as_deref().map_or(0, str::len))
}

impl Resource for SecretResource<'_> {
    const TYPE_NAME: &'static str = "vault_secret";
    type State = Secret;

    fn create(&self, planned: Secret) -> Result<Secret> {
        self.vault.passwords_seen.borrow_mut().push(planned.password.clone());
        Ok(Secret {
            id: Attr::Known(format!("s-{}", planned.name)),
            fingerprint: Attr::Known(fingerprint(&planned.password)),
            comment: Attr::Known(planned.comment.known().cloned().unwrap_or_default()),
            ..planned
        })
    }

    fn update(&self, _prior: Secret, planned: Secret) -> Result<Secret> {
        self.vault.passwords_seen.borrow_mut().push(planned.password.clone());
        Ok(Secret { fingerprint: Attr::Known(fingerprint(&planned.password)), ..planned })
    }

    fn plan(&self, plan: &mut Plan) -> Result<()> {
        if plan.attribute("name") == &Value::string("later") {
            return Err(Diagnostics::deferred(DeferredReason::AbsentPrerequisite));
        }
        if plan.changed("password_version") && !plan.is_create() {
            plan.set_attribute("fingerprint", Value::unknown())?;
        }
        Ok(())
    }

    fn read(&self, current: Secret) -> Result<Option<Secret>> {
        if current.name == "sleepy" {
            return Err(Diagnostics::deferred(DeferredReason::ProviderConfigUnknown));
        }
        if current.name == "gone" {
            return Ok(None);
        }
        Ok(Some(current))
    }

    fn import(&self, id: &str) -> Result<Secret> {
        if id == "wait" {
            return Err(Diagnostics::deferred(DeferredReason::ResourceConfigUnknown));
        }
        let name = id.strip_prefix("s-").unwrap_or(id).to_string();
        Ok(Secret {
            id: Attr::Known(id.to_string()),
            name,
            password: None,
            password_version: None,
            fingerprint: Attr::Known("fp-0".into()),
            comment: Attr::Known(String::new()),
        })
    }

    fn identity(&self) -> Option<&dyn AnyIdentity<Secret>> {
        Some(self)
    }

    const MOVES_FROM: &'static [&'static str] = &["vault_note"];

    fn move_state(&self, source: MoveRequest) -> Result<Value> {
        // A note's `text` becomes the secret's `comment`; its `title` the name.
        let attr = |name: &str| source.source_state.attr(name).cloned().unwrap_or(Value::Null);
        Ok(Value::Object(
            [
                ("id".to_string(), attr("id")),
                ("name".to_string(), attr("title")),
                ("comment".to_string(), attr("text")),
                ("fingerprint".to_string(), Value::string("fp-0")),
            ]
            .into(),
        ))
    }

    const PLAN_DESTROY: bool = true;

    fn plan_destroy(&self, prior: Secret) -> Result<()> {
        self.vault.destroys_planned.borrow_mut().push(prior.name.clone());
        if prior.name == "precious" {
            return Err(Diagnostics::error("Refusing to destroy", "precious is precious"));
        }
        Ok(())
    }

    fn delete(&self, _prior: Secret) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

impl ResourceIdentity for SecretResource<'_> {
    type Identity = SecretIdentity;
    type Source = SecretId;

    fn identity_of(&self, source: SecretId) -> Option<SecretIdentity> {
        Some(SecretIdentity { id: source.id, region: Some("eu".into()) })
    }

    fn import_by_identity(&self, identity: SecretIdentity) -> Result<Secret> {
        self.import(&identity.id)
    }

    fn upgrade_identity(&self, version: i64, raw: Value) -> Result<Value> {
        match version {
            // Version 0 called it `secret_id` and had no region; version 1 is not upgradable.
            0 => Ok(Value::Object(
                [("id".to_string(), raw.attr("secret_id").cloned().unwrap_or(Value::Null))].into(),
            )),
            _ => Err(Diagnostics::error("Cannot upgrade", format!("version {version}"))),
        }
    }
}

/// A page at a configured path, whose identity is that path: known from the first plan on,
/// whatever else is unknown.
struct PageResource;

#[derive(Serialize, Deserialize, Model)]
struct Page {
    path: String,
    /// A plain `String`: the typed state cannot hold it while it is unknown.
    text: String,
}

#[derive(Serialize, Deserialize, Model)]
struct PageIdentity {
    #[tf(required_for_import)]
    path: String,
}

impl Resource for PageResource {
    const TYPE_NAME: &'static str = "vault_page";
    type State = Page;
    fn create(&self, planned: Page) -> Result<Page> {
        Ok(planned)
    }
    fn identity(&self) -> Option<&dyn AnyIdentity<Page>> {
        Some(self)
    }

    fn read(&self, current: Page) -> Result<Option<Page>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: Page) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

impl ResourceIdentity for PageResource {
    type Identity = PageIdentity;
    type Source = PageIdentity;
    fn identity_of(&self, source: PageIdentity) -> Option<PageIdentity> {
        Some(source)
    }
}

/// A policy of rules whose values may be of any type: a list of blocks with a `dynamic`
/// attribute, which Terraform types `dynamic` (a tuple of blocks of differing types).
struct PolicyResource;

#[derive(Serialize, Deserialize, Model)]
struct Policy {
    #[tf(block)]
    rule: Vec<Rule>,
}

#[derive(Serialize, Deserialize, Model)]
struct Rule {
    name: String,
    value: terrarium_sdk::Dynamic,
    #[tf(computed)]
    serial: Attr<String>,
}

impl Resource for PolicyResource {
    const TYPE_NAME: &'static str = "vault_policy";
    type State = Policy;
    fn create(&self, planned: Policy) -> Result<Policy> {
        let rule = planned
            .rule
            .into_iter()
            .enumerate()
            .map(|(i, r)| Rule { serial: Attr::Known(format!("r{i}")), ..r })
            .collect();
        Ok(Policy { rule })
    }

    fn read(&self, current: Policy) -> Result<Option<Policy>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: Policy) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

/// A resource with neither identity nor moves.
struct NoteResource;

#[derive(Serialize, Deserialize, Model)]
struct Note {
    #[tf(computed)]
    id: Attr<String>,
    title: String,
    text: Option<String>,
}

impl Resource for NoteResource {
    const TYPE_NAME: &'static str = "vault_note";
    type State = Note;
    fn create(&self, planned: Note) -> Result<Note> {
        Ok(Note { id: Attr::Known(planned.title.clone()), ..planned })
    }

    fn read(&self, current: Note) -> Result<Option<Note>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: Note) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

// ---- identity ----

#[test]
fn identity_schemas_and_capabilities_are_declared() {
    let server = Server::new(Vault::default());
    let (schema, diagnostics) = server.get_schema();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert!(schema.capabilities.move_resource_state);
    assert!(schema.capabilities.generate_resource_config);
    assert!(schema.capabilities.plan_destroy);
    let identities = server.identity_schemas();
    assert_eq!(
        identities.keys().collect::<Vec<_>>(),
        ["vault_page", "vault_secret"],
        "only types with an identity"
    );
    let secret = &identities["vault_secret"];
    assert_eq!(secret.version, 2);
    let id = &secret.attributes[0];
    assert_eq!(
        (id.name.as_str(), id.required_for_import, id.optional_for_import),
        ("id", true, false)
    );
    assert_eq!(id.description, "The secret's ID.");
    let region = &secret.attributes[1];
    assert_eq!(
        (region.name.as_str(), region.required_for_import, region.optional_for_import),
        ("region", false, true)
    );
}

#[test]
fn identity_is_null_in_a_create_plan_then_known_and_kept() {
    let h = Harness::new(Vault::default());
    let created = h.create("vault_secret", json!({"name": "db"})).unwrap();
    // Never unknown: Terraform cannot show a plan with an unknown identity.
    assert_eq!(created.planned_identity, Some(Value::Null), "the ID is assigned at apply");
    let identity = obj([("id", Value::string("s-db")), ("region", Value::string("eu"))]);
    assert_eq!(created.identity.as_ref(), Some(&identity));

    let updated =
        h.update_from("vault_secret", &created, json!({"name": "db", "comment": "hi"})).unwrap();
    assert!(!updated.replaced);
    assert_eq!(
        updated.planned_identity.as_ref(),
        Some(&identity),
        "an update plans the prior identity"
    );
    assert_eq!(updated.identity.as_ref(), Some(&identity));

    let read = h.refresh("vault_secret", &updated).unwrap();
    assert_eq!(read.identity.as_ref(), Some(&identity));
}

#[test]
fn a_planned_identity_needs_only_its_own_attributes_and_is_never_unknown() {
    let h = Harness::new(Vault::default());
    // `text` comes from another resource's computed value: unknown in the plan.
    let config = obj([("path", Value::string("/p")), ("text", Value::unknown())]);
    let plan = h.plan("vault_page", &Value::Null, &config).unwrap();
    assert_eq!(plan.planned_identity, Some(obj([("path", Value::string("/p"))])));

    // The identity's own attribute unknown: null ("known after apply"), never unknown.
    let config = obj([("path", Value::unknown()), ("text", Value::string("hi"))]);
    let plan = h.plan("vault_page", &Value::Null, &config).unwrap();
    assert_eq!(plan.planned_identity, Some(Value::Null));
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
}

#[test]
fn a_list_of_blocks_with_a_dynamic_attribute_is_a_tuple_of_their_own_types() {
    let h = Harness::new(Vault::default());
    let schema = Server::new(Vault::default()).get_schema().0;
    assert_eq!(
        schema.resources["vault_policy"].block.implied_type().to_json(),
        r#"["object",{"rule":"dynamic"}]"#
    );
    let config = json!({"rule": [{"name": "a", "value": 1}, {"name": "b", "value": ["x"]}]});
    let created = h.create("vault_policy", config).unwrap();
    let Some(Value::Dynamic(rules)) = created.state.attr("rule") else {
        panic!("rule is not typed dynamic: {:?}", created.state);
    };
    let rule = |value: serde_json::Value| {
        terrarium_sdk::Type::from_json(
            &json!(["object", {"name": "string", "serial": "string", "value": value}]).to_string(),
        )
        .unwrap()
    };
    // Each block has its own type: the dynamic values differ; the rest is the schema's.
    assert_eq!(
        rules.ty,
        terrarium_sdk::Type::Tuple(vec![rule(json!("number")), rule(json!(["tuple", ["string"]]))])
    );
    let Value::Tuple(items) = &rules.value else { panic!("{:?}", rules.value) };
    assert_eq!(items[1].attr("serial"), Some(&Value::string("r1")));
    // The plan marked the computed serials unknown, inside the tuple.
    let Some(Value::Dynamic(planned)) = created.planned.attr("rule") else { panic!() };
    let Value::Tuple(planned) = &planned.value else { panic!() };
    assert!(planned[0].attr("serial").is_some_and(Value::is_unknown), "{planned:?}");
}

#[test]
fn a_vanished_resource_has_no_identity() {
    let h = Harness::new(Vault::default());
    let created = h.create("vault_secret", json!({"name": "gone"})).unwrap();
    let read = h.refresh("vault_secret", &created).unwrap();
    assert!(read.state.is_null());
    assert_eq!(read.identity, None);
}

#[test]
fn import_by_id_and_by_identity_return_the_identity() {
    let h = Harness::new(Vault::default());
    let by_id = h.import("vault_secret", "s-web").unwrap();
    let identity = obj([("id", Value::string("s-web")), ("region", Value::string("eu"))]);
    assert_eq!(by_id.identity.as_ref(), Some(&identity));
    assert_eq!(by_id.state.attr("name"), Some(&Value::string("web")));

    let by_identity = h.import_by_identity("vault_secret", json!({"id": "s-web"})).unwrap();
    assert_eq!(by_identity.identity.as_ref(), Some(&identity));
    assert_eq!(by_identity.state, by_id.state);
}

#[test]
fn import_by_identity_is_refused_for_types_without_one() {
    let server = Server::new(Vault::default());
    let response = server.import_resource_state(terrarium_sdk::rpc::ImportRequest {
        type_name: "vault_note".into(),
        id: String::new(),
        client: ClientCapabilities::default(),
        identity: Some(obj([("id", Value::string("x"))])),
    });
    assert!(response.imported.is_empty());
    assert_eq!(response.diagnostics[0].summary, "Import by identity not supported");
}

#[test]
fn stored_identities_are_upgraded_from_older_versions() {
    let h = Harness::new(Vault::default());
    let upgraded = h.upgrade_identity("vault_secret", 0, json!({"secret_id": "s-old"})).unwrap();
    assert_eq!(upgraded, obj([("id", Value::string("s-old")), ("region", Value::Null)]));

    let current =
        h.upgrade_identity("vault_secret", 2, json!({"id": "s-new", "region": "us"})).unwrap();
    assert_eq!(current, obj([("id", Value::string("s-new")), ("region", Value::string("us"))]));

    let refused = h.upgrade_identity("vault_secret", 1, json!({})).unwrap_err();
    assert!(refused.mentions("version 1"), "{refused}");
    let newer = h.upgrade_identity("vault_secret", 3, json!({})).unwrap_err();
    assert!(newer.mentions("newer provider"), "{newer}");
    let none = h.upgrade_identity("vault_note", 0, json!({})).unwrap_err();
    assert!(none.mentions("no identity schema"), "{none}");
}

// ---- write-only ----

#[test]
fn write_only_values_reach_create_and_update_but_are_never_stored() {
    let vault = Vault::default();
    let h = Harness::new(vault);
    let created = h
        .create("vault_secret", json!({"name": "db", "password": "hunter2", "password_version": 1}))
        .unwrap();
    assert_eq!(created.planned.attr("password"), Some(&Value::Null), "planned null");
    assert_eq!(created.state.attr("password"), Some(&Value::Null), "stored null");
    assert_eq!(
        created.state.attr("fingerprint"),
        Some(&Value::string("fp-7")),
        "create saw the value"
    );

    let rotated = h
        .update_from(
            "vault_secret",
            &created,
            json!({"name": "db", "password": "correct horse", "password_version": 2}),
        )
        .unwrap();
    assert_eq!(rotated.state.attr("password"), Some(&Value::Null));
    assert_eq!(rotated.state.attr("fingerprint"), Some(&Value::string("fp-13")));
    assert_eq!(
        *h.server().provider().passwords_seen.borrow(),
        [Some("hunter2".to_string()), Some("correct horse".to_string())]
    );
}

#[test]
fn write_only_values_are_refused_by_a_client_without_support() {
    let server = Server::new(Vault::default());
    let h = Harness::new(Vault::default());
    let config = h.config("vault_secret", json!({"name": "db", "password": "x"})).unwrap();
    let old_client =
        ClientCapabilities { deferral_allowed: false, write_only_attributes_allowed: false };
    let problems = server.validate_resource_config_for("vault_secret", &config, &old_client);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].summary, "Write-only attribute not supported");
    let new_client =
        ClientCapabilities { deferral_allowed: false, write_only_attributes_allowed: true };
    assert!(server.validate_resource_config_for("vault_secret", &config, &new_client).is_empty());
}

// ---- move ----

#[test]
fn a_moved_state_is_converted_and_gets_its_identity() {
    let h = Harness::new(Vault::default());
    let note = h.create("vault_note", json!({"title": "n1", "text": "remember"})).unwrap();
    let moved = h.move_state("vault_note", &note.state, "vault_secret").unwrap();
    assert_eq!(moved.state.attr("comment"), Some(&Value::string("remember")));
    assert_eq!(moved.state.attr("name"), Some(&Value::string("n1")));
    assert_eq!(
        moved.state.attr("password"),
        Some(&Value::Null),
        "attributes the move leaves out are null"
    );
    assert_eq!(
        moved.identity,
        Some(obj([("id", Value::string("n1")), ("region", Value::string("eu"))]))
    );
}

#[test]
fn moves_from_types_not_declared_are_refused() {
    let h = Harness::new(Vault::default());
    let state = obj([("id", Value::string("x"))]);
    let err = h.move_state("aws_secret", &state, "vault_secret").unwrap_err();
    assert!(err.mentions("accepts moves from: vault_note"), "{err}");
    let err = h.move_state("vault_secret", &state, "vault_note").unwrap_err();
    assert!(err.mentions("accepts moves from: none"), "{err}");
}

// ---- generate config ----

#[test]
fn generated_config_leaves_out_computed_only_and_write_only_attributes() {
    let h = Harness::new(Vault::default());
    let imported = h.import("vault_secret", "s-web").unwrap();
    let config = h.generate_config("vault_secret", &imported.state).unwrap();
    assert_eq!(
        config,
        obj([
            ("id", Value::Null),
            ("name", Value::string("web")),
            ("password", Value::Null),
            ("password_version", Value::Null),
            ("fingerprint", Value::Null),
            // Optional and computed: kept, the configuration may set it.
            ("comment", Value::string("")),
        ])
    );
}

// ---- deferral ----

#[test]
fn deferral_is_answered_only_when_terraform_allows_it() {
    let created =
        Harness::new(Vault::default()).create("vault_secret", json!({"name": "sleepy"})).unwrap();

    let allowed = Harness::new(Vault::default()).allow_deferral(true);
    let read = allowed.refresh("vault_secret", &created).unwrap();
    assert_eq!(read.deferred, Some(DeferredReason::ProviderConfigUnknown));
    assert_eq!(read.state, created.state, "a deferred read keeps the state");
    assert_eq!(read.identity, created.identity);

    let refused = Harness::new(Vault::default()).refresh("vault_secret", &created).unwrap_err();
    assert!(refused.mentions("did not say it accepts deferred changes"), "{refused}");
    assert!(refused.mentions("Resource::read of vault_secret"), "{refused}");
}

#[test]
fn plans_and_imports_can_be_deferred() {
    let allowed = Harness::new(Vault::default()).allow_deferral(true);
    let config = allowed.config("vault_secret", json!({"name": "later"})).unwrap();
    let plan = allowed.plan("vault_secret", &Value::Null, &config).unwrap();
    assert_eq!(plan.deferred, Some(DeferredReason::AbsentPrerequisite));
    assert_eq!(
        plan.planned_state.attr("id"),
        Some(&Value::unknown()),
        "the default plan still goes out"
    );

    let refused =
        Harness::new(Vault::default()).plan("vault_secret", &Value::Null, &config).unwrap_err();
    assert!(refused.mentions("Resource::plan of vault_secret"), "{refused}");

    let import = allowed.import("vault_secret", "wait").unwrap();
    assert_eq!(import.deferred, Some(DeferredReason::ResourceConfigUnknown));
    let refused = Harness::new(Vault::default()).import("vault_secret", "wait").unwrap_err();
    assert!(refused.mentions("Resource::import of vault_secret"), "{refused}");
}

#[test]
fn data_source_reads_can_be_deferred() {
    let server = Server::new(Vault::default());
    let read = |deferral_allowed| {
        server.read_data_source(terrarium_sdk::rpc::ReadDataSourceRequest {
            type_name: "vault_lookup".into(),
            config: obj([("name", Value::string("later")), ("fingerprint", Value::Null)]),
            client: ClientCapabilities { deferral_allowed, write_only_attributes_allowed: true },
        })
    };
    let deferred = read(true);
    assert!(deferred.diagnostics.is_empty(), "{:?}", deferred.diagnostics);
    assert_eq!(deferred.deferred, Some(DeferredReason::AbsentPrerequisite));
    assert_eq!(
        deferred.state,
        obj([("name", Value::string("later")), ("fingerprint", Value::unknown())])
    );
    let refused = read(false);
    assert_eq!(refused.deferred, None);
    assert!(
        refused.diagnostics[0].detail.contains("DataSource::read of vault_lookup"),
        "{:?}",
        refused.diagnostics
    );
}

#[test]
fn a_deferral_from_create_is_a_provider_bug() {
    struct Eager;
    impl Resource for Eager {
        const TYPE_NAME: &'static str = "vault_eager";
        type State = Note;
        fn create(&self, _planned: Note) -> Result<Note> {
            Err(Diagnostics::deferred(DeferredReason::Unknown))
        }

        fn read(&self, current: Note) -> Result<Option<Note>> {
            // Nothing outside Terraform's state to look at: keep the state as it is.
            Ok(Some(current))
        }

        fn delete(&self, _prior: Note) -> Result<()> {
            // Nothing outside Terraform's state to delete: Terraform forgets it.
            Ok(())
        }
    }
    #[derive(Default)]
    struct P;
    impl Provider for P {
        fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
            vec![Box::new(Eager)]
        }
    }
    let err = Harness::new(P)
        .allow_deferral(true)
        .create("vault_eager", json!({"title": "t"}))
        .unwrap_err();
    assert!(err.mentions("cannot be deferred"), "{err}");
}

// ---- plan destroy ----

#[test]
fn destroy_plans_reach_plan_destroy() {
    let h = Harness::new(Vault::default());
    let created = h.create("vault_secret", json!({"name": "precious"})).unwrap();
    let response = h.server().plan_resource_change(PlanRequest {
        type_name: "vault_secret".into(),
        prior_state: created.state.clone(),
        proposed_new_state: Value::Null,
        config: Value::Null,
        prior_private: Vec::new(),
        client: ClientCapabilities::default(),
        prior_identity: created.identity.clone(),
    });
    assert_eq!(response.planned_state, Value::Null);
    assert_eq!(response.diagnostics[0].summary, "Refusing to destroy");
    assert_eq!(response.planned_identity, created.identity);
    assert_eq!(*h.server().provider().destroys_planned.borrow(), ["precious"]);
}

/// ProviderMeta: the provider declares a `provider_meta` schema, and what a module writes in
/// its `provider_meta` block reaches the resource and data source code that serves it.
mod provider_meta {
    use serde::{Deserialize, Serialize};
    use serde_json::json;
    use terrarium_sdk::schema::{Attribute, Schema};
    use terrarium_sdk::testing::Harness;
    use terrarium_sdk::{
        AnyDataSource, AnyResource, Attr, DataSource, Model, Provider, Resource, Result,
        provider_meta,
    };

    #[derive(Default)]
    struct Metered;

    #[derive(Deserialize)]
    struct Meta {
        module_name: Option<String>,
    }

    fn caller() -> Result<String> {
        Ok(provider_meta::<Meta>()?
            .and_then(|m| m.module_name)
            .unwrap_or_else(|| "no module".to_string()))
    }

    impl Provider for Metered {
        fn meta_schema(&self) -> Option<Schema> {
            Some(Schema::new().attribute(Attribute::string("module_name").optional()))
        }
        fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
            vec![Box::new(Stamp)]
        }
        fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
            vec![Box::new(Stamp)]
        }
    }

    struct Stamp;

    #[derive(Serialize, Deserialize, Model)]
    struct StampState {
        #[tf(computed)]
        caller: Attr<String>,
    }

    impl Resource for Stamp {
        const TYPE_NAME: &'static str = "metered_stamp";
        type State = StampState;
        fn create(&self, _planned: StampState) -> Result<StampState> {
            Ok(StampState { caller: Attr::Known(caller()?) })
        }
        fn read(&self, current: StampState) -> Result<Option<StampState>> {
            Ok(Some(current))
        }
        fn delete(&self, _prior: StampState) -> Result<()> {
            Ok(())
        }
    }

    impl DataSource for Stamp {
        const TYPE_NAME: &'static str = "metered_stamp";
        type State = StampState;
        fn read(&self, _config: StampState) -> Result<StampState> {
            Ok(StampState { caller: Attr::Known(caller()?) })
        }
    }

    #[test]
    fn the_schema_declares_it_and_resources_and_data_sources_read_it() {
        let (schema, diagnostics) = Harness::new(Metered).server().get_schema();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let meta = schema.provider_meta.expect("a provider_meta schema");
        assert!(meta.block.attribute("module_name").is_some());

        let h = Harness::new(Metered).provider_meta(json!({"module_name": "web"})).unwrap();
        let created: StampState = h.create("metered_stamp", json!({})).unwrap().typed().unwrap();
        assert_eq!(created.caller, Attr::Known("web".to_string()));
        let read: StampState = h.read_data("metered_stamp", json!({})).unwrap().typed().unwrap();
        assert_eq!(read.caller, Attr::Known("web".to_string()));

        // A module without the block, or a call outside one: none.
        let h = Harness::new(Metered);
        let created: StampState = h.create("metered_stamp", json!({})).unwrap().typed().unwrap();
        assert_eq!(created.caller, Attr::Known("no module".to_string()));
    }
}

/// A create or update that got part of the way keeps what exists with its error.
mod partial_state {
    use serde::{Deserialize, Serialize};
    use serde_json::json;
    use terrarium_sdk::testing::Harness;
    use terrarium_sdk::{AnyResource, Attr, Diagnostics, Model, Provider, Resource, Result, Value};

    struct Cloud;

    impl Provider for Cloud {
        fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
            vec![Box::new(Machines)]
        }
    }

    struct Machines;

    #[derive(Serialize, Deserialize, Model)]
    struct Machine {
        #[tf(computed, use_state_for_unknown)]
        id: Attr<String>,
        #[tf(computed)]
        address: Attr<String>,
        size: String,
    }

    impl Resource for Machines {
        const TYPE_NAME: &'static str = "cloud_machine";
        type State = Machine;

        fn create(&self, planned: Machine) -> Result<Machine> {
            // The machine exists; its network never came up, so `address` stays unknown.
            let started = Machine { id: Attr::Known("m-1".into()), ..planned };
            Err(Diagnostics::error("Machine failed to start", "No network.").with_state(&started))
        }

        fn update(&self, prior: Machine, planned: Machine) -> Result<Machine> {
            // The resize happened; what the code kept is what is recorded.
            let resized = Machine { size: planned.size, ..prior };
            Err(Diagnostics::error("Resize incomplete", "Reboot failed.").with_state(&resized))
        }

        fn read(&self, current: Machine) -> Result<Option<Machine>> {
            Ok(Some(current))
        }

        fn delete(&self, _prior: Machine) -> Result<()> {
            Ok(())
        }
    }

    fn attr<'a>(state: &'a Value, name: &str) -> &'a Value {
        state.attr(name).unwrap_or(&Value::Null)
    }

    #[test]
    fn a_failed_create_keeps_the_state_it_was_given_with_unknowns_as_null() {
        let h = Harness::new(Cloud);
        let failure = h.create("cloud_machine", json!({"size": "small"})).unwrap_err();
        assert!(failure.mentions("Machine failed to start"), "{failure}");
        let state = failure.state.expect("the started machine is kept");
        assert_eq!(attr(&state, "id"), &Value::string("m-1"));
        assert_eq!(attr(&state, "size"), &Value::string("small"));
        assert_eq!(attr(&state, "address"), &Value::Null, "unknown is recorded as null");
    }

    #[test]
    fn a_failed_update_records_what_the_code_kept_instead_of_the_prior_state() {
        let h = Harness::new(Cloud);
        let prior = Value::Object(
            [
                ("id".to_string(), Value::string("m-1")),
                ("address".to_string(), Value::string("10.0.0.1")),
                ("size".to_string(), Value::string("small")),
            ]
            .into(),
        );
        let failure = h.update("cloud_machine", &prior, json!({"size": "large"})).unwrap_err();
        assert!(failure.mentions("Resize incomplete"), "{failure}");
        let state = failure.state.expect("the resized machine is kept");
        assert_eq!(attr(&state, "size"), &Value::string("large"));
        assert_eq!(attr(&state, "address"), &Value::string("10.0.0.1"));
    }
}
