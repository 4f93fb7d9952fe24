//! Column chunks with the rarer shapes the compact representation stores out of line: a
//! deprecated min/max that differs from min_value/max_value, a long encodings list, physical
//! type and codec values beyond a byte. Each decodes to the right values (fast path or not)
//! and re-encodes to the same bytes.

use parq_format::footer::{decode_metadata, DecodeOptions, LazyFooter};
use parq_format::metadata::{Compression, Encoding, PhysicalType};
use parq_format::thrift::{wire, Writer};

/// A footer with one INT32 column `c` and one row group holding one chunk built by `meta`.
fn footer(meta: impl Fn(&mut Writer<'_>)) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out);
    let mut l = 0;
    w.write_field_header(wire::I32, 1, &mut l);
    w.write_i32(2);
    w.write_field_header(wire::LIST, 2, &mut l);
    w.write_list_header(wire::STRUCT, 2);
    let mut e = 0;
    w.write_field_header(wire::BINARY, 4, &mut e);
    w.write_binary(b"schema");
    w.write_field_header(wire::I32, 5, &mut e);
    w.write_i32(1);
    w.write_stop();
    let mut e = 0;
    w.write_field_header(wire::I32, 1, &mut e);
    w.write_i32(1);
    w.write_field_header(wire::I32, 3, &mut e);
    w.write_i32(0);
    w.write_field_header(wire::BINARY, 4, &mut e);
    w.write_binary(b"c");
    w.write_stop();
    w.write_field_header(wire::I64, 3, &mut l);
    w.write_i64(10);
    w.write_field_header(wire::LIST, 4, &mut l);
    w.write_list_header(wire::STRUCT, 1);
    let mut g = 0;
    w.write_field_header(wire::LIST, 1, &mut g);
    w.write_list_header(wire::STRUCT, 1);
    let mut c = 0;
    w.write_field_header(wire::I64, 2, &mut c);
    w.write_i64(0);
    w.write_field_header(wire::STRUCT, 3, &mut c);
    meta(&mut w);
    w.write_stop();
    w.write_field_header(wire::I64, 2, &mut g);
    w.write_i64(100);
    w.write_field_header(wire::I64, 3, &mut g);
    w.write_i64(10);
    w.write_stop();
    w.write_stop();
    out
}

fn meta(w: &mut Writer<'_>, ty: i32, encodings: &[i32], codec: i32, stats: &[(i16, &[u8])]) {
    let mut m = 0;
    w.write_field_header(wire::I32, 1, &mut m);
    w.write_i32(ty);
    w.write_field_header(wire::LIST, 2, &mut m);
    w.write_list_header(wire::I32, encodings.len());
    for &e in encodings {
        w.write_i32(e);
    }
    w.write_field_header(wire::LIST, 3, &mut m);
    w.write_list_header(wire::BINARY, 1);
    w.write_binary(b"c");
    w.write_field_header(wire::I32, 4, &mut m);
    w.write_i32(codec);
    for (id, v) in [(5, 10), (6, 90), (7, 90), (9, 4)] {
        w.write_field_header(wire::I64, id, &mut m);
        w.write_i64(v);
    }
    w.write_field_header(wire::STRUCT, 12, &mut m);
    let mut s = 0;
    for &(id, v) in stats {
        w.write_field_header(wire::BINARY, id, &mut s);
        w.write_binary(v);
    }
    w.write_stop();
    w.write_stop();
}

fn check(bytes: &[u8]) -> parq_format::metadata::FileMetaData {
    let md = decode_metadata(bytes, &DecodeOptions::default()).unwrap();
    let mut again = Vec::new();
    md.encode(&mut again).unwrap();
    assert_eq!(again, bytes, "re-encoded bytes differ");
    md
}

#[test]
fn deprecated_min_max_that_differ_are_kept_apart() {
    let bytes = footer(|w| {
        meta(
            w,
            1,
            &[0, 3],
            1,
            &[
                (1, b"\x09\0\0\0"),
                (2, b"\xf6\xff\xff\xff"),
                (5, b"\x08\0\0\0"),
                (6, b"\x01\0\0\0"),
            ],
        )
    });
    let md = check(&bytes);
    let c = &md.row_groups()[0].columns()[0];
    let s = c.statistics().unwrap();
    assert_eq!(md.bytes(s.max.unwrap()), b"\x09\0\0\0");
    assert_eq!(md.bytes(s.min.unwrap()), b"\xf6\xff\xff\xff");
    assert_eq!(md.bytes(s.max_value.unwrap()), b"\x08\0\0\0");
    assert_eq!(md.bytes(s.min_value.unwrap()), b"\x01\0\0\0");
    // The lazy view (ranges into the footer itself) agrees.
    let lazy =
        LazyFooter::open(bytes::Bytes::from(bytes.clone()), &DecodeOptions::default()).unwrap();
    let lc = lazy.column_chunk(0, 0).unwrap();
    let ls = lc.statistics().unwrap();
    assert_eq!(ls.min.unwrap().slice(lazy.buf()), b"\xf6\xff\xff\xff");
    assert_eq!(ls.min_value.unwrap().slice(lazy.buf()), b"\x01\0\0\0");
}

#[test]
fn only_deprecated_or_only_current_bounds() {
    for stats in [
        &[(1, &b"\x09\0\0\0"[..]), (2, b"\x01\0\0\0")][..],
        &[(5, b"\x09\0\0\0"), (6, b"\x01\0\0\0")],
    ] {
        let bytes = footer(|w| meta(w, 1, &[0], 0, stats));
        let md = check(&bytes);
        let s = md.row_groups()[0].columns()[0].statistics().unwrap();
        let deprecated = stats[0].0 == 1;
        assert_eq!(s.max.is_some(), deprecated);
        assert_eq!(s.max_value.is_some(), !deprecated);
        let max = s.max.or(s.max_value).unwrap();
        assert_eq!(md.bytes(max), b"\x09\0\0\0");
    }
}

#[test]
fn long_encoding_lists_and_wide_enum_values() {
    let encodings: Vec<i32> = (0..20).map(|i| i % 10).chain([300]).collect();
    let bytes = footer(|w| meta(w, 1000, &encodings, 7000, &[]));
    let md = check(&bytes);
    let c = &md.row_groups()[0].columns()[0];
    assert_eq!(c.encodings().len(), 21);
    assert_eq!(c.encodings().iter().last(), Some(Encoding::Unknown(300)));
    assert_eq!(c.physical_type(), PhysicalType::Unknown(1000));
    assert_eq!(c.codec(), Compression::Unknown(7000));
}

#[test]
fn column_chunks_stay_compact() {
    // The footer's memory is dominated by column chunks: keep them within two cache lines.
    assert!(std::mem::size_of::<parq_format::metadata::ColumnChunk>() <= 128);
}

#[test]
fn wide_null_counts_are_kept() {
    let bytes = footer(|w| {
        let mut m = 0;
        w.write_field_header(wire::I32, 1, &mut m);
        w.write_i32(1);
        w.write_field_header(wire::LIST, 2, &mut m);
        w.write_list_header(wire::I32, 1);
        w.write_i32(0);
        w.write_field_header(wire::LIST, 3, &mut m);
        w.write_list_header(wire::BINARY, 1);
        w.write_binary(b"c");
        w.write_field_header(wire::I32, 4, &mut m);
        w.write_i32(0);
        for (id, v) in [(5, 10), (6, 90), (7, 90), (9, 4)] {
            w.write_field_header(wire::I64, id, &mut m);
            w.write_i64(v);
        }
        w.write_field_header(wire::STRUCT, 12, &mut m);
        let mut s = 0;
        w.write_field_header(wire::I64, 3, &mut s);
        w.write_i64(1 << 40);
        w.write_stop();
        w.write_stop();
    });
    let md = check(&bytes);
    assert_eq!(md.row_groups()[0].columns()[0].null_count(), Some(1 << 40));
}
