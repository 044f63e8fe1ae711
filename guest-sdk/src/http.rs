//! A small blocking HTTP client for providers, on top of `wasi:http`.
//!
//! Terrarium runs a provider deny-by-default: a request reaches the network only when the
//! user granted its origin (scheme, host and port) in the provider's grants file. A refused
//! request comes back as [`Error::Denied`], which converts into a diagnostic that names the
//! origin and the exact grant that would allow it, so `?` in a resource method is all an
//! author needs:
//!
//! ```ignore
//! use terrarium_sdk::http::Client;
//!
//! let response = Client::new().get("http://127.0.0.1:2379/version")?;
//! let version: serde_json::Value = response.json()?;
//! ```
//!
//! Once Terraform has asked the provider to stop (Ctrl-C), no new request is sent: it fails
//! with [`Error::Stopped`] (see [`crate::stop`]).
//!
//! Redirects are followed (up to [`Client::max_redirects`]) by sending a new request, which
//! the host checks against the grants like the first one.
//!
//! Outside a component (native unit tests) there is no `wasi:http`: every request fails with
//! [`Error::Unavailable`].

use std::fmt;
use std::time::Duration;

use crate::{Diagnostic, Diagnostics};

/// An HTTP method.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the HTTP method names say it all")]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Patch,
    Delete,
    Options,
    /// Any other method, by name.
    Other(String),
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Other(m) => m,
        })
    }
}

/// A request to send.
#[derive(Clone, Debug)]
pub struct Request {
    /// The method.
    pub method: Method,
    /// An absolute http:// or https:// URL.
    pub url: String,
    /// Header names and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body (empty for none).
    pub body: Vec<u8>,
}

impl Request {
    /// A request without headers or body.
    pub fn new(method: Method, url: impl Into<String>) -> Request {
        Request { method, url: url.into(), headers: Vec::new(), body: Vec::new() }
    }

    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Request {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Request {
        self.body = body.into();
        self
    }

    /// Sets a JSON body and its content type.
    pub fn json<T: serde::Serialize + ?Sized>(self, value: &T) -> Result<Request, Error> {
        let body = serde_json::to_vec(value)
            .map_err(|e| Error::Body { url: self.url.clone(), message: e.to_string() })?;
        Ok(self.header("content-type", "application/json").body(body))
    }
}

/// A response, with its whole body read.
#[derive(Clone, Debug)]
pub struct Response {
    /// The URL that answered (after redirects).
    pub url: String,
    /// The HTTP status code.
    pub status: u16,
    /// Header names and values (values decoded as UTF-8, lossily).
    pub headers: Vec<(String, String)>,
    /// The whole body.
    pub body: Vec<u8>,
}

impl Response {
    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body parsed as JSON.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, Error> {
        serde_json::from_slice(&self.body).map_err(|e| Error::Body {
            url: self.url.clone(),
            message: format!("the response is not the JSON expected: {e}"),
        })
    }

    /// `Ok(self)` for a 2xx status, else [`Error::Status`] with the start of the body.
    pub fn error_for_status(self) -> Result<Response, Error> {
        if self.is_success() {
            return Ok(self);
        }
        let mut excerpt = self.text();
        if excerpt.len() > 512 {
            let mut end = 512;
            while !excerpt.is_char_boundary(end) {
                end -= 1;
            }
            excerpt.truncate(end);
        }
        Err(Error::Status { url: self.url, status: self.status, body: excerpt })
    }
}

/// Why a request failed. Every variant names the URL.
#[allow(
    missing_docs,
    reason = "the fields are named for what they hold; each variant is documented"
)]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The sandbox refused the request: its origin is not granted.
    #[error(
        "the request to {url} was refused by Terrarium's sandbox: the provider has no grant for {origin}"
    )]
    Denied { url: String, origin: String },
    /// The response body was larger than the `http_response` limit.
    #[error("the response from {url} is larger than the provider's HTTP response limit{}", limit.map(|l| format!(" ({l} bytes)")).unwrap_or_default())]
    TooLarge { url: String, limit: Option<u64> },
    /// The URL cannot be used.
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl { url: String, reason: String },
    /// Connecting, sending or receiving failed.
    #[error("the request to {url} failed: {message}")]
    Transport { url: String, message: String },
    /// A non-2xx status, from [`Response::error_for_status`].
    #[error("{url} answered with HTTP status {status}: {body}")]
    Status { url: String, status: u16, body: String },
    /// A body that could not be made or read as expected.
    #[error("{url}: {message}")]
    Body { url: String, message: String },
    /// Redirects did not end.
    #[error("more than {max} redirects starting at {url}")]
    TooManyRedirects { url: String, max: usize },
    /// Not running inside a component.
    #[error("HTTP is only available inside a Terrarium component (request to {url})")]
    Unavailable { url: String },
    /// Terraform asked the provider to stop (Ctrl-C) before the request was sent: no new
    /// request goes out after that (see [`crate::stop`]).
    #[error("the request to {url} was not sent: Terraform asked the provider to stop (Ctrl-C)")]
    Stopped { url: String },
}

impl Error {
    /// The diagnostic a provider returns for this error. A denial names the origin and the
    /// grant that would allow it.
    pub fn to_diagnostic(&self) -> Diagnostic {
        match self {
            Error::Denied { origin, .. } => Diagnostic::error(
                "HTTP request denied by the sandbox",
                format!("{self}. {}", denial_remedy(origin)),
            ),
            Error::TooLarge { .. } => Diagnostic::error(
                "HTTP response too large",
                format!(
                    "{self}. Raise the limit with `[limits] http_response = \"SIZE\"` in the provider's grants file, \
                     or reinstall with `terrarium install --http-response SIZE`."
                ),
            ),
            Error::Stopped { .. } => Diagnostic::error("Operation interrupted", self.to_string()),
            other => Diagnostic::error("HTTP request failed", other.to_string()),
        }
    }
}

/// What a person does to let the provider reach `origin`. Grants are the person's
/// (docs/security.md, "The trust model"): a provider installed with `terrarium install` is
/// reinstalled with the grant, and Terraform's lock file, which hashes the package, told; one
/// `terraform init` installed from a release runs with the grants the person approved, in a
/// file of their own. The Python and TypeScript SDKs say the same.
fn denial_remedy(origin: &str) -> String {
    format!(
        "Terrarium runs providers deny-by-default, and only you grant them more. If you installed \
         the provider with `terrarium install`, run that command again with `--force --allow-http \
         {origin}` added (the new install replaces its grants: keep its other grant flags), then \
         delete the provider's entry from .terraform.lock.hcl and run `terraform init` (the package \
         changed, so the checksum Terraform locked for it did too). If `terraform init` installed it \
         from a release, add \"{origin}\" to allow_http in the grants file that `terrarium grants \
         show PACKAGE_DIR` says the provider runs with; nothing else needs to change. Under \
         `terrarium dev`, add `--allow-http {origin}` to its command."
    )
}

impl From<Error> for Diagnostic {
    fn from(e: Error) -> Diagnostic {
        e.to_diagnostic()
    }
}

impl From<Error> for Diagnostics {
    fn from(e: Error) -> Diagnostics {
        let mut d = Diagnostics::new();
        d.push(e.to_diagnostic());
        d
    }
}

/// The parts of an absolute http(s) URL the request needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    /// Whether the scheme is https.
    pub https: bool,
    /// `host[:port]` as written (IPv6 in brackets).
    pub authority: String,
    /// The host, lower case, IPv6 without brackets.
    pub host: String,
    /// The port, the scheme's default when none is written.
    pub port: u16,
    /// Path and query, at least `/`.
    pub path_and_query: String,
}

impl Url {
    /// Parses an absolute http(s) URL.
    pub fn parse(url: &str) -> Result<Url, Error> {
        let invalid =
            |reason: &str| Error::InvalidUrl { url: url.to_string(), reason: reason.to_string() };
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| invalid("it is not absolute (scheme://host/...)"))?;
        let https = match scheme.to_ascii_lowercase().as_str() {
            "https" => true,
            "http" => false,
            _ => return Err(invalid("only http and https are supported")),
        };
        let rest = rest.split('#').next().unwrap_or_default();
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(end);
        if authority.is_empty() {
            return Err(invalid("it has no host"));
        }
        if authority.contains('@') {
            return Err(invalid(
                "credentials in URLs are not supported; send an Authorization header",
            ));
        }
        let (host, port) = if let Some(after) = authority.strip_prefix('[') {
            let (host, after) = after.split_once(']').ok_or_else(|| invalid("unclosed '['"))?;
            (host.to_string(), after.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_string(), Some(p)),
                None => (authority.to_string(), None),
            }
        };
        let default_port = if https { 443 } else { 80 };
        let port = match port {
            None | Some("") => default_port,
            Some(p) => p.parse().map_err(|_| invalid("the port is not a number 1-65535"))?,
        };
        let path_and_query = match path {
            "" => "/".to_string(),
            p if p.starts_with('?') => format!("/{p}"),
            p => p.to_string(),
        };
        Ok(Url {
            https,
            authority: authority.to_string(),
            host: host.to_ascii_lowercase(),
            port,
            path_and_query,
        })
    }

    /// The origin as a grant writes it: `scheme://host[:port]`, the port only when not the
    /// scheme's default.
    pub fn origin(&self) -> String {
        let scheme = if self.https { "https" } else { "http" };
        let host =
            if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
        if self.port == if self.https { 443 } else { 80 } {
            format!("{scheme}://{host}")
        } else {
            format!("{scheme}://{host}:{}", self.port)
        }
    }

    /// A redirect target, absolute or relative to this URL.
    pub fn join(&self, location: &str) -> Result<Url, Error> {
        if location.contains("://") {
            return Url::parse(location);
        }
        let scheme = if self.https { "https" } else { "http" };
        if let Some(rest) = location.strip_prefix("//") {
            return Url::parse(&format!("{scheme}://{rest}"));
        }
        let path = if location.starts_with('/') {
            location.to_string()
        } else {
            let base = self.path_and_query.split('?').next().unwrap_or("/");
            let dir = &base[..base.rfind('/').map_or(0, |i| i + 1)];
            format!("{dir}{location}")
        };
        Url::parse(&format!("{scheme}://{}{path}", self.authority))
    }
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}://{}{}",
            if self.https { "https" } else { "http" },
            self.authority,
            self.path_and_query
        )
    }
}

/// The client. Cheap to make; holds settings only.
#[derive(Clone, Debug)]
pub struct Client {
    /// Redirects followed before giving up (0: none are followed).
    pub max_redirects: usize,
    /// Time allowed to connect, and between bytes of the response.
    pub timeout: Option<Duration>,
}

impl Default for Client {
    fn default() -> Self {
        Client { max_redirects: 5, timeout: Some(Duration::from_secs(30)) }
    }
}

impl Client {
    /// A client with the default settings (5 redirects, 30 s timeouts).
    pub fn new() -> Client {
        Client::default()
    }

    /// GETs a URL.
    pub fn get(&self, url: &str) -> Result<Response, Error> {
        self.send(Request::new(Method::Get, url))
    }

    /// DELETEs a URL.
    pub fn delete(&self, url: &str) -> Result<Response, Error> {
        self.send(Request::new(Method::Delete, url))
    }

    /// POSTs a JSON body.
    pub fn post_json<T: serde::Serialize + ?Sized>(
        &self,
        url: &str,
        body: &T,
    ) -> Result<Response, Error> {
        self.send(Request::new(Method::Post, url).json(body)?)
    }

    /// Sends a request, following redirects; every hop is checked against the grants by the
    /// host.
    pub fn send(&self, request: Request) -> Result<Response, Error> {
        let mut request = request;
        let mut url = Url::parse(&request.url)?;
        let first = request.url.clone();
        for _ in 0..=self.max_redirects {
            if crate::stop::stopping() {
                return Err(Error::Stopped { url: request.url });
            }
            let response = self.send_once(&request, &url)?;
            let location = match response.status {
                301 | 302 | 303 | 307 | 308 => response.header("location").map(str::to_string),
                _ => None,
            };
            let Some(location) = location else { return Ok(response) };
            let next = url.join(&location)?;
            // 303 always, and 301/302 after a POST (as browsers do), continue with a GET.
            if response.status == 303
                || (matches!(response.status, 301 | 302) && request.method == Method::Post)
            {
                request.method = Method::Get;
                request.body.clear();
                request.headers.retain(|(n, _)| !n.eq_ignore_ascii_case("content-type"));
            }
            // Credentials are for the origin they were given to.
            if next.origin() != url.origin() {
                request.headers.retain(|(n, _)| !n.eq_ignore_ascii_case("authorization"));
            }
            request.url = next.to_string();
            url = next;
        }
        Err(Error::TooManyRedirects { url: first, max: self.max_redirects })
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn send_once(&self, request: &Request, _url: &Url) -> Result<Response, Error> {
        Err(Error::Unavailable { url: request.url.clone() })
    }

    #[cfg(target_arch = "wasm32")]
    fn send_once(&self, request: &Request, url: &Url) -> Result<Response, Error> {
        wasi_http::send(self, request, url)
    }
}

#[cfg(target_arch = "wasm32")]
mod wasi_http {
    use wasip2::http::outgoing_handler;
    use wasip2::http::types::{
        ErrorCode, Fields, IncomingBody, Method as WasiMethod, OutgoingBody, OutgoingRequest,
        RequestOptions, Scheme,
    };
    use wasip2::io::streams::StreamError;

    use super::{Client, Error, Method, Request, Response, Url};

    /// Bodies are written in chunks the host accepts in one write.
    const WRITE_CHUNK: usize = 4096;

    fn transport(url: &Url, message: impl Into<String>) -> Error {
        Error::Transport { url: url.to_string(), message: message.into() }
    }

    fn from_code(url: &Url, code: ErrorCode) -> Error {
        match code {
            ErrorCode::HttpRequestDenied => {
                Error::Denied { url: url.to_string(), origin: url.origin() }
            }
            ErrorCode::HttpResponseBodySize(limit) => {
                Error::TooLarge { url: url.to_string(), limit }
            }
            other => transport(url, format!("{other:?}")),
        }
    }

    pub(super) fn send(client: &Client, request: &Request, url: &Url) -> Result<Response, Error> {
        let headers = Fields::new();
        for (name, value) in &request.headers {
            headers
                .append(name, value.as_bytes())
                .map_err(|e| transport(url, format!("header {name:?} is not allowed: {e:?}")))?;
        }
        let outgoing = OutgoingRequest::new(headers);
        let method = match &request.method {
            Method::Get => WasiMethod::Get,
            Method::Head => WasiMethod::Head,
            Method::Post => WasiMethod::Post,
            Method::Put => WasiMethod::Put,
            Method::Patch => WasiMethod::Patch,
            Method::Delete => WasiMethod::Delete,
            Method::Options => WasiMethod::Options,
            Method::Other(m) => WasiMethod::Other(m.clone()),
        };
        outgoing.set_method(&method).map_err(|()| transport(url, "invalid method"))?;
        let scheme = if url.https { Scheme::Https } else { Scheme::Http };
        outgoing.set_scheme(Some(&scheme)).map_err(|()| transport(url, "invalid scheme"))?;
        outgoing
            .set_authority(Some(&url.authority))
            .map_err(|()| transport(url, "invalid host"))?;
        outgoing
            .set_path_with_query(Some(&url.path_and_query))
            .map_err(|()| transport(url, "invalid path"))?;
        let body =
            outgoing.body().map_err(|()| transport(url, "the request body was already taken"))?;

        let options = RequestOptions::new();
        if let Some(timeout) = client.timeout {
            let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
            // Hosts may not support these options; the request still goes out without them.
            let _ = options.set_connect_timeout(Some(nanos));
            let _ = options.set_between_bytes_timeout(Some(nanos));
        }
        // Send first, then stream the body: the host consumes it as it goes. A request the
        // host refuses (an ungranted origin) closes the body stream at once; the refusal
        // itself arrives on the response future, so a body error is reported only when the
        // response does not say why.
        let future = outgoing_handler::handle(outgoing, Some(options))
            .map_err(|code| from_code(url, code))?;
        let mut send_error = None;
        if !request.body.is_empty() {
            match body.write() {
                Ok(stream) => {
                    for chunk in request.body.chunks(WRITE_CHUNK) {
                        if let Err(e) = stream.blocking_write_and_flush(chunk) {
                            send_error = Some(match e {
                                StreamError::LastOperationFailed(e) => {
                                    transport(url, e.to_debug_string())
                                }
                                StreamError::Closed => {
                                    transport(url, "the connection closed while sending the body")
                                }
                            });
                            break;
                        }
                    }
                }
                Err(()) => send_error = Some(transport(url, "cannot write the request body")),
            }
        }
        if send_error.is_none() {
            if let Err(code) = OutgoingBody::finish(body, None) {
                send_error = Some(from_code(url, code));
            }
        } else {
            drop(body);
        }

        future.subscribe().block();
        let response = match future.get() {
            Some(Ok(Err(code))) => return Err(from_code(url, code)),
            Some(Ok(Ok(response))) => match send_error {
                Some(e) => return Err(e),
                None => response,
            },
            Some(Err(())) | None => {
                return Err(send_error.unwrap_or_else(|| transport(url, "no response")));
            }
        };
        let status = response.status();
        let headers = response
            .headers()
            .entries()
            .into_iter()
            .map(|(name, value)| (name, String::from_utf8_lossy(&value).into_owned()))
            .collect();
        let incoming = response
            .consume()
            .map_err(|()| transport(url, "the response body was already taken"))?;
        let stream =
            incoming.stream().map_err(|()| transport(url, "cannot read the response body"))?;
        let mut body = Vec::new();
        loop {
            match stream.blocking_read(64 * 1024) {
                Ok(bytes) => body.extend_from_slice(&bytes),
                Err(StreamError::Closed) => break,
                Err(StreamError::LastOperationFailed(e)) => {
                    return Err(match wasip2::http::types::http_error_code(&e) {
                        Some(code) => from_code(url, code),
                        None => transport(url, e.to_debug_string()),
                    });
                }
            }
        }
        drop(stream);
        let _ = IncomingBody::finish(incoming);
        Ok(Response { url: url.to_string(), status, headers, body })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_into_origin_and_path() {
        let u = Url::parse("http://127.0.0.1:2379/v3/kv/range?x=1#frag").unwrap();
        assert_eq!((u.https, u.host.as_str(), u.port), (false, "127.0.0.1", 2379));
        assert_eq!(u.path_and_query, "/v3/kv/range?x=1");
        assert_eq!(u.origin(), "http://127.0.0.1:2379");
        let u = Url::parse("HTTPS://API.example.com").unwrap();
        assert_eq!(
            (u.origin(), u.path_and_query.as_str()),
            ("https://api.example.com".to_string(), "/")
        );
        let u = Url::parse("https://[::1]:8443?q").unwrap();
        assert_eq!(
            (u.origin(), u.path_and_query.as_str()),
            ("https://[::1]:8443".to_string(), "/?q")
        );
        for bad in
            ["ftp://x/", "no-scheme", "http:///path", "http://user:pw@host/", "http://h:99999/"]
        {
            assert!(Url::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn redirect_locations_resolve_against_the_request() {
        let base = Url::parse("http://a.example/v1/items/7?x").unwrap();
        assert_eq!(base.join("/other").unwrap().to_string(), "http://a.example/other");
        assert_eq!(base.join("8").unwrap().to_string(), "http://a.example/v1/items/8");
        assert_eq!(base.join("https://b.example/z").unwrap().origin(), "https://b.example");
        assert_eq!(base.join("//c.example/").unwrap().origin(), "http://c.example");
    }

    #[test]
    fn a_denial_names_the_origin_and_the_grant_that_allows_it() {
        let e = Error::Denied {
            url: "http://127.0.0.1:2379/v3/kv/put".into(),
            origin: "http://127.0.0.1:2379".into(),
        };
        let d = e.to_diagnostic();
        assert_eq!(d.summary, "HTTP request denied by the sandbox");
        // What works: reinstalling changes the package, so the lock entry must go too.
        for said in [
            "again with `--force --allow-http http://127.0.0.1:2379` added",
            "delete the provider's entry from .terraform.lock.hcl and run `terraform init`",
            "add \"http://127.0.0.1:2379\" to allow_http in the grants file that `terrarium grants show",
        ] {
            assert!(d.detail.contains(said), "{said:?} not in {}", d.detail);
        }
    }

    #[test]
    fn no_request_is_sent_once_terraform_asked_to_stop() {
        crate::testing::set_stopping(true);
        let e = Client::new().get("http://127.0.0.1:9/").unwrap_err();
        crate::testing::set_stopping(false);
        assert!(matches!(e, Error::Stopped { .. }), "{e:?}");
        assert_eq!(e.to_diagnostic().summary, "Operation interrupted");
    }

    #[test]
    fn outside_a_component_requests_are_unavailable() {
        let e = Client::new().get("http://127.0.0.1:9/").unwrap_err();
        assert!(matches!(e, Error::Unavailable { .. }), "{e:?}");
    }
}
