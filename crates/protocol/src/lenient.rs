//! Serde helpers that turn `null` into a field's default, so UFO-shaped JSON (which sends `null`
//! for every unset optional field) parses into plain values.

use serde::{Deserialize, Deserializer};

/// Deserializes `null` (or a missing field, with `#[serde(default)]`) as `T::default()`.
pub(crate) fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}
