//! Terraform's provider registry protocol and provider network mirror protocol, as pure
//! functions from a request path to a reply over a [`Catalog`].
//!
//! Registry protocol (what `terraform init` uses for `HOST/NAMESPACE/TYPE` when HOST is this
//! server):
//! * `GET /.well-known/terraform.json`: service discovery, `{"providers.v1": "/v1/providers/"}`.
//! * `GET /v1/providers/NAMESPACE/TYPE/versions`: signed versions, protocols, platforms.
//! * `GET /v1/providers/NAMESPACE/TYPE/VERSION/download/OS/ARCH`: the zip's URL and SHA-256,
//!   the `SHA256SUMS` and signature URLs, and the public key to verify with.
//!
//! Network mirror protocol (CLI config `network_mirror { url = "https://HOST/mirror/v1/" }`):
//! * `GET /mirror/v1/HOST/NAMESPACE/TYPE/index.json`: the versions.
//! * `GET /mirror/v1/HOST/NAMESPACE/TYPE/VERSION.json`: each platform's zip and `h1:` hash.
//!
//! Files are served from `/v1/files/HOST/NAMESPACE/TYPE/FILE` and, for the mirror, beside the
//! version document. The registry protocol has no host in its paths: a registry serves
//! `NAMESPACE/TYPE` from whichever `HOST` directory holds it, preferring the one named like
//! the host the request was sent to when several do.

use serde_json::json;

use super::catalog::{Catalog, ProviderDir};

/// An HTTP reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// When set, the body is this file, which the server streams from disk (a zip may be
    /// hundreds of megabytes: never read whole per request).
    pub file: Option<std::path::PathBuf>,
}

impl Reply {
    fn json(value: &serde_json::Value) -> Self {
        Self {
            status: 200,
            content_type: "application/json",
            body: format!("{value:#}\n").into_bytes(),
            file: None,
        }
    }

    /// The registry protocol's error shape, `{"errors": [...]}`.
    fn error(status: u16, message: String) -> Self {
        let body = format!("{:#}\n", json!({ "errors": [message] })).into_bytes();
        Self { status, content_type: "application/json", body, file: None }
    }

    fn not_found(what: String) -> Self {
        Self::error(404, what)
    }
}

/// Path of the registry protocol's providers service.
pub const PROVIDERS_V1: &str = "/v1/providers/";
/// Path prefix of the network mirror.
pub const MIRROR_V1: &str = "/mirror/v1/";
const FILES_V1: &str = "/v1/files/";

/// Answers one request. `host` is the request's host (`Host` header or HTTP/2 authority),
/// used only to choose between several `HOST` directories holding the same provider.
pub fn respond(catalog: &Catalog, method: &str, path: &str, host: Option<&str>) -> Reply {
    if method != "GET" && method != "HEAD" {
        return Reply::error(
            405,
            format!("{method} is not supported; this registry only serves GET"),
        );
    }
    let path = path.split_once('?').map_or(path, |(path, _)| path);
    if path == "/.well-known/terraform.json" {
        return Reply::json(&json!({ "providers.v1": PROVIDERS_V1 }));
    }
    let Some(segments) = segments_after(path, PROVIDERS_V1)
        .map(|s| (Route::Registry, s))
        .or_else(|| segments_after(path, MIRROR_V1).map(|s| (Route::Mirror, s)))
        .or_else(|| segments_after(path, FILES_V1).map(|s| (Route::File, s)))
    else {
        return Reply::not_found(format!(
            "nothing at {path}; this registry serves {PROVIDERS_V1} and {MIRROR_V1}"
        ));
    };
    match segments {
        (Route::Registry, s) => match s.as_slice() {
            [namespace, type_name, "versions"] => {
                registry_versions(catalog, namespace, type_name, host)
            }
            [namespace, type_name, version, "download", os, arch] => registry_download(
                catalog,
                namespace,
                type_name,
                version,
                &format!("{os}_{arch}"),
                host,
            ),
            _ => Reply::not_found(format!("no such registry endpoint: {path}")),
        },
        (Route::Mirror, s) => match s.as_slice() {
            [hostname, namespace, type_name, "index.json"] => {
                mirror_index(catalog, hostname, namespace, type_name)
            }
            [hostname, namespace, type_name, document] if document.ends_with(".json") => {
                let version = document.trim_end_matches(".json");
                mirror_version(catalog, hostname, namespace, type_name, version)
            }
            [hostname, namespace, type_name, file] => {
                file_reply(catalog, hostname, namespace, type_name, file)
            }
            _ => Reply::not_found(format!("no such mirror endpoint: {path}")),
        },
        (Route::File, s) => match s.as_slice() {
            [hostname, namespace, type_name, file] => {
                file_reply(catalog, hostname, namespace, type_name, file)
            }
            _ => Reply::not_found(format!("no such file: {path}")),
        },
    }
}

enum Route {
    Registry,
    Mirror,
    File,
}

/// The path segments after `prefix`, refusing empty, hidden and escaping ones (`..`, `%2F`).
fn segments_after<'a>(path: &'a str, prefix: &str) -> Option<Vec<&'a str>> {
    let rest = path.strip_prefix(prefix)?;
    let segments: Vec<&str> = rest.split('/').collect();
    let safe = |s: &&str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
    };
    segments.iter().all(safe).then_some(segments)
}

/// The directory serving `NAMESPACE/TYPE` through the registry protocol.
fn registry_provider(
    catalog: &Catalog,
    namespace: &str,
    type_name: &str,
    host: Option<&str>,
) -> Result<ProviderDir, Reply> {
    let (namespace, type_name) = (namespace.to_ascii_lowercase(), type_name.to_ascii_lowercase());
    let candidates: Vec<ProviderDir> = catalog
        .providers()
        .into_iter()
        .filter(|p| p.namespace == namespace && p.type_name == type_name)
        .collect();
    let host = host.map(str::to_ascii_lowercase);
    if let Some(named) = candidates.iter().find(|p| Some(&p.host) == host.as_ref()) {
        return Ok(named.clone());
    }
    match candidates.as_slice() {
        [only] => Ok(only.clone()),
        [] => Err(Reply::not_found(format!(
            "no provider {namespace}/{type_name} here; package one with `terrarium package \
             --source HOST/{namespace}/{type_name} --out {}`",
            catalog.root().display()
        ))),
        several => Err(Reply::not_found(format!(
            "{namespace}/{type_name} is packaged for several hosts ({}), none of them this \
             one; keep one, or package it for this host",
            several.iter().map(|p| p.host.as_str()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

fn registry_versions(
    catalog: &Catalog,
    namespace: &str,
    type_name: &str,
    host: Option<&str>,
) -> Reply {
    let provider = match registry_provider(catalog, namespace, type_name, host) {
        Ok(provider) => provider,
        Err(reply) => return reply,
    };
    let versions: Vec<serde_json::Value> = provider
        .versions()
        .into_iter()
        .filter_map(|(version, files)| {
            let signed = files.signed?;
            let platforms: Vec<serde_json::Value> = files
                .zips
                .values()
                .filter(|(_, name)| signed.shasums.contains_key(name))
                .map(|(platform, _)| json!({ "os": platform.os, "arch": platform.arch }))
                .collect();
            Some(json!({ "version": version, "protocols": signed.protocols, "platforms": platforms }))
        })
        .collect();
    Reply::json(&json!({ "versions": versions }))
}

fn registry_download(
    catalog: &Catalog,
    namespace: &str,
    type_name: &str,
    version: &str,
    platform: &str,
    host: Option<&str>,
) -> Reply {
    let provider = match registry_provider(catalog, namespace, type_name, host) {
        Ok(provider) => provider,
        Err(reply) => return reply,
    };
    let missing = || {
        Reply::not_found(format!(
            "no signed package of {namespace}/{type_name} {version} for {platform}"
        ))
    };
    let versions = provider.versions();
    let Some(files) = versions.get(version) else { return missing() };
    let (Some(signed), Some((platform, zip))) = (&files.signed, files.zips.get(platform)) else {
        return missing();
    };
    let Some(shasum) = signed.shasums.get(zip) else { return missing() };
    let files_url =
        format!("{FILES_V1}{}/{}/{}/", provider.host, provider.namespace, provider.type_name);
    Reply::json(&json!({
        "protocols": signed.protocols,
        "os": platform.os,
        "arch": platform.arch,
        "filename": zip,
        "download_url": format!("{files_url}{zip}"),
        "shasums_url": format!("{files_url}{}", signed.shasums_file),
        "shasums_signature_url": format!("{files_url}{}", signed.signature_file),
        "shasum": shasum,
        "signing_keys": {
            "gpg_public_keys": [{ "key_id": signed.key_id, "ascii_armor": signed.public_key }],
        },
    }))
}

fn mirror_provider(
    catalog: &Catalog,
    hostname: &str,
    namespace: &str,
    type_name: &str,
) -> Result<ProviderDir, Reply> {
    catalog.provider(hostname, namespace, type_name).ok_or_else(|| {
        Reply::not_found(format!("no provider {hostname}/{namespace}/{type_name} in this mirror"))
    })
}

fn mirror_index(catalog: &Catalog, hostname: &str, namespace: &str, type_name: &str) -> Reply {
    let provider = match mirror_provider(catalog, hostname, namespace, type_name) {
        Ok(provider) => provider,
        Err(reply) => return reply,
    };
    let versions: serde_json::Map<String, serde_json::Value> =
        provider.versions().into_keys().map(|version| (version, json!({}))).collect();
    Reply::json(&json!({ "versions": versions }))
}

fn mirror_version(
    catalog: &Catalog,
    hostname: &str,
    namespace: &str,
    type_name: &str,
    version: &str,
) -> Reply {
    let provider = match mirror_provider(catalog, hostname, namespace, type_name) {
        Ok(provider) => provider,
        Err(reply) => return reply,
    };
    let versions = provider.versions();
    let Some(files) = versions.get(version) else {
        return Reply::not_found(format!(
            "no version {version} of {hostname}/{namespace}/{type_name}"
        ));
    };
    let mut archives = serde_json::Map::new();
    for (platform, (_, zip)) in &files.zips {
        let Some(h1) = catalog.zip_h1(&provider.dir.join(zip)) else { continue };
        // Relative to this document's URL, as the protocol allows.
        archives.insert(platform.clone(), json!({ "url": zip, "hashes": [h1] }));
    }
    Reply::json(&json!({ "archives": archives }))
}

fn file_reply(
    catalog: &Catalog,
    hostname: &str,
    namespace: &str,
    type_name: &str,
    file: &str,
) -> Reply {
    let missing =
        || Reply::not_found(format!("no file {file} of {hostname}/{namespace}/{type_name}"));
    let Some(provider) = catalog.provider(hostname, namespace, type_name) else { return missing() };
    if !provider.serves(file) {
        return missing();
    }
    let path = provider.dir.join(file);
    if !path.is_file() {
        return missing();
    }
    Reply { status: 200, content_type: content_type(file), body: Vec::new(), file: Some(path) }
}

fn content_type(file: &str) -> &'static str {
    if file.ends_with(".zip") {
        "application/zip"
    } else if file.ends_with(".json") {
        "application/json"
    } else if file.ends_with(".sig") {
        "application/octet-stream"
    } else {
        "text/plain; charset=utf-8"
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::package::release::{PlatformHost, Release, ReleaseRequest, write_release};
    use crate::package::signing::SigningKey;
    use terrarium_install::Platform;

    fn json_of(reply: &Reply) -> serde_json::Value {
        assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.body));
        serde_json::from_slice(&reply.body).unwrap()
    }

    /// A release of example.com/acme/widgets 1.0.0 for linux_amd64 and linux_arm64 (the
    /// "executables" are stand-ins: serving never looks inside them).
    fn packaged(out: &Path) -> Release {
        let component = out.join("c.wasm");
        std::fs::write(&component, b"\0asm\x0d\x00\x01\x00rest").unwrap();
        let executable = out.join("exe");
        std::fs::write(&executable, b"\x7fELF").unwrap();
        let hosts = [
            PlatformHost {
                platform: Platform { os: "linux", arch: "amd64" },
                executable: executable.clone(),
            },
            PlatformHost { platform: Platform { os: "linux", arch: "arm64" }, executable },
        ];
        write_release(&ReleaseRequest {
            component: &component,
            source: &"example.com/acme/widgets".parse().unwrap(),
            version: &"1.0.0".parse().unwrap(),
            out,
            hosts: &hosts,
            grants: &Default::default(),
            signing_key: &SigningKey::generated_for_tests(),
            force: false,
        })
        .unwrap()
    }

    #[test]
    fn the_registry_protocol_serves_a_packaged_release() {
        let dir = tempfile::tempdir().unwrap();
        let release = packaged(dir.path());
        let catalog = Catalog::new(dir.path().to_owned());

        let versions =
            json_of(&respond(&catalog, "GET", "/v1/providers/acme/widgets/versions", None));
        assert_eq!(versions["versions"][0]["version"], "1.0.0");
        assert_eq!(versions["versions"][0]["protocols"], json!(["5.0", "6.0"]));
        assert_eq!(versions["versions"][0]["platforms"].as_array().unwrap().len(), 2);

        let download = json_of(&respond(
            &catalog,
            "GET",
            "/v1/providers/acme/widgets/1.0.0/download/linux/arm64",
            Some("localhost:8443"),
        ));
        assert_eq!(download["filename"], "terraform-provider-widgets_1.0.0_linux_arm64.zip");
        let arm64 = &release.platforms[1];
        assert_eq!(format!("zh:{}", download["shasum"].as_str().unwrap()), arm64.zh);
        assert_eq!(
            download["signing_keys"]["gpg_public_keys"][0]["key_id"],
            release.key_id.as_str()
        );
        let zip = respond(&catalog, "GET", download["download_url"].as_str().unwrap(), None);
        assert_eq!(zip.status, 200);
        let zip = std::fs::read(zip.file.unwrap()).unwrap();
        assert_eq!(crate::package::hashes::zip_hash(&zip), arm64.zh);
        for url in ["shasums_url", "shasums_signature_url"] {
            assert_eq!(respond(&catalog, "GET", download[url].as_str().unwrap(), None).status, 200);
        }
        let missing = respond(
            &catalog,
            "GET",
            "/v1/providers/acme/widgets/1.0.0/download/darwin/arm64",
            None,
        );
        assert_eq!(missing.status, 404);
        assert!(String::from_utf8_lossy(&missing.body).contains("no signed package"));

        // Anything in the directory that is not a release file stays private.
        std::fs::write(release.dir.join("notes.txt"), "private").unwrap();
        assert_eq!(
            respond(&catalog, "GET", "/v1/files/example.com/acme/widgets/notes.txt", None).status,
            404
        );
    }

    #[test]
    fn the_network_mirror_lists_versions_and_h1_hashes() {
        let dir = tempfile::tempdir().unwrap();
        let release = packaged(dir.path());
        let catalog = Catalog::new(dir.path().to_owned());
        let index = json_of(&respond(
            &catalog,
            "GET",
            "/mirror/v1/example.com/acme/widgets/index.json",
            None,
        ));
        assert_eq!(index, json!({ "versions": { "1.0.0": {} } }));
        let version = json_of(&respond(
            &catalog,
            "GET",
            "/mirror/v1/example.com/acme/widgets/1.0.0.json",
            None,
        ));
        let amd64 = &version["archives"]["linux_amd64"];
        assert_eq!(amd64["url"], "terraform-provider-widgets_1.0.0_linux_amd64.zip");
        assert_eq!(amd64["hashes"], json!([release.platforms[0].h1]));
        let zip = respond(
            &catalog,
            "GET",
            "/mirror/v1/example.com/acme/widgets/terraform-provider-widgets_1.0.0_linux_amd64.zip",
            None,
        );
        let zip = std::fs::read(zip.file.unwrap()).unwrap();
        assert_eq!(crate::package::hashes::zip_hash(&zip), release.platforms[0].zh);
        assert_eq!(
            respond(&catalog, "GET", "/mirror/v1/other.example/acme/widgets/index.json", None)
                .status,
            404
        );
    }

    #[test]
    fn discovery_names_the_providers_service() {
        let catalog = Catalog::new(std::env::temp_dir().join("terrarium-no-such-registry"));
        let reply = respond(&catalog, "GET", "/.well-known/terraform.json", None);
        assert_eq!(reply.status, 200);
        let body: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(body["providers.v1"], "/v1/providers/");
        assert_eq!(respond(&catalog, "POST", "/.well-known/terraform.json", None).status, 405);
    }

    #[test]
    fn paths_that_could_escape_the_directory_are_refused() {
        for path in [
            "/v1/files/h/n/t/../../../../etc/passwd",
            "/v1/files/h/n/t/.hidden",
            "/v1/files/h/n/t/a%2Fb",
            "/mirror/v1/h/n//index.json",
        ] {
            assert_eq!(
                segments_after(path, "/v1/files/").or(segments_after(path, MIRROR_V1)),
                None,
                "{path}"
            );
        }
        assert_eq!(
            segments_after("/v1/files/localhost:8443/n/t/f.zip", FILES_V1).unwrap().len(),
            4
        );
    }
}
