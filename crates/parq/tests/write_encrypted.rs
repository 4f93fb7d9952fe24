//! Writing encrypted files, checked by parquet 60.1 (`encryption` feature): every mode parq
//! writes (AES_GCM_V1 and AES_GCM_CTR_V1; encrypted or signed plaintext footer; uniform, per
//! column and partly plaintext; AAD prefix none, stored or to supply; 128- and 256-bit keys),
//! with page indexes, Bloom filters, CRCs, dictionaries and a nested column, is read back
//! equal by parq, and by 60.1 in the modes 60.1 reads (not CTR), its page index and Bloom
//! filters decrypted; files 60.1 writes encrypted are read equal by parq. Without keys a
//! plaintext footer shows its metadata and plaintext columns; wrong keys fail clearly.

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parq::format::crypto::{
    Algorithm, ColumnKey, FileDecryptionProperties, FileEncryptionProperties,
};
use parq::format::footer::DecodeOptions;
use parq::read::ParquetReader;
use parq::write::{BloomFilterProperties, ParquetWriter, WriterProperties};
use parq::ErrorKind;

const ROWS: usize = 3000;

fn table() -> RecordBatch {
    let id: Int64Array = (0..ROWS as i64).collect();
    let name: StringArray = (0..ROWS)
        .map(|i| (i % 7 != 3).then(|| format!("name-{}", i % 50)))
        .collect();
    let x: Float64Array = (0..ROWS)
        .map(|i| (i % 11 != 0).then_some(i as f64 * 0.25))
        .collect();
    let mut l = ListBuilder::new(Int32Builder::new()).with_field(Arc::new(Field::new(
        "element",
        DataType::Int32,
        true,
    )));
    for i in 0..ROWS {
        if i % 13 == 0 {
            l.append_null();
        } else {
            for k in 0..(i % 4) {
                l.values().append_value((i + k) as i32);
            }
            l.append(true);
        }
    }
    let l = l.finish();
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("x", DataType::Float64, true),
        Field::new("l", arrow_array::Array::data_type(&l).clone(), true),
    ]);
    let columns: Vec<ArrayRef> = vec![Arc::new(id), Arc::new(name), Arc::new(x), Arc::new(l)];
    RecordBatch::try_new(Arc::new(schema), columns).unwrap()
}

#[derive(Debug, Clone, Copy)]
enum Keys {
    Uniform,
    PerColumn,
    /// `id` and `l` plaintext.
    Partial,
}

#[derive(Debug, Clone, Copy)]
enum Prefix {
    None,
    Stored,
    Supplied,
}

#[derive(Debug, Clone, Copy)]
struct Mode {
    algorithm: Algorithm,
    plaintext_footer: bool,
    keys: Keys,
    prefix: Prefix,
    key_len: usize,
}

fn key(seed: u8, len: usize) -> Vec<u8> {
    (0..len as u8)
        .map(|i| i.wrapping_mul(7).wrapping_add(seed))
        .collect()
}

/// The encrypted columns' keys (leaf path, key) of a mode.
fn column_keys(m: Mode) -> Vec<(&'static str, Vec<u8>)> {
    match m.keys {
        Keys::Uniform => Vec::new(),
        Keys::PerColumn => vec![
            ("id", key(1, m.key_len)),
            ("name", key(2, m.key_len)),
            ("x", key(3, m.key_len)),
            ("l.list.element", key(4, m.key_len)),
        ],
        Keys::Partial => vec![("name", key(2, m.key_len)), ("x", key(3, m.key_len))],
    }
}

fn encryption(m: Mode) -> FileEncryptionProperties {
    let mut e = FileEncryptionProperties::new(key(0, m.key_len))
        .unwrap()
        .algorithm(m.algorithm)
        .plaintext_footer(m.plaintext_footer)
        .footer_key_metadata(b"kf".to_vec());
    for (c, k) in column_keys(m) {
        let ck = ColumnKey {
            key: k,
            key_metadata: Some(format!("key-of-{c}").into_bytes()),
        };
        e = e.column_key(c, ck).unwrap();
    }
    match m.prefix {
        Prefix::None => e,
        Prefix::Stored => e.aad_prefix(b"tables/2026".to_vec(), true),
        Prefix::Supplied => e.aad_prefix(b"tables/2026".to_vec(), false),
    }
}

fn decryption(m: Mode) -> FileDecryptionProperties {
    let mut d = FileDecryptionProperties::with_footer_key(key(0, m.key_len)).unwrap();
    for (c, k) in column_keys(m) {
        d = d.column_key(c, k).unwrap();
    }
    match m.prefix {
        Prefix::Supplied => d.aad_prefix(b"tables/2026".to_vec()),
        _ => d,
    }
}

/// `crc`: page CRCs, of the bodies as stored (encrypted), as parquet-java and pyarrow write and
/// check them; parquet 60.1 checks them against the decrypted bodies and refuses them (as it
/// refuses parquet-java's files), so its files are written without.
fn write_with(m: Mode, batch: &RecordBatch, crc: bool) -> Bytes {
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(1000))
        .data_page_rows(Some(300))
        .page_crc(crc)
        .bloom_filter(Some(BloomFilterProperties::default()))
        .encryption(encryption(m))
        .build()
        .unwrap();
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

fn write(m: Mode, batch: &RecordBatch) -> Bytes {
    write_with(m, batch, true)
}

fn parq_read(file: &Bytes, keys: FileDecryptionProperties) -> parq::Result<RecordBatch> {
    let r = ParquetReader::from_source_with(
        Arc::new(file.clone()),
        DecodeOptions {
            decryption: Some(Arc::new(keys)),
            ..Default::default()
        },
    )?
    .with_verify_crc(true);
    let batches = r.read_all()?;
    Ok(arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap())
}

fn parq_meta(file: &Bytes, keys: FileDecryptionProperties) -> parq::format::metadata::FileMetaData {
    let opts = DecodeOptions {
        decryption: Some(Arc::new(keys)),
        ..Default::default()
    };
    parq::format::footer::decode_file_metadata(file, &opts).unwrap()
}

fn peer_decryption(m: Mode) -> Arc<parquet::encryption::decrypt::FileDecryptionProperties> {
    let mut b = parquet::encryption::decrypt::FileDecryptionProperties::builder(key(0, m.key_len));
    for (c, k) in column_keys(m) {
        b = b.with_column_key(c, k);
    }
    if let Prefix::Supplied = m.prefix {
        b = b.with_aad_prefix(b"tables/2026".to_vec());
    }
    b.build().unwrap()
}

fn peer_read(file: &Bytes, m: Mode) -> RecordBatch {
    use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
    use parquet::file::metadata::PageIndexPolicy;
    let opts = ArrowReaderOptions::new()
        .with_column_index_policy(PageIndexPolicy::Required)
        .with_offset_index_policy(PageIndexPolicy::Required)
        .with_file_decryption_properties(peer_decryption(m));
    let b = ParquetRecordBatchReaderBuilder::try_new_with_options(file.clone(), opts)
        .unwrap_or_else(|e| panic!("parquet 60.1 on {m:?}: {e}"));
    // The page index decrypted: an offset index for every chunk, pages of 300 rows.
    let md = b.metadata().clone();
    for g in 0..md.num_row_groups() {
        let pi = md.page_index_for_row_group(g);
        for j in 0..4 {
            let oi = pi.offset_index(j).expect("an offset index");
            assert!(oi.page_locations().len() >= 3, "{m:?}");
        }
    }
    let batches: Vec<RecordBatch> = b.build().unwrap().collect::<Result<_, _>>().unwrap();
    arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap()
}

/// parq's read of `name = value` with the Bloom filters (decrypted): the rows and the row
/// groups the filters ruled out.
fn bloom_read(file: &Bytes, m: Mode, value: &str) -> (usize, usize) {
    let r = ParquetReader::from_source_with(
        Arc::new(file.clone()),
        DecodeOptions {
            decryption: Some(Arc::new(decryption(m))),
            ..Default::default()
        },
    )
    .unwrap()
    .with_filter(parq::read::parse_filter(&format!("name = '{value}'")).unwrap());
    let mut batches = r.batches().unwrap();
    let rows = batches.by_ref().map(|b| b.unwrap().num_rows()).sum();
    (rows, batches.stats().row_groups_skipped_by_bloom)
}

fn modes() -> Vec<Mode> {
    let mut out = Vec::new();
    for algorithm in [Algorithm::AesGcmV1, Algorithm::AesGcmCtrV1] {
        for plaintext_footer in [false, true] {
            for keys in [Keys::Uniform, Keys::PerColumn, Keys::Partial] {
                for prefix in [Prefix::None, Prefix::Stored, Prefix::Supplied] {
                    out.push(Mode {
                        algorithm,
                        plaintext_footer,
                        keys,
                        prefix,
                        key_len: if out.len() % 2 == 0 { 16 } else { 32 },
                    });
                }
            }
        }
    }
    out
}

#[test]
fn every_mode_reads_back_and_by_parquet_60() {
    let batch = table();
    for m in modes() {
        let file = write(m, &batch);
        let magic: &[u8] = if m.plaintext_footer { b"PAR1" } else { b"PARE" };
        assert_eq!(&file[..4], magic, "{m:?}");
        assert_eq!(&file[file.len() - 4..], magic, "{m:?}");
        let back = parq_read(&file, decryption(m)).unwrap_or_else(|e| panic!("{m:?}: {e}"));
        assert_eq!(back, batch, "{m:?}");
        if m.algorithm == Algorithm::AesGcmV1 {
            let file = write_with(m, &batch, false);
            assert_eq!(parq_read(&file, decryption(m)).unwrap(), batch, "{m:?}");
            let peer = peer_read(&file, m);
            for i in 0..batch.num_columns() {
                assert_eq!(
                    peer.column(i).to_data(),
                    batch.column(i).to_data(),
                    "{m:?}: column {i}"
                );
            }
        }
        // parquet 60.1 reads no encrypted Bloom filter (it takes the header module for a
        // plaintext header); parq's own filters rule row groups out through them.
        let want = (0..ROWS).filter(|i| i % 7 != 3 && i % 50 == 7).count();
        assert_eq!(bloom_read(&file, m, "name-7"), (want, 0), "{m:?}");
        assert_eq!(bloom_read(&file, m, "name-7x"), (0, 3), "{m:?}");
    }
}

#[test]
fn without_keys_and_with_wrong_ones() {
    let batch = table();
    let m = Mode {
        algorithm: Algorithm::AesGcmV1,
        plaintext_footer: true,
        keys: Keys::Partial,
        prefix: Prefix::None,
        key_len: 16,
    };
    let file = write(m, &batch);
    // No keys: the plaintext footer's metadata and the plaintext columns; the encrypted
    // ones' statistics are not shown.
    let r = ParquetReader::from_source(Arc::new(file.clone())).unwrap();
    let md = r.metadata();
    assert_eq!(md.num_rows, ROWS as i64);
    let name = md.schema().leaf_index("name").unwrap();
    assert!(md.row_groups()[0].columns()[name].statistics().is_none());
    let id = r.clone().with_columns(["id", "l"]).read_all().unwrap();
    assert_eq!(id.iter().map(RecordBatch::num_rows).sum::<usize>(), ROWS);
    let e = r.with_columns(["x"]).read_all().unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MissingKey(_)), "{e}");
    // A wrong column key: that column's metadata fails to authenticate.
    let wrong = FileDecryptionProperties::with_footer_key(key(0, 16))
        .unwrap()
        .column_key("name", key(9, 16))
        .unwrap()
        .column_key("x", key(3, 16))
        .unwrap();
    let e = parq_read(&file, wrong).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Decryption { .. }), "{e}");
    // A supplied prefix that is wrong.
    let m = Mode {
        prefix: Prefix::Supplied,
        plaintext_footer: false,
        ..m
    };
    let file = write(m, &batch);
    let e = parq_read(&file, decryption(m).aad_prefix(b"other".to_vec())).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Decryption { .. }), "{e}");
    // Every byte a read uses (pages, footer) is authenticated (GCM): any change fails. (The
    // Bloom filters and page index between them are read by filtered reads.)
    let m = Mode {
        prefix: Prefix::None,
        keys: Keys::PerColumn,
        ..m
    };
    let file = write(m, &batch);
    let md = parq_meta(&file, decryption(m));
    let data_end = md
        .row_groups()
        .iter()
        .flat_map(|g| g.columns())
        .map(|c| {
            let r = parq::page::chunk_range(c).unwrap();
            r.end
        })
        .max()
        .unwrap() as usize;
    let footer_len = u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap());
    let footer_start = file.len() - 8 - footer_len as usize;
    let used = (4..data_end).chain(footer_start..file.len() - 8);
    for at in used.step_by(101) {
        let mut bad = file.to_vec();
        bad[at] ^= 0x01;
        let res = parq_read(&Bytes::from(bad), decryption(m));
        assert!(res.is_err(), "a change at byte {at} went unnoticed");
    }
}

#[test]
fn files_parquet_60_encrypts_read_equal() {
    use parquet::arrow::ArrowWriter;
    use parquet::encryption::encrypt::FileEncryptionProperties as PeerEnc;
    let batch = table();
    for (plaintext_footer, per_column, prefix) in [
        (false, false, None),
        (false, true, Some(false)),
        (true, true, Some(true)),
        (true, false, None),
    ] {
        let mut e = PeerEnc::builder(key(0, 16)).with_plaintext_footer(plaintext_footer);
        let mut d = FileDecryptionProperties::with_footer_key(key(0, 16)).unwrap();
        if per_column {
            for (c, k) in [("name", key(2, 16)), ("x", key(3, 16))] {
                e = e.with_column_key(c, k.clone());
                d = d.column_key(c, k).unwrap();
            }
        }
        if let Some(store) = prefix {
            e = e
                .with_aad_prefix(b"peer".to_vec())
                .with_aad_prefix_storage(store);
            if !store {
                d = d.aad_prefix(b"peer".to_vec());
            }
        }
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(1000))
            .with_file_encryption_properties(e.build().unwrap())
            .build();
        let mut out = Vec::new();
        let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let back = parq_read(&Bytes::from(out), d)
            .unwrap_or_else(|e| panic!("{plaintext_footer} {per_column} {prefix:?}: {e}"));
        assert_eq!(back, batch);
    }
}

#[test]
fn moved_pages_and_chunks_fail_authentication() {
    // Pages and chunks of equal sizes (uncompressed PLAIN int64), moved within the file: each
    // module's AAD names its page, column and row group, so the move is caught.
    let batch = table();
    let m = Mode {
        algorithm: Algorithm::AesGcmV1,
        plaintext_footer: false,
        keys: Keys::Uniform,
        prefix: Prefix::None,
        key_len: 16,
    };
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(1000))
        .data_page_rows(Some(300))
        .compression(parq::write::Codec::parse("none").unwrap())
        .dictionary(false)
        .encryption(encryption(m))
        .build()
        .unwrap();
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let file = Bytes::from(out);
    assert_eq!(parq_read(&file, decryption(m)).unwrap(), batch);
    let md = parq_meta(&file, decryption(m));
    let len = file.len() as u64;
    let pi =
        parq::file::read_page_index_from(&mut std::io::Cursor::new(&file), &md, None, None, len)
            .unwrap()
            .unwrap();
    let swap = |a: (usize, usize), b: (usize, usize)| {
        let mut bad = file.to_vec();
        let (x, y) = (file[a.0..a.0 + a.1].to_vec(), file[b.0..b.0 + b.1].to_vec());
        assert_eq!(x.len(), y.len());
        bad[a.0..a.0 + a.1].copy_from_slice(&y);
        bad[b.0..b.0 + b.1].copy_from_slice(&x);
        parq_read(&Bytes::from(bad), decryption(m)).unwrap_err()
    };
    // Two data pages of `id` swapped.
    let locs = pi.offset_index(0, 0).unwrap().page_locations();
    let at = |i: usize| {
        (
            locs[i].offset as usize,
            locs[i].compressed_page_size as usize,
        )
    };
    let e = swap(at(1), at(2));
    assert!(matches!(e.kind(), ErrorKind::Decryption { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("data page header 1 of row group 0, column 0"),
        "{e}"
    );
    // The chunks of `id` in row groups 0 and 1 swapped.
    let chunk = |g: usize| {
        let r = parq::page::chunk_range(&md.row_groups()[g].columns()[0]).unwrap();
        (r.start as usize, (r.end - r.start) as usize)
    };
    let e = swap(chunk(0), chunk(1));
    assert!(e.to_string().contains("of row group 0, column 0"), "{e}");
}
