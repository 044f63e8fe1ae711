//! AutoMTLS: the TLS side of go-plugin's handshake.
//!
//! When Terraform sets `PLUGIN_CLIENT_CERT`, both sides pin each other's
//! self-signed certificate: Terraform trusts only the certificate we print in
//! the handshake line, and we accept only the certificate it gave us.
//!
//! Three facts shape this module:
//! * Terraform's certificate is ECDSA P-521. `ring` cannot verify P-521, so the
//!   rustls provider is aws-lc-rs.
//! * That certificate is self-signed with `CA:TRUE` and used as an end entity;
//!   webpki's stock client verifier refuses it (`CaUsedAsEndEntity`) even as its
//!   own trust anchor. [`PinnedClientCertVerifier`] compares the DER instead and
//!   still checks the handshake signature with the provider's algorithms.
//! * tonic's TLS settings cannot take a custom verifier, so connections are
//!   accepted here ([`tls_incoming`]) and handed to tonic already decrypted.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, ServerConfig, SignatureScheme};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_stream::wrappers::ReceiverStream;

use super::PluginError;

/// How long a client gets to finish the TLS handshake. Terraform is on the
/// same machine and finishes in milliseconds; the bound only keeps a stalled
/// connection from holding a task forever.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections handshaken but not yet taken by the server.
const ACCEPT_QUEUE: usize = 16;

/// The crypto provider used on both sides: aws-lc-rs, for P-521.
pub fn crypto_provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// Our freshly generated, self-signed server certificate and its key.
pub struct ServerIdentity {
    certificate: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

impl std::fmt::Debug for ServerIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerIdentity")
            .field("certificate_len", &self.certificate.len())
            .finish_non_exhaustive()
    }
}

impl ServerIdentity {
    /// A new ECDSA P-256 key and a self-signed certificate for DNS name
    /// `localhost` (the name Terraform verifies; Go ignores the CN) allowing
    /// serverAuth. The key lives only in this process.
    ///
    /// The validity window is rcgen's default (1975 to 4096): the certificate
    /// is pinned by its exact bytes for one process lifetime, so a tight window
    /// would only add clock-skew failures.
    pub fn generate() -> Result<Self, PluginError> {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)?;
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()])?;
        params.distinguished_name.push(rcgen::DnType::CommonName, "localhost");
        params.distinguished_name.push(rcgen::DnType::OrganizationName, "Terrarium");
        params.key_usages =
            vec![rcgen::KeyUsagePurpose::DigitalSignature, rcgen::KeyUsagePurpose::KeyAgreement];
        params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
        let certificate = params.self_signed(&key)?;
        Ok(ServerIdentity {
            certificate: certificate.der().clone(),
            key: PrivatePkcs8KeyDer::from(key.serialize_der()),
        })
    }

    /// The certificate's DER, for the handshake line.
    pub fn certificate(&self) -> &CertificateDer<'static> {
        &self.certificate
    }

    /// A rustls server config presenting this identity, requiring a client
    /// certificate equal to one of `accepted_clients`, offering ALPN `h2`
    /// (grpc-go refuses TLS servers without it), TLS 1.2 and 1.3.
    pub fn server_config(
        &self,
        accepted_clients: Vec<CertificateDer<'static>>,
    ) -> Result<Arc<ServerConfig>, PluginError> {
        let provider = crypto_provider();
        let verifier = PinnedClientCertVerifier::new(accepted_clients, &provider);
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])?
            .with_client_cert_verifier(Arc::new(verifier))
            .with_single_cert(
                vec![self.certificate.clone()],
                PrivateKeyDer::Pkcs8(self.key.clone_key()),
            )?;
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(Arc::new(config))
    }
}

/// Accepts exactly the client certificates it was given (byte for byte) and
/// verifies the client's handshake signature against the presented key.
///
/// No path validation: the certificate is pinned, which is stronger than
/// chaining to it, and avoids webpki's refusal of CA certificates as end
/// entities. Validity dates are not checked either: the pinned bytes came from
/// the parent process moments ago.
#[derive(Debug)]
pub struct PinnedClientCertVerifier {
    accepted: Vec<CertificateDer<'static>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl PinnedClientCertVerifier {
    /// Accepts `accepted`, verifying signatures with `provider`'s algorithms.
    pub fn new(accepted: Vec<CertificateDer<'static>>, provider: &CryptoProvider) -> Self {
        PinnedClientCertVerifier {
            accepted,
            algorithms: provider.signature_verification_algorithms,
        }
    }
}

impl ClientCertVerifier for PinnedClientCertVerifier {
    fn offer_client_auth(&self) -> bool {
        true
    }

    fn client_auth_mandatory(&self) -> bool {
        true
    }

    // No CA hints: a Go client then sends its certificate without checking
    // the issuer against a list (crypto/tls SupportsCertificate).
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        if self.accepted.iter().any(|accepted| accepted.as_ref() == end_entity.as_ref()) {
            Ok(ClientCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// A server-side TLS connection over the plugin socket, in the shape tonic
/// accepts from a custom listener.
#[derive(Debug)]
pub struct TlsConnection(TlsStream<UnixStream>);

impl TlsConnection {
    /// The underlying rustls stream (peer certificates, ALPN, ...).
    pub fn get_ref(&self) -> &TlsStream<UnixStream> {
        &self.0
    }
}

impl tonic::transport::server::Connected for TlsConnection {
    type ConnectInfo = ();

    fn connect_info(&self) -> Self::ConnectInfo {}
}

impl AsyncRead for TlsConnection {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_read(cx, buf)
    }
}

impl AsyncWrite for TlsConnection {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_shutdown(cx)
    }
}

/// The stream of handshaken connections returned by [`tls_incoming`].
pub type TlsIncoming = ReceiverStream<Result<TlsConnection, std::convert::Infallible>>;

/// Accepts connections on `listener` and completes each TLS handshake on its
/// own task, so one slow or hostile client never delays another. A failed
/// handshake (wrong certificate, plaintext client, timeout) is logged and the
/// connection dropped. The accept loop ends when the returned stream is
/// dropped (tonic drops it on shutdown).
pub fn tls_incoming(listener: UnixListener, config: Arc<ServerConfig>) -> TlsIncoming {
    let (sender, receiver) = mpsc::channel(ACCEPT_QUEUE);
    let acceptor = TlsAcceptor::from(config);
    tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                () = sender.closed() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(error) => {
                        // Typically EMFILE; back off rather than spin.
                        tracing::warn!(%error, "accepting a connection on the plugin socket failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            let acceptor = acceptor.clone();
            let sender = sender.clone();
            tokio::spawn(async move {
                match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                    Ok(Ok(tls)) => {
                        // Err only when the server has stopped; the connection just closes.
                        let _ = sender.send(Ok(TlsConnection(tls))).await;
                    }
                    Ok(Err(error)) => {
                        tracing::warn!(%error, "TLS handshake with a plugin client failed");
                    }
                    Err(_) => tracing::warn!("TLS handshake with a plugin client timed out"),
                }
            });
        }
    });
    ReceiverStream::new(receiver)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p521_ca_certificate() -> CertificateDer<'static> {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.self_signed(&key).unwrap().der().clone()
    }

    #[test]
    fn verifier_accepts_exactly_the_pinned_certificate() {
        let pinned = p521_ca_certificate();
        let other = p521_ca_certificate();
        let verifier = PinnedClientCertVerifier::new(vec![pinned.clone()], &crypto_provider());
        let now = UnixTime::now();
        assert!(verifier.verify_client_cert(&pinned, &[], now).is_ok());
        assert!(verifier.verify_client_cert(&other, &[], now).is_err());
        // A truncated copy is not the certificate either.
        let truncated = CertificateDer::from(pinned.as_ref()[..pinned.len() - 1].to_vec());
        assert!(verifier.verify_client_cert(&truncated, &[], now).is_err());
        assert!(verifier.client_auth_mandatory());
    }

    #[test]
    fn verifier_offers_p521_signatures() {
        let verifier = PinnedClientCertVerifier::new(vec![], &crypto_provider());
        assert!(
            verifier.supported_verify_schemes().contains(&SignatureScheme::ECDSA_NISTP521_SHA512)
        );
    }

    #[test]
    fn server_identity_builds_an_h2_config() {
        let identity = ServerIdentity::generate().unwrap();
        assert!(!identity.certificate().is_empty());
        let config = identity.server_config(vec![p521_ca_certificate()]).unwrap();
        assert_eq!(config.alpn_protocols, vec![b"h2".to_vec()]);
    }
}
