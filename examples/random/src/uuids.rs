//! UUIDs: the `random_uuid` resource (version 4, random) and the `uuid_v5` provider function
//! (version 5, derived from a namespace and a name, so always the same for the same input).

use serde::{Deserialize, Serialize};
use terrarium_sdk::function::{Arguments, Function, FunctionError, Parameter, Signature};
use terrarium_sdk::{Attr, Model, Resource, Result, ResultExt, Type};
use uuid::Uuid;

use crate::Keepers;

/// `random_uuid`: the smallest resource here. Everything but `create` is the SDK's default:
/// the plan shows `id` and `result` as known after apply, read keeps the state, delete
/// forgets it, and a `keepers` change replaces it.
pub struct RandomUuid;

/// A random version 4 UUID.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct UuidState {
    /// The result.
    #[tf(computed)]
    pub id: Attr<String>,
    /// Arbitrary values that, when changed, replace the resource and so draw a new value.
    #[tf(requires_replace)]
    pub keepers: Keepers,
    /// The UUID, in lower-case hyphenated form.
    #[tf(computed)]
    pub result: Attr<String>,
}

impl Resource for RandomUuid {
    const TYPE_NAME: &'static str = "random_uuid";
    type State = UuidState;

    fn create(&self, planned: UuidState) -> Result<UuidState> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).context("No randomness available")?;
        // Sets the version and variant bits; the other 122 bits are random.
        let uuid = uuid::Builder::from_random_bytes(bytes).into_uuid().to_string();
        Ok(UuidState { id: uuid.clone().into(), result: uuid.into(), ..planned })
    }

    fn read(&self, current: UuidState) -> Result<Option<UuidState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: UuidState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

/// `provider::random::uuid_v5(namespace, name)`: the version 5 UUID of `name` in
/// `namespace`, which is `"dns"`, `"url"`, `"oid"`, `"x500"` or a UUID. The same as
/// Terraform's built-in `uuidv5`, and deterministic, as functions must be: Terraform may call
/// one any number of times and expects the same answer.
pub struct UuidV5;

impl Function for UuidV5 {
    const NAME: &'static str = "uuid_v5";
    type Output = String;

    fn signature(&self) -> Signature {
        Signature::new(Type::String)
            .summary("Generates a name-based (version 5) UUID")
            .description("The version 5 UUID of name in namespace: the same arguments always give the same UUID.")
            .parameter(
                Parameter::new("namespace", Type::String)
                    .description("\"dns\", \"url\", \"oid\", \"x500\", or a UUID of your own."),
            )
            .parameter(Parameter::new("name", Type::String).description("The name to derive the UUID from."))
    }

    fn call(&self, args: &Arguments) -> std::result::Result<String, FunctionError> {
        let namespace: String = args.get(0)?;
        let name: String = args.get(1)?;
        let namespace = match namespace.as_str() {
            "dns" => Uuid::NAMESPACE_DNS,
            "url" => Uuid::NAMESPACE_URL,
            "oid" => Uuid::NAMESPACE_OID,
            "x500" => Uuid::NAMESPACE_X500,
            other => Uuid::parse_str(other).map_err(|_| {
                // Naming the argument makes Terraform point at it in the configuration.
                FunctionError::argument(
                    0,
                    format!("{other:?} is not a namespace: use \"dns\", \"url\", \"oid\", \"x500\" or a UUID"),
                )
            })?,
        };
        Ok(Uuid::new_v5(&namespace, name.as_bytes()).to_string())
    }
}

#[cfg(test)]
mod tests {
    use terrarium_sdk::Value;
    use terrarium_sdk::function::AnyFunction;

    use super::*;

    fn call(namespace: &str, name: &str) -> std::result::Result<Value, FunctionError> {
        UuidV5.call_function(vec![Value::string(namespace), Value::string(name)])
    }

    #[test]
    fn uuid_v5_matches_the_standard() {
        // Python: uuid.uuid5(uuid.NAMESPACE_DNS, "python.org")
        assert_eq!(
            call("dns", "python.org"),
            Ok(Value::string("886313e1-3b8a-5372-9b90-0c9aee199e5d"))
        );
        assert_eq!(
            call("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "python.org"),
            call("dns", "python.org"),
            "a namespace given as a UUID"
        );
        let error = call("nope", "x").unwrap_err();
        assert_eq!(error.argument, Some(0), "{error}");
    }

    #[test]
    fn random_uuids_are_version_4() {
        let state = RandomUuid
            .create(UuidState { id: Attr::Unknown, keepers: None, result: Attr::Unknown })
            .unwrap();
        let uuid = Uuid::parse_str(state.result.known().unwrap()).unwrap();
        assert_eq!(uuid.get_version_num(), 4);
        assert_eq!(state.id, state.result);
    }
}
