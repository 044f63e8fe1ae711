//! What Terraform tells a plugin through its environment.

use std::path::PathBuf;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use super::PluginError;

/// The environment variable holding Terraform's magic cookie.
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";

/// The value Terraform puts in [`MAGIC_COOKIE_KEY`]. It is not a secret; it only
/// tells a plugin that it was started by Terraform rather than by hand.
pub const MAGIC_COOKIE_VALUE: &str =
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// The Terraform plugin protocol major versions this host speaks: tfplugin6, and
/// tfplugin5 for a Terraform that offers only that (see `server::Protocol5`).
pub const SUPPORTED_PROTOCOL_VERSIONS: &[u32] = &[5, 6];

/// A protocol version chosen by the user instead of negotiated, e.g. with
/// `terrarium serve --protocol 5`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForcedProtocol {
    /// The version to speak.
    pub version: u32,
    /// How it was asked for, as error messages name it (`--protocol 5`,
    /// `TERRARIUM_PROTOCOL=5`).
    pub origin: String,
}

const PROTOCOL_VERSIONS_KEY: &str = "PLUGIN_PROTOCOL_VERSIONS";
const CLIENT_CERT_KEY: &str = "PLUGIN_CLIENT_CERT";
const SOCKET_DIR_KEY: &str = "PLUGIN_UNIX_SOCKET_DIR";
const SOCKET_GROUP_KEY: &str = "PLUGIN_UNIX_SOCKET_GROUP";

/// Everything a plugin learns from Terraform's environment before serving.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginEnv {
    /// The negotiated Terraform plugin protocol major version (5 or 6).
    pub protocol_version: u32,
    /// Terraform's AutoMTLS client certificate(s) from `PLUGIN_CLIENT_CERT`.
    /// `Some` means serve mutual TLS and accept exactly these certificates;
    /// `None` means serve plaintext (and print no server certificate).
    pub client_certificates: Option<Vec<CertificateDer<'static>>>,
    /// Where to create the socket (`PLUGIN_UNIX_SOCKET_DIR`); the temp dir if unset.
    pub socket_dir: Option<PathBuf>,
    /// The group to give the socket (`PLUGIN_UNIX_SOCKET_GROUP`), a name or a gid.
    pub socket_group: Option<String>,
}

impl PluginEnv {
    /// Reads the process environment, speaking [`SUPPORTED_PROTOCOL_VERSIONS`].
    pub fn from_env() -> Result<PluginEnv, PluginError> {
        Self::from_env_forcing(None)
    }

    /// Like [`PluginEnv::from_env`], but speaks `forced` if given (and Terraform
    /// offers it) instead of negotiating.
    pub fn from_env_forcing(forced: Option<&ForcedProtocol>) -> Result<PluginEnv, PluginError> {
        Self::from_lookup(
            |key| std::env::var_os(key).map(|value| value.to_string_lossy().into_owned()),
            SUPPORTED_PROTOCOL_VERSIONS,
            forced,
        )
    }

    /// Reads the variables through `lookup` (so tests need not touch the process
    /// environment), choosing among the `supported` protocol versions (see
    /// [`choose_protocol`]).
    ///
    /// The cookie is checked first so that a person running the binary by hand
    /// gets the explanation, not a complaint about protocol versions.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
        supported: &[u32],
        forced: Option<&ForcedProtocol>,
    ) -> Result<PluginEnv, PluginError> {
        check_magic_cookie(lookup(MAGIC_COOKIE_KEY).as_deref())?;
        let protocol_version =
            choose_protocol(lookup(PROTOCOL_VERSIONS_KEY).as_deref(), supported, forced)?;
        // go-plugin treats an empty value like an absent one.
        let client_certificates = match lookup(CLIENT_CERT_KEY) {
            Some(pem) if !pem.is_empty() => Some(parse_client_certificates(&pem)?),
            _ => None,
        };
        let non_empty = |key: &str| lookup(key).filter(|value| !value.is_empty());
        Ok(PluginEnv {
            protocol_version,
            client_certificates,
            socket_dir: non_empty(SOCKET_DIR_KEY).map(PathBuf::from),
            socket_group: non_empty(SOCKET_GROUP_KEY),
        })
    }
}

/// Checks the value of [`MAGIC_COOKIE_KEY`].
pub fn check_magic_cookie(value: Option<&str>) -> Result<(), PluginError> {
    match value {
        Some(MAGIC_COOKIE_VALUE) => Ok(()),
        _ => Err(PluginError::NotLaunchedByTerraform),
    }
}

/// Picks the protocol version to speak: the highest one that Terraform offers
/// (`PLUGIN_PROTOCOL_VERSIONS`, comma-separated, in no particular order) and we
/// support.
///
/// go-plugin falls back to the plugin's lowest version when nothing matches and
/// lets the client fail later; we fail here instead, with a message that names
/// both sides. Entries that are not numbers are skipped, as go-plugin does.
pub fn negotiate_protocol(offered: Option<&str>, supported: &[u32]) -> Result<u32, PluginError> {
    let offered_text = offered.unwrap_or_default();
    offered_versions(offered_text).filter(|version| supported.contains(version)).max().ok_or_else(
        || PluginError::NoCommonProtocol {
            offered: offered_text.to_owned(),
            supported: supported.to_vec(),
        },
    )
}

/// The protocol version to speak: `forced` if given, which Terraform must offer
/// and we must support; otherwise [`negotiate_protocol`].
pub fn choose_protocol(
    offered: Option<&str>,
    supported: &[u32],
    forced: Option<&ForcedProtocol>,
) -> Result<u32, PluginError> {
    let Some(forced) = forced else {
        return negotiate_protocol(offered, supported);
    };
    let offered_text = offered.unwrap_or_default();
    if !supported.contains(&forced.version) {
        return Err(PluginError::UnsupportedForcedProtocol {
            version: forced.version,
            origin: forced.origin.clone(),
            supported: supported.to_vec(),
        });
    }
    if !offered_versions(offered_text).any(|version| version == forced.version) {
        return Err(PluginError::ForcedProtocolNotOffered {
            version: forced.version,
            origin: forced.origin.clone(),
            offered: offered_text.to_owned(),
        });
    }
    Ok(forced.version)
}

/// The numbers in `PLUGIN_PROTOCOL_VERSIONS`; other entries are skipped, as
/// go-plugin does.
fn offered_versions(offered: &str) -> impl Iterator<Item = u32> + '_ {
    offered.split(',').filter_map(|item| item.trim().parse::<u32>().ok())
}

/// Decodes the PEM certificate(s) of `PLUGIN_CLIENT_CERT`. Terraform sends one;
/// like go-plugin's certificate pool, every certificate present is accepted.
pub fn parse_client_certificates(pem: &str) -> Result<Vec<CertificateDer<'static>>, PluginError> {
    let certificates = CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| PluginError::InvalidClientCertificate { reason: error.to_string() })?;
    if certificates.is_empty() {
        return Err(PluginError::InvalidClientCertificate {
            reason: "no CERTIFICATE block found".to_owned(),
        });
    }
    Ok(certificates)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn lookup_in(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: HashMap<String, String> =
            vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |key| vars.get(key).cloned()
    }

    fn test_certificate_pem() -> String {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params.self_signed(&key).unwrap().pem()
    }

    #[test]
    fn cookie_must_be_present_and_exact() {
        assert!(check_magic_cookie(Some(MAGIC_COOKIE_VALUE)).is_ok());
        for bad in [
            None,
            Some(""),
            Some("d602bf8f"),
            Some(" d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"),
        ] {
            assert!(
                matches!(check_magic_cookie(bad), Err(PluginError::NotLaunchedByTerraform)),
                "{bad:?} accepted"
            );
        }
    }

    #[test]
    fn missing_cookie_explains_what_the_binary_is() {
        let error =
            PluginEnv::from_lookup(lookup_in(&[("PLUGIN_PROTOCOL_VERSIONS", "6")]), &[6], None)
                .unwrap_err();
        assert!(matches!(error, PluginError::NotLaunchedByTerraform));
        let text = error.to_string();
        assert!(text.contains("Terraform provider plugin"), "{text}");
        assert!(text.contains("terrarium install"), "{text}");
        assert!(text.contains("terrarium --help"), "{text}");
    }

    #[test]
    fn negotiation_takes_highest_common_version_in_any_order() {
        assert_eq!(negotiate_protocol(Some("5,6"), &[6]).unwrap(), 6);
        assert_eq!(negotiate_protocol(Some("6,5"), &[6]).unwrap(), 6);
        assert_eq!(negotiate_protocol(Some("6,5"), &[5, 6]).unwrap(), 6);
        assert_eq!(negotiate_protocol(Some("5"), &[5, 6]).unwrap(), 5);
        assert_eq!(negotiate_protocol(Some(" 5 , 6 "), &[6]).unwrap(), 6);
        assert_eq!(negotiate_protocol(Some("x,6,"), &[6]).unwrap(), 6);
    }

    #[test]
    fn negotiation_fails_clearly_without_a_common_version() {
        for offered in [Some("5"), Some(""), None, Some("7,four")] {
            let error = negotiate_protocol(offered, &[6]).unwrap_err();
            match &error {
                PluginError::NoCommonProtocol { offered: o, supported } => {
                    assert_eq!(o, offered.unwrap_or_default());
                    assert_eq!(supported, &[6]);
                }
                other => panic!("unexpected error {other:?}"),
            }
            assert!(error.to_string().contains("speaks only [6]"), "{error}");
        }
    }

    #[test]
    fn six_is_preferred_and_five_served_when_only_five_is_offered() {
        let supported = SUPPORTED_PROTOCOL_VERSIONS;
        for (offered, expected) in [("5,6", 6), ("6,5", 6), ("6", 6), ("5", 5), ("4,5", 5)] {
            assert_eq!(
                choose_protocol(Some(offered), supported, None).unwrap(),
                expected,
                "offered {offered}"
            );
        }
        let error = choose_protocol(Some("4"), supported, None).unwrap_err();
        assert!(matches!(error, PluginError::NoCommonProtocol { .. }), "{error:?}");
        assert!(error.to_string().contains("speaks only [5,6]"), "{error}");
    }

    fn forced(version: u32) -> ForcedProtocol {
        ForcedProtocol { version, origin: format!("TERRARIUM_PROTOCOL={version}") }
    }

    #[test]
    fn a_forced_version_wins_when_offered() {
        let supported = SUPPORTED_PROTOCOL_VERSIONS;
        assert_eq!(choose_protocol(Some("6,5"), supported, Some(&forced(5))).unwrap(), 5);
        assert_eq!(choose_protocol(Some("5,6"), supported, Some(&forced(6))).unwrap(), 6);
        assert_eq!(choose_protocol(Some("5"), supported, Some(&forced(5))).unwrap(), 5);
    }

    #[test]
    fn a_forced_version_not_offered_is_a_clear_error() {
        let error =
            choose_protocol(Some("5"), SUPPORTED_PROTOCOL_VERSIONS, Some(&forced(6))).unwrap_err();
        match &error {
            PluginError::ForcedProtocolNotOffered { version, origin, offered } => {
                assert_eq!(
                    (*version, origin.as_str(), offered.as_str()),
                    (6, "TERRARIUM_PROTOCOL=6", "5")
                );
            }
            other => panic!("unexpected error {other:?}"),
        }
        let text = error.to_string();
        assert!(text.contains("TERRARIUM_PROTOCOL=6 asks for plugin protocol 6"), "{text}");
        assert!(text.contains("offered only [5]"), "{text}");

        let error =
            choose_protocol(None, SUPPORTED_PROTOCOL_VERSIONS, Some(&forced(5))).unwrap_err();
        assert!(matches!(error, PluginError::ForcedProtocolNotOffered { .. }), "{error:?}");
    }

    #[test]
    fn a_forced_version_we_do_not_speak_is_a_clear_error() {
        let error = choose_protocol(Some("4,5,6"), SUPPORTED_PROTOCOL_VERSIONS, Some(&forced(4)))
            .unwrap_err();
        assert!(
            matches!(error, PluginError::UnsupportedForcedProtocol { version: 4, .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains("speaks only [5,6]"), "{error}");
    }

    #[test]
    fn the_environment_reader_applies_the_forced_version() {
        let env = PluginEnv::from_lookup(
            lookup_in(&[
                (MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE),
                ("PLUGIN_PROTOCOL_VERSIONS", "6,5"),
            ]),
            SUPPORTED_PROTOCOL_VERSIONS,
            Some(&forced(5)),
        )
        .unwrap();
        assert_eq!(env.protocol_version, 5);
    }

    #[test]
    fn plaintext_when_no_client_certificate() {
        let env = PluginEnv::from_lookup(
            lookup_in(&[
                (MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE),
                ("PLUGIN_PROTOCOL_VERSIONS", "5,6"),
                ("PLUGIN_CLIENT_CERT", ""),
            ]),
            &[6],
            None,
        )
        .unwrap();
        assert_eq!(
            env,
            PluginEnv {
                protocol_version: 6,
                client_certificates: None,
                socket_dir: None,
                socket_group: None,
            }
        );
    }

    #[test]
    fn reads_certificate_and_socket_settings() {
        let pem = test_certificate_pem();
        let env = PluginEnv::from_lookup(
            lookup_in(&[
                (MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE),
                ("PLUGIN_PROTOCOL_VERSIONS", "6"),
                ("PLUGIN_CLIENT_CERT", &pem),
                ("PLUGIN_UNIX_SOCKET_DIR", "/run/plugins"),
                ("PLUGIN_UNIX_SOCKET_GROUP", "terraform"),
            ]),
            &[6],
            None,
        )
        .unwrap();
        let certificates = env.client_certificates.unwrap();
        assert_eq!(certificates.len(), 1);
        assert_eq!(
            certificates[0].as_ref(),
            CertificateDer::from_pem_slice(pem.as_bytes()).unwrap().as_ref()
        );
        assert_eq!(env.socket_dir, Some(PathBuf::from("/run/plugins")));
        assert_eq!(env.socket_group.as_deref(), Some("terraform"));
    }

    #[test]
    fn malformed_client_certificate_is_an_error() {
        for pem in [
            "not a certificate",
            "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        ] {
            assert!(
                matches!(
                    parse_client_certificates(pem),
                    Err(PluginError::InvalidClientCertificate { .. })
                ),
                "{pem:?} accepted"
            );
        }
    }
}
