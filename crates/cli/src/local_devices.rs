//! The devices this process serves itself: `local` (this machine: `desktop` profile with a
//! display, else `shell`) and `browser` (a managed headless Chromium, `browser` profile). Each is
//! its own device session with its own tool-server instances, started on first use. A phone of
//! the adb server is a device too, named by its serial (`android` profile).

use std::sync::Arc;

use deft_tools::table::RoutingTable;
use deft_tools::{Device, Devices, LocalDispatcher, StaticDevices, devices};

use crate::office::ExtraDocumentDirs;
use crate::{Globals, builtins, paths};

/// `local` and `browser` over the routing table of `globals`.
pub fn directory(globals: &Globals) -> anyhow::Result<Arc<StaticDevices>> {
    let table = Arc::new(RoutingTable::from_path_or_env(
        globals.tools_config.as_deref(),
    )?);
    Ok(directory_with(globals, table))
}

/// `local` and `browser` over `table` (`browser` only when the table has that profile).
pub fn directory_with(globals: &Globals, table: Arc<RoutingTable>) -> Arc<StaticDevices> {
    directory_documents(globals, table, ExtraDocumentDirs::default())
}

/// [`directory_with`], its devices allowing `documents` besides the configured document
/// folders.
pub fn directory_documents(
    globals: &Globals,
    table: Arc<RoutingTable>,
    documents: ExtraDocumentDirs,
) -> Arc<StaticDevices> {
    let registry = builtins::registry_with(globals, &globals.data_dir, documents);
    let local_profile = devices::local_profile(Some(&paths::desktop_state(&globals.data_dir)));
    let mut list = vec![Device::new(
        devices::LOCAL,
        local_profile,
        Arc::new(LocalDispatcher::new(table.clone(), registry.clone())),
    )];
    if table.profiles.contains_key(devices::BROWSER) {
        list.push(Device::new(
            devices::BROWSER,
            devices::BROWSER,
            Arc::new(LocalDispatcher::new(table, registry)),
        ));
    }
    Arc::new(StaticDevices::new(list))
}

/// The device named `id`, or an error listing the known ones.
pub fn pick(directory: &StaticDevices, id: &str) -> anyhow::Result<Device> {
    directory.get(id).ok_or_else(|| {
        let known: Vec<_> = directory.list().into_iter().map(|d| d.id).collect();
        anyhow::anyhow!("unknown device '{id}'; known devices: {}", known.join(", "))
    })
}

/// The device named `id`: one of `directory`, else the phone of the adb server with that
/// serial (the adb server is asked only then). The error lists the known devices and phones.
pub async fn pick_or_phone(
    globals: &Globals,
    directory: &StaticDevices,
    id: &str,
) -> anyhow::Result<Device> {
    if let Some(device) = directory.get(id) {
        return Ok(device);
    }
    let known: Vec<_> = directory.list().into_iter().map(|d| d.id).collect();
    if phones_off() {
        anyhow::bail!(
            "unknown device '{id}'; known devices: {} (phones are not asked: DEFT_NO_PHONES is set)",
            known.join(", ")
        );
    }
    let phones = match deft_adb::AdbClient::from_env() {
        Ok(adb) => adb.devices().await.map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    match phones {
        Ok(phones) => match phones.iter().find(|p| p.serial == id) {
            Some(p) if p.state == "device" => phone_device(globals, &p.serial),
            Some(p) => anyhow::bail!("{}", deft_backend_android::config::not_ready(p)),
            None => {
                let serials: Vec<String> = phones
                    .iter()
                    .map(|p| format!("{} ({})", p.serial, p.state))
                    .collect();
                let phones = if serials.is_empty() {
                    "none".to_owned()
                } else {
                    serials.join(", ")
                };
                anyhow::bail!(
                    "unknown device '{id}'; known devices: {}; phones of the adb server: {phones}",
                    known.join(", ")
                )
            }
        },
        Err(e) => anyhow::bail!(
            "unknown device '{id}'; known devices: {} (no phone list: {e})",
            known.join(", ")
        ),
    }
}

/// Whether `DEFT_NO_PHONES` says to leave the adb server alone (`1`, `true`, `yes`, `on`).
pub fn phones_off() -> bool {
    std::env::var("DEFT_NO_PHONES").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on" | "y"
        )
    })
}

/// The phone `serial` as a device of profile `android`, with its own tool-server instances.
pub fn phone_device(globals: &Globals, serial: &str) -> anyhow::Result<Device> {
    let table = Arc::new(RoutingTable::from_path_or_env(
        globals.tools_config.as_deref(),
    )?);
    anyhow::ensure!(
        table.profiles.contains_key(PHONE_PROFILE),
        "the routing table has no '{PHONE_PROFILE}' profile for phones; add one (the built-in table has it)"
    );
    let registry = builtins::registry_for_phone(globals, serial);
    Ok(Device::new(
        serial,
        PHONE_PROFILE,
        Arc::new(LocalDispatcher::new(table, registry)),
    ))
}

/// The routing-table profile of phones.
pub const PHONE_PROFILE: &str = "android";
