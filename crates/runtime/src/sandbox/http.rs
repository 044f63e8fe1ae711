//! Outbound HTTP (`wasi:http/outgoing-handler`) held to the HTTP grants.
//!
//! Every request the guest sends passes [`HttpPolicy::send_request`], which checks its
//! scheme, host and port against the grants before anything touches the network. `wasi:http`
//! never follows redirects itself: a client that follows one sends a new request, which is
//! checked like the first, so a granted host cannot redirect the provider anywhere else.
//! A refused request fails with `error-code::http-request-denied`; the SDK turns that into a
//! diagnostic naming the origin and the grant that would allow it (the guest knows the URL it
//! asked for, the error code cannot carry text).
//!
//! At most [`MAX_OPEN_REQUESTS`] requests are open at once in one provider process (each
//! holds a connection, i.e. a file descriptor, until its response is read or dropped); beyond
//! that a request fails with `error-code::connection-limit-reached`.
//!
//! Response bodies are cut off at the `http_response` limit with
//! `error-code::http-response-body-size`, so a hostile or broken server cannot make the host
//! buffer without bound on the guest's behalf.

use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use wasmtime_wasi_http::{Error, RequestOptions, WasiHttpHooks};

use super::grants::{HttpGrant, HttpScheme};

type WasiBody = http_body_util::combinators::UnsyncBoxBody<Bytes, Error>;
type IoFuture = Box<dyn Future<Output = Result<(), Error>> + Send>;
type SendFuture =
    Box<dyn Future<Output = Result<(http::Response<WasiBody>, IoFuture), Error>> + Send>;

/// Outgoing HTTP requests one provider process keeps open at once, over all its instances.
pub const MAX_OPEN_REQUESTS: usize = 256;

/// The permits for [`MAX_OPEN_REQUESTS`]: one process, one count.
fn open_requests() -> Arc<tokio::sync::Semaphore> {
    static OPEN: OnceLock<Arc<tokio::sync::Semaphore>> = OnceLock::new();
    OPEN.get_or_init(|| Arc::new(tokio::sync::Semaphore::new(MAX_OPEN_REQUESTS))).clone()
}

/// The HTTP side of one instance's sandbox.
#[derive(Clone, Debug)]
pub struct HttpPolicy {
    allowed: Arc<[HttpGrant]>,
    max_response_bytes: u64,
    /// The log module refusals are reported under (the provider's).
    log_module: Arc<str>,
}

impl HttpPolicy {
    pub fn new(allowed: &[HttpGrant], max_response_bytes: u64, log_module: &str) -> HttpPolicy {
        HttpPolicy { allowed: allowed.into(), max_response_bytes, log_module: log_module.into() }
    }

    /// The origin of a request, if it names one the grants can speak about.
    pub fn origin_of(uri: &http::Uri) -> Option<(HttpScheme, String, u16)> {
        let scheme = match uri.scheme_str()? {
            s if s.eq_ignore_ascii_case("https") => HttpScheme::Https,
            s if s.eq_ignore_ascii_case("http") => HttpScheme::Http,
            _ => return None,
        };
        let host = uri.host()?.to_string();
        let port = uri.port_u16().unwrap_or(scheme.default_port());
        Some((scheme, host, port))
    }

    /// Whether a request to `uri` is granted.
    pub fn allows(&self, uri: &http::Uri) -> bool {
        match Self::origin_of(uri) {
            Some((scheme, host, port)) => {
                self.allowed.iter().any(|g| g.allows(scheme, &host, port))
            }
            None => false,
        }
    }
}

impl WasiHttpHooks for HttpPolicy {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: IoFuture,
    ) -> SendFuture {
        drop(fut);
        if !self.allows(request.uri()) {
            let uri = request.uri().clone();
            let grant = Self::origin_of(&uri).map(|(scheme, host, port)| {
                HttpGrant {
                    scheme,
                    host: super::grants::normalise_host(&host).to_ascii_lowercase(),
                    port,
                }
                .to_string()
            });
            crate::logging::emit(
                tracing::Level::WARN,
                &self.log_module,
                "sandbox: refused an HTTP request to an origin the grants do not list",
                &[
                    ("uri".to_string(), serde_json::Value::from(uri.to_string())),
                    (
                        "grant_needed".to_string(),
                        serde_json::Value::from(grant.unwrap_or_default()),
                    ),
                ],
            );
            return Box::new(async { Err(Error::HttpRequestDenied) });
        }
        let Ok(open) = open_requests().try_acquire_owned() else {
            crate::logging::emit(
                tracing::Level::WARN,
                &self.log_module,
                "sandbox: refused an HTTP request: too many requests are open at once",
                &[("limit".to_string(), serde_json::Value::from(MAX_OPEN_REQUESTS))],
            );
            return Box::new(async { Err(Error::ConnectionLimitReached) });
        };
        let limit = self.max_response_bytes;
        Box::new(async move {
            let (response, io) = wasmtime_wasi_http::default_send_request(request, options).await?;
            // The connection stays counted until its last byte is handled (or it is dropped).
            let io = async move {
                let _open = open;
                io.await
            };
            let declared = response
                .headers()
                .get(http::header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            if declared.is_some_and(|n| n > limit) {
                return Err(Error::HttpResponseBodySize(declared));
            }
            let response = response.map(|body| {
                LimitedBody { inner: body.boxed_unsync(), remaining: limit, limit }.boxed_unsync()
            });
            Ok((response, Box::new(io) as IoFuture))
        })
    }
}

/// A response body that fails once more than `limit` bytes have come through.
struct LimitedBody {
    inner: WasiBody,
    remaining: u64,
    limit: u64,
}

impl Body for LimitedBody {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    let len = data.len() as u64;
                    if len > this.remaining {
                        this.remaining = 0;
                        return Poll::Ready(Some(Err(Error::HttpResponseBodySize(Some(
                            this.limit,
                        )))));
                    }
                    this.remaining -= len;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(grants: &[&str]) -> HttpPolicy {
        let grants: Vec<HttpGrant> = grants.iter().map(|g| g.parse().unwrap()).collect();
        HttpPolicy::new(&grants, 1024, "provider.test")
    }

    #[test]
    fn scheme_host_and_port_must_all_match_a_grant() {
        let p = policy(&["http://127.0.0.1:2379", "api.example.com"]);
        let allows = |u: &str| p.allows(&u.parse::<http::Uri>().unwrap());
        assert!(allows("http://127.0.0.1:2379/v3/kv/range"));
        assert!(allows("https://api.example.com/x?y=1"));
        assert!(allows("https://API.example.com:443/"));
        assert!(!allows("https://127.0.0.1:2379/"), "scheme differs");
        assert!(!allows("http://127.0.0.1:2380/"), "port differs");
        assert!(!allows("http://localhost:2379/"), "a name is not its address");
        assert!(!allows("http://api.example.com/"), "plain HTTP was not granted");
        assert!(!allows("https://evil.api.example.com/"));
        assert!(!allows("https://api.example.com.evil.net/"));
        assert!(!allows("/relative"));
        assert!(!policy(&[]).allows(&"https://api.example.com/".parse().unwrap()));
    }

    #[tokio::test]
    async fn a_refused_request_never_leaves_the_host() {
        let mut p = policy(&["https://api.example.com"]);
        let body =
            http_body_util::Empty::<Bytes>::new().map_err(|never| match never {}).boxed_unsync();
        // Port 9 (discard) on loopback: if the policy let it through, the error would be a
        // connection error, not a denial.
        let request = http::Request::get("http://127.0.0.1:9/").body(body).unwrap();
        let outcome = Pin::from(p.send_request(request, None, Box::new(async { Ok(()) }))).await;
        assert!(matches!(outcome, Err(Error::HttpRequestDenied)), "{:?}", outcome.err());
    }

    #[tokio::test]
    async fn bodies_past_the_limit_fail() {
        let data = http_body_util::Full::new(Bytes::from(vec![0u8; 2048]))
            .map_err(|never| match never {})
            .boxed_unsync();
        let mut limited = LimitedBody { inner: data, remaining: 1024, limit: 1024 };
        let frame = limited.frame().await.expect("a frame");
        assert!(matches!(frame, Err(Error::HttpResponseBodySize(Some(1024)))));
    }
}
