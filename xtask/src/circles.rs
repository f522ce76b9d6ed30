//! `cargo xtask import-circles`: the import circles between the files of
//! each crate.
//!
//! A file's imports are the paths it names: `use` trees (`crate::`,
//! `super::`, `self::` and child modules), and `crate::…`/`super::…` or
//! `child::…` paths written inline. Each path is resolved to the file that
//! defines the module it reaches, following `pub use` re-exports (a
//! re-export is a passage, not a dependency of the file that holds it).
//! Comments and `#[cfg(test)] mod …` blocks are left out: tests may look
//! anywhere. The circles are the strongly connected components of that
//! graph with more than one file; a crate meets the rule when none has more
//! than two.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path inside a crate (`[]` is the crate root).
type ModPath = Vec<String>;

/// One crate's module files and the imports between them.
#[derive(Debug, Default)]
pub struct Graph {
    files: BTreeMap<ModPath, PathBuf>,
    edges: BTreeMap<ModPath, BTreeSet<ModPath>>,
}

/// Runs the command: a table of every crate's largest circle, each circle
/// of more than two files listed; fails with `--check` if there is one.
pub fn run(args: &[String]) -> Result<(), String> {
    let check = args.iter().any(|a| a == "--check");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path().join("src")))
        .filter(|p| p.is_dir())
        .collect();
    dirs.push(root.join("python/src"));
    dirs.push(root.join("xtask/src"));
    dirs.sort();
    let mut over = 0;
    println!(
        "{:<22} {:>5} {:>8}  circles of more than two files",
        "crate", "files", "largest"
    );
    for src in dirs.iter().filter(|d| d.is_dir()) {
        let name = src
            .parent()
            .and_then(Path::file_name)
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let g = Graph::read(src)?;
        let circles = g.circles();
        let largest = circles.first().map_or(0, Vec::len);
        let big: Vec<_> = circles.iter().filter(|c| c.len() > 2).collect();
        let list = big
            .iter()
            .map(|c| {
                format!(
                    "{} [{}]",
                    c.len(),
                    c.iter().map(show).collect::<Vec<_>>().join(", ")
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        println!("{name:<22} {:>5} {largest:>8}  {list}", g.files.len());
        over += big.len();
    }
    if check && over > 0 {
        return Err(format!("{over} import circles of more than two files"));
    }
    Ok(())
}

fn show(m: &ModPath) -> String {
    if m.is_empty() {
        "lib".into()
    } else {
        m.join("::")
    }
}

impl Graph {
    /// The module files under `src` (a crate's `src/`) and their imports.
    pub fn read(src: &Path) -> Result<Graph, String> {
        let mut g = Graph::default();
        let mut stack = vec![src.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
                let p = e.map_err(|e| e.to_string())?.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let rel = p.strip_prefix(src).map_err(|e| e.to_string())?;
                    let mut m: ModPath = rel
                        .with_extension("")
                        .iter()
                        .map(|s| s.to_string_lossy().into_owned())
                        .collect();
                    if m.last().is_some_and(|l| l == "mod") || m == ["lib"] || m == ["main"] {
                        m.pop();
                    }
                    g.files.insert(m, p);
                }
            }
        }
        let texts: BTreeMap<ModPath, String> = g
            .files
            .iter()
            .map(|(m, p)| {
                Ok((
                    m.clone(),
                    strip(&std::fs::read_to_string(p).map_err(|e| e.to_string())?),
                ))
            })
            .collect::<Result<_, String>>()?;
        // Re-exports first: `pub use` items resolve through them.
        let mut reexports: BTreeMap<(ModPath, String), ModPath> = BTreeMap::new();
        let mut uses: BTreeMap<ModPath, Vec<ModPath>> = BTreeMap::new();
        for (m, text) in &texts {
            for (public, tree) in use_statements(text) {
                for (path, alias) in expand(&tree) {
                    let Some(full) = g.absolute(m, &path) else {
                        continue;
                    };
                    if public {
                        reexports.insert((m.clone(), alias), full);
                    } else {
                        uses.entry(m.clone()).or_default().push(full);
                    }
                }
            }
            for path in inline_paths(text) {
                if let Some(full) = g.absolute(m, &path) {
                    uses.entry(m.clone()).or_default().push(full);
                }
            }
        }
        for m in g.files.keys() {
            let targets: BTreeSet<ModPath> = uses
                .get(m)
                .into_iter()
                .flatten()
                .map(|p| resolve(&g.files, &reexports, p, 0))
                .filter(|t| t != m)
                .collect();
            g.edges.insert(m.clone(), targets);
        }
        Ok(g)
    }

    /// `path` as written in module `m`, from the crate root; `None` for an
    /// outside crate.
    fn absolute(&self, m: &ModPath, path: &[String]) -> Option<ModPath> {
        let (first, rest) = path.split_first()?;
        let mut base: ModPath = match first.as_str() {
            "crate" => Vec::new(),
            "self" => m.clone(),
            "super" => m[..m.len().saturating_sub(1)].to_vec(),
            _ => {
                let mut child = m.clone();
                child.push(first.clone());
                if !self.files.contains_key(&child) {
                    return None;
                }
                child
            }
        };
        let mut rest = rest;
        while let Some((s, r)) = rest.split_first() {
            if s != "super" {
                break;
            }
            base.pop();
            rest = r;
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The circles (strongly connected components of more than one file),
    /// largest first.
    pub fn circles(&self) -> Vec<Vec<ModPath>> {
        let nodes: Vec<&ModPath> = self.files.keys().collect();
        let index: BTreeMap<&ModPath, usize> =
            nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        let adj: Vec<Vec<usize>> = nodes
            .iter()
            .map(|m| {
                self.edges[*m]
                    .iter()
                    .filter_map(|t| index.get(t).copied())
                    .collect()
            })
            .collect();
        let mut out: Vec<Vec<ModPath>> = tarjan(&adj)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut c: Vec<ModPath> = c.into_iter().map(|i| nodes[i].clone()).collect();
                c.sort();
                c
            })
            .collect();
        out.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        out
    }
}

/// The file that defines what `path` names: the longest module prefix,
/// through re-exports.
fn resolve(
    files: &BTreeMap<ModPath, PathBuf>,
    reexports: &BTreeMap<(ModPath, String), ModPath>,
    path: &[String],
    depth: usize,
) -> ModPath {
    let mut cur: ModPath = Vec::new();
    for (i, s) in path.iter().enumerate() {
        let mut next = cur.clone();
        next.push(s.clone());
        if files.contains_key(&next) {
            cur = next;
            continue;
        }
        if depth < 16 {
            if let Some(target) = reexports.get(&(cur.clone(), s.clone())) {
                let mut via = target.clone();
                via.extend(path[i + 1..].iter().cloned());
                return resolve(files, reexports, &via, depth + 1);
            }
        }
        break;
    }
    cur
}

/// Iterative Tarjan: the strongly connected components of `adj`.
fn tarjan(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on, mut stack, mut out) = (vec![false; n], Vec::new(), Vec::new());
    let mut next = 0;
    for s in 0..n {
        if index[s] != usize::MAX {
            continue;
        }
        let mut work = vec![(s, 0usize)];
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if *k == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if *k < adj[v].len() {
                let w = adj[v][*k];
                *k += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut c = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    c.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(c);
            }
        }
    }
    out
}

/// `text` without comments and without `#[cfg(test)] mod name { … }`.
fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let code = line.find("//").map_or(line, |i| &line[..i]);
        out.push_str(code);
        out.push('\n');
    }
    while let Some(at) = out.find("#[cfg(test)]") {
        let after = &out[at + "#[cfg(test)]".len()..];
        let t = after.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        let block = t.strip_prefix("mod ").and_then(|r| {
            let name_end = r.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
            r[name_end..].trim_start().starts_with('{').then_some(())
        });
        let cut_from = at;
        let cut_to = match block {
            Some(()) => {
                let open = at + out[at..].find('{').unwrap_or(0);
                let mut depth = 0;
                let mut end = out.len();
                for (i, c) in out[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            // A `#[cfg(test)] mod x;` or item: drop the attribute only.
            None => at + "#[cfg(test)]".len(),
        };
        out.replace_range(cut_from..cut_to, "");
    }
    out
}

/// Every `use` statement: whether it is a re-export, and its tree.
fn use_statements(text: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = find_word(rest, "use") {
        let before = rest[..at].trim_end();
        let public = before.ends_with("pub")
            || before
                .rfind("pub(")
                .is_some_and(|i| before.ends_with(')') && !before[i..].contains('\n'));
        let after = &rest[at + 3..];
        let end = after.find(';').unwrap_or(after.len());
        out.push((public, after[..end].trim().to_owned()));
        rest = &after[end..];
    }
    out
}

/// Where `word` starts as a whole word at a statement start in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let before_ok = text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || c == ';' || c == '{' || c == '}' || c == ')');
        let after_ok = text[at + word.len()..].starts_with(char::is_whitespace);
        if before_ok && after_ok {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// The paths of a use tree (`a::{b, c::d as e}`) with the name each binds.
fn expand(tree: &str) -> Vec<(Vec<String>, String)> {
    fn go(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, String)>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let head: Vec<String> = split_path(&tree[..open]);
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let mut p = prefix.to_vec();
            p.extend(head);
            for part in split_top(inner) {
                go(&p, part, out);
            }
            return;
        }
        let (path, alias) = match tree.split_once(" as ") {
            Some((p, a)) => (p, Some(a.trim().to_owned())),
            None => (tree, None),
        };
        let mut full = prefix.to_vec();
        full.extend(split_path(path).into_iter().filter(|s| s != "self"));
        if full.is_empty() {
            return;
        }
        let alias = alias.unwrap_or_else(|| full.last().cloned().unwrap_or_default());
        out.push((full, alias));
    }
    let mut out = Vec::new();
    go(&[], tree, &mut out);
    out
}

fn split_path(p: &str) -> Vec<String> {
    p.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "*")
        .map(str::to_owned)
        .collect()
}

/// `a, b::{c, d}, e` split at the commas outside braces.
fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// Paths written inline (`crate::a::b`, `super::x`, `child::y`), outside
/// `use` statements.
fn inline_paths(text: &str) -> Vec<Vec<String>> {
    let mut body = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find_word(rest, "use") {
        body.push_str(&rest[..at]);
        let after = &rest[at..];
        rest = &after[after.find(';').map_or(after.len(), |i| i + 1)..];
    }
    body.push_str(rest);
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        let starts = (c.is_ascii_alphabetic() || c == '_')
            && (i == 0 || {
                let p = bytes[i - 1] as char;
                !(p.is_ascii_alphanumeric() || p == '_' || p == ':')
            });
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len()
            && ((bytes[j] as char).is_ascii_alphanumeric() || bytes[j] == b'_' || bytes[j] == b':')
        {
            j += 1;
        }
        let word = &body[i..j];
        if word.contains("::") {
            out.push(split_path(word));
        }
        i = j.max(i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, files: &[(&str, &str)]) {
        for (name, text) in files {
            let p = dir.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    fn crate_of(files: &[(&str, &str)]) -> (PathBuf, Graph) {
        let dir = std::env::temp_dir().join(format!(
            "xtask-circles-{}-{}",
            std::process::id(),
            files.iter().map(|f| f.0.len() + f.1.len()).sum::<usize>()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        write(&dir, files);
        let g = Graph::read(&dir).unwrap();
        (dir, g)
    }

    fn names(g: &Graph) -> Vec<Vec<String>> {
        g.circles()
            .iter()
            .map(|c| c.iter().map(show).collect())
            .collect()
    }

    #[test]
    fn a_parent_and_its_children_that_use_each_other_are_one_circle() {
        let (dir, g) = crate_of(&[
            (
                "lib.rs",
                "mod a;\nmod b;\npub struct Core;\nfn f() { a::go(); b::go(); }\n",
            ),
            ("a.rs", "use crate::Core;\npub fn go() {}\n"),
            ("b.rs", "use super::Core;\npub fn go() {}\n"),
        ]);
        assert_eq!(names(&g), vec![vec!["lib", "a", "b"]]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn re_exports_comments_and_tests_are_no_dependency() {
        let (dir, g) = crate_of(&[
            // lib re-exports a's item; b uses it through the root: b -> a.
            ("lib.rs", "mod a;\nmod b;\npub use a::Thing;\n"),
            ("a.rs", "pub struct Thing;\n// crate::b::other is only a comment\n#[cfg(test)]\nmod tests {\n    use crate::b::other;\n}\n"),
            ("b.rs", "use crate::{Thing};\npub fn other() {}\n"),
        ]);
        assert!(names(&g).is_empty(), "{:?}", names(&g));
        assert!(g.edges[&vec!["b".to_owned()]].contains(&vec!["a".to_owned()]));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn nested_use_trees_and_aliases_resolve() {
        assert_eq!(
            expand("crate::{a::{B, c as D}, e}"),
            vec![
                (vec!["crate".into(), "a".into(), "B".into()], "B".into()),
                (vec!["crate".into(), "a".into(), "c".into()], "D".into()),
                (vec!["crate".into(), "e".into()], "e".into()),
            ]
        );
    }
}
