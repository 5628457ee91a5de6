//! The devices this process serves itself: `local` (this machine: `desktop` profile with a
//! display, else `shell`) and `browser` (a managed headless Chromium, `browser` profile). Each is
//! its own device session with its own tool-server instances, started on first use.

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
