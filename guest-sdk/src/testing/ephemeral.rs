//! Ephemeral resources in unit tests: [`Harness::open`], [`Harness::renew`] and
//! [`Harness::close`].

use serde::de::DeserializeOwned;
use serde_json::Value as Json;
use terrarium_model::Diagnostic;

use super::{Failure, Harness, fit, split};
use crate::ephemeral::{CloseRequest, OpenRequest, Opened, RenewRequest};
use crate::provider::Provider;
use crate::rpc::ClientCapabilities;
use crate::server::with_ephemeral;
use crate::value::from_value;

impl Opened {
    /// The result read into the ephemeral resource's `Data` type.
    pub fn typed<T: DeserializeOwned>(&self) -> std::result::Result<T, Failure> {
        from_value(&self.result).map_err(|e| Failure {
            step: "typed",
            diagnostics: vec![e.to_diagnostic()],
            state: None,
        })
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
                .map_err(|d| Failure { step: "config", diagnostics: vec![d], state: None })?;
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
    use std::time::{Duration, SystemTime};

    use serde::{Deserialize, Serialize};
    use serde_json::json;

    use super::*;
    use crate::diag::{Diagnostics, Result};
    use crate::ephemeral::{AnyEphemeralResource, EphemeralResource, Lease};
    use crate::rpc::DeferredReason;
    use crate::server::Server;
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
