//! The steps' part of a diff: two step lists compared item by item and, for a step kept in
//! place, its sub-step lists in turn.
//!
//! In one list: the longest run of identical steps in the same order stays unchanged; a step
//! found identical elsewhere in the other list has moved; between two unchanged steps, the
//! remaining old and new steps of one type pair up in order as changed; what is left was
//! added or removed.

use serde::Serialize;
use serde_json::{Map, Value};

use super::FieldChange;
use crate::step::child_path;

/// How a step changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepChangeKind {
    /// Only in the newer version.
    Added,
    /// Only in the older version.
    Removed,
    /// In both, its parameters changed.
    Changed,
    /// In both, identical, at another place.
    Moved,
}

/// One changed step.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepChange {
    /// How it changed.
    pub kind: StepChangeKind,
    /// Its path in the newer version (`steps[2].then[0]`); in the older one for a removed
    /// step.
    pub path: String,
    /// Its path in the older version, when a changed or moved step sat elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// Its type (`click`, `if_el`, …).
    #[serde(rename = "type")]
    pub step_type: String,
    /// The step itself (added: the new one; removed: the old one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<Value>,
    /// Its changed parameters, old → new (changed steps); a parameter inside an object
    /// (`selector`) by its dotted name (`selector.text`). Sub-step lists are not parameters:
    /// their steps' changes are listed on their own.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<FieldChange>,
}

/// How one old or new step of a list was matched.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Match {
    None,
    Same(usize),
    Moved(usize),
    Changed(usize),
}

/// The changes from the step list `old` to `new` (the list `field` under `parent`).
pub(super) fn diff_lists(
    parent: &str,
    field: &str,
    old: &[Value],
    new: &[Value],
) -> Vec<StepChange> {
    let (mut of_old, mut of_new) = (vec![Match::None; old.len()], vec![Match::None; new.len()]);
    for (i, j) in longest_common(old, new) {
        of_old[i] = Match::Same(j);
        of_new[j] = Match::Same(i);
    }
    // Moves: an unmatched new step identical to an unmatched old one.
    for j in 0..new.len() {
        if of_new[j] != Match::None {
            continue;
        }
        if let Some(i) = (0..old.len()).find(|&i| of_old[i] == Match::None && old[i] == new[j]) {
            of_old[i] = Match::Moved(j);
            of_new[j] = Match::Moved(i);
        }
    }
    pair_changed(old, new, &mut of_old, &mut of_new);

    let old_path = |i: usize| child_path(parent, field, i);
    let new_path = |j: usize| child_path(parent, field, j);
    let mut out = Vec::new();
    let mut next_old = 0;
    let mut removed_up_to = |limit: usize, out: &mut Vec<StepChange>| {
        while next_old < limit {
            if of_old[next_old] == Match::None {
                out.push(whole(
                    StepChangeKind::Removed,
                    old_path(next_old),
                    None,
                    &old[next_old],
                ));
            }
            next_old += 1;
        }
    };
    // The old index of the next new step kept (same or changed) from each new index on: the
    // old steps removed before it are listed before the steps added there.
    let mut next_kept = vec![old.len(); new.len() + 1];
    for j in (0..new.len()).rev() {
        next_kept[j] = match of_new[j] {
            Match::Same(i) | Match::Changed(i) => i,
            _ => next_kept[j + 1],
        };
    }
    for j in 0..new.len() {
        match of_new[j] {
            Match::None => {
                removed_up_to(next_kept[j], &mut out);
                out.push(whole(StepChangeKind::Added, new_path(j), None, &new[j]));
            }
            Match::Moved(i) => {
                let mut c = whole(
                    StepChangeKind::Moved,
                    new_path(j),
                    Some(old_path(i)),
                    &new[j],
                );
                c.step = None;
                out.push(c);
            }
            // Kept in order (maybe shifted by steps added or removed before it): no change.
            Match::Same(i) => removed_up_to(i, &mut out),
            Match::Changed(i) => {
                removed_up_to(i, &mut out);
                changed(&old[i], &new[j], old_path(i), new_path(j), &mut out);
            }
        }
    }
    removed_up_to(old.len(), &mut out);
    out
}

/// Between two unchanged steps, the old and new steps left pair up in order when their types
/// are the same.
fn pair_changed(old: &[Value], new: &[Value], of_old: &mut [Match], of_new: &mut [Match]) {
    let mut i = 0;
    let mut j = 0;
    while i < old.len() || j < new.len() {
        // The gap: old steps before the next unchanged one, new steps before its partner.
        let old_end = (i..old.len())
            .find(|&k| matches!(of_old[k], Match::Same(_)))
            .unwrap_or(old.len());
        let new_end = match of_old.get(old_end) {
            Some(Match::Same(partner)) => *partner,
            _ => new.len(),
        };
        let lefts: Vec<usize> = (i..old_end).filter(|&k| of_old[k] == Match::None).collect();
        let rights: Vec<usize> = (j..new_end).filter(|&k| of_new[k] == Match::None).collect();
        let mut lefts = lefts.into_iter().peekable();
        for r in rights {
            let Some(&l) = lefts.peek() else { break };
            if type_of(&old[l]) == type_of(&new[r]) {
                of_old[l] = Match::Changed(r);
                of_new[r] = Match::Changed(l);
                lefts.next();
            }
        }
        i = old_end + 1;
        j = new_end + 1;
    }
}

/// The changes of a step kept in place: its own parameters, then its sub-step lists'.
fn changed(
    old: &Value,
    new: &Value,
    old_path: String,
    new_path: String,
    out: &mut Vec<StepChange>,
) {
    let lists = sub_list_names(old, new);
    let (o, n) = (params(old, &lists), params(new, &lists));
    let mut changes = Vec::new();
    flat_changes("", &o, &n, &mut changes);
    if !changes.is_empty() {
        out.push(StepChange {
            kind: StepChangeKind::Changed,
            path: new_path.clone(),
            old_path: (old_path != new_path).then(|| old_path.clone()),
            step_type: type_of(new).to_owned(),
            step: None,
            params: changes,
        });
    }
    for name in &lists {
        // Removed steps of a sub-list are named under the new path (where they were).
        out.extend(diff_lists(
            &new_path,
            name,
            list(old, name),
            list(new, name),
        ));
    }
}

fn whole(kind: StepChangeKind, path: String, old_path: Option<String>, step: &Value) -> StepChange {
    StepChange {
        kind,
        path,
        old_path,
        step_type: type_of(step).to_owned(),
        step: Some(step.clone()),
        params: Vec::new(),
    }
}

fn type_of(step: &Value) -> &str {
    step.get("type").and_then(Value::as_str).unwrap_or("")
}

/// A list is a step list when it has items and each is an object with a `type`.
fn is_step_list(v: &Value) -> bool {
    v.as_array().is_some_and(|items| {
        !items.is_empty()
            && items
                .iter()
                .all(|s| s.get("type").is_some_and(Value::is_string))
    })
}

/// The fields that are sub-step lists of a step kept in place (`then`, `else`, `steps`): a
/// step list on one side, a list or nothing on the other (a body emptied stays a body).
fn sub_list_names(old: &Value, new: &Value) -> Vec<String> {
    let fields = |v: &Value| v.as_object().cloned().unwrap_or_default();
    let (o, n) = (fields(old), fields(new));
    let list_or_none = |v: Option<&Value>| v.is_none_or(Value::is_array);
    let mut names: Vec<String> = o
        .keys()
        .chain(n.keys())
        .filter(|k| {
            let (a, b) = (o.get(*k), n.get(*k));
            (a.is_some_and(is_step_list) || b.is_some_and(is_step_list))
                && list_or_none(a)
                && list_or_none(b)
        })
        .cloned()
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The list `name` of a step (empty when it has none).
fn list<'a>(step: &'a Value, name: &str) -> &'a [Value] {
    step.get(name)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// A step's parameters: its fields but its sub-step lists (`type` included).
fn params(step: &Value, lists: &[String]) -> Map<String, Value> {
    step.as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| !lists.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// The changed values of two objects, nested objects by dotted names.
fn flat_changes(
    prefix: &str,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    out: &mut Vec<FieldChange>,
) {
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let name = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match (old.get(key), new.get(key)) {
            (Some(Value::Object(o)), Some(Value::Object(n))) => flat_changes(&name, o, n, out),
            (o, n) if o != n => out.push(FieldChange {
                field: name,
                old: o.cloned().unwrap_or(Value::Null),
                new: n.cloned().unwrap_or(Value::Null),
            }),
            _ => {}
        }
    }
}

/// The index pairs of a longest common subsequence of identical steps.
fn longest_common(old: &[Value], new: &[Value]) -> Vec<(usize, usize)> {
    let (n, m) = (old.len(), new.len());
    // lengths[i][j]: the longest common run of old[i..] and new[j..].
    let mut lengths = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lengths[i][j] = if old[i] == new[j] {
                lengths[i + 1][j + 1] + 1
            } else {
                lengths[i + 1][j].max(lengths[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < m {
        if old[i] == new[j] {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if lengths[i + 1][j] >= lengths[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}
