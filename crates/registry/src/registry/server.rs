//! The HTTPS server: TLS (rustls) over TCP, HTTP/1.1 and HTTP/2 (hyper), each request answered
//! by [`protocol::respond`] off the async threads (it reads files).
//!
//! It stays up against clients that hold what they can (docs/security.md, "The registry
//! server"):
//! * it holds at most [`connection_limit`] connections, two descriptors each (the socket and
//!   the file it may be streaming), below the process's descriptor limit. When all are taken,
//!   the connection that has moved no byte for longest and has no request in flight is closed
//!   for the new one; when every one is busy, new ones wait in the listen queue;
//! * a TLS handshake must end within [`HANDSHAKE_TIMEOUT`], a request's header arrive within
//!   [`HEADER_TIMEOUT`], and a connection that moves no byte either way for [`IDLE_TIMEOUT`]
//!   is closed: a client that stops reading a download too;
//! * files are streamed from disk in pieces of [`CHUNK_BYTES`], never read whole;
//! * running out of descriptors at `accept` (EMFILE, ENFILE) closes the most idle connection
//!   and tries again after a pause: it never stops the server.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt as _, Full, StreamBody};
use hyper::body::Frame;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio_rustls::TlsAcceptor;

use super::catalog::Catalog;
use super::protocol;

/// The most connections the server holds at once, whatever the descriptor limit.
pub const MAX_CONNECTIONS: usize = 512;
/// Descriptors kept for everything but connections (the runtime, the listener, stdio, the
/// catalog's reads).
const RESERVED_DESCRIPTORS: u64 = 64;
/// How long a client has to finish its TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client has to send a request's whole header (HTTP/1.1).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection that moves no byte either way for this long is closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Files are sent in pieces of this size.
pub const CHUNK_BYTES: usize = 64 << 10;
/// How long `accept` rests after running out of descriptors.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);
/// Requests one HTTP/2 connection may have in flight at once.
const MAX_STREAMS: u32 = 16;

/// The most connections this process can hold: two descriptors each, below its soft
/// `RLIMIT_NOFILE` less `RESERVED_DESCRIPTORS`, and at most [`MAX_CONNECTIONS`].
pub fn connection_limit() -> usize {
    let descriptors = descriptor_limit().unwrap_or(1024);
    let by_descriptors = descriptors.saturating_sub(RESERVED_DESCRIPTORS) / 2;
    usize::try_from(by_descriptors).unwrap_or(usize::MAX).clamp(1, MAX_CONNECTIONS)
}

#[cfg(unix)]
#[allow(clippy::useless_conversion)] // rlim_t is narrower than u64 on some targets
fn descriptor_limit() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes the struct it is handed, which lives on this stack.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    read.then(|| u64::try_from(limit.rlim_cur).unwrap_or(u64::MAX))
}

#[cfg(not(unix))]
fn descriptor_limit() -> Option<u64> {
    None
}

/// Serves `catalog` on `listener` until the task is dropped.
pub async fn serve(
    listener: TcpListener,
    tls: Arc<rustls::ServerConfig>,
    catalog: Arc<Catalog>,
) -> io::Result<()> {
    let acceptor = TlsAcceptor::from(tls);
    let limit = connection_limit();
    let connections = Arc::new(Connections::new(limit));
    let mut out_of_descriptors_said = false;
    loop {
        let permit = connections.slot().await;
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            Err(e) => {
                if out_of_descriptors(&e) {
                    if !out_of_descriptors_said {
                        eprintln!(
                            "The registry ran out of file descriptors ({e}); it closes idle \
                             connections and goes on. Raise the limit (ulimit -n) to hold more."
                        );
                        out_of_descriptors_said = true;
                    }
                    connections.close_most_idle();
                } else {
                    eprintln!("accepting a connection failed: {e}");
                }
                drop(permit);
                tokio::time::sleep(ACCEPT_PAUSE).await;
                continue;
            }
        };
        let connection = connections.add();
        let acceptor = acceptor.clone();
        let catalog = Arc::clone(&catalog);
        let connections = Arc::clone(&connections);
        tokio::spawn(async move {
            tokio::select! {
                () = serve_connection(tcp, acceptor, catalog, Arc::clone(&connection)) => {}
                () = connection.closing.notified() => {}
            }
            connections.remove(connection.id);
            drop(permit);
        });
    }
}

fn out_of_descriptors(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM))
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// The connections being served, and the slots they take.
struct Connections {
    slots: Arc<Semaphore>,
    open: Mutex<HashMap<u64, Arc<Connection>>>,
    next_id: AtomicU64,
}

/// One connection: when it last moved a byte, how many requests it has in flight, and the
/// signal that closes it.
struct Connection {
    id: u64,
    /// Milliseconds from `started` to its last byte read or written.
    last_progress: AtomicU64,
    in_flight: AtomicUsize,
    closing: Notify,
    started: Instant,
}

impl Connection {
    fn progressed(&self) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_progress.store(now, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_progress.load(Ordering::Relaxed));
        self.started.elapsed().saturating_sub(last)
    }

    /// Returns once the connection has moved no byte for [`IDLE_TIMEOUT`].
    async fn stalled(&self) {
        loop {
            let idle = self.idle_for();
            if idle >= IDLE_TIMEOUT {
                return;
            }
            tokio::time::sleep(IDLE_TIMEOUT - idle).await;
        }
    }
}

/// Counts a request in flight on its connection until dropped.
struct InFlight(Arc<Connection>);

impl InFlight {
    fn new(connection: &Arc<Connection>) -> Self {
        connection.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(Arc::clone(connection))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Connections {
    fn new(limit: usize) -> Self {
        Connections {
            slots: Arc::new(Semaphore::new(limit)),
            open: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(0),
        }
    }

    fn open(&self) -> MutexGuard<'_, HashMap<u64, Arc<Connection>>> {
        self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A slot for the next connection: a free one, else the most idle connection's once
    /// it is closed, else the first a busy connection gives back.
    async fn slot(&self) -> OwnedSemaphorePermit {
        if let Ok(permit) = Arc::clone(&self.slots).try_acquire_owned() {
            return permit;
        }
        self.close_most_idle();
        loop {
            // The semaphore is never closed.
            if let Ok(permit) = Arc::clone(&self.slots).acquire_owned().await {
                return permit;
            }
        }
    }

    fn add(&self) -> Arc<Connection> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let connection = Arc::new(Connection {
            id,
            last_progress: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            closing: Notify::new(),
            started: Instant::now(),
        });
        self.open().insert(id, Arc::clone(&connection));
        connection
    }

    fn remove(&self, id: u64) {
        self.open().remove(&id);
    }

    /// Closes the connection with no request in flight that has moved no byte for longest.
    fn close_most_idle(&self) {
        let mut open = self.open();
        let most_idle = open
            .values()
            .filter(|c| c.in_flight.load(Ordering::Relaxed) == 0)
            .max_by_key(|c| c.idle_for())
            .map(|c| c.id);
        if let Some(connection) = most_idle.and_then(|id| open.remove(&id)) {
            connection.closing.notify_one();
        }
    }
}

async fn serve_connection(
    tcp: TcpStream,
    acceptor: TlsAcceptor,
    catalog: Arc<Catalog>,
    connection: Arc<Connection>,
) {
    let watched = Watched { inner: tcp, connection: Arc::clone(&connection) };
    // A client that fails the handshake (e.g. does not trust the CA) is its own problem.
    let Ok(Ok(stream)) = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(watched)).await
    else {
        return;
    };
    let service = {
        let connection = Arc::clone(&connection);
        hyper::service::service_fn(move |request| {
            let catalog = Arc::clone(&catalog);
            let in_flight = InFlight::new(&connection);
            async move { Ok::<_, Infallible>(answer(catalog, request, in_flight).await) }
        })
    };
    let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_TIMEOUT);
    builder.http2().timer(TokioTimer::new()).max_concurrent_streams(MAX_STREAMS);
    tokio::select! {
        _ = builder.serve_connection(TokioIo::new(stream), service) => {}
        () = connection.stalled() => {}
    }
}

/// A stream that notes on its connection every time a byte moves.
struct Watched {
    inner: TcpStream,
    connection: Arc<Connection>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.connection.progressed();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.connection.progressed();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

type Body = UnsyncBoxBody<Bytes, io::Error>;

fn bytes_body(bytes: Vec<u8>) -> Body {
    Full::new(Bytes::from(bytes)).map_err(|never: Infallible| match never {}).boxed_unsync()
}

/// The file in pieces of [`CHUNK_BYTES`]; the request stays in flight until it is sent.
fn file_body(file: tokio::fs::File, in_flight: InFlight) -> Body {
    let chunks = futures::stream::unfold((Some(file), in_flight), |(file, in_flight)| async move {
        let mut file = file?;
        let mut chunk = vec![0; CHUNK_BYTES];
        match file.read(&mut chunk).await {
            Ok(0) => None,
            Ok(n) => {
                chunk.truncate(n);
                Some((Ok(Frame::data(Bytes::from(chunk))), (Some(file), in_flight)))
            }
            Err(e) => Some((Err(e), (None, in_flight))),
        }
    });
    StreamBody::new(chunks).boxed_unsync()
}

async fn answer(
    catalog: Arc<Catalog>,
    request: hyper::Request<hyper::body::Incoming>,
    in_flight: InFlight,
) -> hyper::Response<Body> {
    let method = request.method().as_str().to_owned();
    let path = request.uri().path().to_owned();
    // HTTP/2 carries the host in the URI's authority, HTTP/1.1 in the Host header.
    let host =
        request.uri().authority().map(|a| a.as_str().to_owned()).or_else(|| {
            request.headers().get(http::header::HOST)?.to_str().ok().map(str::to_owned)
        });
    let reply = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || {
            protocol::respond(&catalog, &method, &path, host.as_deref())
        })
        .await
        .unwrap_or_else(|_| internal_error())
    };
    let protocol::Reply { status, content_type, body, file } = reply;
    let (status, content_type, body, length) = match file {
        None => (status, content_type, bytes_body(body), None),
        Some(file) => match tokio::fs::File::open(&file).await {
            Ok(opened) => {
                let length = opened.metadata().await.ok().map(|m| m.len());
                (status, content_type, file_body(opened, in_flight), length)
            }
            Err(_) => {
                let error = internal_error();
                (error.status, error.content_type, bytes_body(error.body), None)
            }
        },
    };
    eprintln!("{} {path} {status}", request.method());
    let mut response = hyper::Response::new(body);
    *response.status_mut() =
        http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static(content_type));
    if let Some(length) = length {
        headers.insert(http::header::CONTENT_LENGTH, length.into());
    }
    response
}

fn internal_error() -> protocol::Reply {
    protocol::Reply {
        status: 500,
        content_type: "text/plain; charset=utf-8",
        body: b"internal error\n".to_vec(),
        file: None,
    }
}
