//! Outputs that appear whole or not at all: [`TempFile`], a file written under a temporary
//! name beside its target, synced, then renamed over it; [`same_file`] to refuse writing
//! over an input.

use std::fs::{self, File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::{Error, ErrorKind, Result};

/// Whether `a` and `b` name the same existing file (the same inode, or the same canonical
/// path).
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (fs::metadata(a), fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if ma.dev() == mb.dev() && ma.ino() == mb.ino() {
            return true;
        }
    }
    let _ = (ma, mb);
    matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

/// A temporary file next to its target (`.NAME.<pid>.<n>.tmp`), removed on drop unless
/// persisted, so that a failed or interrupted write never leaves a partial file under the
/// target's name.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    target: PathBuf,
    done: bool,
}

impl TempFile {
    /// The temporary file for `target`, and the file open for writing.
    pub fn create(target: &Path) -> Result<(TempFile, File)> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target
            .file_name()
            .ok_or_else(|| {
                Error::new(ErrorKind::InvalidArgument("not a file name".into()))
                    .in_file(target.display().to_string())
            })?
            .to_string_lossy();
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
            match OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => {
                    let tmp = TempFile {
                        path,
                        target: target.to_path_buf(),
                        done: false,
                    };
                    return Ok((tmp, file));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => {}
                Err(e) => {
                    let message =
                        format!("cannot create a temporary file in {}: {e}", dir.display());
                    return Err(Error::new(ErrorKind::Io(message))
                        .with_source(e)
                        .in_file(target.display().to_string()));
                }
            }
        }
    }

    /// The temporary file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes `out` (the temporary file, buffered), syncs it and renames it over the
    /// target.
    pub fn commit(&mut self, out: BufWriter<File>) -> Result<()> {
        let at = |e: Error| e.in_file(self.target.display().to_string());
        let file = out
            .into_inner()
            .map_err(|e| at(Error::from(e.into_error())))?;
        file.sync_all().map_err(|e| at(e.into()))?;
        drop(file);
        self.persist()
    }

    /// Renames the file (written, synced and closed by the caller) over its target.
    pub fn persist(&mut self) -> Result<()> {
        fs::rename(&self.path, &self.target)
            .map_err(|e| Error::from(e).in_file(self.target.display().to_string()))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.path);
        }
    }
}
