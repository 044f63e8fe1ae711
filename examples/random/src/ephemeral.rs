//! `ephemeral "random_password"`: a password drawn afresh on every run and never stored.
//!
//! The resource `random_password` keeps its result in the state (sensitive, but there); the
//! ephemeral one lives only while Terraform runs, so it can go where nothing may be stored:
//! a write-only argument, a provider configuration.
//!
//! ```hcl
//! ephemeral "random_password" "db" {
//!   length  = 24
//!   special = false
//! }
//!
//! resource "files_file" "secret" {
//!   filename           = "/srv/app/db-password"
//!   content_wo         = ephemeral.random_password.db.result # write-only: never in state
//!   content_wo_version = 1                                   # bump to write a new one
//! }
//! ```
//!
//! It draws with the same rules and the same code as the resource (see [`crate::string`]),
//! without the minimums and keepers that only make sense for a stored value.
//!
//! With `lease_seconds`, the password is handed out on a lease, the way a secrets engine
//! (Vault's dynamic credentials, say) hands out short-lived ones: `open` asks Terraform to
//! renew it after that many seconds, and Terraform does so for as long as the run still uses
//! the password. Here renewing only logs ("random_password lease renewed") and asks again.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use terrarium_sdk::ephemeral::{EphemeralResource, Lease};
use terrarium_sdk::schema::Schema;
use terrarium_sdk::{Attr, Model, Result, Value, log};

use crate::read_partial;
use crate::string::{Rules, StringState, generate};

/// `ephemeral "random_password"`.
pub struct EphemeralPassword;

/// The configuration and the result. The classes have defaults, which the result shows
/// (`upper = true`) when the configuration leaves them out.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct EphemeralPasswordData {
    /// The length of the result, from 1 to 65536 characters.
    pub length: i64,
    /// Whether to use upper-case letters. Default true.
    #[tf(default = true)]
    pub upper: bool,
    /// Whether to use lower-case letters. Default true.
    #[tf(default = true)]
    pub lower: bool,
    /// Whether to use digits. Default true.
    #[tf(default = true)]
    pub numeric: bool,
    /// Whether to use special characters. Default true.
    #[tf(default = true)]
    pub special: bool,
    /// The special characters to use instead of !@#$%&*()-_=+[]{}<>:?
    pub override_special: Option<String>,
    /// Hand the password out on a lease of this many seconds, which Terraform renews while
    /// it still uses the password. Unset: no lease.
    #[tf(validate = at_least(1.0))]
    pub lease_seconds: Option<i64>,
    /// The generated password.
    #[tf(computed, sensitive)]
    pub result: Attr<String>,
}

impl EphemeralResource for EphemeralPassword {
    const TYPE_NAME: &'static str = "random_password";
    type Data = EphemeralPasswordData;

    fn schema(&self) -> Schema {
        EphemeralPasswordData::schema()
            .description("A random password that Terraform never stores.")
    }

    /// The resource's checks: an attribute this type lacks reads as null, its default.
    fn validate(&self, config: &Value) -> Result<()> {
        read_partial::<Rules>(config)?.check().map(|_| ())
    }

    fn open(
        &self,
        config: EphemeralPasswordData,
        lease: &mut Lease,
    ) -> Result<EphemeralPasswordData> {
        // Without a lease there is nothing to renew or revoke: a password that was only ever
        // in memory is gone when Terraform ends, so the lease stays empty.
        let result = generate(&config.as_string_state())?;
        if let Some(seconds) = config.lease_seconds {
            lease.set(LEASE_SECONDS, &seconds)?;
            lease.renew_after(lease_duration(seconds));
        }
        Ok(EphemeralPasswordData { result: result.into(), ..config })
    }

    fn renew(&self, lease: &mut Lease) -> Result<()> {
        let Some(seconds) = lease.get::<i64>(LEASE_SECONDS) else {
            return Ok(());
        };
        log::info!("random_password lease renewed", seconds = seconds);
        lease.renew_after(lease_duration(seconds));
        Ok(())
    }
}

/// Where the lease keeps its length.
const LEASE_SECONDS: &str = "lease_seconds";

fn lease_duration(seconds: i64) -> Duration {
    Duration::from_secs(seconds.max(1).unsigned_abs())
}

impl EphemeralPasswordData {
    /// The same draw as a `random_password` resource with these classes and no minimums.
    fn as_string_state(&self) -> StringState {
        StringState {
            id: Attr::Null,
            keepers: None,
            length: self.length,
            upper: self.upper,
            lower: self.lower,
            numeric: self.numeric,
            special: self.special,
            min_upper: 0,
            min_lower: 0,
            min_numeric: 0,
            min_special: 0,
            override_special: self.override_special.clone(),
            result: Attr::Null,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use terrarium_sdk::testing::Harness;

    use super::*;
    use crate::RandomProvider;

    #[test]
    fn each_open_draws_a_new_password_from_the_enabled_classes() {
        let h = Harness::new(RandomProvider);
        let config = json!({"length": 20, "special": false, "upper": false});
        let first: EphemeralPasswordData =
            h.open("random_password", config.clone()).unwrap().typed().unwrap();
        let second: EphemeralPasswordData =
            h.open("random_password", config).unwrap().typed().unwrap();
        let (Attr::Known(a), Attr::Known(b)) = (&first.result, &second.result) else {
            panic!("no result: {first:?}");
        };
        assert_eq!(a.chars().count(), 20);
        assert!(a.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()), "{a}");
        assert_ne!(a, b, "two opens, two passwords");
        assert!(first.lower && first.numeric, "the defaults are in the result");
    }

    #[test]
    fn the_result_is_sensitive_and_nothing_is_kept() {
        let h = Harness::new(RandomProvider);
        let opened =
            h.open("random_password", json!({"length": 8, "override_special": "_"})).unwrap();
        assert_eq!((opened.private.as_ref(), opened.renew_at), (None, None));
        let (schema, _) = h.server().get_schema();
        assert!(
            schema.ephemeral_resources["random_password"]
                .block
                .attribute("result")
                .unwrap()
                .sensitive
        );
    }

    #[test]
    fn a_leased_password_asks_to_be_renewed_and_each_renewal_asks_again() {
        let h = Harness::new(RandomProvider);
        let opened = h.open("random_password", json!({"length": 8, "lease_seconds": 60})).unwrap();
        let renew_at = opened.renew_at.expect("a lease asks for a renewal");
        assert!(renew_at > std::time::SystemTime::now());
        let renewed = h.renew("random_password", &opened).unwrap();
        assert!(renewed.renew_at.is_some(), "a renewal asks for the next one");
        assert!(h.open("random_password", json!({"length": 8, "lease_seconds": 0})).is_err());
    }

    #[test]
    fn the_resource_rules_apply() {
        let h = Harness::new(RandomProvider);
        let short = h.open("random_password", json!({"length": 0})).unwrap_err();
        assert_eq!(short.diagnostics[0].attribute.to_string(), "length");
        let nothing = json!({"length": 4, "upper": false, "lower": false, "numeric": false, "special": false});
        assert!(h.open("random_password", nothing).unwrap_err().mentions("Enable at least one"));
    }
}
