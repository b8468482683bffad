//! The layers of `src/` (docs/architecture.md) hold: the IRI core uses nothing above it, the
//! ladder uses only the core, the stream engine uses no command line, and no two files of
//! the library use each other, directly or through others (no import circles).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a library file: `src/ladder/fast/avx2.rs` → `ladder::fast::avx2`,
/// `src/ladder/mod.rs` → `ladder`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// The library modules a file names through `crate::` paths (in code, not in comments),
/// mapped to the longest known module prefix.
fn uses(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
            for n in (1..=segments.len()).rev() {
                let candidate = segments[..n].join("::");
                if modules.contains(&candidate) {
                    found.insert(candidate);
                    break;
                }
            }
        }
    }
    found
}

/// The library's files and, for each, the modules it uses.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = crate::common::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|f| !f.starts_with(src.join("cli")) && !f.ends_with("main.rs"));
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let module = module_of(&src, f);
            let mut used = uses(&text, &modules);
            used.remove(&module);
            (module, used)
        })
        .collect()
}

fn layer(module: &str) -> &str {
    module.split("::").next().unwrap_or("")
}

#[test]
fn layers_point_one_way() {
    let rank = |l: &str| match l {
        "iri" => 0,
        "ladder" => 1,
        "stream" => 2,
        _ => 3,
    };
    let mut wrong = Vec::new();
    for (module, used) in graph() {
        for u in used {
            if !module.is_empty() && rank(layer(&u)) > rank(layer(&module)) {
                wrong.push(format!("{module} uses {u}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "a layer uses one above it:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_import_circles_between_files() {
    let g = graph();
    // Parents re-export their children: an edge from a file to its own ancestor module is
    // the child reaching a sibling through the parent's re-exports, not a circle of files.
    let edges = |m: &String| -> Vec<String> {
        g[m].iter()
            .filter(|u| !m.starts_with(&format!("{u}::")) && !u.is_empty())
            .filter(|u| g.contains_key(*u))
            .cloned()
            .collect()
    };
    // Depth-first search for a back edge.
    fn visit(
        m: &String,
        edges: &dyn Fn(&String) -> Vec<String>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(2) => return None,
            Some(1) => {
                let at = stack.iter().position(|s| s == m).unwrap();
                let mut cycle = stack[at..].to_vec();
                cycle.push(m.clone());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(m.clone(), 1);
        stack.push(m.clone());
        for next in edges(m) {
            if let Some(cycle) = visit(&next, edges, state, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        state.insert(m.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in g.keys().filter(|m| !m.is_empty()) {
        if let Some(cycle) = visit(m, &edges, &mut state, &mut Vec::new()) {
            panic!("import circle: {}", cycle.join(" -> "));
        }
    }
}

/// The text of every `.rs` file under `src/<dir>`, with its path.
fn sources_under(dir: &str) -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let read = |f: PathBuf| {
        let text = std::fs::read_to_string(&f).unwrap();
        (f, text)
    };
    files.into_iter().map(read).collect()
}

/// The ladder serves the engine through plain functions over lines (its runs of lines): no
/// item of `src/ladder` exists only with the engine's feature, and none names the engine.
#[test]
fn the_ladder_knows_nothing_of_the_engine() {
    let mut wrong = Vec::new();
    for (file, text) in sources_under("ladder") {
        for (i, line) in text.lines().enumerate() {
            if line.contains("cfg(feature = \"stream\")") || line.contains("crate::stream") {
                wrong.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the ladder names the engine:\n{}",
        wrong.join("\n")
    );
}

/// Each key option is defined once, in the library's table (`KEY_OPTIONS`): the command
/// line declares none of them itself (its arguments are made from the table), and no file
/// of the library spells one's `--name` as a second definition would.
#[test]
fn each_key_option_is_defined_once() {
    let mut wrong = Vec::new();
    for option in irinorm::internals::KEY_OPTIONS {
        let long = format!("long = \"{}\"", option.name);
        let flag = format!("\"--{}\"", option.name);
        for (file, text) in sources_under("cli") {
            // Unit tests name the options to check the arguments made from the table.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (i, line) in code.lines().enumerate() {
                let code = !line.trim_start().starts_with("//");
                if code && (line.contains(&long) || line.contains(&flag)) {
                    wrong.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "a key option defined again:\n{}",
        wrong.join("\n")
    );
}
