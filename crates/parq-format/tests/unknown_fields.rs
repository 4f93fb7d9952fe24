//! Fields the model has no place for (unknown ids, known ids with an unexpected wire type) are
//! written back where they were: after the model field they followed, even when a writer put
//! them out of id order; and `key_value_metadata` entries keep theirs.

use parq_format::footer::{decode_metadata, DecodeOptions};
use parq_format::metadata::{Arena, PageHeader};
use parq_format::thrift::{wire, Reader, Writer};

/// Field headers and values of one structure, with the previous field id tracked.
struct S<'a> {
    w: Writer<'a>,
    last: i16,
}

impl<'a> S<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        S {
            w: Writer::new(out),
            last: 0,
        }
    }
    fn i32(&mut self, id: i16, v: i32) -> &mut Self {
        self.w.write_field_header(wire::I32, id, &mut self.last);
        self.w.write_i32(v);
        self
    }
    fn i64(&mut self, id: i16, v: i64) -> &mut Self {
        self.w.write_field_header(wire::I64, id, &mut self.last);
        self.w.write_i64(v);
        self
    }
    fn bin(&mut self, id: i16, v: &[u8]) -> &mut Self {
        self.w.write_field_header(wire::BINARY, id, &mut self.last);
        self.w.write_binary(v);
        self
    }
    fn bool(&mut self, id: i16, v: bool) -> &mut Self {
        self.w.write_bool_field(id, v, &mut self.last);
        self
    }
    /// A `list<struct>` field whose elements `elems` writes (each ends with its STOP).
    fn structs(&mut self, id: i16, n: usize, elems: impl Fn(&mut S<'_>, usize)) -> &mut Self {
        self.w.write_field_header(wire::LIST, id, &mut self.last);
        self.w.write_list_header(wire::STRUCT, n);
        for i in 0..n {
            let mut out = Vec::new();
            let mut e = S::new(&mut out);
            elems(&mut e, i);
            e.w.write_stop();
            self.w.write_raw(&out);
        }
        self
    }
    fn stop(&mut self) {
        self.w.write_stop();
    }
}

/// `PageHeader` bytes built by `fields` decode, with and without an arena, and re-encode to
/// the same bytes.
fn page_header_round_trip(fields: impl Fn(&mut S<'_>)) -> PageHeader {
    let mut bytes = Vec::new();
    let mut s = S::new(&mut bytes);
    fields(&mut s);
    s.stop();
    let h = PageHeader::decode(&mut Reader::new(&bytes), None).unwrap();
    let mut out = Vec::new();
    h.encode(&mut Writer::new(&mut out), &bytes);
    assert_eq!(out, bytes, "re-encoded page header differs");
    let mut arena = Arena::default();
    let h2 = PageHeader::decode(&mut Reader::new(&bytes), Some(&mut arena)).unwrap();
    let mut out = Vec::new();
    h2.encode(&mut Writer::new(&mut out), arena.as_slice());
    assert_eq!(out, bytes, "re-encoded page header (arena) differs");
    h
}

#[test]
fn unknown_fields_stay_where_they_were() {
    // A negative id written last (as Databricks writes its field -16384 of FileMetaData).
    let h = page_header_round_trip(|s| {
        s.i32(1, 0).i32(2, 10).i32(3, 10).bin(-16384, b"extension");
    });
    assert_eq!(h.unknown.fields()[0].after, 3);
    // In id order, as standard writers put them.
    page_header_round_trip(|s| {
        s.i32(1, 0).i64(-3, 1).i32(2, 10).i32(3, 10).bin(40, b"x");
    });
    // A run of unknown fields, out of id order, between model fields: the run stays whole.
    let h = page_header_round_trip(|s| {
        s.i32(1, 0).i64(50, 1).bin(9, b"y").bool(-1, true);
        s.i32(2, 10).i32(3, 10).i64(20, -5).i64(10, 5);
    });
    let places: Vec<_> = h.unknown.fields().iter().map(|f| (f.id, f.after)).collect();
    assert_eq!(places, [(50, 1), (9, 1), (-1, 1), (20, 3), (10, 3)]);
    // A known id with an unexpected wire type is kept; the same id then arrives as the model
    // field, and the unknown field after it follows the model field, not the kept one.
    let h = page_header_round_trip(|s| {
        s.i32(1, 0)
            .bin(2, b"size as binary")
            .i32(2, 10)
            .bool(40, false)
            .i32(3, 10);
    });
    let places: Vec<_> = h.unknown.fields().iter().map(|f| (f.id, f.after)).collect();
    assert_eq!(places, [(2, 1), (40, 2)]);
    // Unknown fields first, and only unknown fields after the last model field.
    page_header_round_trip(|s| {
        s.i64(100, 1).bin(-2, b"z").i32(1, 0).i32(2, 10).i32(3, 10);
        s.bool(7000, true)
            .bool(i16::MAX, false)
            .bool(i16::MAX, true);
    });
}

/// A footer with the key-value entries `kv` writes (`n` of them), and `extra` after
/// `created_by`.
fn footer(n: usize, kv: impl Fn(&mut S<'_>, usize), extra: impl Fn(&mut S<'_>)) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut s = S::new(&mut bytes);
    s.i32(1, 1);
    s.structs(2, 2, |e, i| {
        if i == 0 {
            e.bin(4, b"schema").i32(5, 1);
        } else {
            e.i32(1, 1).i32(3, 1).bin(4, b"c");
        }
    });
    s.i64(3, 0).structs(4, 0, |_, _| {});
    s.structs(5, n, kv);
    s.bin(6, b"test");
    extra(&mut s);
    s.stop();
    bytes
}

fn reencode(md: &parq_format::metadata::FileMetaData) -> Vec<u8> {
    let mut out = Vec::new();
    md.encode(&mut out).unwrap();
    out
}

#[test]
fn footer_field_written_last_stays_last() {
    let bytes = footer(
        0,
        |_, _| {},
        |s| {
            s.bin(-16384, b"\x01\x02\x03");
        },
    );
    let md = decode_metadata(&bytes, &DecodeOptions::default()).unwrap();
    assert_eq!(reencode(&md), bytes);
}

#[test]
fn key_value_entries_keep_values_of_other_wire_types() {
    // fastparquet 0.8 wrote non-string values as i64 or bool fields.
    let bytes = footer(
        4,
        |e, i| match i {
            0 => {
                e.bin(1, b"k_str").bin(2, b"v");
            }
            1 => {
                e.bin(1, b"k_int").i64(2, 1);
            }
            2 => {
                e.bin(1, b"k_bool").bool(2, true);
            }
            _ => {
                e.bin(1, b"k_future").bin(2, b"w").i32(3, 7);
            }
        },
        |_| {},
    );
    let mut md = decode_metadata(&bytes, &DecodeOptions::default()).unwrap();
    assert_eq!(reencode(&md), bytes);
    let kv = md.key_value_metadata.clone().unwrap();
    let values: Vec<_> = kv.iter().map(|e| e.value.map(|v| md.bytes(v))).collect();
    assert_eq!(values, [Some(&b"v"[..]), None, None, Some(b"w")]);
    // The kept fields belong to the entry at the index where it was decoded: reordered
    // entries are written as the model has them, without the fields of another entry.
    md.key_value_metadata = Some(vec![kv[1], kv[0], kv[2], kv[3]]);
    let expected = footer(
        4,
        |e, i| match i {
            0 => {
                e.bin(1, b"k_int");
            }
            1 => {
                e.bin(1, b"k_str").bin(2, b"v");
            }
            2 => {
                e.bin(1, b"k_bool").bool(2, true);
            }
            _ => {
                e.bin(1, b"k_future").bin(2, b"w").i32(3, 7);
            }
        },
        |_| {},
    );
    assert_eq!(reencode(&md), expected);
}
