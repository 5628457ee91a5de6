//! A delivery's signature, as Stripe and GitHub sign theirs: `Deft-Signature: t=<unix
//! seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` — the timestamp inside the signed text,
//! so a receiver can refuse an old delivery replayed; and the secrets webhooks are signed with.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// What every signing secret starts with (recognisable in a leak scan, as API tokens are).
pub const SECRET_PREFIX: &str = "whsec_";

/// The `Deft-Signature` header's value for `body` sent at `unix_secs`, signed with `secret`.
pub fn signature_header(secret: &str, unix_secs: i64, body: &[u8]) -> String {
    format!("t={unix_secs},v1={}", sign(secret, unix_secs, body))
}

/// The hex HMAC-SHA256 of `"<unix_secs>.<body>"` under `secret`.
pub fn sign(secret: &str, unix_secs: i64, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(unix_secs.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    hex(&mac.finalize().into_bytes())
}

/// A new signing secret: [`SECRET_PREFIX`] and 32 random bytes in hex.
pub fn new_secret() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{SECRET_PREFIX}{}", hex(&bytes)))
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_the_timestamp_and_the_body_as_a_known_vector() {
        // python3 -c 'import hmac,hashlib;print(hmac.new(b"whsec_test",b"1700000000.{\"id\":1}",hashlib.sha256).hexdigest())'
        assert_eq!(
            signature_header("whsec_test", 1_700_000_000, br#"{"id":1}"#),
            "t=1700000000,v1=2f441ba4b3b2d50d28a9ab9d9fd8880376ecd1eb5d0435401553f5d8d0a5dcf8"
        );
    }

    #[test]
    fn secrets_are_fresh_and_prefixed() {
        let (a, b) = (new_secret().unwrap(), new_secret().unwrap());
        assert_ne!(a, b);
        assert!(
            a.starts_with(SECRET_PREFIX) && a.len() == SECRET_PREFIX.len() + 64,
            "{a}"
        );
    }
}
