//! Datasets in object stores: a URL (`s3://bucket/prefix`, `gs://`, `az://` / `abfs://`,
//! `http(s)://`, `file://`) made into a store with credentials from the environment and the
//! caller's options (object_store's keys: `aws_endpoint_url`, `aws_access_key_id`,
//! `aws_region`, `aws_allow_http`, `google_service_account`, `azure_storage_account_name`,
//! ...), its objects listed, and each read by byte ranges ([`StoreSource`]).
//!
//! The store's requests run on one IO runtime for the process ([`block_on`]); a read waits
//! for them from its own thread. Transient failures are retried with backoff a few times
//! within 15 seconds; when they run out, the error names the URL and the range.

use std::future::Future;
use std::ops::Range;
use std::sync::{Arc, OnceLock};
#[cfg(feature = "cloud")]
use std::time::Duration;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{GetOptions, ObjectStore};

use super::discover::{dirs_of, glob_options, is_glob, is_hidden, split_glob, Listed, Location};
use crate::format::metadata::FileMetaData;
use crate::read::io::source::{short_read, RangeRead};
use crate::read::AsyncParquetReader;
use crate::read::ObjectStoreSource;
use crate::{Error, ErrorKind, Result};

/// How long a request is retried before its error is given.
#[cfg(feature = "cloud")]
const RETRY_TIMEOUT: Duration = Duration::from_secs(15);
/// How many times a request is retried at most.
#[cfg(feature = "cloud")]
const MAX_RETRIES: usize = 4;

/// An object store and the URL its paths are below.
#[derive(Debug)]
pub(crate) struct Store {
    store: Arc<dyn ObjectStore>,
    /// `scheme://authority`, which an object's path follows to make its URL.
    root: String,
}

impl Store {
    /// The URL of the object at `path`.
    pub(crate) fn url(&self, path: &Path) -> String {
        format!("{}/{}", self.root, path)
    }

    /// The URL of the object at key `key` (`/`-separated, not encoded).
    pub(crate) fn url_of(&self, key: &str) -> String {
        format!("{}/{key}", self.root)
    }

    /// Puts `bytes` as the object at `url` (one of this store's).
    pub(crate) fn put(self: &Arc<Self>, url: &str, bytes: Vec<u8>) -> Result<()> {
        let key = url
            .strip_prefix(&self.root)
            .map(|k| k.trim_start_matches('/'))
            .ok_or_else(|| crate::error::internal(format!("{url} is not below {}", self.root)))?;
        let path = Path::from(key);
        let store = Arc::clone(self);
        let what = url.to_string();
        block_on(async move {
            let payload = object_store::PutPayload::from(bytes);
            let put = store
                .store
                .put_opts(&path, payload, Default::default())
                .await;
            put.map(|_| ()).map_err(|e| store.error(&what, e))
        })
    }

    fn error(&self, what: &str, e: object_store::Error) -> Error {
        let kind = match &e {
            object_store::Error::NotFound { .. } => ErrorKind::NotFound(what.to_string()),
            _ => {
                let text = e.to_string();
                if text.contains("NoSuchBucket") || text.contains("ContainerNotFound") {
                    ErrorKind::NotFound(format!("{what}: the bucket does not exist ({text})"))
                } else {
                    ErrorKind::Io(format!("{what}: {text}"))
                }
            }
        };
        Error::new(kind).with_source(e)
    }
}

/// The runtime the stores' requests run on.
fn runtime() -> Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    if let Some(rt) = RUNTIME.get() {
        return Ok(rt);
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("parq-io")
        .enable_all()
        .build()
        .map_err(|e| Error::new(ErrorKind::Io(format!("cannot start the IO runtime: {e}"))))?;
    Ok(RUNTIME.get_or_init(|| rt))
}

/// Runs `fut` on the IO runtime and waits for it (from any thread, inside an async runtime
/// too).
pub(crate) fn block_on<T: Send + 'static>(
    fut: impl Future<Output = Result<T>> + Send + 'static,
) -> Result<T> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    runtime()?.spawn(async move {
        // The receiver waits until this is sent.
        let _ = tx.send(fut.await);
    });
    rx.recv().map_err(|_| {
        Error::new(ErrorKind::Internal(
            "an IO task ended without its result".into(),
        ))
    })?
}

/// Fetches `ranges` of the object at `path` on the IO runtime, then calls `then` with them
/// (on a thread of the runtime: `then` should hand work on, not do it).
pub(crate) fn fetch_then(
    store: Arc<Store>,
    path: Path,
    ranges: Vec<Range<u64>>,
    then: impl FnOnce(Result<Vec<Bytes>>) + Send + 'static,
) {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => return then(Err(e)),
    };
    rt.spawn(async move {
        let got = store.store.get_ranges(&path, &ranges).await;
        let what = || {
            format!(
                "{} ({} ranges of a row group)",
                store.url(&path),
                ranges.len()
            )
        };
        then(got.map_err(|e| store.error(&what(), e)));
    });
}

/// The retries of every store.
#[cfg(feature = "cloud")]
fn retry() -> object_store::RetryConfig {
    object_store::RetryConfig {
        max_retries: MAX_RETRIES,
        retry_timeout: RETRY_TIMEOUT,
        ..Default::default()
    }
}

#[cfg(feature = "cloud")]
fn bad_option(key: &str, scheme: &str) -> Error {
    Error::new(ErrorKind::InvalidArgument(format!(
        "storage option `{key}` is not one of object_store's keys for {scheme}:// URLs"
    )))
}

/// `options` as the config keys of a store of `scheme`.
#[cfg(feature = "cloud")]
fn keys<K: std::str::FromStr>(
    options: &[(String, String)],
    scheme: &str,
) -> Result<Vec<(K, String)>> {
    options
        .iter()
        .map(|(k, v)| Ok((k.parse().map_err(|_| bad_option(k, scheme))?, v.clone())))
        .collect()
}

#[cfg(feature = "cloud")]
fn build_error(url: &str, e: object_store::Error) -> Error {
    Error::new(ErrorKind::InvalidArgument(format!("{url}: {e}"))).with_source(e)
}

/// `scheme`, `authority` and the path of `url` (kept as written: globs stay globs).
fn split_url(url: &str) -> Option<(&str, &str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (rest.get(..i)?, rest.get(i..)?),
        None => (rest, ""),
    };
    Some((scheme, authority, path.trim_start_matches('/')))
}

/// Whether `s` is a URL of a store (anything `scheme://`, other than `file://`).
pub(crate) fn is_url(s: &str) -> bool {
    split_url(s).is_some_and(|(scheme, _, _)| {
        !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+')
    })
}

/// The store of `scheme://authority`, with `options`.
fn store_of(scheme: &str, authority: &str, options: &[(String, String)]) -> Result<Store> {
    let root = format!("{scheme}://{authority}");
    let store = open_store(scheme, &root, options)?;
    Ok(Store { store, root })
}

/// The object store of the URL `root` (`scheme://authority`).
#[cfg_attr(not(feature = "cloud"), allow(unused_variables))]
fn open_store(
    scheme: &str,
    root: &str,
    options: &[(String, String)],
) -> Result<Arc<dyn ObjectStore>> {
    // A builder given the URL, the retries and the options as its config keys, built.
    #[cfg(feature = "cloud")]
    macro_rules! built {
        ($builder:expr, $key:ty) => {{
            let mut b = $builder.with_url(root).with_retry(retry());
            for (key, v) in keys::<$key>(options, scheme)? {
                b = b.with_config(key, v);
            }
            Arc::new(b.build().map_err(|e| build_error(root, e))?)
        }};
    }
    Ok(match scheme {
        #[cfg(feature = "cloud")]
        "s3" | "s3a" => built!(
            object_store::aws::AmazonS3Builder::from_env(),
            object_store::aws::AmazonS3ConfigKey
        ),
        #[cfg(feature = "cloud")]
        "gs" => built!(
            object_store::gcp::GoogleCloudStorageBuilder::from_env(),
            object_store::gcp::GoogleConfigKey
        ),
        #[cfg(feature = "cloud")]
        "az" | "adl" | "azure" | "abfs" | "abfss" => built!(
            object_store::azure::MicrosoftAzureBuilder::from_env(),
            object_store::azure::AzureConfigKey
        ),
        #[cfg(feature = "cloud")]
        // An http:// URL asks for plain HTTP (object_store refuses it by default).
        "http" | "https" => built!(
            object_store::http::HttpBuilder::new()
                .with_config(object_store::ClientConfigKey::AllowHttp, "true"),
            object_store::ClientConfigKey
        ),
        _ => {
            let reads = if cfg!(feature = "cloud") {
                "s3://, gs://, az://, abfs://, http(s):// and file:// URLs"
            } else {
                "file:// URLs only: object stores need its `cloud` feature"
            };
            let message = format!("{scheme}:// URLs (this build of parq reads {reads})");
            Err(Error::new(ErrorKind::Unsupported(message)))?
        }
    })
}

/// Every object below `prefix` (`None`: the whole bucket).
async fn list(store: Arc<Store>, prefix: Option<Path>) -> Result<Vec<object_store::ObjectMeta>> {
    use futures_core::Stream;
    let mut stream = store.store.list(prefix.as_ref());
    let mut out = Vec::new();
    let what = store.url(prefix.as_ref().unwrap_or(&Path::default()));
    while let Some(item) =
        std::future::poll_fn(|cx| std::pin::Pin::new(&mut stream).poll_next(cx)).await
    {
        out.push(item.map_err(|e| store.error(&what, e))?);
    }
    Ok(out)
}

async fn head(store: Arc<Store>, path: Path) -> Result<object_store::ObjectMeta> {
    let got = store
        .store
        .get_opts(&path, GetOptions::new().with_head(true))
        .await;
    got.map(|r| r.meta)
        .map_err(|e| store.error(&store.url(&path), e))
}

fn listed(store: &Arc<Store>, meta: object_store::ObjectMeta, dirs_from: &str) -> Listed {
    let name = store.url(&meta.location);
    let version = meta
        .e_tag
        .clone()
        .or_else(|| Some(meta.last_modified.to_rfc3339()));
    Listed {
        name,
        size: meta.size,
        version,
        partition_dirs: dirs_of(dirs_from),
        location: Location::Store(Arc::clone(store), meta.location),
    }
}

/// The store of `url` and the path after its authority (as written).
fn open_url<'a>(url: &'a str, options: &[(String, String)]) -> Result<(Arc<Store>, &'a str)> {
    let Some((scheme, authority, path)) = split_url(url) else {
        return Err(Error::new(ErrorKind::InvalidArgument(format!(
            "not a URL: {url}"
        ))));
    };
    Ok((Arc::new(store_of(scheme, authority, options)?), path))
}

/// `path` of `url` as an object path (percent-decoded).
fn object_path(url: &str, path: &str) -> Result<Path> {
    Path::from_url_path(path).map_err(|e| {
        Error::new(ErrorKind::InvalidArgument(format!(
            "bad path in {url}: {e}"
        )))
    })
}

/// The parts of an object's path.
fn parts_of(path: &Path) -> Vec<String> {
    path.parts().map(|p| p.as_ref().to_string()).collect()
}

/// The store of `url` and the key prefix its path gives (no leading or trailing `/`).
pub(crate) fn open_prefix(url: &str, options: &[(String, String)]) -> Result<(Arc<Store>, String)> {
    let (store, path) = open_url(url, options)?;
    Ok((store, path.trim_end_matches('/').to_string()))
}

/// The files a URL names: an object, every `*.parquet` object below a prefix (outside `_`
/// and `.` parts), or the objects a glob in its path matches. `single` tells an object from
/// many.
pub(crate) fn discover(url: &str, options: &[(String, String)]) -> Result<(bool, Vec<Listed>)> {
    let (store, path) = open_url(url, options)?;
    let parse = |p: &str| object_path(url, p);
    if is_glob(path) {
        let (base, rest) = split_glob(path);
        let pattern =
            glob::Pattern::new(&rest).map_err(|e| super::discover::bad_pattern(url, e))?;
        let prefix = (!base.is_empty()).then(|| parse(&base)).transpose()?;
        let objects = block_on(list(Arc::clone(&store), prefix.clone()))?;
        let skip = prefix.as_ref().map_or(0, |p| p.parts().count());
        let mut files = Vec::new();
        for meta in objects {
            let parts = parts_of(&meta.location);
            let below = parts.get(skip..).unwrap_or_default();
            if below.iter().any(|p| is_hidden(p)) {
                continue;
            }
            if pattern.matches_with(&below.join("/"), glob_options()) {
                let whole = parts.join("/");
                files.push(listed(&store, meta, &whole));
            }
        }
        files.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        if files.is_empty() {
            return Err(Error::new(ErrorKind::NotFound(format!(
                "no object matches {url}"
            ))));
        }
        return Ok((false, files));
    }
    let object = parse(path)?;
    // A name of a file is looked for as an object first; when there is none, a listing
    // that fails (plain HTTP servers list nothing) leaves it missing.
    let mut missing = None;
    if path.ends_with(".parquet") {
        match block_on(head(Arc::clone(&store), object.clone())) {
            Ok(meta) => return Ok((true, vec![listed(&store, meta, "")])),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound(_)) => missing = Some(e),
            Err(_) => {}
        }
    }
    let prefix = (!path.is_empty()).then_some(object.clone());
    let skip = prefix.as_ref().map_or(0, |p| p.parts().count());
    let objects = match block_on(list(Arc::clone(&store), prefix)) {
        Ok(objects) => objects,
        Err(e) => return Err(missing.unwrap_or(e)),
    };
    let mut files = Vec::new();
    for meta in objects {
        let parts = parts_of(&meta.location);
        let below = parts.get(skip..).unwrap_or_default();
        let hidden = below.iter().any(|p| is_hidden(p));
        if !hidden && below.last().is_some_and(|f| f.ends_with(".parquet")) {
            files.push(listed(&store, meta, &below.join("/")));
        }
    }
    files.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    if !files.is_empty() {
        return Ok((false, files));
    }
    match block_on(head(Arc::clone(&store), object)) {
        Ok(meta) => Ok((true, vec![listed(&store, meta, "")])),
        Err(e) if matches!(e.kind(), ErrorKind::NotFound(_)) => Err(Error::new(
            ErrorKind::NotFound(format!("no Parquet object at or below {url}")),
        )),
        Err(e) => Err(e),
    }
}

/// One object of a list of URLs.
pub(crate) fn discover_one(url: &str, options: &[(String, String)]) -> Result<Listed> {
    let (store, path) = open_url(url, options)?;
    let meta = block_on(head(Arc::clone(&store), object_path(url, path)?))?;
    let whole = parts_of(&meta.location).join("/");
    Ok(listed(&store, meta, &whole))
}

/// The footers of `files` (objects of stores), `concurrency` read at once.
pub(crate) fn read_footers(
    files: Vec<(Arc<Store>, Path, u64)>,
    concurrency: usize,
) -> Result<Vec<Arc<FileMetaData>>> {
    block_on(async move {
        let permits = Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
        let mut tasks = Vec::with_capacity(files.len());
        for (store, path, size) in files {
            let permits = Arc::clone(&permits);
            tasks.push(tokio::spawn(async move {
                let _permit = permits.acquire().await;
                let url = store.url(&path);
                let source = ObjectStoreSource::new(Arc::clone(&store.store), path).with_len(size);
                match AsyncParquetReader::open(source).await {
                    Ok(r) => Ok(Arc::new(r.metadata().clone())),
                    Err(e) => Err(e.in_file(url)),
                }
            }));
        }
        let mut out = Vec::with_capacity(tasks.len());
        for task in tasks {
            let got = task.await.map_err(|e| {
                Error::new(ErrorKind::Internal(format!("a footer read failed: {e}")))
            })?;
            out.push(got?);
        }
        Ok(out)
    })
}

/// An object read by byte ranges, waiting for each request.
#[derive(Debug)]
pub(crate) struct StoreSource {
    pub(crate) store: Arc<Store>,
    pub(crate) path: Path,
    pub(crate) len: u64,
}

impl RangeRead for StoreSource {
    fn file_len(&self) -> u64 {
        self.len
    }

    fn read_range(&self, range: Range<u64>) -> Result<Bytes> {
        let mut got = self.read_ranges(std::slice::from_ref(&range))?;
        match got.pop() {
            Some(b) if got.is_empty() => Ok(b),
            other => Err(short_read(&range, other.map_or(0, |b| b.len()))),
        }
    }

    /// The ranges fetched at once: object_store coalesces the close ones and sends the
    /// requests side by side.
    fn read_ranges(&self, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        let store = Arc::clone(&self.store);
        let path = self.path.clone();
        let ranges = ranges.to_vec();
        block_on(async move {
            let got = store.store.get_ranges(&path, &ranges).await;
            let what = || {
                let (first, last) = (ranges.first(), ranges.last());
                let span = first
                    .zip(last)
                    .map(|(a, b)| format!("{}..{}", a.start, b.end));
                format!("{} (bytes {})", store.url(&path), span.unwrap_or_default())
            };
            let got = got.map_err(|e| store.error(&what(), e))?;
            for (r, b) in ranges.iter().zip(&got) {
                if b.len() as u64 != r.end - r.start {
                    return Err(short_read(r, b.len()).in_file(store.url(&path)));
                }
            }
            Ok(got)
        })
    }
}
