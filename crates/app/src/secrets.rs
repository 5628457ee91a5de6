//! Where a task run's secret values come from: `deft serve` opens them from its store (sealed
//! with the data folder's key) for the one run that uses them; without a server there are none
//! ([`NoSecrets`]).

use std::collections::BTreeMap;

use futures::future::BoxFuture;

use crate::settings::SettingsError;

/// The keeper of the secrets task runs use.
pub trait SecretSource: Send + Sync {
    /// The values of the secrets among `names` that exist, by name (a missing one is left
    /// out).
    fn open_secrets<'a>(
        &'a self,
        names: &'a [String],
    ) -> BoxFuture<'a, Result<BTreeMap<String, String>, SettingsError>>;
}

/// No secrets at all.
pub struct NoSecrets;

impl SecretSource for NoSecrets {
    fn open_secrets<'a>(
        &'a self,
        _names: &'a [String],
    ) -> BoxFuture<'a, Result<BTreeMap<String, String>, SettingsError>> {
        Box::pin(async { Ok(BTreeMap::new()) })
    }
}
