//! The registry's HTTPS identity: the author's certificate and key, or a local certificate
//! authority (kept in the user's data directory, so that it is trusted once) and a fresh
//! `localhost` certificate it signs at every start.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// Why the registry has no TLS identity.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {}: {cause}", path.display())]
    Read { path: PathBuf, cause: io::Error },

    #[error("{} holds no PEM certificate; pass the server certificate chain with --tls-cert", path.display())]
    NoCertificate { path: PathBuf },

    #[error("{} holds no PEM private key; pass the certificate's key with --tls-key", path.display())]
    NoKey { path: PathBuf },

    #[error("cannot write the local certificate authority into {}: {cause}", path.display())]
    Write { path: PathBuf, cause: io::Error },

    #[error("cannot make the local certificates: {0}")]
    Generate(#[from] rcgen::Error),

    #[error("the certificate and key do not make a TLS server: {0}")]
    Rustls(#[from] rustls::Error),

    #[error(
        "neither XDG_DATA_HOME nor HOME is set, so there is no place for the local certificate \
         authority; pass --tls-cert and --tls-key"
    )]
    NoCaPlace,
}

/// A server identity, and the CA file clients must trust when it is the local one.
pub struct ServerTls {
    pub config: Arc<ServerConfig>,
    pub ca_file: Option<PathBuf>,
}

/// The author's certificate chain and key, PEM files.
pub fn from_files(cert: &Path, key: &Path) -> Result<ServerTls, TlsError> {
    let read = |path: &Path| {
        fs::read(path).map_err(|cause| TlsError::Read { path: path.to_owned(), cause })
    };
    let cert_pem = read(cert)?;
    let chain: Vec<CertificateDer<'static>> = rustls_pemfile::certs(&mut cert_pem.as_slice())
        .collect::<Result<_, _>>()
        .map_err(|cause| TlsError::Read { path: cert.to_owned(), cause })?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate { path: cert.to_owned() });
    }
    let key_pem = read(key)?;
    let key_der = rustls_pemfile::private_key(&mut key_pem.as_slice())
        .map_err(|cause| TlsError::Read { path: key.to_owned(), cause })?
        .ok_or_else(|| TlsError::NoKey { path: key.to_owned() })?;
    Ok(ServerTls { config: server_config(chain, key_der)?, ca_file: None })
}

/// `$XDG_DATA_HOME/terrarium/registry-ca`, else `~/.local/share/terrarium/registry-ca`.
pub fn default_ca_dir() -> Result<PathBuf, TlsError> {
    let data_home = terrarium_install::user_files::data_home().ok_or(TlsError::NoCaPlace)?;
    Ok(data_home.join("terrarium").join("registry-ca"))
}

const CA_CERT_FILE: &str = "ca.pem";
const CA_KEY_FILE: &str = "ca-key.pem";

/// The local CA in `dir` (made on first use) and a new `localhost` certificate from it.
pub fn local_ca(dir: &Path) -> Result<ServerTls, TlsError> {
    let ca_cert = dir.join(CA_CERT_FILE);
    let ca_key = dir.join(CA_KEY_FILE);
    let write = |path: &Path| {
        let path = path.to_owned();
        move |cause| TlsError::Write { path, cause }
    };
    let ca_key_pair = match fs::read_to_string(&ca_key) {
        Ok(pem) if ca_cert.is_file() => rcgen::KeyPair::from_pem(&pem)?,
        _ => {
            let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)?;
            let certificate = ca_params().self_signed(&key)?;
            fs::create_dir_all(dir).map_err(write(dir))?;
            terrarium_install::user_files::write_private(&ca_key, key.serialize_pem().as_bytes())
                .map_err(write(&ca_key))?;
            fs::write(&ca_cert, certificate.pem()).map_err(write(&ca_cert))?;
            key
        }
    };
    // The same name and key as the saved CA certificate: what a client matches a leaf against.
    let issuer = rcgen::Issuer::new(ca_params(), ca_key_pair);
    let leaf_key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)?;
    let mut leaf = rcgen::CertificateParams::new(vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ])?;
    leaf.distinguished_name.push(rcgen::DnType::CommonName, "localhost");
    leaf.key_usages = vec![rcgen::KeyUsagePurpose::DigitalSignature];
    leaf.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    leaf.use_authority_key_identifier_extension = true;
    let leaf_cert = leaf.signed_by(&leaf_key, &issuer)?;
    let key_der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let config = server_config(vec![leaf_cert.der().clone()], key_der)?;
    Ok(ServerTls { config, ca_file: Some(ca_cert) })
}

fn ca_params() -> rcgen::CertificateParams {
    let mut params = rcgen::CertificateParams::default();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::CommonName, "Terrarium local registry CA");
    params.distinguished_name.push(rcgen::DnType::OrganizationName, "Terrarium");
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    params
}

fn server_config(
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<Arc<ServerConfig>, TlsError> {
    let mut config =
        ServerConfig::builder_with_provider(terrarium_tfplugin::plugin::tls::crypto_provider())
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])?
            .with_no_client_auth()
            .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_ca_is_made_once_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let first = local_ca(dir.path()).unwrap();
        let ca = fs::read(first.ca_file.as_ref().unwrap()).unwrap();
        let second = local_ca(dir.path()).unwrap();
        assert_eq!(fs::read(second.ca_file.unwrap()).unwrap(), ca, "the CA must not change");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = fs::metadata(dir.path().join(CA_KEY_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
