//! The OpenPGP key that signs a release's `SHA256SUMS`, and the detached signature Terraform
//! checks against the public key the registry hands out with each download.
//!
//! The key is an author's own (an ASCII-armored or binary OpenPGP secret key, e.g. from
//! `gpg --export-secret-keys --armor KEYID`), or Terrarium's per-user key, generated on first
//! use: an Ed25519 primary key that signs, kept in the user's configuration directory so that
//! every release a person packages is signed by the same key.

use std::fs;
use std::io::{self, Cursor};
use std::path::{Path, PathBuf};

use pgp::composed::{
    ArmorOptions, Deserializable as _, DetachedSignature, EncryptionCaps, KeyType,
    SecretKeyParamsBuilder, SignedSecretKey,
};
use pgp::crypto::hash::HashAlgorithm;
use pgp::ser::Serialize as _;
use pgp::types::{KeyDetails as _, Password};

/// Environment variable holding the passphrase of a protected `--signing-key`.
pub const PASSPHRASE_ENV: &str = "TERRARIUM_SIGNING_KEY_PASSPHRASE";

/// Why a signing key could not be loaded, made or used.
#[derive(Debug, thiserror::Error)]
pub enum SigningError {
    #[error("cannot read the signing key {}: {cause}", path.display())]
    Read { path: PathBuf, cause: io::Error },

    #[error(
        "{} is not an OpenPGP secret key ({cause}); pass a secret key, e.g. exported with \
         `gpg --export-secret-keys --armor KEYID > key.asc`",
        path.display()
    )]
    Parse { path: PathBuf, cause: pgp::errors::Error },

    #[error(
        "cannot sign with the key {}: {cause}; if it is protected by a passphrase, set \
         {PASSPHRASE_ENV}, and make sure its primary key may sign",
        path.display()
    )]
    Sign { path: PathBuf, cause: pgp::errors::Error },

    #[error("cannot generate a signing key: {0}")]
    Generate(String),

    #[error("cannot write the signing key {}: {cause}; pass --signing-key FILE instead", path.display())]
    Write { path: PathBuf, cause: io::Error },

    #[error(
        "no --signing-key given and neither XDG_CONFIG_HOME nor HOME is set, so there is no \
         place for Terrarium's own key; pass --signing-key FILE"
    )]
    NoDefaultKeyPlace,
}

/// A secret key that can sign, with where it came from (for messages).
pub struct SigningKey {
    key: SignedSecretKey,
    passphrase: Password,
    path: PathBuf,
}

impl SigningKey {
    /// Loads an author's secret key (armored or binary); the passphrase, if any, comes from
    /// [`PASSPHRASE_ENV`].
    pub fn load(path: &Path) -> Result<Self, SigningError> {
        let bytes =
            fs::read(path).map_err(|cause| SigningError::Read { path: path.to_owned(), cause })?;
        let parse = |cause| SigningError::Parse { path: path.to_owned(), cause };
        let key = if bytes.trim_ascii_start().starts_with(b"-----BEGIN") {
            SignedSecretKey::from_armor_single(Cursor::new(&bytes)).map_err(parse)?.0
        } else {
            SignedSecretKey::from_bytes(Cursor::new(&bytes)).map_err(parse)?
        };
        let passphrase = std::env::var(PASSPHRASE_ENV).map(Password::from).unwrap_or_default();
        Ok(Self { key, passphrase, path: path.to_owned() })
    }

    /// Terrarium's per-user key at [`default_key_path`], generated (and announced on stderr)
    /// the first time.
    pub fn load_or_generate_default() -> Result<Self, SigningError> {
        let path = default_key_path()?;
        if path.exists() {
            return Self::load(&path);
        }
        let key = generate("Terrarium release signing key")?;
        let armored = key
            .to_armored_string(ArmorOptions::default())
            .map_err(|e| SigningError::Generate(e.to_string()))?;
        let write = |cause| SigningError::Write { path: path.clone(), cause };
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(write)?;
        }
        terrarium_install::user_files::write_private(&path, armored.as_bytes()).map_err(write)?;
        eprintln!(
            "Generated an OpenPGP signing key for your releases (key ID {}) in {}; keep it \
             private, and pass it with --signing-key on other machines.\n",
            key_id(&key),
            path.display()
        );
        Ok(Self { key, passphrase: Password::empty(), path })
    }

    /// A fresh key, for tests elsewhere in the crate.
    #[cfg(test)]
    pub(crate) fn generated_for_tests() -> Self {
        let key = generate("test").expect("key generation");
        Self { key, passphrase: Password::empty(), path: PathBuf::from("generated") }
    }

    /// A binary detached signature of `data` (what `gpg --detach-sign` writes, and what
    /// Terraform's registry client expects in `SHA256SUMS.sig`).
    pub fn sign_detached(&self, data: &[u8]) -> Result<Vec<u8>, SigningError> {
        let sign_error = |cause| SigningError::Sign { path: self.path.clone(), cause };
        let signature = DetachedSignature::sign_binary_data(
            rand::rngs::OsRng,
            &self.key.primary_key,
            &self.passphrase,
            HashAlgorithm::Sha256,
            data,
        )
        .map_err(sign_error)?;
        signature.to_bytes().map_err(sign_error)
    }

    /// The public key, ASCII-armored, as the registry protocol's `ascii_armor` carries it.
    pub fn public_key_armored(&self) -> Result<String, SigningError> {
        self.key
            .to_public_key()
            .to_armored_string(ArmorOptions::default())
            .map_err(|cause| SigningError::Sign { path: self.path.clone(), cause })
    }

    /// The 16-hex-digit key ID, upper case, as registries show it.
    pub fn key_id(&self) -> String {
        key_id(&self.key)
    }
}

/// The key ID of an ASCII-armored public key (`install` reads it when it checks a release).
pub use crate::fetch::public_key_id;

fn key_id(key: &SignedSecretKey) -> String {
    hex::encode_upper(key.legacy_key_id().as_ref())
}

/// A v4 Ed25519 key whose primary key signs: what every OpenPGP implementation Terraform has
/// shipped with verifies.
fn generate(user_id: &str) -> Result<SignedSecretKey, SigningError> {
    let params = SecretKeyParamsBuilder::default()
        .key_type(KeyType::Ed25519Legacy)
        .can_certify(true)
        .can_sign(true)
        .can_encrypt(EncryptionCaps::None)
        .primary_user_id(user_id.to_owned())
        .build()
        .map_err(|e| SigningError::Generate(e.to_string()))?;
    params.generate(rand::rngs::OsRng).map_err(|e| SigningError::Generate(e.to_string()))
}

/// `$XDG_CONFIG_HOME/terrarium/signing-key.asc`, else `~/.config/terrarium/signing-key.asc`.
pub fn default_key_path() -> Result<PathBuf, SigningError> {
    let config_home =
        terrarium_install::user_files::config_home().ok_or(SigningError::NoDefaultKeyPlace)?;
    Ok(config_home.join("terrarium").join("signing-key.asc"))
}

#[cfg(test)]
mod tests {
    use pgp::composed::DetachedSignature;

    use super::*;

    #[test]
    fn a_generated_key_signs_and_its_armored_public_key_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key.asc");
        let secret = generate("test").unwrap();
        fs::write(&path, secret.to_armored_string(ArmorOptions::default()).unwrap()).unwrap();
        let key = SigningKey::load(&path).unwrap();
        assert_eq!(key.key_id().len(), 16);
        assert_eq!(public_key_id(&key.public_key_armored().unwrap()), Some(key.key_id()));
        assert_eq!(public_key_id("no key"), None);

        let signature = key.sign_detached(b"sums\n").unwrap();
        let (public, _) = pgp::composed::SignedPublicKey::from_armor_single(Cursor::new(
            key.public_key_armored().unwrap(),
        ))
        .unwrap();
        let parsed = DetachedSignature::from_bytes(Cursor::new(&signature)).unwrap();
        parsed.verify(&public, b"sums\n").unwrap();
        assert!(parsed.verify(&public, b"sums!\n").is_err(), "a changed document must fail");
    }

    #[test]
    fn a_file_that_is_no_key_is_refused_with_how_to_export_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key.asc");
        fs::write(&path, "not a key").unwrap();
        let err = SigningKey::load(&path).err().unwrap();
        assert!(err.to_string().contains("gpg --export-secret-keys"), "{err}");
    }
}
