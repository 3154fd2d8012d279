//! The server crate's structure: no module depends, through any chain of `use`s and paths, on a
//! module that depends back on it (ARCHITECTURE.md, "no circles").
//!
//! Each source file is a node. A file depends on the module a `crate::…` or `super::…` path in
//! it names (the deepest module file the path reaches; an item of a `mod.rs` is that `mod.rs`),
//! so a `pub use` in a `mod.rs` is an edge from it to its child, and a child that takes an item
//! from its parent's `mod.rs` closes a circle. Sibling modules are reached through `super::x`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module path from the crate root, e.g. `["room", "parts", "seats"]`.
type Module = Vec<String>;

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The module a file is, and whether it is a `mod.rs`, `lib.rs` or `main.rs`.
fn module_of(root: &Path, file: &Path) -> (Module, bool) {
    let relative = file.strip_prefix(root).expect("under src");
    let mut parts: Module = relative
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    match last.as_str() {
        "mod" | "lib" | "main" => (parts, true),
        _ => {
            parts.push(last);
            (parts, false)
        }
    }
}

/// Every `crate::`/`super::` path of a file, with `use` groups expanded.
fn paths_in(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut paths = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("use ") {
        let statement = &rest[at + 4..];
        let end = statement.find(';').unwrap_or(statement.len());
        expand(
            "",
            &statement[..end].replace(char::is_whitespace, ""),
            &mut paths,
        );
        rest = &statement[end..];
    }
    for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
        if word.starts_with("crate::") || word.starts_with("super::") {
            paths.push(word.to_owned());
        }
    }
    paths
}

/// Expands `a::{b, c::{d}}` under `prefix` into full paths.
fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let Some(open) = tree.find('{') else {
        out.push(format!("{prefix}{tree}"));
        return;
    };
    let head = format!("{prefix}{}", &tree[..open]);
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut depth, mut start) = (0, 0);
    for (index, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&head, &inner[start..index], out);
                start = index + 1;
            }
            _ => {}
        }
    }
    expand(&head, &inner[start..], out);
}

/// The module file a path reaches from `module`, if it is inside this crate.
fn target(modules: &BTreeSet<Module>, module: &Module, path: &str) -> Option<Module> {
    let mut segments = path.split("::").filter(|segment| !segment.is_empty());
    let mut at: Module = match segments.next()? {
        "crate" => Vec::new(),
        "super" => {
            let mut parent = module.clone();
            parent.pop()?;
            parent
        }
        _ => return None,
    };
    for segment in segments {
        if segment == "super" {
            at.pop();
            continue;
        }
        let mut deeper = at.clone();
        deeper.push(segment.to_owned());
        if !modules.contains(&deeper) {
            break;
        }
        at = deeper;
    }
    Some(at)
}

/// The module graph of `crates/server/src`.
fn graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&root, &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|file| module_of(&root, file).0).collect();
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for file in &files {
        let (module, is_mod) = module_of(&root, file);
        if module.first().is_some_and(|first| first == "main") || module.is_empty() && !is_mod {
            continue;
        }
        let text = fs::read_to_string(file).expect("read a source file");
        let targets = edges.entry(module.clone()).or_default();
        for path in paths_in(&text) {
            if let Some(to) = target(&modules, &module, &path)
                && to != module
                && !to.is_empty()
            {
                targets.insert(to);
            }
        }
    }
    edges
}

/// A circle through `start`, if there is one.
fn circle_from(edges: &BTreeMap<Module, BTreeSet<Module>>, start: &Module) -> Option<Vec<Module>> {
    let mut stack = vec![(start.clone(), vec![start.clone()])];
    let mut seen = BTreeSet::new();
    while let Some((at, trail)) = stack.pop() {
        for next in edges.get(&at).into_iter().flatten() {
            if next == start {
                return Some(trail.clone());
            }
            if seen.insert(next.clone()) {
                let mut longer = trail.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn no_module_of_the_server_depends_on_itself_through_others() {
    let edges = graph();
    assert!(
        edges.len() > 40,
        "the walk found only {} modules",
        edges.len()
    );
    let circles: Vec<String> = edges
        .keys()
        .filter_map(|module| circle_from(&edges, module))
        .map(|circle| {
            let names: Vec<String> = circle.iter().map(|module| module.join("::")).collect();
            names.join(" -> ")
        })
        .collect();
    assert!(circles.is_empty(), "circles:\n{}", circles.join("\n"));
}

#[test]
fn the_walk_sees_a_circle_when_there_is_one() {
    let mut edges = graph();
    let room = vec!["room".to_owned()];
    let core = vec!["room".to_owned(), "core".to_owned()];
    assert!(edges[&core].contains(&vec![
        "room".to_owned(),
        "parts".to_owned(),
        "seats".to_owned()
    ]));
    edges.entry(core.clone()).or_default().insert(room.clone());
    edges.entry(room).or_default().insert(core.clone());
    assert!(circle_from(&edges, &core).is_some());
}
