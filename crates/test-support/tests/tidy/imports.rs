//! The import graph between the files (modules) of one crate's `src`, read from the text: an
//! edge from a file to the module file a `crate::…` or `super::…` path in its code names (in
//! `use` trees and in expressions alike), the cycles of two or more files in it, and the
//! imports of texts modules (which take plain values, so they import nothing of their crate).

use std::collections::{BTreeMap, BTreeSet};

/// A module path inside its crate: `[]` is the crate root, `["console", "runs"]` is
/// `console/runs.rs` (or `console/runs/mod.rs`).
type ModPath = Vec<String>;

/// The module a file under `src/` is: `lib.rs`/`main.rs` the root, `a/mod.rs` and `a.rs` `a`.
/// `None` for files of other crates sharing the folder (`src/bin/…`).
pub fn module_of(file: &str) -> Option<ModPath> {
    if file.starts_with("bin/") {
        return None;
    }
    let stem = file.strip_suffix(".rs")?;
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    match parts.last().map(String::as_str) {
        Some("lib" | "main") if parts.len() == 1 => parts.clear(),
        Some("mod") => {
            parts.pop();
        }
        _ => {}
    }
    Some(parts)
}

/// `text` without comments, string and character literals (each replaced by a space), so a
/// path is only ever read from code.
pub fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = skip_block_comment(&chars, i);
        } else if c == '"' {
            i = skip_string(&chars, i + 1);
            out.push(' ');
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&chars, i) {
            match skip_raw_string(&chars, i + 1) {
                Some(end) => {
                    i = end;
                    out.push(' ');
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else if c == '\'' {
            // a character literal ('x', '\n', '\u{1F600}'); a lifetime ('a) stays
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                out.push(c);
                i += 1;
            }
            out.push(' ');
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

fn skip_block_comment(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// From just after an opening `"` to just after its closing one.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// From just after the `r` of `r"…"` / `r#"…"#` to just after its end; `None` when it is no
/// raw string after all.
fn skip_raw_string(chars: &[char], mut i: usize) -> Option<usize> {
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    if chars.get(i) != Some(&'"') {
        return None;
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(i)
}

/// Every path in `code` that starts with `crate::` or `super::`, as its segments (a `use`
/// tree's groups give one path per leaf: `crate::a::{b, c::d}` is `crate a b` and
/// `crate a c d`).
pub fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = ["crate::", "super::"]
            .iter()
            .any(|p| chars[i..].iter().take(p.len()).copied().eq(p.chars()));
        let joined =
            i > 0 && (chars[i - 1].is_alphanumeric() || matches!(chars[i - 1], '_' | '$' | ':'));
        if starts && !joined {
            let mut tree = Vec::new();
            i = read_tree(&chars, i, &mut Vec::new(), &mut tree);
            out.extend(tree);
        } else {
            i += 1;
        }
    }
    out
}

fn skip_space(chars: &[char], mut i: usize) -> usize {
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    i
}

fn read_ident(chars: &[char], mut i: usize) -> (String, usize) {
    let mut ident = String::new();
    while let Some(&c) = chars.get(i) {
        if c.is_alphanumeric() || c == '_' {
            ident.push(c);
            i += 1;
        } else {
            break;
        }
    }
    (ident, i)
}

/// Reads one use tree (or expression path) at `i` under `prefix`, pushing each leaf's full
/// path to `out`; returns the index after it.
fn read_tree(
    chars: &[char],
    i: usize,
    prefix: &mut Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    let mut i = skip_space(chars, i);
    let depth = prefix.len();
    loop {
        if chars.get(i) == Some(&'{') {
            i += 1;
            loop {
                i = skip_space(chars, i);
                match chars.get(i) {
                    Some('}') => {
                        i += 1;
                        break;
                    }
                    Some(',') => i += 1,
                    None => break,
                    _ => {
                        let before = i;
                        i = read_tree(chars, i, prefix, out);
                        if i == before {
                            i += 1;
                        }
                    }
                }
            }
            prefix.truncate(depth);
            return i;
        }
        let (ident, after) = read_ident(chars, i);
        if ident.is_empty() {
            // `*` or something that ends the path
            break;
        }
        i = after;
        if ident != "self" {
            prefix.push(ident);
        }
        let j = skip_space(chars, i);
        if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
            i = skip_space(chars, j + 2);
        } else {
            break;
        }
    }
    if !prefix.is_empty() {
        out.push(prefix.clone());
    }
    prefix.truncate(depth);
    // `… as alias`
    let j = skip_space(chars, i);
    if read_ident(chars, j).0 == "as" {
        let (_, after_as) = read_ident(chars, j);
        let (_, after_alias) = read_ident(chars, skip_space(chars, after_as));
        return after_alias;
    }
    i
}

/// The module a path read in the file of module `from` names: `crate`/`super` resolved, then
/// the longest run of segments that is a module of `modules`.
pub fn resolve(from: &ModPath, path: &[String], modules: &BTreeSet<ModPath>) -> ModPath {
    let mut at: ModPath = from.clone();
    let mut rest = path;
    if rest.first().is_some_and(|s| s == "crate") {
        at.clear();
        rest = &rest[1..];
    }
    while rest.first().is_some_and(|s| s == "super") {
        at.pop();
        rest = &rest[1..];
    }
    for seg in rest {
        let mut next = at.clone();
        next.push(seg.clone());
        if modules.contains(&next) {
            at = next;
        } else {
            break;
        }
    }
    at
}

/// The import graph of one crate's `src`: each file (by its path under `src/`) and the files
/// its `crate::`/`super::` paths name. `files` are (path under `src/`, text); only the code
/// before a file's `#[cfg(test)]` module counts.
pub fn graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let by_module: BTreeMap<ModPath, String> = files
        .iter()
        .filter_map(|(file, _)| module_of(file).map(|m| (m, file.clone())))
        .collect();
    let modules: BTreeSet<ModPath> = by_module.keys().cloned().collect();
    let mut edges = BTreeMap::new();
    for (file, text) in files {
        let Some(from) = module_of(file) else {
            continue;
        };
        let shipped = match text.find("#[cfg(test)]") {
            Some(at) => &text[..at],
            None => text.as_str(),
        };
        let targets: BTreeSet<String> = crate_paths(&code_only(shipped))
            .iter()
            .map(|path| resolve(&from, path, &modules))
            .filter(|to| *to != from)
            .filter_map(|to| by_module.get(&to).cloned())
            .collect();
        edges.insert(file.clone(), targets);
    }
    edges
}

/// The cycles of two or more files: each strongly connected component of the graph, as one
/// cycle through it (`a.rs → b.rs → a.rs`, with the component's other files when it has
/// more), sorted.
pub fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut out = Vec::new();
    for component in components(graph) {
        if component.len() < 2 {
            continue;
        }
        let cycle = cycle_through(graph, &component);
        let on_it = cycle.split(" → ").collect::<BTreeSet<_>>().len();
        if on_it < component.len() {
            let all: Vec<&str> = component.iter().map(String::as_str).collect();
            out.push(format!(
                "{cycle} (all files of this knot: {})",
                all.join(", ")
            ));
        } else {
            out.push(cycle);
        }
    }
    out.sort();
    out
}

/// The strongly connected components (Kosaraju: finish order, then the reversed graph).
fn components(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for start in graph.keys() {
        finish(graph, start, &mut seen, &mut order);
    }
    let mut reversed: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, tos) in graph {
        for to in tos {
            reversed.entry(to.as_str()).or_default().push(from.as_str());
        }
    }
    let mut assigned = BTreeSet::new();
    let mut out = Vec::new();
    for start in order.iter().rev() {
        if assigned.contains(start.as_str()) {
            continue;
        }
        let mut component = BTreeSet::new();
        let mut stack = vec![start.as_str()];
        while let Some(node) = stack.pop() {
            if !assigned.insert(node.to_owned()) {
                continue;
            }
            component.insert(node.to_owned());
            stack.extend(reversed.get(node).into_iter().flatten().copied());
        }
        out.push(component);
    }
    out
}

fn finish(
    graph: &BTreeMap<String, BTreeSet<String>>,
    start: &str,
    seen: &mut BTreeSet<String>,
    order: &mut Vec<String>,
) {
    if !seen.insert(start.to_owned()) {
        return;
    }
    // iterative depth-first search: (node, its targets still to visit)
    let mut stack: Vec<(String, Vec<String>)> = vec![(start.to_owned(), targets(graph, start))];
    while let Some((node, mut rest)) = stack.pop() {
        match rest.pop() {
            Some(next) => {
                stack.push((node, rest));
                if seen.insert(next.clone()) {
                    let more = targets(graph, &next);
                    stack.push((next, more));
                }
            }
            None => order.push(node),
        }
    }
}

fn targets(graph: &BTreeMap<String, BTreeSet<String>>, node: &str) -> Vec<String> {
    graph
        .get(node)
        .map(|t| t.iter().cloned().collect())
        .unwrap_or_default()
}

/// One cycle inside `component`, from its first file back to it (a shortest one, breadth
/// first), as `a.rs → b.rs → a.rs`.
fn cycle_through(
    graph: &BTreeMap<String, BTreeSet<String>>,
    component: &BTreeSet<String>,
) -> String {
    let Some(start) = component.iter().next() else {
        return String::new();
    };
    let mut came_from: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.clone()]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(&node).into_iter().flatten() {
            if !component.contains(next) {
                continue;
            }
            if next == start {
                // back at the start: the path to `node`, then the edge home
                let mut path = vec![node.clone()];
                let mut at = node.clone();
                while let Some(prev) = came_from.get(&at) {
                    path.push(prev.clone());
                    at = prev.clone();
                }
                path.reverse();
                path.push(start.clone());
                return path.join(" → ");
            }
            if !came_from.contains_key(next) {
                came_from.insert(next.clone(), node.clone());
                queue.push_back(next.clone());
            }
        }
    }
    component.iter().cloned().collect::<Vec<_>>().join(", ")
}

/// Whether `file` (a path under `src/`) is part of a texts module: `texts.rs`, `a/texts.rs`, or
/// a file under a `texts/` folder.
pub fn is_texts(file: &str) -> bool {
    file.split('/')
        .any(|part| part == "texts" || part == "texts.rs")
}

/// Each import of a texts file from a file of its crate that is no texts file, as
/// `texts.rs → step/mod.rs`, sorted.
pub fn texts_imports(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut out: Vec<String> = graph
        .iter()
        .filter(|(file, _)| is_texts(file))
        .flat_map(|(file, targets)| {
            targets
                .iter()
                .filter(|to| !is_texts(to))
                .map(move |to| format!("{file} → {to}"))
        })
        .collect();
    out.sort();
    out
}
