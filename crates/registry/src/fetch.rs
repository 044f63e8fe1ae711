//! The client side of a release: a zip `terrarium package` wrote, read from a file or fetched
//! through Terraform's provider registry protocol with its signature checked. `terrarium
//! install` takes the component out of it ([`ReleaseClient`] is its
//! [`Releases`](terrarium_install::Releases)).

use std::io::{Cursor, Read as _};
use std::sync::Arc;

use http_body_util::{BodyExt as _, Limited};
use pgp::composed::{Deserializable as _, DetachedSignature, SignedPublicKey};
use sha2::{Digest as _, Sha256};

use terrarium_install::{COMPONENT_FILE_NAME, Platform, ProviderSource, ProviderVersion, Release};
use terrarium_runtime::sandbox::GRANTS_FILE_NAME;

/// Reads release zips and fetches releases from registries, for `terrarium install`.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReleaseClient;

impl terrarium_install::Releases for ReleaseClient {
    fn read_zip(&self, bytes: &[u8], what: &str) -> anyhow::Result<Release> {
        Ok(read_release_zip(bytes, what)?)
    }

    fn fetch(
        &self,
        source: &ProviderSource,
        version: &ProviderVersion,
        platform: &Platform,
    ) -> anyhow::Result<Release> {
        Ok(fetch_release(source, version, platform)?)
    }
}

/// Why a release could not be fetched or read. Each message says what to check.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{0}")]
    Http(String),
    #[error(
        "the registry {host} answered {url} with something that is not a provider download \
         ({reason}): check the address and version"
    )]
    Protocol { host: String, url: String, reason: String },
    #[error(
        "the signature of {file} does not verify with the key the registry gave ({cause}): the \
         release was changed after it was signed, or the registry hands out the wrong key; \
         nothing was installed"
    )]
    Signature { file: String, cause: String },
    #[error(
        "{file} has SHA-256 {got}, but {listed_in} lists {expected}: the download was changed or \
         damaged; nothing was installed"
    )]
    Checksum { file: String, got: String, expected: String, listed_in: String },
    #[error("{what} is not a release zip of `terrarium package` ({reason})")]
    NotARelease { what: String, reason: String },
}

/// The component and request of a release zip.
pub fn read_release_zip(bytes: &[u8], what: &str) -> Result<Release, FetchError> {
    let not_a_release = |reason: String| FetchError::NotARelease { what: what.to_string(), reason };
    let mut archive =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| not_a_release(e.to_string()))?;
    let mut read = |name: &str| -> Result<Option<Vec<u8>>, FetchError> {
        let mut file = match archive.by_name(name) {
            Ok(file) => file,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(not_a_release(e.to_string())),
        };
        let mut out = Vec::new();
        file.read_to_end(&mut out).map_err(|e| not_a_release(e.to_string()))?;
        Ok(Some(out))
    };
    let component = read(COMPONENT_FILE_NAME)?
        .ok_or_else(|| not_a_release(format!("it has no {COMPONENT_FILE_NAME}")))?;
    let requested_grants =
        read(GRANTS_FILE_NAME)?.map(|g| String::from_utf8_lossy(&g).into_owned());
    Ok(Release { component, requested_grants, origin: what.to_string() })
}

/// Fetches `source` at `version` for `platform` through the registry protocol: service
/// discovery, the download document, `SHA256SUMS` and its signature (checked against the
/// registry's key, as Terraform checks it), and the zip (checked against both).
pub fn fetch_release(
    source: &ProviderSource,
    version: &ProviderVersion,
    platform: &Platform,
) -> Result<Release, FetchError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| FetchError::Http(format!("cannot start the HTTP client: {e}")))?;
    runtime.block_on(fetch(source, version, platform))
}

async fn fetch(
    source: &ProviderSource,
    version: &ProviderVersion,
    platform: &Platform,
) -> Result<Release, FetchError> {
    let client = Client::new()?;
    let host = &source.hostname;
    let base = format!("https://{host}/");
    let protocol = |url: &str, reason: String| FetchError::Protocol {
        host: host.clone(),
        url: url.to_string(),
        reason,
    };
    let discovery_url = format!("{base}.well-known/terraform.json");
    let discovery: serde_json::Value = client.get_json(&discovery_url).await?;
    let providers = discovery
        .get("providers.v1")
        .and_then(|v| v.as_str())
        .ok_or_else(|| protocol(&discovery_url, "no providers.v1 service".into()))?;
    let providers = join(&base, providers);
    let (os, arch) = platform.to_string().split_once('_').map_or_else(
        || (platform.to_string(), String::new()),
        |(o, a)| (o.to_string(), a.to_string()),
    );
    let download_url = format!(
        "{}{}/{}/{}/download/{os}/{arch}",
        if providers.ends_with('/') { providers.clone() } else { format!("{providers}/") },
        source.namespace,
        source.type_name,
        version.as_str()
    );
    let download: serde_json::Value = client.get_json(&download_url).await?;
    let field = |name: &str| -> Result<String, FetchError> {
        download
            .get(name)
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .ok_or_else(|| protocol(&download_url, format!("no {name}")))
    };
    let filename = field("filename")?;
    let shasum = field("shasum")?;
    let zip_url = join(&download_url, &field("download_url")?);
    let sums_url = join(&download_url, &field("shasums_url")?);
    let sig_url = join(&download_url, &field("shasums_signature_url")?);
    let keys: Vec<String> = download
        .pointer("/signing_keys/gpg_public_keys")
        .and_then(|k| k.as_array())
        .map(|keys| {
            keys.iter()
                .filter_map(|k| k.get("ascii_armor").and_then(|a| a.as_str()).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if keys.is_empty() {
        return Err(protocol(&download_url, "no signing key".into()));
    }

    let sums = client.get(&sums_url, 1 << 20).await?;
    let signature = client.get(&sig_url, 1 << 20).await?;
    let key_id = verify(&sums, &signature, &keys, &filename)?;
    let listed = String::from_utf8_lossy(&sums)
        .lines()
        .find_map(|line| {
            let (hash, name) = line.split_once("  ")?;
            (name.trim() == filename).then(|| hash.trim().to_lowercase())
        })
        .ok_or_else(|| protocol(&sums_url, format!("SHA256SUMS does not list {filename}")))?;
    if listed != shasum.to_lowercase() {
        return Err(FetchError::Checksum {
            file: filename,
            got: shasum,
            expected: listed,
            listed_in: "the signed SHA256SUMS".into(),
        });
    }
    let zip = client.get(&zip_url, 1 << 30).await?;
    let got = hex::encode(Sha256::digest(&zip));
    if got != listed {
        return Err(FetchError::Checksum {
            file: filename,
            got,
            expected: listed,
            listed_in: "the signed SHA256SUMS".into(),
        });
    }
    let mut release = read_release_zip(&zip, &filename)?;
    release.origin = format!("{filename} from {host}, signed with key ID {key_id}");
    Ok(release)
}

/// Checks the detached signature of `SHA256SUMS` against each key; the ID of the one that
/// verifies it.
fn verify(
    sums: &[u8],
    signature: &[u8],
    keys: &[String],
    filename: &str,
) -> Result<String, FetchError> {
    let fail = |cause: String| FetchError::Signature {
        file: format!("the SHA256SUMS of {filename}"),
        cause,
    };
    let signature =
        DetachedSignature::from_bytes(Cursor::new(signature)).map_err(|e| fail(e.to_string()))?;
    let mut last = "no key".to_string();
    for armored in keys {
        let key = match SignedPublicKey::from_armor_single(Cursor::new(armored.as_bytes())) {
            Ok((key, _)) => key,
            Err(e) => {
                last = e.to_string();
                continue;
            }
        };
        match signature.verify(&key, sums) {
            Ok(()) => {
                return Ok(public_key_id(armored).unwrap_or_else(|| "(unknown)".into()));
            }
            Err(e) => last = e.to_string(),
        }
    }
    Err(fail(last))
}

/// `reference` resolved against `base` (absolute URLs as they are, `/path` on base's origin).
fn join(base: &str, reference: &str) -> String {
    if reference.starts_with("https://") || reference.starts_with("http://") {
        return reference.to_string();
    }
    let origin_end = base.find("://").map_or(0, |i| i + 3);
    let origin = match base[origin_end..].find('/') {
        Some(i) => &base[..origin_end + i],
        None => base,
    };
    if reference.starts_with('/') {
        format!("{origin}{reference}")
    } else {
        let dir = base.rfind('/').map_or(base, |i| &base[..=i]);
        format!("{dir}{reference}")
    }
}

/// A small HTTPS client: TLS with the system's roots (or `SSL_CERT_FILE`), HTTP/1.1, a few
/// redirects, bodies bounded.
struct Client {
    tls: tokio_rustls::TlsConnector,
}

impl Client {
    fn new() -> Result<Client, FetchError> {
        let mut roots = rustls::RootCertStore::empty();
        let files: Vec<std::path::PathBuf> =
            std::env::var_os("SSL_CERT_FILE").map(|f| vec![f.into()]).unwrap_or_else(|| {
                [
                    "/etc/ssl/certs/ca-certificates.crt",
                    "/etc/pki/tls/certs/ca-bundle.crt",
                    "/etc/ssl/cert.pem",
                ]
                .iter()
                .map(std::path::PathBuf::from)
                .collect()
            });
        for file in &files {
            let Ok(pem) = std::fs::read(file) else { continue };
            for cert in rustls_pemfile::certs(&mut pem.as_slice()).flatten() {
                let _ = roots.add(cert);
            }
        }
        if roots.is_empty() {
            return Err(FetchError::Http(format!(
                "no trusted certificate authorities found (looked in {}); set SSL_CERT_FILE to a \
                 PEM bundle",
                files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
            )));
        }
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| FetchError::Http(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
        Ok(Client { tls: tokio_rustls::TlsConnector::from(Arc::new(config)) })
    }

    async fn get_json(&self, url: &str) -> Result<serde_json::Value, FetchError> {
        let body = self.get(url, 1 << 20).await?;
        serde_json::from_slice(&body)
            .map_err(|e| FetchError::Http(format!("{url} did not answer with JSON: {e}")))
    }

    /// The body of a GET of `url`, following up to 5 redirects, at most `limit` bytes.
    async fn get(&self, url: &str, limit: usize) -> Result<Vec<u8>, FetchError> {
        let mut url = url.to_string();
        for _ in 0..=5 {
            let (status, location, body) = self.get_once(&url, limit).await?;
            match (status, location) {
                (200, _) => return Ok(body),
                (301 | 302 | 303 | 307 | 308, Some(to)) => url = join(&url, &to),
                (status, _) => {
                    return Err(FetchError::Http(format!(
                        "GET {url} answered HTTP {status}: {}",
                        String::from_utf8_lossy(&body[..body.len().min(300)]).trim()
                    )));
                }
            }
        }
        Err(FetchError::Http(format!("GET {url}: too many redirects")))
    }

    async fn get_once(
        &self,
        url: &str,
        limit: usize,
    ) -> Result<(u16, Option<String>, Vec<u8>), FetchError> {
        let fail = |what: String| FetchError::Http(format!("GET {url}: {what}"));
        let uri: http::Uri = url.parse().map_err(|e| fail(format!("not a URL ({e})")))?;
        if uri.scheme_str() != Some("https") {
            return Err(fail("only https:// is fetched".into()));
        }
        let host = uri.host().ok_or_else(|| fail("no host".into()))?.to_string();
        let port = uri.port_u16().unwrap_or(443);
        let tcp = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            tokio::net::TcpStream::connect((host.as_str(), port)),
        )
        .await
        .map_err(|_| fail("connecting timed out".into()))?
        .map_err(|e| fail(e.to_string()))?;
        let name = rustls::pki_types::ServerName::try_from(host.clone())
            .map_err(|e| fail(e.to_string()))?;
        let tls = self.tls.connect(name, tcp).await.map_err(|e| fail(e.to_string()))?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
                .await
                .map_err(|e| fail(e.to_string()))?;
        tokio::spawn(connection);
        let authority = uri.authority().map(|a| a.to_string()).unwrap_or(host);
        let request = http::Request::get(uri.path_and_query().map_or("/", |p| p.as_str()))
            .header(http::header::HOST, authority)
            .header(http::header::USER_AGENT, concat!("terrarium/", env!("CARGO_PKG_VERSION")))
            .body(http_body_util::Empty::<bytes::Bytes>::new())
            .map_err(|e| fail(e.to_string()))?;
        let response =
            tokio::time::timeout(std::time::Duration::from_secs(300), sender.send_request(request))
                .await
                .map_err(|_| fail("timed out".into()))?
                .map_err(|e| fail(e.to_string()))?;
        let status = response.status().as_u16();
        let location = response
            .headers()
            .get(http::header::LOCATION)
            .and_then(|l| l.to_str().ok())
            .map(str::to_string);
        let body = Limited::new(response.into_body(), limit)
            .collect()
            .await
            .map_err(|e| fail(format!("reading the body: {e}")))?
            .to_bytes()
            .to_vec();
        Ok((status, location, body))
    }
}

/// The key ID of an ASCII-armored public key, or `None` when the text is no public key.
pub fn public_key_id(armored: &str) -> Option<String> {
    let (key, _) = SignedPublicKey::from_armor_single(Cursor::new(armored.as_bytes())).ok()?;
    use pgp::types::KeyDetails as _;
    Some(hex::encode_upper(key.legacy_key_id().as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_resolve_as_a_browser_resolves_them() {
        let base = "https://r.example:8443/v1/providers/acme/x/1.0.0/download/linux/amd64";
        assert_eq!(join(base, "https://cdn.example/z.zip"), "https://cdn.example/z.zip");
        assert_eq!(join(base, "/v1/files/z.zip"), "https://r.example:8443/v1/files/z.zip");
        assert_eq!(
            join(base, "z.zip"),
            "https://r.example:8443/v1/providers/acme/x/1.0.0/download/linux/z.zip"
        );
    }

    #[test]
    fn a_zip_without_a_component_is_not_a_release() {
        let err = read_release_zip(b"not a zip", "x.zip").unwrap_err().to_string();
        assert!(err.contains("x.zip is not a release zip"), "{err}");
    }
}
