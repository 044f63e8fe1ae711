//! The HTTPS server: TLS (rustls) over TCP, HTTP/1.1 and HTTP/2 (hyper), each request answered
//! by [`protocol::respond`] off the async threads (it reads files).

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use super::catalog::Catalog;
use super::protocol;

/// Serves `catalog` on `listener` until the task is dropped.
pub async fn serve(
    listener: TcpListener,
    tls: Arc<rustls::ServerConfig>,
    catalog: Arc<Catalog>,
) -> std::io::Result<()> {
    let acceptor = TlsAcceptor::from(tls);
    loop {
        let (tcp, _) = listener.accept().await?;
        let acceptor = acceptor.clone();
        let catalog = Arc::clone(&catalog);
        tokio::spawn(async move {
            // A client that fails the handshake (e.g. does not trust the CA) is its own problem.
            let Ok(stream) = acceptor.accept(tcp).await else { return };
            let service = hyper::service::service_fn(move |request| {
                let catalog = Arc::clone(&catalog);
                async move { Ok::<_, Infallible>(answer(catalog, request).await) }
            });
            let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn answer(
    catalog: Arc<Catalog>,
    request: hyper::Request<hyper::body::Incoming>,
) -> hyper::Response<Full<Bytes>> {
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
        .unwrap_or_else(|_| protocol::Reply {
            status: 500,
            content_type: "text/plain; charset=utf-8",
            body: b"internal error\n".to_vec(),
        })
    };
    eprintln!("{} {path} {}", request.method(), reply.status);
    let mut response = hyper::Response::new(Full::new(Bytes::from(reply.body)));
    *response.status_mut() =
        http::StatusCode::from_u16(reply.status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    response
        .headers_mut()
        .insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static(reply.content_type));
    response
}
