//! The async reader: over object_store's local file system (feature `object_store`) and over
//! a real HTTP server on 127.0.0.1 that honours Range requests (`rangehttpserver` from PyPI,
//! `read_async.py`), read with a small HTTP/1.1 range client written here. Every file of the
//! parquet-testing `data/` directory reads to the batches (or the error) of the sync reader
//! from bytes in memory, with tiny fetches and with the defaults.

mod common;
use common::{python, testdata};

use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use arrow_array::RecordBatch;
use bytes::Bytes;
use parq::read::{AsyncParquetReader, AsyncRangeRead, ParquetReader, ReadOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The parquet-testing `data/` files (sorted).
fn files() -> Vec<PathBuf> {
    let dir = testdata().join("parquet-testing/data");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    out.sort();
    assert!(out.len() > 50, "{}", out.len());
    out
}

fn sync_read(path: &PathBuf) -> Result<Vec<RecordBatch>, String> {
    let data = Bytes::from(std::fs::read(path).unwrap());
    ParquetReader::from_bytes(data)
        .and_then(|r| r.with_batch_size(1000).read_all())
        .map_err(|e| e.to_string())
}

async fn async_read<S: AsyncRangeRead>(source: S, fetch: u64) -> Result<Vec<RecordBatch>, String> {
    let options = ReadOptions {
        fetch_bytes: fetch,
        coalesce_bytes: fetch / 4,
        batch_size: 1000,
        ..ReadOptions::default()
    };
    let reader = AsyncParquetReader::open(source)
        .await
        .map_err(|e| e.to_string())?
        .with_options(options);
    reader.read_all().await.map_err(|e| e.to_string())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// An HTTP/1.1 client of one URL path on 127.0.0.1, one connection per request.
struct Http {
    port: u16,
    path: String,
}

impl Http {
    /// The response to `request` (head lines and body), checked for `status`.
    async fn call(
        &self,
        method: &str,
        range: Option<&Range<u64>>,
        status: u16,
    ) -> parq::Result<(String, Vec<u8>)> {
        let io = |e: std::io::Error| parq::Error::new(parq::ErrorKind::Io(e.to_string()));
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))
            .await
            .map_err(io)?;
        let mut req = format!(
            "{method} /{} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n",
            self.path
        );
        if let Some(r) = range {
            req.push_str(&format!("Range: bytes={}-{}\r\n", r.start, r.end - 1));
        }
        req.push_str("\r\n");
        stream.write_all(req.as_bytes()).await.map_err(io)?;
        let mut all = Vec::new();
        stream.read_to_end(&mut all).await.map_err(io)?;
        let split = all
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or_else(|| parq::Error::new(parq::ErrorKind::Io("no HTTP head".into())))?;
        let head = String::from_utf8_lossy(&all[..split]).to_string();
        let body = all[split + 4..].to_vec();
        let code: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        if code != status {
            return Err(parq::Error::new(parq::ErrorKind::Io(format!(
                "HTTP {code}, not {status}: {head}"
            ))));
        }
        Ok((head, body))
    }
}

fn content_length(head: &str) -> Option<u64> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("content-length")
            .then(|| v.trim().parse().ok())?
    })
}

impl AsyncRangeRead for Http {
    async fn file_len(&self) -> parq::Result<u64> {
        let (head, _) = self.call("HEAD", None, 200).await?;
        content_length(&head)
            .ok_or_else(|| parq::Error::new(parq::ErrorKind::Io("no length".into())))
    }

    async fn read_ranges(&self, ranges: Vec<Range<u64>>) -> parq::Result<Vec<Bytes>> {
        let mut out = Vec::with_capacity(ranges.len());
        for r in &ranges {
            let (head, body) = self.call("GET", Some(r), 206).await?;
            assert!(head.contains("Content-Range"), "{head}");
            out.push(Bytes::from(body));
        }
        Ok(out)
    }
}

/// The HTTP server, killed when dropped.
struct Server(Child, u16);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(dir: &PathBuf) -> Server {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/read_async.py");
    let mut child = Command::new(python())
        .arg(script)
        .arg(dir)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the HTTP server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("port: {line:?}"));
    Server(child, port)
}

#[test]
fn every_file_reads_the_same_over_http_ranges() {
    let dir = testdata().join("parquet-testing/data");
    let server = serve(&dir);
    let rt = runtime();
    let mut read = 0;
    for path in files() {
        let expected = sync_read(&path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for fetch in [64, 4 << 20] {
            let http = Http {
                port: server.1,
                path: name.clone(),
            };
            let got = rt.block_on(async_read(http, fetch));
            assert_eq!(got, expected, "{name}: fetch {fetch}");
        }
        read += usize::from(expected.is_ok());
    }
    assert!(read > 50, "{read}");
}

#[test]
fn a_missing_object_is_an_error() {
    let server = serve(&testdata().join("parquet-testing/data"));
    let http = Http {
        port: server.1,
        path: "no-such-file.parquet".into(),
    };
    let e = runtime().block_on(async_read(http, 1024)).unwrap_err();
    assert!(e.contains("HTTP 404"), "{e}");
}

#[cfg(feature = "object_store")]
#[test]
fn every_file_reads_the_same_from_object_store_local_files() {
    use std::sync::Arc;

    use object_store::local::LocalFileSystem;
    use object_store::path::Path;
    use parq::read::ObjectStoreSource;

    let dir = testdata().join("parquet-testing/data");
    let store = Arc::new(LocalFileSystem::new_with_prefix(&dir).unwrap());
    let rt = runtime();
    for path in files() {
        let expected = sync_read(&path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for fetch in [100, 4 << 20] {
            let source = ObjectStoreSource::new(store.clone(), Path::from(name.as_str()));
            let got = rt.block_on(async_read(source, fetch));
            assert_eq!(got, expected, "{name}: fetch {fetch}");
        }
        let len = std::fs::metadata(&path).unwrap().len();
        let source = ObjectStoreSource::new(store.clone(), Path::from(name.as_str())).with_len(len);
        assert_eq!(
            rt.block_on(async_read(source, 1 << 20)),
            expected,
            "{name}: length given"
        );
    }
    let missing = ObjectStoreSource::new(store, Path::from("missing.parquet"));
    let e = rt.block_on(async_read(missing, 1024)).unwrap_err();
    assert!(e.contains("missing.parquet"), "{e}");
}
