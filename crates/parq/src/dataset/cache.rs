//! The footers of files read before, kept for the process: keyed by the file's name, size and
//! version (modification time or ETag), so that a file changed in place is read again. A
//! second query of a dataset reads no footer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::format::metadata::FileMetaData;

/// How many footers are kept at most; past it, the cache starts over.
const MAX_ENTRIES: usize = 16_384;

type Key = (String, u64, Option<String>);

fn cache() -> &'static Mutex<HashMap<Key, Arc<FileMetaData>>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<FileMetaData>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

fn key(name: &str, size: u64, version: Option<&str>) -> Key {
    (name.to_string(), size, version.map(str::to_string))
}

/// The footer kept for this file, if any (never for a file without a version).
pub(crate) fn get(name: &str, size: u64, version: Option<&str>) -> Option<Arc<FileMetaData>> {
    version?;
    let map = cache().lock().unwrap_or_else(|p| p.into_inner());
    map.get(&key(name, size, version)).cloned()
}

/// Keeps `meta` as this file's footer (when the file has a version).
pub(crate) fn put(name: &str, size: u64, version: Option<&str>, meta: &Arc<FileMetaData>) {
    if version.is_none() {
        return;
    }
    let mut map = cache().lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= MAX_ENTRIES {
        map.clear();
    }
    map.insert(key(name, size, version), Arc::clone(meta));
}

/// Forgets every footer kept.
pub fn clear_metadata_cache() {
    cache().lock().unwrap_or_else(|p| p.into_inner()).clear();
}
