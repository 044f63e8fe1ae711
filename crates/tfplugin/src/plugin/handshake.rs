//! go-plugin's handshake line: the first line a plugin prints on stdout.

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use rustls::pki_types::CertificateDer;

/// go-plugin's own protocol version, the first field of the handshake line.
pub const CORE_PROTOCOL_VERSION: u32 = 1;

/// Formats `CORE|APP|unix|ADDR|grpc|SERVERCERT\n`.
///
/// `server_certificate` is the DER of our TLS certificate when serving AutoMTLS,
/// written as unpadded standard base64 (Go's `base64.RawStdEncoding`). Without
/// TLS the last field must be empty: a Go client given a certificate while its
/// TLS config is nil crashes. The field is always present, as the Go server
/// prints it.
pub fn handshake_line(
    protocol_version: u32,
    socket_path: &Path,
    server_certificate: Option<&CertificateDer<'_>>,
) -> String {
    let certificate =
        server_certificate.map(|der| STANDARD_NO_PAD.encode(der.as_ref())).unwrap_or_default();
    format!(
        "{CORE_PROTOCOL_VERSION}|{protocol_version}|unix|{}|grpc|{certificate}\n",
        socket_path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plaintext_line_has_six_fields_and_empty_certificate() {
        let line = handshake_line(6, Path::new("/tmp/plugin123"), None);
        assert_eq!(line, "1|6|unix|/tmp/plugin123|grpc|\n");
        assert_eq!(line.trim_end().split('|').count(), 6);
    }

    #[test]
    fn tls_line_carries_unpadded_standard_base64_of_the_der() {
        // 4 bytes encode to 6 characters plus "==" padding in padded base64;
        // bytes chosen to hit '+' and '/' of the standard alphabet.
        let der = CertificateDer::from(vec![0xfb, 0xff, 0xbf, 0x01]);
        let line = handshake_line(6, Path::new("/tmp/s"), Some(&der));
        assert_eq!(line, "1|6|unix|/tmp/s|grpc|+/+/AQ\n");

        let fields: Vec<&str> = line.trim_end().split('|').collect();
        assert_eq!(fields.len(), 6);
        assert!(!fields[5].contains('='));
        assert_eq!(STANDARD_NO_PAD.decode(fields[5]).unwrap(), der.as_ref());
    }

    #[test]
    fn ends_with_exactly_one_newline() {
        let line = handshake_line(5, Path::new("/x"), None);
        assert!(line.ends_with("grpc|\n"));
        assert_eq!(line.matches('\n').count(), 1);
        assert!(line.starts_with("1|5|"));
    }
}
