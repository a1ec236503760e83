//! Keeps the arrows pointing one way. The layers below (`LAYERS`, the table the
//! README's layout and the design's layering table state) rank every file of
//! `src/`; a file imports only from its own layer and the layers below it, and
//! there is no cycle of imports between files, between folders (a sub-folder
//! counts: `core` and `core/wire` are two) or between top-level modules. Each
//! check is also run on a small tree planted with its violation, and must fail.
//!
//! An arrow is a path one file names that resolves into another: a `use` of
//! `crate::…`, `super::…`, `self::…`, a child module or (from the binary)
//! `io_harness::…`, and the same paths written inline in code. A path is followed
//! through re-exports (`pub use`, globs included) to the file that defines the
//! item, as rust-analyzer would, so a module file that only re-exports (a facade)
//! is not an intermediary. Test modules (`#[cfg(test)]`) are left out: they are
//! not part of the layering. Comments and string literals are stripped first.
//!
//! `cargo test --test all layering -- --nocapture` prints the top-level graph.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One parsed `use` leaf: its path, the name it binds, whether it is a glob.
#[derive(Debug, Clone)]
struct UseLeaf {
    path: Vec<String>,
    alias: Option<String>,
    glob: bool,
}

/// A source file in the module tree.
#[derive(Debug)]
struct File {
    /// The crate it belongs to (`lib` or `bin`) and its module path in it.
    krate: &'static str,
    module: Vec<String>,
    /// Code with comments, strings and test modules removed, `use` items blanked.
    body: String,
    uses: Vec<UseLeaf>,
    children: BTreeSet<String>,
}

struct Tree {
    /// The `src` folder read.
    root: PathBuf,
    files: BTreeMap<PathBuf, File>,
    /// (crate, module path) → file.
    modules: HashMap<(&'static str, Vec<String>), PathBuf>,
}

/// Comments and string/char literals removed (strings become `""`).
fn strip(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_'))
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}'), else a lifetime.
            if next == Some('\\') {
                i += 2;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The end (exclusive) of the item starting at `from`: through its `;` or its
/// balanced `{…}`, whichever comes first.
fn item_end(s: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < s.len() {
        match s[i] {
            b';' => return i + 1,
            b'{' => {
                let mut depth = 0;
                while i < s.len() {
                    match s[i] {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return s.len();
            }
            _ => i += 1,
        }
    }
    s.len()
}

/// Every `#[cfg(test)]` item removed.
fn without_tests(code: &str) -> String {
    let mut s = code.to_string();
    while let Some(at) = s.find("#[cfg(test)]") {
        let end = item_end(s.as_bytes(), at + "#[cfg(test)]".len());
        s.replace_range(at..end, "");
    }
    s
}

/// Parse a use tree (`a::b::{c, d::e as f, self}`, `a::*`) under `prefix`.
fn parse_tree(text: &str, prefix: &[String], out: &mut Vec<UseLeaf>) {
    let text = text.trim().trim_start_matches("::");
    let mut path: Vec<String> = prefix.to_vec();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(inner) = rest.strip_prefix('{') {
            let close = inner.rfind('}').unwrap_or(inner.len());
            for part in split_top(&inner[..close]) {
                parse_tree(&part, &path, out);
            }
            return;
        }
        if rest.starts_with('*') {
            out.push(UseLeaf {
                path,
                alias: None,
                glob: true,
            });
            return;
        }
        let end = rest.find("::").unwrap_or(rest.len());
        let seg = rest[..end].trim();
        if end == rest.len() {
            let (name, alias) = match seg.split_once(" as ") {
                Some((n, a)) => (n.trim(), Some(a.trim().to_string())),
                None => (seg, None),
            };
            if name != "self" {
                path.push(name.to_string());
            }
            if !path.is_empty() {
                out.push(UseLeaf {
                    path,
                    alias,
                    glob: false,
                });
            }
            return;
        }
        path.push(seg.to_string());
        rest = &rest[end + 2..];
    }
}

/// Split at the commas of the top nesting level.
fn split_top(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// The `use` items of `code`, parsed, and the code with them blanked.
fn take_uses(code: &str) -> (Vec<UseLeaf>, String) {
    let re = regex::Regex::new(r"(?m)(^|[;{}\]\s])((pub(\([^)]*\))?\s+)?use\s)").expect("regex");
    let mut leaves = Vec::new();
    let mut body = code.to_string();
    let starts: Vec<usize> = re
        .captures_iter(code)
        .filter_map(|c| c.get(2).map(|m| m.start()))
        .collect();
    for start in starts.into_iter().rev() {
        let Some(semi) = code[start..].find(';') else {
            continue;
        };
        let item = &code[start..start + semi];
        let tree = &item[item.find("use").map_or(0, |u| u + 3)..];
        parse_tree(tree, &[], &mut leaves);
        body.replace_range(start..start + semi + 1, "");
    }
    (leaves, body)
}

fn mod_decls(code: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"(?m)^\s*(pub(\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;")
        .expect("regex");
    re.captures_iter(code)
        .filter_map(|c| c.get(3).map(|m| m.as_str().to_string()))
        .collect()
}

fn load(tree: &mut Tree, krate: &'static str, module: Vec<String>, path: PathBuf) {
    let raw = std::fs::read_to_string(&path).unwrap_or_default();
    let code = without_tests(&strip(&raw));
    let children = mod_decls(&code);
    let (uses, body) = take_uses(&code);
    let dir = match path.file_name().and_then(|n| n.to_str()) {
        Some("mod.rs" | "lib.rs" | "main.rs") => path.parent().map(Path::to_path_buf),
        _ => Some(path.with_extension("")),
    }
    .unwrap_or_default();
    tree.modules.insert((krate, module.clone()), path.clone());
    for child in &children {
        let flat = dir.join(format!("{child}.rs"));
        let nested = dir.join(child).join("mod.rs");
        let file = if flat.exists() { flat } else { nested };
        if file.exists() {
            let mut m = module.clone();
            m.push(child.clone());
            load(tree, krate, m, file);
        }
    }
    tree.files.insert(
        path,
        File {
            krate,
            module,
            body,
            uses,
            children,
        },
    );
}

impl Tree {
    fn file(&self, krate: &'static str, module: &[String]) -> Option<&PathBuf> {
        self.modules.get(&(krate, module.to_vec()))
    }

    /// An absolute path's crate and segments, from how `file` wrote it; `None`
    /// for another crate's path.
    fn absolute(&self, file: &File, path: &[String]) -> Option<(&'static str, Vec<String>)> {
        let first = path.first()?.as_str();
        match first {
            "crate" => Some((file.krate, path[1..].to_vec())),
            "io_harness" => Some(("lib", path[1..].to_vec())),
            "self" => Some((file.krate, [&file.module[..], &path[1..]].concat())),
            "super" => {
                let mut m = file.module.clone();
                let mut i = 0;
                while path.get(i).is_some_and(|s| s == "super") {
                    m.pop();
                    i += 1;
                }
                Some((file.krate, [&m[..], &path[i..]].concat()))
            }
            name if file.children.contains(name) => {
                Some((file.krate, [&file.module[..], path].concat()))
            }
            _ => None,
        }
    }

    /// The file that defines what `path` names, through re-exports.
    fn resolve(&self, krate: &'static str, path: &[String], depth: usize) -> Option<PathBuf> {
        let mut module: Vec<String> = Vec::new();
        let mut i = 0;
        while i < path.len() {
            let mut next = module.clone();
            next.push(path[i].clone());
            if self.file(krate, &next).is_none() {
                break;
            }
            module = next;
            i += 1;
        }
        let here = self.file(krate, &module)?.clone();
        if i == path.len() || depth > 8 {
            return Some(here);
        }
        let name = &path[i];
        let file = &self.files[&here];
        for leaf in &file.uses {
            let bound = leaf.alias.as_ref().or(leaf.path.last());
            if !leaf.glob && bound == Some(name) {
                if let Some((k, abs)) = self.absolute(file, &leaf.path) {
                    let rest = [&abs[..], &path[i + 1..]].concat();
                    return self.resolve(k, &rest, depth + 1).or(Some(here));
                }
            }
        }
        for leaf in file.uses.iter().filter(|l| l.glob) {
            if let Some((k, abs)) = self.absolute(file, &leaf.path) {
                if let Some(target) = self.file(k, &abs) {
                    if defines(&self.files[target].body, name) {
                        return Some(target.clone());
                    }
                }
            }
        }
        Some(here)
    }

    /// Every file `path` (of `from`) points at, itself excluded.
    fn arrows(&self, from: &Path) -> BTreeSet<PathBuf> {
        let file = &self.files[from];
        let mut out = BTreeSet::new();
        let mut aliases: HashMap<String, (&'static str, Vec<String>)> = HashMap::new();
        for leaf in &file.uses {
            let Some((k, abs)) = self.absolute(file, &leaf.path) else {
                continue;
            };
            if leaf.glob {
                if let Some(f) = self.file(k, &abs) {
                    out.insert(f.clone());
                }
                continue;
            }
            if self.file(k, &abs).is_some() {
                if let Some(name) = leaf.alias.as_ref().or(leaf.path.last()) {
                    aliases.insert(name.clone(), (k, abs.clone()));
                }
            }
            if let Some(f) = self.resolve(k, &abs, 0) {
                out.insert(f);
            }
        }
        let re = regex::Regex::new(r"(::)?[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)+")
            .expect("regex");
        for m in re.find_iter(&file.body) {
            let text = m.as_str();
            if text.starts_with("::") {
                continue;
            }
            let segs: Vec<String> = text.split("::").map(str::to_string).collect();
            let target = match aliases.get(&segs[0]) {
                Some((k, module)) => Some((*k, [&module[..], &segs[1..]].concat())),
                None => self.absolute(file, &segs),
            };
            if let Some((k, abs)) = target {
                if let Some(f) = self.resolve(k, &abs, 0) {
                    out.insert(f);
                }
            }
        }
        out.remove(from);
        out
    }
}

fn defines(body: &str, name: &str) -> bool {
    let re = regex::Regex::new(&format!(
        r"\b(fn|struct|enum|trait|type|const|static|mod|union)\s+{name}\b"
    ))
    .expect("regex");
    re.is_match(body)
}

fn tree() -> Tree {
    tree_at(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// The module tree under `src` (its `lib.rs` and `main.rs`).
fn tree_at(src: &Path) -> Tree {
    let mut tree = Tree {
        root: src.to_path_buf(),
        files: BTreeMap::new(),
        modules: HashMap::new(),
    };
    load(&mut tree, "lib", Vec::new(), src.join("lib.rs"));
    load(&mut tree, "bin", Vec::new(), src.join("main.rs"));
    tree
}

/// The cycles of a graph: each strongly connected component of more than one node
/// (Tarjan's algorithm), as its nodes.
fn cycles<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    struct Walk<'a, N: Ord> {
        graph: &'a BTreeMap<N, BTreeSet<N>>,
        index: BTreeMap<&'a N, usize>,
        low: BTreeMap<&'a N, usize>,
        stack: Vec<&'a N>,
        on: BTreeSet<&'a N>,
        out: Vec<Vec<N>>,
    }
    fn visit<'a, N: Ord + Clone>(w: &mut Walk<'a, N>, v: &'a N) {
        let i = w.index.len();
        w.index.insert(v, i);
        w.low.insert(v, i);
        w.stack.push(v);
        w.on.insert(v);
        let graph = w.graph;
        for u in graph.get(v).into_iter().flatten() {
            let Some((u, _)) = graph.get_key_value(u) else {
                continue;
            };
            if !w.index.contains_key(u) {
                visit(w, u);
                let l = w.low[u].min(w.low[v]);
                w.low.insert(v, l);
            } else if w.on.contains(u) {
                let l = w.index[u].min(w.low[v]);
                w.low.insert(v, l);
            }
        }
        if w.low[v] == w.index[v] {
            let mut scc = Vec::new();
            while let Some(u) = w.stack.pop() {
                w.on.remove(u);
                scc.push(u.clone());
                if u == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                w.out.push(scc);
            }
        }
    }
    let mut w = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !w.index.contains_key(v) {
            visit(&mut w, v);
        }
    }
    w.out
}

fn file_graph(tree: &Tree) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    tree.files
        .keys()
        .map(|p| (p.clone(), tree.arrows(p)))
        .collect()
}

fn short(p: &Path) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let p = p.strip_prefix(&src).unwrap_or(p);
    // A planted tree's files are shown from its own `src` the same way.
    let text = p.display().to_string();
    match text.find("/src/") {
        Some(at) => text[at + 5..].to_string(),
        None => text,
    }
}

/// A top-level module's name (`core`, `store`, the binary's `cli`); the crate
/// roots are not modules.
fn top(tree: &Tree, p: &Path) -> Option<String> {
    let f = &tree.files[p];
    f.module
        .first()
        .map(|m| format!("{}{m}", if f.krate == "bin" { "bin::" } else { "" }))
}

fn describe(tree: &Tree, graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>, scc: &[PathBuf]) -> String {
    let members: BTreeSet<&PathBuf> = scc.iter().collect();
    let mut lines = Vec::new();
    for a in scc {
        for b in graph[a].iter().filter(|b| members.contains(b)) {
            lines.push(format!("  {} -> {}", short(a), short(b)));
        }
    }
    let _ = tree;
    lines.join("\n")
}

#[test]
fn no_cycle_between_files() {
    let tree = tree();
    let graph = file_graph(&tree);
    assert!(graph.len() > 100, "the module tree was not read");
    let found = cycles(&graph);
    let text: Vec<String> = found
        .iter()
        .map(|scc| describe(&tree, &graph, scc))
        .collect();
    assert!(
        found.is_empty(),
        "{} import cycle(s) between files (the arrows inside each):\n{}",
        found.len(),
        text.join("\n\n")
    );
}

#[test]
fn no_cycle_between_top_level_modules() {
    let tree = tree();
    let files = file_graph(&tree);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut why: BTreeMap<(String, String), String> = BTreeMap::new();
    for (a, targets) in &files {
        let Some(ta) = top(&tree, a) else { continue };
        graph.entry(ta.clone()).or_default();
        for b in targets {
            let Some(tb) = top(&tree, b) else { continue };
            if ta != tb {
                graph.entry(ta.clone()).or_default().insert(tb.clone());
                why.entry((ta.clone(), tb))
                    .or_insert_with(|| format!("{} -> {}", short(a), short(b)));
            }
        }
    }
    for (m, deps) in &graph {
        println!(
            "{m} -> {}",
            deps.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    let found = cycles(&graph);
    let text: Vec<String> = found
        .iter()
        .map(|scc| {
            let members: BTreeSet<&String> = scc.iter().collect();
            let mut lines = vec![scc.join(" / ")];
            for a in scc {
                for b in graph[a].iter().filter(|b| members.contains(b)) {
                    lines.push(format!(
                        "  {a} -> {b} (e.g. {})",
                        why[&(a.clone(), b.clone())]
                    ));
                }
            }
            lines.join("\n")
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} cycle(s) between top-level modules:\n{}",
        found.len(),
        text.join("\n\n")
    );
}

#[test]
fn the_checker_sees_a_cycle() {
    // A graph with a three-file circle and a tail: one cycle, of three.
    let mut g: BTreeMap<u8, BTreeSet<u8>> = BTreeMap::new();
    g.insert(1, [2].into());
    g.insert(2, [3].into());
    g.insert(3, [1, 4].into());
    g.insert(4, BTreeSet::new());
    assert_eq!(cycles(&g), vec![vec![1, 2, 3]]);
    // And the parser follows the shapes the code uses.
    let (uses, body) = take_uses(
        "pub use crate::a::{b, c::{d as e, self}};\nuse super::*;\nfn f() { crate::x::y(); }",
    );
    let paths: Vec<String> = uses.iter().map(|u| u.path.join("::")).collect();
    assert_eq!(
        paths,
        vec!["super", "crate::a::b", "crate::a::c::d", "crate::a::c"]
    );
    assert!(body.contains("crate::x::y"));
    assert_eq!(
        strip("let s = \"crate::a\"; // crate::b\n'c'"),
        "let s = \"\"; \n' '"
    );
}

/// The layers, lowest first, each with the paths under `src/` it holds (a path
/// ending in `/` is a folder; the longest match decides). A file imports only
/// from its own layer and the layers before it. The crate roots (`lib.rs`,
/// which re-exports, and `main.rs`, which starts the faces) are not ranked.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "vocabulary",
        &[
            "core/mod.rs",
            "core/word.rs",
            "core/id.rs",
            "core/vendor.rs",
            "core/outcome.rs",
            "core/verdict.rs",
            "core/eval/status.rs",
            "core/refusal.rs",
            "core/error.rs",
            "core/host.rs",
            "core/location.rs",
            "core/text.rs",
            "core/inert.rs",
            "core/record.rs",
            "core/link.rs",
            "core/query.rs",
        ],
    ),
    (
        "declaration",
        &[
            "core/policy.rs",
            "core/web.rs",
            "core/narrow.rs",
            "core/transcript.rs",
            "core/endpoint.rs",
            "core/plan.rs",
            "core/capability.rs",
            "core/contract.rs",
            "core/turn.rs",
            "core/tools.rs",
            "core/completion.rs",
        ],
    ),
    ("wire", &["core/wire/"]),
    (
        "a run's record in core",
        &[
            "core/event.rs",
            "core/suggestions.rs",
            "core/price.rs",
            "core/money.rs",
            "core/claims.rs",
            "core/counts.rs",
            "core/figures.rs",
            "core/compare/",
            "core/eval/",
        ],
    ),
    ("the machine", &["machine/"]),
    ("record", &["store/"]),
    ("transport", &["provider/"]),
    ("loop", &["approve.rs", "mcp/", "run/"]),
    ("edges", &["telemetry/", "check.rs", "check/", "stub/"]),
    ("configuration", &["config/"]),
    ("launch", &["launch/"]),
    ("faces", &["console/", "cli/"]),
];

/// A path's layer (its index in `LAYERS`); `None` for the crate roots and for
/// a file no layer names.
fn layer(rel: &str) -> Option<usize> {
    LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, (_, paths))| paths.iter().map(move |p| (i, *p)))
        .filter(|(_, p)| {
            if p.ends_with('/') {
                rel.starts_with(p)
            } else {
                rel == *p
            }
        })
        .max_by_key(|(_, p)| p.len())
        .map(|(i, _)| i)
}

fn rel(tree: &Tree, p: &Path) -> String {
    p.strip_prefix(&tree.root)
        .unwrap_or(p)
        .display()
        .to_string()
}

fn is_root(rel: &str) -> bool {
    rel == "lib.rs" || rel == "main.rs"
}

/// Every import against the layers, and every file no layer names.
fn against_the_layers(tree: &Tree) -> Vec<String> {
    let graph = file_graph(tree);
    let mut out = Vec::new();
    for (a, targets) in &graph {
        let ra = rel(tree, a);
        if is_root(&ra) {
            continue;
        }
        let Some(la) = layer(&ra) else {
            out.push(format!("{ra}: no layer names it (add it to LAYERS)"));
            continue;
        };
        for b in targets {
            let rb = rel(tree, b);
            if let Some(lb) = layer(&rb).filter(|lb| *lb > la) {
                out.push(format!(
                    "{ra} ({}) imports {rb} ({}), a layer above it",
                    LAYERS[la].0, LAYERS[lb].0
                ));
            }
        }
    }
    out
}

/// The cycles between folders: an arrow between files of two folders is an
/// arrow between the folders (`core/wire` and `core` are two). A module's file
/// beside its folder (`check.rs` beside `check/`) is of that folder, and a file
/// at the top of `src/` is a module of its own.
fn folder_cycles(tree: &Tree) -> Vec<String> {
    let files = file_graph(tree);
    let folder = |p: &Path| {
        let r = rel(tree, p);
        let stem = r.trim_end_matches(".rs").to_string();
        match r.rfind('/') {
            _ if tree.root.join(&stem).is_dir() => stem,
            Some(at) => r[..at].to_string(),
            None => stem,
        }
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut why: BTreeMap<(String, String), String> = BTreeMap::new();
    for (a, targets) in &files {
        if is_root(&rel(tree, a)) {
            continue;
        }
        let fa = folder(a);
        graph.entry(fa.clone()).or_default();
        for b in targets.iter().filter(|b| !is_root(&rel(tree, b))) {
            let fb = folder(b);
            if fa != fb {
                graph.entry(fa.clone()).or_default().insert(fb.clone());
                why.entry((fa.clone(), fb))
                    .or_insert_with(|| format!("{} -> {}", rel(tree, a), rel(tree, b)));
            }
        }
    }
    cycles(&graph)
        .into_iter()
        .map(|scc| {
            let members: BTreeSet<&String> = scc.iter().collect();
            let mut lines = vec![scc.join(" / ")];
            for a in &scc {
                for b in graph[a].iter().filter(|b| members.contains(b)) {
                    lines.push(format!(
                        "  {a} -> {b} (e.g. {})",
                        why[&(a.clone(), b.clone())]
                    ));
                }
            }
            lines.join("\n")
        })
        .collect()
}

#[test]
fn every_import_follows_the_layers() {
    let tree = tree();
    let found = against_the_layers(&tree);
    assert!(
        found.is_empty(),
        "{} import(s) against the layers:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn no_cycle_between_folders() {
    let found = folder_cycles(&tree());
    assert!(
        found.is_empty(),
        "{} cycle(s) between folders:\n{}",
        found.len(),
        found.join("\n\n")
    );
}

/// A small tree planted with each violation: a core file importing the store
/// above it, a file no layer names, and `core` and `core/wire` importing each
/// other. Each check finds its own, and the clean files pass.
#[test]
fn each_check_fails_on_its_planted_violation() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let write = |path: &str, text: &str| {
        let p = src.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("lib.rs", "pub mod core;\npub mod store;\npub mod stray;\n");
    write("main.rs", "fn main() {}\n");
    write(
        "core/mod.rs",
        "pub mod turn;\npub mod vendor;\npub mod wire;\n",
    );
    write("core/vendor.rs", "pub struct Vendor;\n");
    write(
        "core/turn.rs",
        "use crate::core::wire::Body;\nuse crate::store::Row;\npub struct Turn(Body, Row);\n",
    );
    write(
        "core/wire/mod.rs",
        "use crate::core::turn::Turn;\npub struct Body;\npub fn f(_: Turn) {}\n",
    );
    write(
        "store/mod.rs",
        "use crate::core::vendor::Vendor;\npub struct Row(Vendor);\n",
    );
    write("stray.rs", "pub struct Stray;\n");
    let tree = tree_at(&src);
    let against = against_the_layers(&tree);
    assert!(
        against.contains(
            &"core/turn.rs (declaration) imports store/mod.rs (record), a layer above it"
                .to_string()
        ),
        "{against:?}"
    );
    assert!(
        against.contains(
            &"core/turn.rs (declaration) imports core/wire/mod.rs (wire), a layer above it"
                .to_string()
        ),
        "{against:?}"
    );
    assert!(
        against.contains(&"stray.rs: no layer names it (add it to LAYERS)".to_string()),
        "{against:?}"
    );
    assert!(
        !against.iter().any(|l| l.starts_with("store/mod.rs")),
        "{against:?}"
    );
    let folders = folder_cycles(&tree);
    assert_eq!(folders.len(), 1, "{folders:?}");
    assert!(folders[0].starts_with("core / core/wire"), "{folders:?}");
    assert_eq!(cycles(&file_graph(&tree)).len(), 1);
}
