//! Which files a dataset source names: a file, a directory (walked recursively), a glob, a
//! list of paths, or a URL of an object store; each file with its size and the path below
//! the source that its hive partitions are read from.
//!
//! Files are ordered by their whole path as a string (a directory's and a glob's matches; a
//! list keeps its order). Below a directory or a glob's fixed part, a path part that starts
//! with `_` or `.` hides everything under it (`_SUCCESS`, `_temporary/`, `.crc` files), and
//! a directory gives only its `*.parquet` files.

use std::path::{Path, PathBuf};

use glob::{MatchOptions, Pattern};

use crate::{Error, ErrorKind, Result};

/// Where a dataset's files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatasetSource {
    /// A file, a directory, a glob (`*`, `?`, `[...]`, `**`) or a URL (`s3://`, `gs://`,
    /// `az://`, `abfs://`, `http(s)://`, `file://`).
    Path(String),
    /// Paths or URLs of files, read in this order.
    List(Vec<String>),
}

impl From<&str> for DatasetSource {
    fn from(s: &str) -> Self {
        DatasetSource::Path(s.to_string())
    }
}

impl From<String> for DatasetSource {
    fn from(s: String) -> Self {
        DatasetSource::Path(s)
    }
}

impl From<&Path> for DatasetSource {
    fn from(p: &Path) -> Self {
        DatasetSource::Path(p.to_string_lossy().into_owned())
    }
}

impl From<PathBuf> for DatasetSource {
    fn from(p: PathBuf) -> Self {
        DatasetSource::from(p.as_path())
    }
}

impl<S: Into<String>> From<Vec<S>> for DatasetSource {
    fn from(v: Vec<S>) -> Self {
        DatasetSource::List(v.into_iter().map(Into::into).collect())
    }
}

/// Where one file's bytes are.
#[derive(Debug, Clone)]
pub(crate) enum Location {
    Local(PathBuf),
    #[cfg(feature = "object_store")]
    Store(
        std::sync::Arc<super::store::Store>,
        object_store::path::Path,
    ),
}

/// One file of a dataset, as listed.
#[derive(Debug, Clone)]
pub(crate) struct Listed {
    /// The absolute local path or the URL, as the dataset names it.
    pub(crate) name: String,
    pub(crate) location: Location,
    pub(crate) size: u64,
    /// The modification time or ETag, for the metadata cache.
    pub(crate) version: Option<String>,
    /// The `/`-separated directory parts the hive partitions come from.
    pub(crate) partition_dirs: Vec<String>,
}

/// How a source was given: a single file has no partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SourceKind {
    SingleFile,
    Many,
}

/// Whether `s` is a glob pattern.
pub(crate) fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Whether a path part hides what is below it.
pub(crate) fn is_hidden(part: &str) -> bool {
    part.starts_with('_') || part.starts_with('.')
}

/// Glob matching as shells do: `*` and `?` stay within a path part, `**` crosses them.
pub(crate) fn glob_options() -> MatchOptions {
    MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: false,
    }
}

/// The fixed directory part of a glob (the parts before the first with a wildcard) and the
/// pattern of the rest.
pub(crate) fn split_glob(s: &str) -> (String, String) {
    let parts: Vec<&str> = s.split('/').collect();
    let fixed = parts.iter().take_while(|p| !is_glob(p)).count();
    // The last part is the file pattern even without wildcards.
    let fixed = fixed.min(parts.len().saturating_sub(1));
    let base = parts.get(..fixed).map(|p| p.join("/")).unwrap_or_default();
    let rest = parts.get(fixed..).map(|p| p.join("/")).unwrap_or_default();
    (base, rest)
}

pub(crate) fn bad_pattern(pattern: &str, e: glob::PatternError) -> Error {
    Error::new(ErrorKind::InvalidArgument(format!(
        "bad glob pattern `{pattern}`: {e}"
    )))
}

fn not_found(what: String) -> Error {
    Error::new(ErrorKind::NotFound(what))
}

fn io_at(path: &Path, e: std::io::Error) -> Error {
    let kind = if e.kind() == std::io::ErrorKind::NotFound {
        ErrorKind::NotFound(path.display().to_string())
    } else {
        ErrorKind::Io(format!("{}: {e}", path.display()))
    };
    Error::new(kind).with_source(e)
}

/// The files of a local source (a file, directory or glob; a `file://` URL's path).
pub(crate) fn local(source: &str) -> Result<(SourceKind, Vec<Listed>)> {
    if is_glob(source) {
        return local_glob(source).map(|files| (SourceKind::Many, files));
    }
    let path = absolute(Path::new(source))?;
    let meta = std::fs::metadata(&path).map_err(|e| io_at(&path, e))?;
    if meta.is_dir() {
        let mut files = Vec::new();
        walk(&path, &path, &mut |p, rel, m| {
            if rel.ends_with(".parquet") {
                files.push(listed(p, rel, m));
            }
        })?;
        sort_by_name(&mut files);
        if files.is_empty() {
            return Err(not_found(format!(
                "no Parquet file (`*.parquet`, outside `_` and `.` paths) under {}",
                path.display()
            )));
        }
        return Ok((SourceKind::Many, files));
    }
    let file = listed(&path, "", &meta);
    Ok((SourceKind::SingleFile, vec![file]))
}

/// One local path of a list.
pub(crate) fn local_file(source: &str) -> Result<Listed> {
    let path = absolute(Path::new(source))?;
    let meta = std::fs::metadata(&path).map_err(|e| io_at(&path, e))?;
    if meta.is_dir() {
        return Err(Error::new(ErrorKind::InvalidArgument(format!(
            "{} is a directory: a list of paths names files",
            path.display()
        ))));
    }
    let name = path.to_string_lossy().into_owned();
    Ok(listed(&path, &name, &meta))
}

fn local_glob(source: &str) -> Result<Vec<Listed>> {
    let (base, rest) = split_glob(source);
    let base_path = absolute(Path::new(if base.is_empty() { "." } else { &base }))?;
    let pattern = Pattern::new(&rest).map_err(|e| bad_pattern(source, e))?;
    let mut files = Vec::new();
    if base_path.is_dir() {
        walk(&base_path, &base_path, &mut |p, rel, m| {
            if pattern.matches_with(rel, glob_options()) {
                // Every `key=value` directory of the path is a partition, the fixed part's too.
                files.push(listed(p, &p.to_string_lossy(), m));
            }
        })?;
    }
    sort_by_name(&mut files);
    if files.is_empty() {
        return Err(not_found(format!("no file matches {source}")));
    }
    Ok(files)
}

fn sort_by_name(files: &mut [Listed]) {
    files.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
}

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).map_err(|e| io_at(path, e))
}

/// A listed local file; `rel` is its `/`-separated path below the source.
fn listed(path: &Path, rel: &str, meta: &std::fs::Metadata) -> Listed {
    let version = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos().to_string());
    Listed {
        name: path.to_string_lossy().into_owned(),
        location: Location::Local(path.to_path_buf()),
        size: meta.len(),
        version,
        partition_dirs: dirs_of(rel),
    }
}

/// The directory parts of a `/`-separated path.
pub(crate) fn dirs_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    parts.pop();
    parts
}

/// Calls `found` with every file below `dir` (path, `/`-separated path below `root`,
/// metadata), skipping hidden parts; symbolic links are followed.
fn walk(
    root: &Path,
    dir: &Path,
    found: &mut dyn FnMut(&Path, &str, &std::fs::Metadata),
) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_at(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io_at(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if is_hidden(name) {
            continue;
        }
        let path = entry.path();
        let meta = std::fs::metadata(&path).map_err(|e| io_at(&path, e))?;
        if meta.is_dir() {
            walk(root, &path, found)?;
        } else if meta.is_file() {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            found(&path, &rel.join("/"), &meta);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_split_at_their_first_wildcard_part() {
        assert_eq!(
            split_glob("a/b/*.parquet"),
            ("a/b".into(), "*.parquet".into())
        );
        assert_eq!(
            split_glob("a/**/x=1/*.p"),
            ("a".into(), "**/x=1/*.p".into())
        );
        assert_eq!(split_glob("*.parquet"), ("".into(), "*.parquet".into()));
        assert_eq!(split_glob("/d/f[0-9]"), ("/d".into(), "f[0-9]".into()));
        let p = Pattern::new("*.parquet").unwrap();
        assert!(!p.matches_with("x/y.parquet", glob_options()));
        let p = Pattern::new("**/*.parquet").unwrap();
        assert!(p.matches_with("x/y.parquet", glob_options()));
        assert!(is_hidden("_SUCCESS") && is_hidden(".x.crc") && !is_hidden("a=1"));
        assert_eq!(dirs_of("a=1/b=2/f.parquet"), vec!["a=1", "b=2"]);
        assert!(dirs_of("f.parquet").is_empty());
    }
}
