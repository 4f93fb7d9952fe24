//! Hostile input: truncated and bit-flipped footers, huge lengths, deep nesting, random bytes,
//! broken file tails. Every case must end in an error value (or a valid decode), never a
//! panic, a hang, or an allocation out of proportion to the input.

mod common;

use parq_format::footer::{
    decode_file_metadata, decode_metadata, metadata_slice, DecodeOptions, FooterDecoder, LazyFooter,
};
use parq_format::thrift::{wire, Writer};
use parq_format::ErrorKind;

fn sample_footer() -> Vec<u8> {
    let f = common::corpus_file("parquet-testing/data/alltypes_tiny_pages.parquet");
    let bytes = std::fs::read(f).unwrap();
    metadata_slice(&bytes).unwrap().to_vec()
}

fn all_decoders(data: &[u8]) {
    let _ = decode_metadata(data, &DecodeOptions::default());
    let _ = decode_metadata(data, &DecodeOptions::minimal());
    let opts = DecodeOptions {
        columns: Some(vec![1]),
        row_groups: Some(vec![0]),
        ..Default::default()
    };
    let _ = decode_metadata(data, &opts);
    if let Ok(l) = LazyFooter::open(
        bytes::Bytes::copy_from_slice(data),
        &DecodeOptions::default(),
    ) {
        for rg in 0..l.num_row_groups().min(3) {
            let _ = l.row_group(rg);
            let _ = l.column_chunk(rg, 0);
        }
    }
}

#[test]
fn every_truncation_of_a_footer_is_an_error() {
    let footer = sample_footer();
    for n in 0..footer.len() {
        let e = decode_metadata(&footer[..n], &DecodeOptions::default())
            .expect_err("a truncated footer must not decode");
        assert!(
            e.offset().is_some(),
            "truncation at {n}: error without offset: {e}"
        );
        all_decoders(&footer[..n]);
    }
}

#[test]
fn bit_flips_never_panic() {
    let footer = sample_footer();
    let mut buf = footer.clone();
    for i in 0..footer.len() {
        for bit in [0x01u8, 0x10, 0x80] {
            buf[i] ^= bit;
            all_decoders(&buf);
            buf[i] ^= bit;
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..20_000 {
        let len = (next() % 512) as usize;
        let mut data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        // Half of the cases start like a FileMetaData (version, schema list).
        if round % 2 == 0 && len > 4 {
            data[0] = 0x15;
            data[1] = 0x02;
            data[2] = 0x19;
        }
        all_decoders(&data);
    }
}

#[test]
fn huge_list_lengths_are_rejected_before_allocating() {
    // FileMetaData { 1: version = 1, 2: schema = list<struct> of 2^40 elements }
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out);
    let mut last = 0;
    w.write_field_header(wire::I32, 1, &mut last);
    w.write_i32(1);
    w.write_field_header(wire::LIST, 2, &mut last);
    w.write_list_header(wire::STRUCT, 1 << 40);
    let e = decode_metadata(&out, &DecodeOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LengthTooLarge { .. }), "{e}");
    assert!(e.to_string().contains("FileMetaData field 2"), "{e}");

    // A binary whose length exceeds the input.
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out);
    let mut last = 0;
    w.write_field_header(wire::BINARY, 6, &mut last);
    w.write_uvarint(u32::MAX as u64);
    let e = decode_metadata(&out, &DecodeOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LengthTooLarge { .. }), "{e}");
}

#[test]
fn deep_nesting_is_rejected() {
    // An unknown field 100 holding structs nested 100,000 deep.
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out);
    let mut last = 0;
    w.write_field_header(wire::STRUCT, 100, &mut last);
    for _ in 0..100_000 {
        let mut l = 0;
        w.write_field_header(wire::STRUCT, 1, &mut l);
    }
    let e = decode_metadata(&out, &DecodeOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NestingTooDeep { .. }), "{e}");
    // Lists nested deeply too.
    let mut out = vec![0x19u8]; // field 1, list
    out.extend(std::iter::repeat_n(0x19u8, 100_000)); // list of 1 list, ...
    let e = decode_metadata(&out, &DecodeOptions::default()).unwrap_err();
    assert!(!e.to_string().is_empty());
}

#[test]
fn overlong_varints_are_rejected() {
    let mut out = vec![0x16u8]; // field 1, i64
    out.extend([0xffu8; 11]);
    let e = decode_metadata(&out, &DecodeOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::VarintTooLong), "{e}");
}

#[test]
fn broken_file_tails_get_clear_errors() {
    let kind = |b: &[u8]| {
        decode_file_metadata(b, &DecodeOptions::default())
            .unwrap_err()
            .kind()
            .clone()
    };
    assert!(matches!(
        kind(b"PAR1"),
        ErrorKind::FileTooShort { file_bytes: 4 }
    ));
    assert!(matches!(
        kind(b"PAR1\0\0\0\0\0\0\0\0XXXX"),
        ErrorKind::BadMagic { .. }
    ));
    assert!(matches!(
        kind(b"PAR1\0\0\0\0\xff\xff\0\0PAR1"),
        ErrorKind::FooterLengthOutOfRange { .. }
    ));
    assert!(matches!(
        kind(b"PAR1\0\0\0\0\x04\0\0\0PARE"),
        ErrorKind::EncryptedFooter
    ));
    let limited = DecodeOptions {
        max_footer_bytes: 2,
        ..Default::default()
    };
    let e = decode_file_metadata(b"PAR1\0\0\0\0\x04\0\0\0PAR1", &limited).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::FooterTooLarge { .. }), "{e}");
    // A truncated real file: the footer length points before the start.
    let f = std::fs::read(common::corpus_file(
        "parquet-testing/data/alltypes_plain.parquet",
    ))
    .unwrap();
    let tail = &f[f.len() - 100..];
    assert!(matches!(
        kind(tail),
        ErrorKind::FooterLengthOutOfRange { .. }
    ));
    // The push decoder reports the same.
    let mut d = FooterDecoder::new(tail.len() as u64, DecodeOptions::default());
    let r = d.next_range().unwrap();
    let e = d.push(r.start, &tail[r.start as usize..]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::FooterLengthOutOfRange { .. }),
        "{e}"
    );
}

#[test]
fn encrypted_footers_are_reported_as_needing_keys() {
    let f = common::corpus_file("parquet-testing/data/uniform_encryption.parquet.encrypted");
    let bytes = std::fs::read(f).unwrap();
    let e = decode_file_metadata(&bytes, &DecodeOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::EncryptedFooter));
    assert!(e.to_string().contains("decryption keys"), "{e}");
}

#[test]
fn corrupt_page_indexes_never_panic() {
    use parq_format::footer::{decode_page_index, page_index_range};
    let f = common::corpus_file("parquet-testing/data/alltypes_tiny_pages.parquet");
    let file = std::fs::read(f).unwrap();
    let md = decode_file_metadata(&file, &DecodeOptions::default()).unwrap();
    let range = page_index_range(&md, None, None).unwrap();
    let good = decode_page_index(&file, 0, &md, None, None).unwrap();
    assert_eq!(good.num_column_indexes(), 12);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut bytes = file.clone();
    let span = (range.end - range.start) as usize;
    for _ in 0..3000 {
        let at = range.start as usize + (next() as usize % span);
        let old = bytes[at];
        bytes[at] = next() as u8;
        let _ = decode_page_index(&bytes, 0, &md, None, None);
        bytes[at] = old;
    }
    // Only the index bytes, too short: a clean error.
    let e = decode_page_index(&file[..range.end as usize - 1], 0, &md, None, None).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::WrongRange { .. }), "{e}");
}
