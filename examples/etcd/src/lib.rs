//! `terrarium/etcd`: keys in a real etcd, through etcd's HTTP/JSON gateway (`/v3/kv/*`).
//!
//! Every request goes through the SDK's HTTP client, so it reaches etcd only when the user
//! granted etcd's origin (`terrarium install --allow-http http://127.0.0.1:2379`). Without
//! the grant, every operation fails with a diagnostic naming the origin and that flag.
//!
//! ```hcl
//! provider "etcd" {
//!   endpoint = "http://127.0.0.1:2379"
//! }
//!
//! resource "etcd_key" "greeting" {
//!   key   = "/app/greeting"
//!   value = "hello"
//! }
//! ```
//!
//! `etcd_key` supports create, read (drift: a changed value is planned as an in-place
//! update, a deleted key as a creation), in-place update of `value`, delete, and import by
//! key (`terraform import etcd_key.greeting /app/greeting`). Its identity is `{ key }`, so an
//! `import` block may also name it by identity
//! (`import { to = etcd_key.greeting  identity = { key = "/app/greeting" } }`). The data
//! source `etcd_key` reads a key.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use serde_json::json;
use terrarium_sdk::http::Client;
use terrarium_sdk::identity::{AnyIdentity, ResourceIdentity};
use terrarium_sdk::rpc::ConfigureRequest;
use terrarium_sdk::schema::Schema;
use terrarium_sdk::{
    AnyDataSource, AnyResource, Attr, DataSource, Diagnostics, Model, Provider, Resource, Result,
    from_value,
};

/// The provider: the etcd endpoint, once configured.
#[derive(Default)]
pub struct EtcdProvider {
    etcd: Option<Etcd>,
}

/// The `provider "etcd"` block.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct EtcdConfig {
    /// etcd's client URL, e.g. http://127.0.0.1:2379. Its origin must be granted.
    pub endpoint: String,
}

impl Provider for EtcdProvider {
    fn schema(&self) -> Schema {
        EtcdConfig::schema()
    }

    fn configure(&mut self, request: ConfigureRequest) -> Result<()> {
        let config: EtcdConfig = from_value(&request.config)?;
        let endpoint = config.endpoint.trim_end_matches('/').to_string();
        terrarium_sdk::http::Url::parse(&endpoint).map_err(|e| {
            Diagnostics::attribute_error("endpoint", "Invalid endpoint", e.to_string())
        })?;
        self.etcd = Some(Etcd { endpoint, client: Client::new() });
        Ok(())
    }

    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(KeyResource { provider: self })]
    }

    fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
        vec![Box::new(KeyData { provider: self })]
    }
}

terrarium_sdk::export!(EtcdProvider);

impl EtcdProvider {
    fn etcd(&self) -> Result<&Etcd> {
        self.etcd.as_ref().ok_or_else(|| {
            Diagnostics::error(
                "Provider not configured",
                "The etcd provider needs its endpoint configured.",
            )
        })
    }
}

/// A tiny etcd v3 client over the JSON gateway: keys and values travel base64-encoded.
pub struct Etcd {
    endpoint: String,
    client: Client,
}

/// A key as the gateway's range response has it.
#[derive(Deserialize)]
struct KeyValue {
    #[serde(default)]
    value: String,
}

#[derive(Deserialize)]
struct RangeResponse {
    #[serde(default)]
    kvs: Vec<KeyValue>,
}

impl Etcd {
    fn call(&self, path: &str, body: serde_json::Value) -> Result<terrarium_sdk::http::Response> {
        let url = format!("{}{path}", self.endpoint);
        Ok(self.client.post_json(&url, &body)?.error_for_status()?)
    }

    pub fn put(&self, key: &str, value: &str) -> Result<()> {
        self.call(
            "/v3/kv/put",
            json!({ "key": BASE64.encode(key), "value": BASE64.encode(value) }),
        )?;
        Ok(())
    }

    /// The key's value; `None` when it does not exist.
    pub fn get(&self, key: &str) -> Result<Option<String>> {
        let response = self.call("/v3/kv/range", json!({ "key": BASE64.encode(key) }))?;
        let range: RangeResponse = response.json()?;
        let Some(kv) = range.kvs.into_iter().next() else { return Ok(None) };
        // An empty value is left out of the JSON; `default` makes it "".
        let bytes = BASE64.decode(kv.value.as_bytes()).map_err(|e| {
            Diagnostics::error(
                "Unexpected answer from etcd",
                format!("the value of {key:?} is not base64: {e}"),
            )
        })?;
        String::from_utf8(bytes).map(Some).map_err(|_| {
            Diagnostics::error("Binary value", format!("the value of {key:?} is not UTF-8 text"))
        })
    }

    pub fn delete(&self, key: &str) -> Result<()> {
        self.call("/v3/kv/deleterange", json!({ "key": BASE64.encode(key) }))?;
        Ok(())
    }
}

/// `etcd_key`.
pub struct KeyResource<'a> {
    provider: &'a EtcdProvider,
}

/// The state of an `etcd_key`.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct KeyState {
    /// The key (same as `key`).
    #[tf(computed, use_state_for_unknown)]
    pub id: Attr<String>,
    /// The key; changing it replaces the resource.
    #[tf(requires_replace)]
    pub key: String,
    /// The value, updated in place.
    pub value: String,
}

/// The identity of an `etcd_key`: the key names it.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct KeyIdentity {
    /// The key.
    #[tf(required_for_import)]
    pub key: String,
}

impl Resource for KeyResource<'_> {
    const TYPE_NAME: &'static str = "etcd_key";
    type State = KeyState;

    fn schema(&self) -> Schema {
        KeyState::schema().description("A key in etcd and its value.")
    }

    fn create(&self, planned: KeyState) -> Result<KeyState> {
        self.provider.etcd()?.put(&planned.key, &planned.value)?;
        Ok(KeyState { id: planned.key.clone().into(), ..planned })
    }

    /// Drift: a deleted key leaves the state; a changed value is read back as it is.
    fn read(&self, current: KeyState) -> Result<Option<KeyState>> {
        let Some(value) = self.provider.etcd()?.get(&current.key)? else { return Ok(None) };
        Ok(Some(KeyState { id: current.key.clone().into(), value, ..current }))
    }

    fn update(&self, _prior: KeyState, planned: KeyState) -> Result<KeyState> {
        self.provider.etcd()?.put(&planned.key, &planned.value)?;
        Ok(KeyState { id: planned.key.clone().into(), ..planned })
    }

    fn delete(&self, prior: KeyState) -> Result<()> {
        self.provider.etcd()?.delete(&prior.key)
    }

    fn import(&self, id: &str) -> Result<KeyState> {
        let value = self.provider.etcd()?.get(id)?.ok_or_else(|| {
            Diagnostics::error("Cannot import", format!("etcd has no key {id:?}."))
        })?;
        Ok(KeyState { id: id.to_string().into(), key: id.to_string(), value })
    }

    fn identity(&self) -> Option<&dyn AnyIdentity<KeyState>> {
        Some(self)
    }
}

impl ResourceIdentity for KeyResource<'_> {
    type Identity = KeyIdentity;
    /// The identity is the state's `key` attribute, known from the first plan on (whatever
    /// `value` is).
    type Source = KeyIdentity;

    fn identity_of(&self, source: KeyIdentity) -> Option<KeyIdentity> {
        Some(source)
    }

    fn import_by_identity(&self, identity: KeyIdentity) -> Result<KeyState> {
        self.import(&identity.key)
    }
}

/// `data "etcd_key"`.
pub struct KeyData<'a> {
    provider: &'a EtcdProvider,
}

/// The state of `data "etcd_key"`.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct KeyDataState {
    /// The key to read.
    pub key: String,
    /// Its value (null when the key does not exist).
    #[tf(computed)]
    pub value: Attr<String>,
}

impl DataSource for KeyData<'_> {
    const TYPE_NAME: &'static str = "etcd_key";
    type State = KeyDataState;

    fn read(&self, config: KeyDataState) -> Result<KeyDataState> {
        let value = self.provider.etcd()?.get(&config.key)?;
        Ok(KeyDataState { value: value.map_or(Attr::Null, Attr::Known), ..config })
    }
}

#[cfg(test)]
mod tests {
    use terrarium_sdk::{Server, Value};

    use super::*;

    #[test]
    fn the_schema_has_no_mistakes() {
        let server = Server::new(EtcdProvider::default());
        let (_, diagnostics) = server.get_schema();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let identity = &server.identity_schemas()["etcd_key"];
        assert_eq!(identity.attributes.len(), 1);
        assert!(identity.attributes[0].name == "key" && identity.attributes[0].required_for_import);
    }

    #[test]
    fn the_identity_is_the_key_even_while_the_value_is_unknown() {
        let provider = EtcdProvider::default();
        let resource = KeyResource { provider: &provider };
        let planned = Value::Object(
            [
                ("id".to_string(), Value::unknown()),
                ("key".to_string(), Value::string("/a")),
                ("value".to_string(), Value::unknown()),
            ]
            .into(),
        );
        let identity = Value::Object([("key".to_string(), Value::string("/a"))].into());
        let planned_identity = AnyIdentity::known_identity_value(&resource, &planned);
        assert_eq!(planned_identity.ok().flatten(), Some(identity));
    }

    #[test]
    fn an_unconfigured_provider_says_so() {
        let provider = EtcdProvider::default();
        let err = provider.etcd().err().expect("not configured");
        assert!(format!("{err:?}").contains("not configured"), "{err:?}");
    }
}
