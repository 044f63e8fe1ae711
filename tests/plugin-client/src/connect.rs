//! Dialing a plugin as go-plugin's client does: its Unix socket, TLS with the client identity
//! and the printed server certificate, ALPN `h2`, server name `localhost`.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use hyper_util::rt::TokioIo;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme, SupportedProtocolVersion};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::UnixStream;
use tokio_rustls::TlsConnector;
use tonic::codegen::http::Uri;
use tonic::transport::{Channel, Endpoint};

use crate::{ClientError, ClientIdentity};

/// How the client decides that the server's certificate is the printed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// Exactly the printed certificate, with the handshake signatures checked against its key.
    /// Works for every plugin, including Go's, whose server certificate is a CA certificate
    /// (which a WebPKI verifier refuses as an end-entity certificate).
    Pinned,
    /// The printed certificate as the only root of a WebPKI verification (validity, name
    /// `localhost`): stricter, for testing that Terrarium's own certificate is well formed.
    Roots,
}

/// Go's client TLS configuration for a plugin: TLS `versions`, ALPN h2, the server trusted as
/// `trust` says, and `identity` presented as the client certificate (none: no client auth).
pub fn tls_config(
    server_certificate: &CertificateDer<'static>,
    identity: Option<&ClientIdentity>,
    trust: Trust,
    versions: &[&'static SupportedProtocolVersion],
) -> Result<Arc<rustls::ClientConfig>, ClientError> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(versions)?;
    let builder = match trust {
        Trust::Pinned => builder.dangerous().with_custom_certificate_verifier(Arc::new(Pinned {
            certificate: server_certificate.clone(),
            provider,
        })),
        Trust::Roots => {
            let mut roots = rustls::RootCertStore::empty();
            roots.add(server_certificate.clone())?;
            builder.with_root_certificates(roots)
        }
    };
    let mut config = match identity {
        Some(identity) => {
            builder.with_client_auth_cert(vec![identity.certificate().clone()], identity.key())?
        }
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(Arc::new(config))
}

/// Accepts exactly the certificate printed in the handshake line, as go-plugin's client does.
#[derive(Debug)]
struct Pinned {
    certificate: CertificateDer<'static>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.certificate.as_ref() {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General("not the certificate printed in the handshake".into()))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algorithms = &self.provider.signature_verification_algorithms;
        rustls::crypto::verify_tls12_signature(message, cert, dss, algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algorithms = &self.provider.signature_verification_algorithms;
        rustls::crypto::verify_tls13_signature(message, cert, dss, algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

/// Any byte stream a connector can hand to tonic.
pub trait Io: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// Dials the plugin's socket, with TLS when given a configuration (plaintext otherwise, as
/// for a reattached debug provider).
#[derive(Clone)]
pub struct PluginConnector {
    /// The socket from the handshake line.
    pub socket: PathBuf,
    /// The TLS client configuration, or none for plaintext.
    pub tls: Option<Arc<rustls::ClientConfig>>,
}

impl tonic::codegen::Service<Uri> for PluginConnector {
    type Response = TokioIo<Box<dyn Io>>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _uri: Uri) -> Self::Future {
        let socket = self.socket.clone();
        let tls = self.tls.clone();
        Box::pin(async move {
            let stream = UnixStream::connect(&socket).await?;
            let io: Box<dyn Io> = match tls {
                None => Box::new(stream),
                Some(config) => {
                    let name = ServerName::try_from("localhost").map_err(std::io::Error::other)?;
                    Box::new(TlsConnector::from(config).connect(name, stream).await?)
                }
            };
            Ok(TokioIo::new(io))
        })
    }
}

/// Connects now (the first error is the connection's).
pub async fn connect(connector: PluginConnector) -> Result<Channel, tonic::transport::Error> {
    // go-plugin dials the literal target "unused".
    Endpoint::from_static("http://unused").connect_with_connector(connector).await
}

/// Connects at the first call.
pub fn connect_lazy(connector: PluginConnector) -> Channel {
    Endpoint::from_static("http://unused").connect_with_connector_lazy(connector)
}
