//! Password hashing with Argon2id (RFC 9106 second recommended setting: 19 MiB, 2 passes,
//! 1 lane), kept in the PHC string format `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`.

use argon2::{Algorithm, Argon2, Params, Version};
use base64::Engine;
use base64::engine::general_purpose::STANDARD_NO_PAD;

use super::secrets::{SecretError, random_bytes};

const M_COST: u32 = 19_456;
const T_COST: u32 = 2;
const P_COST: u32 = 1;

/// The shortest password the console accepts.
pub const MIN_PASSWORD_CHARS: usize = 8;

fn argon2(m: u32, t: u32, p: u32) -> Option<Argon2<'static>> {
    let params = Params::new(m, t, p, Some(32)).ok()?;
    Some(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

fn derive(password: &str, salt: &[u8], m: u32, t: u32, p: u32) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    argon2(m, t, p)?
        .hash_password_into(password.as_bytes(), salt, &mut out)
        .ok()?;
    Some(out)
}

/// Hashes `password` with a fresh random salt. CPU-heavy (~50 ms): call off the runtime.
pub fn hash(password: &str) -> Result<String, SecretError> {
    let salt = random_bytes::<16>()?;
    let out = derive(password, &salt, M_COST, T_COST, P_COST)
        .ok_or_else(|| SecretError::Random("argon2 rejected its parameters".into()))?;
    Ok(format!(
        "$argon2id$v=19$m={M_COST},t={T_COST},p={P_COST}${}${}",
        STANDARD_NO_PAD.encode(salt),
        STANDARD_NO_PAD.encode(out)
    ))
}

/// Whether `password` matches `stored` (constant-time comparison). A malformed `stored` never
/// matches. CPU-heavy: call off the runtime.
pub fn verify(password: &str, stored: &str) -> bool {
    let Some((m, t, p, salt, expected)) = parse(stored) else {
        return false;
    };
    derive(password, &salt, m, t, p)
        .is_some_and(|got| deft_tools::host::constant_time_eq(&got, &expected))
}

type Parsed = (u32, u32, u32, Vec<u8>, Vec<u8>);

fn parse(stored: &str) -> Option<Parsed> {
    let mut parts = stored.strip_prefix("$argon2id$v=19$")?.split('$');
    let params = parts.next()?;
    let salt = STANDARD_NO_PAD.decode(parts.next()?).ok()?;
    let hash = STANDARD_NO_PAD.decode(parts.next()?).ok()?;
    if parts.next().is_some() || hash.len() != 32 {
        return None;
    }
    let mut m = None;
    let mut t = None;
    let mut p = None;
    for kv in params.split(',') {
        let (k, v) = kv.split_once('=')?;
        let v: u32 = v.parse().ok()?;
        match k {
            "m" => m = Some(v),
            "t" => t = Some(v),
            "p" => p = Some(v),
            _ => return None,
        }
    }
    Some((m?, t?, p?, salt, hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_and_differ_per_salt() {
        let h = hash("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(verify("correct horse", &h));
        assert!(!verify("correct horsE", &h));
        assert_ne!(h, hash("correct horse").unwrap());
        for bad in [
            "",
            "plain",
            "$argon2id$v=19$m=1$x$y",
            &h.replace("t=2", "t=x"),
        ] {
            assert!(!verify("correct horse", bad), "{bad}");
        }
    }
}
