//! The async reader: over object_store's local file system (feature `object_store`) and over
//! a real HTTP server on 127.0.0.1 that honours Range requests (`rangehttpserver` from PyPI,
//! `read_async.py`), read with a small HTTP/1.1 range client (`common/http.rs`). Every file of the
//! parquet-testing `data/` directory reads to the batches (or the error) of the sync reader
//! from bytes in memory, with tiny fetches and with the defaults.

mod common;
use common::http::{runtime, serve, Http};
use common::testdata;

use std::path::PathBuf;

use arrow_array::RecordBatch;
use bytes::Bytes;
use parq::read::{AsyncParquetReader, AsyncRangeRead, ParquetReader, ReadOptions};

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

async fn async_read<S: AsyncRangeRead + 'static>(
    source: S,
    fetch: u64,
) -> Result<Vec<RecordBatch>, String> {
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
        let http = Http {
            port: server.1,
            path: name.clone(),
        };
        assert_eq!(
            rt.block_on(stream_read(http)),
            expected,
            "{name}: as a Stream"
        );
        read += usize::from(expected.is_ok());
    }
    assert!(read > 50, "{read}");
}

/// Every batch of `source`'s file, taken through `AsyncRecordBatches` as a `Stream`.
async fn stream_read<S: AsyncRangeRead + 'static>(source: S) -> Result<Vec<RecordBatch>, String> {
    use futures_core::Stream;
    let reader = AsyncParquetReader::open(source)
        .await
        .map_err(|e| e.to_string())?
        .with_options(ReadOptions {
            fetch_bytes: 64,
            coalesce_bytes: 16,
            batch_size: 1000,
            ..ReadOptions::default()
        });
    let mut batches = reader.batches().map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(b) =
        std::future::poll_fn(|cx| std::pin::Pin::new(&mut batches).poll_next(cx)).await
    {
        out.push(b.map_err(|e| e.to_string())?);
    }
    Ok(out)
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

#[test]
fn encrypted_files_read_the_same_over_http_ranges() {
    use parq::format::crypto::FileDecryptionProperties;
    use parq::format::footer::DecodeOptions;
    use std::sync::Arc;
    let keys = Arc::new(
        FileDecryptionProperties::with_footer_key(b"0123456789012345".to_vec())
            .and_then(|k| k.column_key("double_field", b"1234567890123450".to_vec()))
            .and_then(|k| k.column_key("float_field", b"1234567890123451".to_vec()))
            .unwrap(),
    );
    let dir = testdata().join("parquet-testing/data");
    let server = serve(&dir);
    let rt = runtime();
    for name in [
        "encrypt_columns_and_footer.parquet.encrypted",
        "encrypt_columns_and_footer_ctr.parquet.encrypted",
        "encrypt_columns_plaintext_footer.parquet.encrypted",
    ] {
        let expected = ParquetReader::open_encrypted(dir.join(name), keys.clone())
            .and_then(|r| r.with_batch_size(1000).read_all())
            .unwrap();
        for fetch in [64, 4 << 20] {
            let http = Http {
                port: server.1,
                path: name.to_string(),
            };
            let opts = DecodeOptions {
                decryption: Some(keys.clone()),
                ..Default::default()
            };
            let got = rt.block_on(async {
                AsyncParquetReader::open_with(http, opts)
                    .await?
                    .with_options(ReadOptions {
                        fetch_bytes: fetch,
                        coalesce_bytes: fetch / 4,
                        batch_size: 1000,
                        ..ReadOptions::default()
                    })
                    .read_all()
                    .await
            });
            assert_eq!(got.unwrap(), expected, "{name}: fetch {fetch}");
        }
    }
}
