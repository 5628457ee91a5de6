//! A vanished control's id handed to its re-created twin. Frameworks re-render: a click that
//! adds one row can rebuild the whole list, and every rebuilt node is a new element. When a
//! listing finds that, in one document, exactly one control of a type and name has left it and
//! exactly one new control of that type and name has appeared, the new control takes over the
//! id — the model's ids stay good and a change listing shows what really changed. Where the
//! pairing is ambiguous (two vanished "Delete" buttons, one new) nothing is paired: a wrong id
//! is worse than a new one.

use std::collections::HashMap;

use deft_protocol::observation::ControlType;

use super::listing::{FlatListing, control_kind};
use super::state::State;

/// What pairs a vanished control with its twin: frame session, document, type, name.
type Likeness = (String, String, ControlType, String);

impl State {
    /// Forgets the keys `raw` reports dead and gives each vanished control's id to its
    /// unambiguous twin among `raw`'s controls that have no id yet (window `window` only).
    pub(super) fn adopt_twins(&mut self, window: u64, raw: &FlatListing) {
        let mut vanished: HashMap<Likeness, Vec<u64>> = HashMap::new();
        for (session, doc, key) in &raw.dead {
            let Some(id) = self
                .control_of
                .remove(&(session.clone(), doc.clone(), *key))
            else {
                continue;
            };
            let Some(was) = self.controls.get(&id).filter(|c| c.window == window) else {
                continue;
            };
            vanished
                .entry((session.clone(), doc.clone(), was.kind, was.name.clone()))
                .or_default()
                .push(id);
        }
        if vanished.is_empty() {
            return;
        }
        let mut appeared: HashMap<Likeness, Vec<u64>> = HashMap::new();
        for (session, doc, _, c) in &raw.controls {
            let known = self
                .control_of
                .contains_key(&(session.clone(), doc.clone(), c.k));
            let likeness = (
                session.clone(),
                doc.clone(),
                control_kind(&c.role),
                c.name.clone(),
            );
            if !known && vanished.contains_key(&likeness) {
                appeared.entry(likeness).or_default().push(c.k);
            }
        }
        for (likeness, keys) in appeared {
            let (Some(ids), [key]) = (vanished.get(&likeness), keys.as_slice()) else {
                continue;
            };
            if let [id] = ids.as_slice() {
                let (session, doc, _, _) = likeness;
                self.control_of.insert((session, doc, *key), *id);
            }
        }
    }
}
