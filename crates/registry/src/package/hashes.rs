//! The two package hashes Terraform writes in `.terraform.lock.hcl`.
//!
//! * `zh:` ("zip hash"): the SHA-256 of the release zip, in hex, exactly as the registry's
//!   `SHA256SUMS` lists it. Terraform records one for every line of a verified `SHA256SUMS`.
//! * `h1:`: Go's `dirhash.Hash1` of the package's *contents* (what the zip unpacks to), so it
//!   is the same for a zip and for its unpacked directory: for every file, sorted by its
//!   slash-separated name, the line `HEX(SHA-256(content))  NAME\n`; then the SHA-256 of those
//!   lines, base64 (standard alphabet, padded).

use base64::Engine as _;
use sha2::{Digest as _, Sha256};

/// `zh:` + hex SHA-256 of a release zip.
pub fn zip_hash(zip: &[u8]) -> String {
    format!("zh:{}", hex::encode(Sha256::digest(zip)))
}

/// The hex SHA-256 `SHA256SUMS` lists for a file.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `h1:` hash of a package given as its files (name relative to the package root, with `/`
/// separators, and content). Names containing a newline cannot be hashed (as in Go).
pub fn package_hash<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Option<String> {
    let mut files: Vec<(&str, &[u8])> = files.into_iter().collect();
    files.sort_by(|a, b| a.0.cmp(b.0));
    let mut summary = Sha256::new();
    for (name, content) in files {
        if name.contains('\n') {
            return None;
        }
        summary.update(format!("{}  {name}\n", hex::encode(Sha256::digest(content))));
    }
    Some(format!("h1:{}", base64::engine::general_purpose::STANDARD.encode(summary.finalize())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_hash_is_go_dirhash_hash1() {
        // Worked by hand from dirhash.Hash1's definition: sha256("a\n") and sha256("") in hex,
        // two spaces, the name, a newline; sorted by name; then base64(sha256(summary)).
        let a = hex::encode(Sha256::digest(b"a\n"));
        let empty = hex::encode(Sha256::digest(b""));
        let summary = format!("{a}  dir/a.txt\n{empty}  z\n");
        let expected = format!(
            "h1:{}",
            base64::engine::general_purpose::STANDARD.encode(Sha256::digest(summary))
        );
        // Order of the input does not matter: names are sorted.
        let hash = package_hash([("z", &b""[..]), ("dir/a.txt", &b"a\n"[..])]);
        assert_eq!(hash.as_deref(), Some(expected.as_str()));
        assert_eq!(package_hash([("bad\nname", &b""[..])]), None);
    }

    #[test]
    fn zip_hash_is_hex_sha256() {
        assert_eq!(
            zip_hash(b""),
            "zh:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
