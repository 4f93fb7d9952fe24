//! The shape of the source tree: `src/read/README.md` lists the read path's files in the
//! order the flow runs, and every file may import only files listed above it; `read/` is
//! in folders (at least three, each declaring what it owns) with few files at its top; no
//! source file of the workspace is over 1,000 lines.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

const MAX_SOURCE_LINES: usize = 1_000;
const MAX_TOP_FILES: usize = 8;
const MIN_FOLDERS: usize = 3;

fn read_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/read")
}

/// The files `read/README.md` lists, in order (the first word of the lines of its `text`
/// block that ends in `.rs`), relative to `read/`.
fn stated_order() -> Vec<String> {
    let readme = fs::read_to_string(read_dir().join("README.md")).expect("read/README.md");
    let start = readme
        .find("```text")
        .expect("read/README.md has a ```text block");
    let block = &readme[start + 7..];
    let end = block.find("```").expect("the ```text block ends");
    block[..end]
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.ends_with(".rs"))
        .map(str::to_string)
        .collect()
}

/// Every `.rs` file under `dir`, relative to it.
fn rust_files(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, base, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p.strip_prefix(base).expect("under base").to_path_buf());
        }
    }
}

/// The code of a file without its comments (doc links name items anywhere; only code imports).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module paths a file's code names: `crate::read::a::b::...` and `super::...` (resolved
/// from `file`), as the segments after `read`.
fn named_paths(file: &str, code: &str) -> Vec<(String, Vec<String>)> {
    let folder: Vec<String> = match file.rsplit_once('/') {
        Some((dir, _)) => dir.split('/').map(str::to_string).collect(),
        None => Vec::new(),
    };
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in 0..code.len() {
        let at_boundary = code.is_char_boundary(start)
            && (start == 0
                || !(bytes[start - 1].is_ascii_alphanumeric()
                    || bytes[start - 1] == b'_'
                    || bytes[start - 1] == b':'));
        if !at_boundary {
            continue;
        }
        let rest = &code[start..];
        let (mut base, tail) = if let Some(t) = rest.strip_prefix("crate::read::") {
            (Vec::new(), t)
        } else if rest.starts_with("super::") {
            let mut t = rest;
            let mut base = folder.clone();
            while let Some(after) = t.strip_prefix("super::") {
                base.pop();
                t = after;
            }
            (base, t)
        } else {
            continue;
        };
        let text: String = tail
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':' || *c == '{')
            .collect();
        // `a::b::{c, d}`: the path up to the group, the group marked (`{`).
        let (path, group) = match text.split_once('{') {
            Some((p, _)) => (p.trim_end_matches("::"), true),
            None => (text.as_str(), false),
        };
        for seg in path.split("::").filter(|s| !s.is_empty()) {
            base.push(seg.to_string());
        }
        if group {
            base.push("{".to_string());
        }
        let shown = rest.chars().take(13 + text.len()).collect::<String>();
        out.push((shown, base));
    }
    out
}

/// The listed file a path names: the longest prefix of its segments that is a file.
fn file_named(segments: &[String], files: &BTreeSet<String>) -> Option<String> {
    (1..=segments.len()).rev().find_map(|n| {
        let f = format!("{}.rs", segments[..n].join("/"));
        files.contains(&f).then_some(f)
    })
}

#[test]
fn read_files_import_only_files_listed_above_them() {
    let order = stated_order();
    let listed: BTreeSet<String> = order.iter().cloned().collect();
    assert_eq!(
        listed.len(),
        order.len(),
        "read/README.md lists a file twice"
    );
    let mut found = Vec::new();
    rust_files(&read_dir(), &read_dir(), &mut found);
    let on_disk: BTreeSet<String> = found
        .iter()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .filter(|p| !p.ends_with("mod.rs"))
        .collect();
    assert_eq!(
        on_disk.difference(&listed).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "files of read/ that read/README.md does not list"
    );
    assert_eq!(
        listed.difference(&on_disk).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "files read/README.md lists that do not exist"
    );
    let folders: BTreeSet<&str> = listed
        .iter()
        .filter_map(|f| f.split_once('/').map(|(d, _)| d))
        .collect();
    let mut problems = Vec::new();
    for (i, file) in order.iter().enumerate() {
        let text = fs::read_to_string(read_dir().join(file)).expect("listed file");
        for (shown, segments) in named_paths(file, &code_of(&text)) {
            let grouped = segments.last().is_some_and(|s| s == "{");
            let segments = &segments[..segments.len() - usize::from(grouped)];
            let Some(first) = segments.first() else {
                continue;
            };
            match file_named(segments, &listed) {
                Some(target) => {
                    let j = order.iter().position(|f| *f == target).expect("listed");
                    if j > i {
                        problems.push(format!(
                            "{file} imports {target}, listed below it in read/README.md"
                        ));
                    }
                }
                None if grouped || folders.contains(first.as_str()) => {
                    // `crate::read::decode::{leaf::X, ..}` or a folder's own module: the
                    // files imported are not named one by one.
                    problems.push(format!("{file}: `{shown}`: name each file by its own path"));
                }
                None if segments.len() == 1
                    && file.contains('/')
                    && !first.starts_with(char::is_uppercase) =>
                {
                    // `super::name` inside a folder file: an item of its own file's parent
                    // module, or a test module's `super::item`: not a file.
                }
                None => {
                    if shown.starts_with("crate::read::") {
                        problems.push(format!(
                            "{file}: `{shown}` goes through read's re-exports; name the file"
                        ));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "import order broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn read_is_in_folders_with_few_files_at_its_top() {
    let mut top = Vec::new();
    let mut folders = Vec::new();
    for entry in fs::read_dir(read_dir()).expect("read/") {
        let p = entry.expect("entry").path();
        if p.is_dir() {
            folders.push(p);
        } else {
            top.push(p);
        }
    }
    assert!(
        top.len() <= MAX_TOP_FILES,
        "{} files at read/'s top (at most {MAX_TOP_FILES}): {top:?}",
        top.len()
    );
    assert!(
        folders.len() >= MIN_FOLDERS,
        "read/ has {} folders",
        folders.len()
    );
    for f in &folders {
        let m = fs::read_to_string(f.join("mod.rs")).unwrap_or_default();
        assert!(
            m.starts_with("//!"),
            "{}/mod.rs must open with a doc comment saying what the folder owns",
            f.display()
        );
    }
}

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut long = Vec::new();
    for dir in [
        "crates/parq/src",
        "crates/parq-format/src",
        "crates/parq-cli/src",
        "crates/parq-bench/src",
        "python/src",
    ] {
        let base = root.join(dir);
        let mut files = Vec::new();
        rust_files(&base, &base, &mut files);
        for f in files {
            let lines = fs::read_to_string(base.join(&f))
                .expect("source")
                .lines()
                .count();
            if lines > MAX_SOURCE_LINES {
                long.push(format!("{dir}/{}: {lines} lines", f.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "source files over {MAX_SOURCE_LINES} lines:\n{}",
        long.join("\n")
    );
}
