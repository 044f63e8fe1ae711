//! The line a go-plugin server prints on stdout once it listens:
//! `CORE-VERSION|APP-VERSION|NETWORK|ADDRESS|PROTOCOL|SERVER-CERT`.

use std::path::PathBuf;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use rustls::pki_types::CertificateDer;

use crate::ClientError;

/// The fields of a handshake line, read as go-plugin's client reads them.
#[derive(Debug, Clone)]
pub struct Handshake {
    /// go-plugin's core protocol version (always 1).
    pub core_version: String,
    /// The negotiated plugin protocol version (5 or 6 for Terraform providers).
    pub protocol_version: String,
    /// The network, `unix` on Unix systems.
    pub network: String,
    /// The socket the plugin listens on.
    pub socket: PathBuf,
    /// The RPC protocol, `grpc`.
    pub protocol: String,
    /// The server certificate (AutoMTLS), absent for a plaintext plugin.
    pub server_certificate: Option<CertificateDer<'static>>,
    /// The sixth field as printed (base64 without padding, or empty).
    pub certificate_field: String,
}

impl Handshake {
    /// Reads one handshake line (with or without its newline). Only the shape is checked here;
    /// callers assert the values they expect.
    pub fn parse(line: &str) -> Result<Handshake, ClientError> {
        let problem = |problem| ClientError::Handshake { line: line.to_owned(), problem };
        let fields: Vec<&str> = line.trim_end_matches(['\n', '\r']).split('|').collect();
        let [core, version, network, address, protocol, certificate] = fields[..] else {
            return Err(problem("a handshake line has six fields separated by '|'"));
        };
        // go-plugin reads the field as a certificate only when it is longer than 50 bytes;
        // Go's decoder is RawStdEncoding, so padding would be an error there too.
        let server_certificate = if certificate.len() > 50 {
            let der = STANDARD_NO_PAD
                .decode(certificate)
                .map_err(|_| problem("the certificate field is not unpadded base64"))?;
            Some(CertificateDer::from(der))
        } else {
            None
        };
        Ok(Handshake {
            core_version: core.to_owned(),
            protocol_version: version.to_owned(),
            network: network.to_owned(),
            socket: PathBuf::from(address),
            protocol: protocol.to_owned(),
            server_certificate,
            certificate_field: certificate.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_six_fields_of_a_plaintext_line() {
        let h = Handshake::parse("1|6|unix|/tmp/plugin1|grpc|\n").unwrap();
        assert_eq!((h.core_version.as_str(), h.protocol_version.as_str()), ("1", "6"));
        assert_eq!(h.socket, PathBuf::from("/tmp/plugin1"));
        assert!(h.server_certificate.is_none());
    }

    #[test]
    fn refuses_lines_of_another_shape() {
        assert!(Handshake::parse("1|6|unix|/tmp/x|grpc").is_err());
        let padded = format!("1|6|unix|/tmp/x|grpc|{}==", "A".repeat(60));
        assert!(Handshake::parse(&padded).is_err());
    }
}
