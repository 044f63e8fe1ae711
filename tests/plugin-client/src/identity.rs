//! The client certificate Terraform presents: go-plugin's `generateCert` makes an ECDSA P-521
//! key and a self-signed CA certificate for `localhost`, usable for client and server auth.

use rcgen::{BasicConstraints, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::ClientError;

/// A client certificate and key as go-plugin makes them, and the PEM Terraform hands the
/// plugin in `PLUGIN_CLIENT_CERT`.
pub struct ClientIdentity {
    certificate: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
    /// The certificate in PEM, the value of `PLUGIN_CLIENT_CERT`.
    pub pem: String,
}

impl ClientIdentity {
    /// A fresh identity (a new P-521 key each time, as each Terraform run makes).
    pub fn generate() -> Result<ClientIdentity, ClientError> {
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512)?;
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()])?;
        params.distinguished_name.push(DnType::CommonName, "localhost");
        params.distinguished_name.push(DnType::OrganizationName, "HashiCorp");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
            KeyUsagePurpose::KeyAgreement,
            KeyUsagePurpose::KeyCertSign,
        ];
        params.extended_key_usages =
            vec![ExtendedKeyUsagePurpose::ClientAuth, ExtendedKeyUsagePurpose::ServerAuth];
        let certificate = params.self_signed(&key)?;
        Ok(ClientIdentity {
            pem: certificate.pem(),
            certificate: certificate.der().clone(),
            key: PrivatePkcs8KeyDer::from(key.serialize_der()),
        })
    }

    /// The certificate, DER-encoded.
    pub fn certificate(&self) -> &CertificateDer<'static> {
        &self.certificate
    }

    /// The private key, for a TLS client configuration.
    pub fn key(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(self.key.clone_key())
    }
}
