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
use terrarium_model::{Diagnostic, Value};

use crate::diag::{Diagnostics, Result};
use crate::kind::{known_state, validate_config};
use crate::resource::PrivateState;
use crate::rpc::{ClientCapabilities, DeferredReason};
use crate::schema::Schema;
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
        let config = terrarium_framework::plan::fill_defaults(
            terrarium_framework::plan::Shape::of(&schema),
            request.config,
        );
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

/// What [`Harness::open`](crate::testing::Harness::open) produced: the result, and the
/// lease to renew and close.
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
