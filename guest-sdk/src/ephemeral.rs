//! Ephemeral resources: values Terraform uses while it runs and never stores (a password
//! for a database connection, a short-lived token). Terraform opens one when a configuration
//! refers to it, may renew it while the run lasts, and closes it at the end; nothing of it
//! reaches the plan file or the state.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use terrarium_sdk::ephemeral::{EphemeralResource, Lease};
//! use terrarium_sdk::{Attr, Model, Result};
//!
//! /// A greeting that is never stored.
//! #[derive(Serialize, Deserialize, Model)]
//! struct Greeting {
//!     /// Who to greet.
//!     name: String,
//!     /// How loud, 1 unless configured.
//!     #[tf(default = 1)]
//!     volume: i64,
//!     /// The greeting.
//!     #[tf(computed, sensitive)]
//!     text: Attr<String>,
//! }
//!
//! struct EphemeralGreeting;
//!
//! impl EphemeralResource for EphemeralGreeting {
//!     const TYPE_NAME: &'static str = "demo_greeting";
//!     type Data = Greeting;
//!
//!     fn open(&self, config: Greeting, _lease: &mut Lease) -> Result<Greeting> {
//!         let text = format!("Hello, {}{}", config.name, "!".repeat(config.volume.max(0) as usize));
//!         Ok(Greeting { text: text.into(), ..config })
//!     }
//! }
//! ```
//!
//! `Data` is the configuration and the result in one struct, as a data source's `State`
//! is: `open` gets it with the configuration (defaults filled in, computed attributes null)
//! and returns it with every computed attribute set. Something that must be given back
//! later (a lease ID to revoke) goes in the [`Lease`], with the time to
//! [`renew`](EphemeralResource::renew) it; [`close`](EphemeralResource::close) gets the
//! same lease at the end.

use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value as Json;
use terrarium_model::{Diagnostic, Value};

use crate::diag::{Diagnostics, Result};
use crate::kind::{find_type, known_state, validate_config};
use crate::provider::Provider;
use crate::resource::PrivateState;
use crate::rpc::{ClientCapabilities, DeferredReason};
use crate::schema::Schema;
use crate::server::Server;
use crate::testing::{Failure, Harness, fit, split};
use crate::typed::Model;
use crate::value::from_value;

/// An ephemeral resource type.
pub trait EphemeralResource {
    /// The type name as written in configurations (`ephemeral "<provider>_<name>" "x" {}`).
    const TYPE_NAME: &'static str;

    /// The configuration and the result: configured attributes in, computed ones set on the
    /// way out. With `#[derive(Model)]` it is the schema too.
    type Data: Serialize + DeserializeOwned + Model;

    /// The schema Terraform sees; by default the one derived from [`Data`](Self::Data).
    fn schema(&self) -> Schema {
        <Self::Data as Model>::schema()
    }

    /// Checks a configuration beyond what the schema says; attributes may be unknown here.
    fn validate(&self, config: &Value) -> Result<()> {
        let _ = config;
        Ok(())
    }

    /// Opens the resource: `config` is the configuration (wholly known, defaults filled in),
    /// the result is the same struct with every computed attribute set. Keep in `lease`
    /// whatever [`renew`](Self::renew) and [`close`](Self::close) will need.
    /// [`Diagnostics::deferred`] defers it (when Terraform allows).
    fn open(&self, config: Self::Data, lease: &mut Lease) -> Result<Self::Data>;

    /// Renews the resource, at the time [`Lease::renew_at`] asked for. The lease holds what
    /// `open` (or the last renewal) stored; it is renewed again only if this sets a new time.
    /// By default nothing is done.
    fn renew(&self, lease: &mut Lease) -> Result<()> {
        let _ = lease;
        Ok(())
    }

    /// Closes the resource when Terraform is done with it (revoke a token, end a session).
    /// By default nothing is done.
    fn close(&self, lease: &Lease) -> Result<()> {
        let _ = lease;
        Ok(())
    }
}

/// What an open ephemeral resource keeps between [`open`](EphemeralResource::open),
/// [`renew`](EphemeralResource::renew) and [`close`](EphemeralResource::close): private
/// data (Terraform holds it in memory only, never shows or stores it) and when to renew.
///
/// ```
/// use std::time::Duration;
/// use terrarium_sdk::ephemeral::Lease;
///
/// let mut lease = Lease::default();
/// lease.set("token_id", &"t-42").unwrap();
/// lease.renew_after(Duration::from_secs(300));
/// assert_eq!(lease.get::<String>("token_id").as_deref(), Some("t-42"));
/// assert!(lease.renews_at().is_some());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lease {
    private: PrivateState,
    renew_at: Option<SystemTime>,
}

impl Lease {
    /// A lease from the private bytes Terraform hands back.
    pub fn decode(private: Option<&[u8]>) -> Self {
        Lease { private: PrivateState::decode(private.unwrap_or_default()), renew_at: None }
    }

    /// The private bytes for Terraform; `None` when there is nothing to keep.
    pub fn encode(&self) -> Option<Vec<u8>> {
        Some(self.private.encode()).filter(|bytes| !bytes.is_empty())
    }

    /// Reads the value stored under `key`, if there is one of type `T`.
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        self.private.get(key)
    }

    /// Stores `value` under `key`.
    pub fn set<T: Serialize>(&mut self, key: &str, value: &T) -> Result<()> {
        self.private.set(key, value)
    }

    /// Removes the value under `key`.
    pub fn remove(&mut self, key: &str) {
        self.private.remove(key);
    }

    /// Asks Terraform to call [`renew`](EphemeralResource::renew) at `at`, if it still uses
    /// the resource then.
    pub fn renew_at(&mut self, at: SystemTime) {
        self.renew_at = Some(at);
    }

    /// Asks for a renewal `after` from now.
    pub fn renew_after(&mut self, after: Duration) {
        self.renew_at = SystemTime::now().checked_add(after);
    }

    /// Cancels a renewal asked for.
    pub fn no_renewal(&mut self) {
        self.renew_at = None;
    }

    /// When Terraform is asked to renew, if at all.
    pub fn renews_at(&self) -> Option<SystemTime> {
        self.renew_at
    }
}

/// `OpenEphemeralResource`.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenRequest {
    /// Which ephemeral resource type.
    pub type_name: String,
    /// The configuration, an object of the schema's type, wholly known.
    pub config: Value,
    /// What Terraform can handle.
    pub client: ClientCapabilities,
}

/// Reply to [`OpenRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct OpenResponse {
    /// The configuration with every computed attribute set (null on error).
    pub result: Value,
    /// The [`Lease`]'s private data, for renew and close.
    pub private: Option<Vec<u8>>,
    /// When to renew, if ever.
    pub renew_at: Option<SystemTime>,
    /// Set when the resource cannot be opened yet (and Terraform accepts that).
    pub deferred: Option<DeferredReason>,
    /// Errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

/// `RenewEphemeralResource`.
#[derive(Clone, Debug, PartialEq)]
pub struct RenewRequest {
    /// Which ephemeral resource type.
    pub type_name: String,
    /// What open (or the last renewal) kept.
    pub private: Option<Vec<u8>>,
}

/// Reply to [`RenewRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct RenewResponse {
    /// The private data from now on.
    pub private: Option<Vec<u8>>,
    /// When to renew again, if ever.
    pub renew_at: Option<SystemTime>,
    /// Errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

/// `CloseEphemeralResource`.
#[derive(Clone, Debug, PartialEq)]
pub struct CloseRequest {
    /// Which ephemeral resource type.
    pub type_name: String,
    /// What open (or the last renewal) kept.
    pub private: Option<Vec<u8>>,
}

/// An ephemeral resource type as the provider lists it: every [`EphemeralResource`] is one,
/// so `Box::new(MyEphemeral)` is all a provider writes.
pub trait AnyEphemeralResource {
    /// The type name as written in configurations: `"<provider>_<name>"`.
    fn type_name(&self) -> &str;
    /// The schema of its configuration and result.
    fn ephemeral_resource_schema(&self) -> Schema;
    /// `ValidateEphemeralResourceConfig`: each attribute's validators, then the type's own
    /// checks.
    fn validate_config(&self, config: &Value) -> Vec<Diagnostic>;
    /// `OpenEphemeralResource`: fills in defaults, opens, and checks the result against the
    /// schema.
    fn open_resource(&self, request: OpenRequest) -> OpenResponse;
    /// `RenewEphemeralResource`.
    fn renew_resource(&self, request: RenewRequest) -> RenewResponse;
    /// `CloseEphemeralResource`.
    fn close_resource(&self, request: CloseRequest) -> Vec<Diagnostic>;
}

impl<E: EphemeralResource> AnyEphemeralResource for E {
    fn type_name(&self) -> &str {
        E::TYPE_NAME
    }

    fn ephemeral_resource_schema(&self) -> Schema {
        EphemeralResource::schema(self)
    }

    fn validate_config(&self, config: &Value) -> Vec<Diagnostic> {
        validate_config(&EphemeralResource::schema(self), config, || {
            EphemeralResource::validate(self, config)
        })
    }

    fn open_resource(&self, request: OpenRequest) -> OpenResponse {
        let schema = EphemeralResource::schema(self);
        let ty = schema.implied_type();
        let config = crate::plan::fill_defaults(crate::plan::Shape::of(&schema), request.config);
        let mut lease = Lease::default();
        let result = from_value(&config)
            .map_err(Diagnostics::from)
            .and_then(|config| EphemeralResource::open(self, config, &mut lease))
            .and_then(|data| known_state(&data, &ty, "open"));
        match result {
            Ok(result) => OpenResponse {
                result,
                private: lease.encode(),
                renew_at: lease.renews_at(),
                deferred: None,
                diagnostics: Vec::new(),
            },
            // Nothing was opened: there is nothing to renew or close.
            Err(d) => {
                let call = format!("EphemeralResource::open of {}", E::TYPE_NAME);
                let (deferred, diagnostics) = d.into_deferral(&request.client, &call);
                OpenResponse {
                    result: Value::Null,
                    private: None,
                    renew_at: None,
                    deferred,
                    diagnostics,
                }
            }
        }
    }

    fn renew_resource(&self, request: RenewRequest) -> RenewResponse {
        let mut lease = Lease::decode(request.private.as_deref());
        match EphemeralResource::renew(self, &mut lease) {
            Ok(()) => RenewResponse {
                private: lease.encode(),
                renew_at: lease.renews_at(),
                diagnostics: Vec::new(),
            },
            // The resource is as it was: keep its private data for close.
            Err(d) => RenewResponse {
                private: request.private,
                renew_at: None,
                diagnostics: d.into_vec(),
            },
        }
    }

    fn close_resource(&self, request: CloseRequest) -> Vec<Diagnostic> {
        let lease = Lease::decode(request.private.as_deref());
        EphemeralResource::close(self, &lease).err().map(Diagnostics::into_vec).unwrap_or_default()
    }
}

/// The ephemeral-resource calls of the protocol, routed by type name.
impl<P: Provider> Server<P> {
    /// `ValidateEphemeralResourceConfig`.
    pub fn validate_ephemeral_resource_config(
        &self,
        type_name: &str,
        config: &Value,
    ) -> Vec<Diagnostic> {
        with_ephemeral(self.provider(), type_name, |e| e.validate_config(config))
            .unwrap_or_else(|d| vec![d])
    }

    /// `OpenEphemeralResource`.
    pub fn open_ephemeral_resource(&self, request: OpenRequest) -> OpenResponse {
        let type_name = request.type_name.clone();
        with_ephemeral(self.provider(), &type_name, |e| e.open_resource(request)).unwrap_or_else(
            |d| OpenResponse {
                result: Value::Null,
                private: None,
                renew_at: None,
                deferred: None,
                diagnostics: vec![d],
            },
        )
    }

    /// `RenewEphemeralResource`.
    pub fn renew_ephemeral_resource(&self, request: RenewRequest) -> RenewResponse {
        let (type_name, private) = (request.type_name.clone(), request.private.clone());
        with_ephemeral(self.provider(), &type_name, |e| e.renew_resource(request))
            .unwrap_or_else(|d| RenewResponse { private, renew_at: None, diagnostics: vec![d] })
    }

    /// `CloseEphemeralResource`.
    pub fn close_ephemeral_resource(&self, request: CloseRequest) -> Vec<Diagnostic> {
        let type_name = request.type_name.clone();
        with_ephemeral(self.provider(), &type_name, |e| e.close_resource(request))
            .unwrap_or_else(|d| vec![d])
    }
}

fn with_ephemeral<P: Provider, T>(
    provider: &P,
    type_name: &str,
    f: impl FnOnce(&dyn AnyEphemeralResource) -> T,
) -> std::result::Result<T, Diagnostic> {
    let all = provider.ephemeral_resources();
    find_type("ephemeral resource", &all, type_name, |e| e.type_name()).map(f)
}

/// What [`Harness::open`] produced: the result, and the lease to renew and close.
#[derive(Clone, Debug)]
pub struct Opened {
    /// The result: the configuration with every computed attribute set.
    pub result: Value,
    /// The lease's private data, as Terraform would hand it to renew and close.
    pub private: Option<Vec<u8>>,
    /// When Terraform would renew.
    pub renew_at: Option<SystemTime>,
    /// Warnings (errors make the step fail).
    pub warnings: Vec<Diagnostic>,
}

impl Opened {
    /// The result read into the ephemeral resource's `Data` type.
    pub fn typed<T: DeserializeOwned>(&self) -> std::result::Result<T, Failure> {
        from_value(&self.result)
            .map_err(|e| Failure { step: "typed", diagnostics: vec![e.to_diagnostic()] })
    }
}

/// Ephemeral resources in unit tests.
impl<P: Provider> Harness<P> {
    /// Validates and opens an ephemeral resource with a JSON configuration, as Terraform
    /// does when a configuration refers to it.
    pub fn open(&self, type_name: &str, config: Json) -> std::result::Result<Opened, Failure> {
        let server = self.server();
        let schema =
            with_ephemeral(server.provider(), type_name, |e| e.ephemeral_resource_schema())
                .map_err(|d| Failure { step: "config", diagnostics: vec![d] })?;
        let config = fit(&schema, &config)?;
        let mut warnings =
            split("validate", server.validate_ephemeral_resource_config(type_name, &config))?;
        let response = server.open_ephemeral_resource(OpenRequest {
            type_name: type_name.to_string(),
            config,
            client: ClientCapabilities {
                deferral_allowed: false,
                write_only_attributes_allowed: true,
            },
        });
        warnings.extend(split("open", response.diagnostics)?);
        Ok(Opened {
            result: response.result,
            private: response.private,
            renew_at: response.renew_at,
            warnings,
        })
    }

    /// Renews what [`open`](Self::open) (or an earlier renewal) returned, as Terraform does
    /// at its `renew_at`: the same result, with the lease as the renewal left it.
    pub fn renew(&self, type_name: &str, opened: &Opened) -> std::result::Result<Opened, Failure> {
        let response = self.server().renew_ephemeral_resource(RenewRequest {
            type_name: type_name.to_string(),
            private: opened.private.clone(),
        });
        let warnings = split("renew", response.diagnostics)?;
        Ok(Opened {
            result: opened.result.clone(),
            private: response.private,
            renew_at: response.renew_at,
            warnings,
        })
    }

    /// Closes what [`open`](Self::open) returned, as Terraform does when it is done; returns
    /// the warnings.
    pub fn close(
        &self,
        type_name: &str,
        opened: &Opened,
    ) -> std::result::Result<Vec<Diagnostic>, Failure> {
        let diagnostics = self.server().close_ephemeral_resource(CloseRequest {
            type_name: type_name.to_string(),
            private: opened.private.clone(),
        });
        split("close", diagnostics)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::{Attr, AttributePath, Model};

    /// Records what was closed, so that the tests can see close ran with the lease.
    #[derive(Default)]
    struct Tokens {
        closed: RefCell<Vec<String>>,
    }

    impl Provider for Tokens {
        fn ephemeral_resources(&self) -> Vec<Box<dyn AnyEphemeralResource + '_>> {
            vec![Box::new(TokenResource { closed: &self.closed }), Box::new(Broken)]
        }
    }

    struct TokenResource<'a> {
        closed: &'a RefCell<Vec<String>>,
    }

    #[derive(Serialize, Deserialize, Model)]
    struct Token {
        #[tf(validate = length(1, 8))]
        name: String,
        #[tf(default = 60)]
        ttl: i64,
        #[tf(computed, sensitive)]
        secret: Attr<String>,
    }

    impl EphemeralResource for TokenResource<'_> {
        const TYPE_NAME: &'static str = "t_token";
        type Data = Token;

        fn open(&self, config: Token, lease: &mut Lease) -> Result<Token> {
            lease.set("name", &config.name)?;
            lease.set("renewals", &0)?;
            lease.renew_after(Duration::from_secs(config.ttl as u64));
            Ok(Token { secret: format!("{}-{}", config.name, config.ttl).into(), ..config })
        }

        fn renew(&self, lease: &mut Lease) -> Result<()> {
            let renewals: i64 = lease.get("renewals").unwrap_or_default();
            lease.set("renewals", &(renewals + 1))?;
            if renewals < 1 {
                lease.renew_after(Duration::from_secs(60));
            }
            Ok(())
        }

        fn close(&self, lease: &Lease) -> Result<()> {
            self.closed.borrow_mut().push(lease.get("name").unwrap_or_default());
            Ok(())
        }
    }

    /// Returns an unknown result (a bug the SDK must catch), or defers when the name says.
    struct Broken;

    impl EphemeralResource for Broken {
        const TYPE_NAME: &'static str = "t_broken";
        type Data = Token;

        fn open(&self, config: Token, _lease: &mut Lease) -> Result<Token> {
            if config.name == "later" {
                return Err(Diagnostics::deferred(DeferredReason::AbsentPrerequisite));
            }
            Ok(Token { secret: Attr::Unknown, ..config })
        }
    }

    #[test]
    fn open_fills_defaults_sets_computed_values_and_keeps_the_lease() {
        let h = Harness::new(Tokens::default());
        let opened = h.open("t_token", json!({"name": "db"})).unwrap();
        let token: Token = opened.typed().unwrap();
        assert_eq!(token.ttl, 60);
        assert_eq!(token.secret, Attr::Known("db-60".to_string()));
        assert!(opened.renew_at.is_some_and(|at| at > SystemTime::now()));
        assert!(opened.private.is_some());
        assert!(
            h.server().get_schema().0.ephemeral_resources["t_token"]
                .block
                .attribute("secret")
                .unwrap()
                .sensitive
        );
    }

    #[test]
    fn renew_sees_the_lease_and_asks_again_only_when_it_says_so() {
        let h = Harness::new(Tokens::default());
        let opened = h.open("t_token", json!({"name": "db", "ttl": 5})).unwrap();
        let once = h.renew("t_token", &opened).unwrap();
        assert!(once.renew_at.is_some());
        let twice = h.renew("t_token", &once).unwrap();
        assert_eq!(twice.renew_at, None, "the second renewal asked for no more");
        assert_eq!(Lease::decode(twice.private.as_deref()).get::<i64>("renewals"), Some(2));
        assert!(h.close("t_token", &twice).unwrap().is_empty());
        assert_eq!(*h.server().provider().closed.borrow(), ["db"]);
    }

    #[test]
    fn validators_and_unknown_results_are_errors() {
        let h = Harness::new(Tokens::default());
        let invalid = h.open("t_token", json!({"name": "much-too-long"})).unwrap_err();
        assert_eq!(invalid.step, "validate");
        assert_eq!(invalid.diagnostics[0].attribute, AttributePath::attribute("name"));

        let unknown = h.open("t_broken", json!({"name": "x"})).unwrap_err();
        assert_eq!(unknown.step, "open");
        assert!(unknown.mentions("still unknown"), "{unknown}");

        let missing = h
            .server()
            .close_ephemeral_resource(CloseRequest { type_name: "t_nope".into(), private: None });
        assert!(missing[0].detail.contains("t_token, t_broken"), "{missing:?}");
    }

    #[test]
    fn an_empty_lease_is_no_private_data() {
        assert_eq!(Lease::default().encode(), None);
        let mut lease = Lease::decode(None);
        lease.set("k", &1).unwrap();
        let bytes = lease.encode().unwrap();
        assert_eq!(Lease::decode(Some(&bytes)).get::<i64>("k"), Some(1));
    }

    #[test]
    fn open_defers_only_when_terraform_allows() {
        let server = Server::new(Tokens::default());
        let open = |deferral_allowed| {
            let config = fit(&Broken.schema(), &json!({"name": "later"})).unwrap();
            let client =
                ClientCapabilities { deferral_allowed, write_only_attributes_allowed: true };
            server.open_ephemeral_resource(OpenRequest {
                type_name: "t_broken".into(),
                config,
                client,
            })
        };
        let allowed = open(true);
        assert_eq!(allowed.deferred, Some(DeferredReason::AbsentPrerequisite));
        assert!(allowed.diagnostics.is_empty(), "{:?}", allowed.diagnostics);
        let refused = open(false);
        assert_eq!(refused.deferred, None);
        assert!(
            refused.diagnostics[0].detail.contains("EphemeralResource::open of t_broken"),
            "{refused:?}"
        );
    }
}
