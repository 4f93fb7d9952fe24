//! Unit tests of the compact protocol reader and writer against hand-assembled bytes.

use super::*;
use crate::error::ErrorKind;

#[test]
fn varints_round_trip_and_match_the_spec() {
    // Spec examples: zigzag 0 -> 0, -1 -> 1, 1 -> 2, -2 -> 3; 300 -> ac 02 (unsigned).
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out);
    w.write_i32(0);
    w.write_i32(-1);
    w.write_i32(1);
    w.write_i32(-2);
    w.write_uvarint(300);
    assert_eq!(out, [0x00, 0x01, 0x02, 0x03, 0xac, 0x02]);
    for v in [
        0i64,
        1,
        -1,
        63,
        -64,
        64,
        i32::MAX as i64,
        i32::MIN as i64,
        i64::MAX,
        i64::MIN,
    ] {
        let mut out = Vec::new();
        Writer::new(&mut out).write_i64(v);
        assert_eq!(Reader::new(&out).read_i64().unwrap(), v);
    }
    for v in [i32::MIN, -1, 0, 1, i32::MAX] {
        let mut out = Vec::new();
        Writer::new(&mut out).write_i32(v);
        assert_eq!(Reader::new(&out).read_i32().unwrap(), v);
    }
    for v in [i16::MIN, -1, 0, 1, i16::MAX] {
        let mut out = Vec::new();
        Writer::new(&mut out).write_i16(v);
        assert_eq!(Reader::new(&out).read_i16().unwrap(), v);
    }
}

#[test]
fn field_headers_use_short_and_long_forms() {
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out);
    let mut last = 0;
    w.write_field_header(wire::I32, 1, &mut last); // delta 1: 0x15
    w.write_field_header(wire::I64, 16, &mut last); // delta 15: 0xf6
    w.write_field_header(wire::BINARY, 40, &mut last); // delta 24: long form 0x08 + zigzag(40)
    w.write_field_header(wire::I32, 3, &mut last); // backwards: long form
    w.write_bool_field(4, true, &mut last); // delta 1, type 1
    w.write_stop();
    assert_eq!(out, [0x15, 0xf6, 0x08, 80, 0x05, 6, 0x11, 0x00]);
    let mut r = Reader::new(&out);
    let mut last = 0;
    let got: Vec<(i16, u8)> =
        std::iter::from_fn(|| r.read_field_header(&mut last).unwrap().map(|t| (last, t))).collect();
    assert_eq!(
        got,
        [
            (1, wire::I32),
            (16, wire::I64),
            (40, wire::BINARY),
            (3, wire::I32),
            (4, wire::BOOL_TRUE)
        ]
    );
}

#[test]
fn a_zero_type_nibble_ends_the_struct() {
    // 0x10: delta 1 with type 0 is read as STOP, as parquet-cpp does.
    let mut r = Reader::new(&[0x10, 0x15, 0x02]);
    let mut last = 0;
    assert_eq!(r.read_field_header(&mut last).unwrap(), None);
}

#[test]
fn list_headers_and_lengths_are_checked() {
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out);
    w.write_list_header(wire::I32, 3);
    w.write_list_header(wire::I32, 20);
    assert_eq!(out, [0x35, 0xf5, 20]);
    // 20 elements announced, 0 bytes follow: rejected before any reservation.
    let mut r = Reader::new(&out[1..]);
    assert!(matches!(
        r.read_list_header().unwrap_err().kind(),
        ErrorKind::LengthTooLarge { .. }
    ));
    let mut r = Reader::new(&[0x05, b'a']);
    assert!(matches!(
        r.read_binary().unwrap_err().kind(),
        ErrorKind::LengthTooLarge { .. }
    ));
}

#[test]
fn skip_handles_every_wire_type() {
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out);
    let mut last = 0;
    w.write_field_header(wire::BYTE, 1, &mut last);
    w.write_i8(-3);
    w.write_field_header(wire::DOUBLE, 2, &mut last);
    w.write_double(1.5);
    w.write_field_header(wire::UUID, 3, &mut last);
    w.write_raw(&[7; 16]);
    w.write_field_header(wire::MAP, 4, &mut last);
    w.write_uvarint(2);
    w.write_raw(&[(wire::BINARY << 4) | wire::I32]);
    w.write_binary(b"k1");
    w.write_i32(5);
    w.write_binary(b"k2");
    w.write_i32(6);
    w.write_field_header(wire::SET, 5, &mut last);
    w.write_list_header(wire::BOOL_TRUE, 2);
    w.write_bool_element(true);
    w.write_bool_element(false);
    w.write_bool_field(6, false, &mut last);
    w.write_stop();
    out.push(0xaa);
    let mut r = Reader::new(&out);
    r.skip_struct().unwrap();
    assert_eq!(r.read_byte().unwrap(), 0xaa);
    // Truncating anywhere is an error, never a panic.
    for n in 0..out.len() - 1 {
        assert!(Reader::new(&out[..n]).skip_struct().is_err(), "prefix {n}");
    }
    // Invalid wire type.
    let mut r = Reader::new(&[0x1e]);
    assert!(matches!(
        r.skip_struct().unwrap_err().kind(),
        ErrorKind::InvalidWireType(14)
    ));
}

#[test]
fn nesting_limit_applies_to_skip() {
    let data = vec![0x1c; 200]; // struct field inside struct field ...
    let mut r = Reader::with_limits(&data, Limits { max_depth: 10 });
    assert!(matches!(
        r.skip_struct().unwrap_err().kind(),
        ErrorKind::NestingTooDeep { limit: 10 }
    ));
}

#[test]
fn wide_varints_truncate_like_thrift_cpp() {
    // zigzag(0x1_0000_0002) = ... truncated to 32 bits gives zigzag 2 -> 1.
    let mut out = Vec::new();
    Writer::new(&mut out).write_uvarint(0x1_0000_0002);
    assert_eq!(Reader::new(&out).read_i32().unwrap(), 1);
    // i16: zigzag over 32 bits first, then truncation (0x2fff_ffff -> 0xe800_0000 -> 0).
    let mut out = Vec::new();
    Writer::new(&mut out).write_uvarint(0x2fff_ffff);
    assert_eq!(Reader::new(&out).read_i16().unwrap(), 0);
}

#[test]
fn field_ids_far_apart_use_the_long_form() {
    // From i16::MIN to 1 the delta overflows i16: it must not be taken for a short delta.
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out);
    let mut last = 0;
    w.write_field_header(wire::I32, i16::MIN, &mut last);
    w.write_i32(0);
    w.write_field_header(wire::I32, 1, &mut last);
    w.write_i32(0);
    let mut r = Reader::new(&out);
    let mut last = 0;
    r.read_field_header(&mut last).unwrap();
    assert_eq!(last, i16::MIN);
    r.read_i32().unwrap();
    r.read_field_header(&mut last).unwrap();
    assert_eq!(last, 1);
}
