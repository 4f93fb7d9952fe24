//! The footer index never changes what a footer decodes to: hostile indexes (offsets out of
//! bounds, out of order, pointing into the wrong structure, wrong counts or checksums,
//! truncated) fall back to the scan with equal results, never an error or a panic. Also the
//! push decoder fetching the index of a file.

mod common;

use common::{fingerprint, footers};
use parq_format::footer::{
    build_index, decode_metadata, decode_metadata_with_index, DecodeOptions, FooterDecoder,
    FooterIndex, LazyFooter, INDEX_MAGIC,
};
use parq_format::metadata::FileMetaData;
use parq_format::thrift::Limits;

/// The payload words of an index block.
fn words(block: &[u8]) -> Vec<u32> {
    let payload = &block[..block.len() - 12];
    payload
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

/// An index block of `words`, with a correct checksum (so checks beyond it are exercised).
fn block_of(words: &[u32]) -> Vec<u8> {
    let mut out: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let crc = crc32fast::hash(&out);
    let len = out.len() as u32;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(INDEX_MAGIC);
    out
}

/// Hostile variants of a valid block, each named.
fn variants(block: &[u8], footer_len: usize) -> Vec<(String, Vec<u8>)> {
    let w = words(block);
    let (rgs, cols) = (w[1] as usize, w[2] as usize);
    let rg_at = 6;
    let end_at = 6 + rgs;
    let chunk_at = 6 + 2 * rgs;
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let mut edit = |name: &str, f: &dyn Fn(&mut Vec<u32>)| {
        let mut v = w.clone();
        f(&mut v);
        out.push((name.to_string(), block_of(&v)));
    };
    edit("footer length", &|v| v[0] += 1);
    edit("more row groups", &|v| v[1] += 1);
    edit("fewer columns", &|v| v[2] = v[2].saturating_sub(1));
    edit("list start", &|v| v[3] += 1);
    edit("list end", &|v| v[4] -= 1);
    edit("outside checksum", &|v| v[5] ^= 1);
    edit("row group out of bounds", &|v| {
        v[rg_at + rgs - 1] = footer_len as u32 + 10
    });
    edit("row group start shifted", &|v| v[rg_at] += 1);
    edit("columns end early", &|v| v[end_at] -= 1);
    edit("columns end past the list", &|v| {
        v[end_at + rgs - 1] = u32::MAX
    });
    edit("chunk out of bounds", &|v| v[chunk_at] = u32::MAX);
    edit("chunk shifted", &|v| v[chunk_at + cols - 1] += 1);
    edit("chunk shifted back", &|v| v[chunk_at + cols - 1] -= 1);
    if cols >= 2 {
        edit("chunks out of order", &|v| v.swap(chunk_at, chunk_at + 1));
        edit("chunk into its neighbour", &|v| {
            v[chunk_at + 1] = v[chunk_at] + 1
        });
    }
    if rgs >= 2 {
        edit("chunk into the next row group", &|v| {
            v[chunk_at + cols - 1] = v[chunk_at + cols + cols - 1]
        });
        edit("row groups swapped", &|v| v.swap(rg_at, rg_at + 1));
    }
    edit("tables truncated", &|v| {
        v.pop();
    });
    let mut bad_crc = block.to_vec();
    let n = bad_crc.len();
    bad_crc[n - 8] ^= 0x40;
    out.push(("checksum".into(), bad_crc));
    out.push(("truncated block".into(), block[8..].to_vec()));
    let mut bad_magic = block.to_vec();
    bad_magic[n - 1] = b'0';
    out.push(("magic".into(), bad_magic));
    out
}

fn check_lazy(name: &str, full: &FileMetaData, lazy: &LazyFooter) {
    assert_eq!(lazy.num_row_groups(), full.row_groups().len(), "{name}");
    for (i, g) in full.row_groups().iter().enumerate() {
        let lg = lazy
            .row_group(i)
            .unwrap_or_else(|e| panic!("{name}: rg {i}: {e}"));
        for (j, c) in g.columns().iter().enumerate() {
            let want = fingerprint(c, full.buf(), true);
            let lc = lazy
                .column_chunk(i, j)
                .unwrap_or_else(|e| panic!("{name}: rg {i} col {j}: {e}"));
            assert_eq!(fingerprint(&lc, lazy.buf(), true), want, "{name}: {i}/{j}");
            assert_eq!(
                fingerprint(&lg.columns()[j], lazy.buf(), true),
                want,
                "{name}: row group {i} col {j}"
            );
        }
    }
}

fn check_selection(name: &str, footer: &[u8], block: &[u8], opts: &DecodeOptions) {
    let want = decode_metadata(footer, opts).unwrap();
    let got = decode_metadata_with_index(footer, FooterIndex::find(block), opts)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(got.buf(), want.buf(), "{name}");
    assert_eq!(
        format!("{:?}", got.row_groups()),
        format!("{:?}", want.row_groups()),
        "{name}"
    );
}

/// A file of `footer` with `block` before it, as parq lays it out.
fn file_of(footer: &[u8], block: &[u8]) -> Vec<u8> {
    let mut f = b"PAR1".to_vec();
    f.extend_from_slice(block);
    f.extend_from_slice(footer);
    f.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    f.extend_from_slice(b"PAR1");
    f
}

#[test]
fn hostile_indexes_fall_back_to_equal_results() {
    let mut tried = 0;
    for (name, footer) in footers() {
        let Some(block) = build_index(&footer, Limits::default()).unwrap() else {
            continue;
        };
        let w = words(&block);
        if w[1] == 0 || w[2] == 0 {
            continue;
        }
        tried += 1;
        let full = decode_metadata(&footer, &DecodeOptions::default()).unwrap();
        let ncols = full.schema().num_columns();
        let opts = DecodeOptions {
            columns: Some(vec![0, ncols - 1]),
            row_groups: Some(vec![0, full.row_groups().len() - 1]),
            ..Default::default()
        };
        for (what, bad) in variants(&block, footer.len()) {
            let name = format!("{name}: {what}");
            let lazy = LazyFooter::open_with_index(
                bytes::Bytes::copy_from_slice(&footer),
                FooterIndex::find(&bad),
                &DecodeOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            check_lazy(&name, &full, &lazy);
            check_selection(&name, &footer, &bad, &opts);
            // The push decoder over a whole file with that block.
            let file = file_of(&footer, &bad);
            let got = FooterDecoder::new(file.len() as u64, opts.clone())
                .read_with(|r| Ok(&file[r.start as usize..r.end as usize]))
                .unwrap_or_else(|e| panic!("{name}: decoder: {e}"));
            let want = decode_metadata(&footer, &opts).unwrap();
            assert_eq!(got.buf(), want.buf(), "{name}: decoder");
        }
    }
    assert!(tried > 50, "only {tried} footers had an index");
}

#[test]
fn push_decoder_fetches_the_index_for_a_selection() {
    let (name, footer) = footers()
        .into_iter()
        .find(|(_, f)| {
            decode_metadata(f, &DecodeOptions::default())
                .is_ok_and(|m| m.row_groups().len() > 1 && m.schema().num_columns() > 2)
        })
        .expect("a footer with row groups and columns");
    let block = build_index(&footer, Limits::default()).unwrap().unwrap();
    let file = file_of(&footer, &block);
    let n = file.len() as u64;
    let opts = DecodeOptions {
        columns: Some(vec![1]),
        ..Default::default()
    };
    // Tail, then the footer with the index trailer before it, then the index payload.
    let mut d = FooterDecoder::new(n, opts.clone());
    let mut asked = Vec::new();
    while let Some(r) = d.next_range() {
        asked.push(r.clone());
        d.push(r.start, &file[r.start as usize..r.end as usize])
            .unwrap();
    }
    let footer_start = n - 8 - footer.len() as u64;
    assert_eq!(asked.len(), 3, "{name}: {asked:?}");
    assert_eq!(asked[1], footer_start - 12..n - 8, "{name}");
    assert_eq!(asked[2], 4..footer_start - 12, "{name}");
    let got = d.take().unwrap();
    assert_eq!(
        got.buf(),
        decode_metadata(&footer, &opts).unwrap().buf(),
        "{name}"
    );
    // Without a selection the index is of no use and not fetched.
    let mut d = FooterDecoder::new(n, DecodeOptions::default());
    let mut fetches = 0;
    while let Some(r) = d.next_range() {
        fetches += 1;
        d.push(r.start, &file[r.start as usize..r.end as usize])
            .unwrap();
    }
    assert_eq!(fetches, 2);
    // A prefetch of the whole file needs one fetch.
    let mut d = FooterDecoder::new(n, opts).with_prefetch(n);
    let r = d.next_range().unwrap();
    d.push(r.start, &file).unwrap();
    assert!(d.next_range().is_none());
}
