//! Secrets at rest: the model API key is sealed with ChaCha20-Poly1305 under a key kept in the
//! data folder (`secret.key`, mode 0600), so a copy of the database alone does not reveal it
//! (seed 001 stores it in plain text; deft does not). Also: random tokens and masking.

use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Nonce};

/// The file in the data folder that keeps the sealing key.
pub const KEY_FILE: &str = "secret.key";

const PREFIX: &str = "v1:";

/// Sealing or opening failed.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// The key file could not be read or written.
    #[error("cannot {action} the key file {}: {source}", path.display())]
    Io {
        /// read or write.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The key file does not hold a key.
    #[error("the key file {} is damaged (expected 64 hex digits); restore it from a backup or delete it and enter the API key again", path.display())]
    BadKeyFile {
        /// The file.
        path: PathBuf,
    },
    /// A sealed value does not open with this key.
    #[error(
        "a stored secret cannot be decrypted with {KEY_FILE} (was the data folder's key file replaced?); enter the API key again in the settings"
    )]
    Undecryptable,
    /// The OS random generator failed.
    #[error("the system random generator failed: {0}")]
    Random(String),
}

/// `n` random bytes from the OS.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], SecretError> {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).map_err(|e| SecretError::Random(e.to_string()))?;
    Ok(buf)
}

/// A random token: 32 bytes, URL-safe base64 without padding.
pub fn random_token() -> Result<String, SecretError> {
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random_bytes::<32>()?))
}

/// The SHA-256 of a session id or a token, hex: what the store keeps instead of it (both are
/// long random values, so a fast hash is safe).
pub fn sha256_hex(token: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Seals and opens secrets with the data folder's key.
#[derive(Clone)]
pub struct SecretBox {
    cipher: ChaCha20Poly1305,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(..)")
    }
}

impl SecretBox {
    /// The key in `data_dir/secret.key`, created (mode 0600) when missing.
    pub fn load_or_create(data_dir: &Path) -> Result<SecretBox, SecretError> {
        let path = data_dir.join(KEY_FILE);
        let key = match std::fs::read_to_string(&path) {
            Ok(text) => decode_hex(text.trim()).ok_or(SecretError::BadKeyFile { path })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let key = random_bytes::<32>()?;
                crate::auth::write_private(&path, &encode_hex(&key)).map_err(|source| {
                    SecretError::Io {
                        action: "write",
                        path,
                        source,
                    }
                })?;
                key
            }
            Err(source) => {
                return Err(SecretError::Io {
                    action: "read",
                    path,
                    source,
                });
            }
        };
        // No tool's output may show it (deft_tools::secrets).
        deft_tools::secrets::remember(&encode_hex(&key));
        Ok(SecretBox::with_key(&key))
    }

    /// A box over a given key (tests).
    pub fn with_key(key: &[u8; 32]) -> SecretBox {
        SecretBox {
            cipher: ChaCha20Poly1305::new(key.into()),
        }
    }

    /// `plain`, sealed: `v1:` + base64(nonce ‖ ciphertext ‖ tag).
    pub fn seal(&self, plain: &str) -> Result<String, SecretError> {
        deft_tools::secrets::remember(plain);
        let nonce_bytes = random_bytes::<12>()?;
        let nonce = Nonce::from(nonce_bytes);
        let sealed = self
            .cipher
            .encrypt(&nonce, plain.as_bytes())
            .map_err(|_| SecretError::Undecryptable)?;
        let mut out = nonce_bytes.to_vec();
        out.extend_from_slice(&sealed);
        Ok(format!("{PREFIX}{}", STANDARD.encode(out)))
    }

    /// Opens what [`SecretBox::seal`] made.
    pub fn open(&self, sealed: &str) -> Result<String, SecretError> {
        let raw = sealed
            .strip_prefix(PREFIX)
            .and_then(|b| STANDARD.decode(b).ok())
            .filter(|r| r.len() > 12)
            .ok_or(SecretError::Undecryptable)?;
        let (nonce, body) = raw.split_at(12);
        let nonce = Nonce::try_from(nonce).map_err(|_| SecretError::Undecryptable)?;
        let plain = self
            .cipher
            .decrypt(&nonce, body)
            .map_err(|_| SecretError::Undecryptable)?;
        let plain = String::from_utf8(plain).map_err(|_| SecretError::Undecryptable)?;
        // A tool's output must never show it (deft_tools::secrets).
        deft_tools::secrets::remember(&plain);
        Ok(plain)
    }
}

/// A secret as a person may see it: the first three and last four characters of a long value
/// (`sk-…9f3a`), bullets for a short one, empty for none.
pub fn mask(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    match chars.len() {
        0 => String::new(),
        n if n < 12 => "••••".to_owned(),
        n => format!(
            "{}…{}",
            chars[..3].iter().collect::<String>(),
            chars[n - 4..].iter().collect::<String>()
        ),
    }
}

fn encode_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn decode_hex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_and_hide_the_plain_text() {
        let dir = tempfile::tempdir().unwrap();
        let a = SecretBox::load_or_create(dir.path()).unwrap();
        let sealed = a.seal("sk-live-123456789").unwrap();
        assert!(sealed.starts_with("v1:"));
        assert!(!sealed.contains("sk-live"));
        assert_ne!(sealed, a.seal("sk-live-123456789").unwrap(), "fresh nonce");
        // The same key file opens it after a restart.
        let b = SecretBox::load_or_create(dir.path()).unwrap();
        assert_eq!(b.open(&sealed).unwrap(), "sk-live-123456789");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_wrong_key_or_damaged_value_is_a_clear_error() {
        let sealed = SecretBox::with_key(&[1; 32]).seal("x").unwrap();
        let other = SecretBox::with_key(&[2; 32]);
        assert!(matches!(
            other.open(&sealed),
            Err(SecretError::Undecryptable)
        ));
        assert!(matches!(
            other.open("plain"),
            Err(SecretError::Undecryptable)
        ));
        assert!(matches!(
            other.open("v1:!!"),
            Err(SecretError::Undecryptable)
        ));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(KEY_FILE), "zz").unwrap();
        let e = SecretBox::load_or_create(dir.path()).unwrap_err();
        assert!(e.to_string().contains("is damaged"), "{e}");
    }

    #[test]
    fn masks() {
        assert_eq!(mask(""), "");
        assert_eq!(mask("short"), "••••");
        assert_eq!(mask("sk-abcdefghijkl9f3a"), "sk-…9f3a");
        assert_eq!(mask("ключ-секрет-длинный"), "клю…нный");
    }
}
