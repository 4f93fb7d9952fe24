//! The dictionary encoders' tables (growth, colliding hashes, release and rebuild), short
//! byte-array keys, the least and greatest entries of indices, gathers and sizes.

use super::*;

/// Distinct `i64`s (a bijective mix of `0..n`).
fn distinct(n: usize) -> Vec<i64> {
    (0..n as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) as i64)
        .collect()
}

#[test]
fn table_starts_tiny_and_grows_with_many_entries() {
    let mut d = DictEncoder::<i64>::new();
    assert_eq!(d.table.slots.len(), INITIAL_SLOTS);
    assert!(d.heap_bytes() <= INITIAL_SLOTS * 8);
    let values = distinct(300_000);
    let mut idx = Vec::new();
    // In uneven slices, so that growth happens within and between calls.
    for part in values.chunks(7_777) {
        d.put(part, &mut idx).unwrap();
    }
    assert_eq!(d.len(), values.len());
    assert!(idx.iter().enumerate().all(|(i, &k)| k as usize == i));
    assert_eq!(d.entries(), &values[..]);
    assert!(d.table.slots.len() >= 2 * d.len());
    assert!(d.table.slots.len() <= 4 * d.len());
    // Every value is found again, at its first index.
    let mut again = Vec::new();
    d.put(&values, &mut again).unwrap();
    assert_eq!(again, idx);
    assert_eq!(d.len(), values.len());
}

#[test]
fn colliding_hashes() {
    // A million distinct values share 32-bit hash tags by the birthday bound (about 116
    // pairs): tags that match must still be told apart by the values.
    let mut d = DictEncoder::<i64>::new();
    let values = distinct(1 << 20);
    let seed = d.table.seed;
    let mut tags: Vec<u32> = values.iter().map(|v| v.hash(seed) as u32).collect();
    tags.sort_unstable();
    let shared = tags.windows(2).filter(|w| w[0] == w[1]).count();
    assert!(shared > 0, "no tag collisions among a million values");
    let mut idx = Vec::new();
    d.put(&values, &mut idx).unwrap();
    assert_eq!(d.len(), values.len());
    assert!(idx.iter().enumerate().all(|(i, &k)| k as usize == i));
    // Repeats in reverse order find the same entries.
    let rev: Vec<i64> = values.iter().rev().copied().collect();
    let mut back = Vec::new();
    d.put(&rev, &mut back).unwrap();
    assert!(back.iter().rev().enumerate().all(|(i, &k)| k as usize == i));
    // Home-slot collisions at the tiny initial size: few values, many repeats.
    let mut small = DictEncoder::<i32>::new();
    let vals: Vec<i32> = (0..10_000).map(|i| (i * 7919) % 13).collect();
    let mut idx = Vec::new();
    small.put(&vals, &mut idx).unwrap();
    assert_eq!(small.len(), 13);
    assert_eq!(small.table.slots.len(), 64);
    for (&v, &k) in vals.iter().zip(&idx) {
        assert_eq!(small.entries()[k as usize], v);
    }
}

#[test]
fn released_table_is_rebuilt() {
    let mut d = DictEncoder::<f64>::new();
    let values: Vec<f64> = (0..5_000).map(|i| f64::from(i % 3_000) * 0.25).collect();
    let mut idx = Vec::new();
    d.put(&values[..2_500], &mut idx).unwrap();
    let before = d.heap_bytes();
    d.release_table();
    assert!(d.table.is_released());
    assert!(d.heap_bytes() < before);
    d.put(&values[2_500..], &mut idx).unwrap();
    assert_eq!(d.len(), 3_000);
    for (&v, &k) in values.iter().zip(&idx) {
        assert_eq!(d.entries()[k as usize], v);
    }
    // Released while empty, then used.
    let mut e = DictEncoder::<i32>::new();
    e.release_table();
    let mut idx = Vec::new();
    e.put_valid(
        &[1, 2, 1, 3],
        Bitmap::new(&[0b1011], 0, 4).unwrap(),
        &mut idx,
    )
    .unwrap();
    assert_eq!(idx, [0, 1, 2]);
    e.clear();
    assert_eq!(e.table.slots.len(), INITIAL_SLOTS);
}

#[test]
fn byte_arrays_grow_release_and_gather() {
    let strings: Vec<String> = (0..20_000).map(|i| format!("v{}", i % 12_345)).collect();
    let mut offsets = vec![0i32];
    let mut data = Vec::new();
    for s in &strings {
        data.extend_from_slice(s.as_bytes());
        offsets.push(data.len() as i32);
    }
    let mut d = ByteArrayDictEncoder::new();
    assert_eq!(d.table.slots.len(), INITIAL_SLOTS);
    let mut idx = Vec::new();
    d.put(&offsets[..10_001], &data, &mut idx).unwrap();
    d.release_table();
    d.put(&offsets[10_000..], &data, &mut idx).unwrap();
    assert_eq!(d.len(), 12_345);
    let (mut o, mut v) = (Vec::new(), Vec::new());
    d.gather(&idx, &mut o, &mut v).unwrap();
    assert_eq!(o.len(), strings.len() + 1);
    for (i, s) in strings.iter().enumerate() {
        assert_eq!(&v[o[i] as usize..o[i + 1] as usize], s.as_bytes());
    }
    assert_eq!(
        d.plain_size(&idx),
        strings.iter().map(|s| 4 + s.len()).sum::<usize>()
    );
    assert!(d.gather(&[12_345], &mut o, &mut v).is_err());
    // Fixed width.
    let mut f = ByteArrayDictEncoder::new_fixed(2);
    let mut idx = Vec::new();
    f.put_fixed(b"aabbaacc", &mut idx).unwrap();
    assert_eq!(idx, [0, 1, 0, 2]);
    assert_eq!(f.plain_size(&idx), 8);
    f.gather(&idx, &mut o, &mut v).unwrap();
    assert_eq!(v, b"aabbaacc");
}

#[test]
fn short_keys_tell_trailing_zeros_and_buffer_ends_apart() {
    // Strings of every short length, with and without trailing zero bytes, each both in
    // the middle of the buffer (a 32-byte load) and at its end (a copy), plus long ones.
    let mut words: Vec<Vec<u8>> = vec![Vec::new()];
    for n in 1..=40 {
        let mut z: Vec<u8> = (1..=n as u8).collect();
        words.push(z.clone());
        z[n - 1] = 0;
        for w in [z, vec![0; n]] {
            if !words.contains(&w) {
                words.push(w);
            }
        }
    }
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    let mut order = Vec::new();
    for round in 0..2 {
        for (i, w) in words.iter().enumerate() {
            data.extend_from_slice(w);
            offsets.push(data.len() as i64);
            order.push(i);
            if round == 1 {
                // `w` again at the very end of a buffer of its own.
                let mut d = ByteArrayDictEncoder::new();
                let mut idx = Vec::new();
                d.put(
                    &[0i64, 1, 1 + w.len() as i64],
                    &[&[7u8][..], w].concat(),
                    &mut idx,
                )
                .unwrap();
                assert_eq!(idx, [0, 1]);
            }
        }
    }
    let mut d = ByteArrayDictEncoder::new();
    let mut idx = Vec::new();
    d.put(&offsets, &data, &mut idx).unwrap();
    assert_eq!(d.len(), words.len());
    for (&k, &i) in idx.iter().zip(&order) {
        assert_eq!(k as usize, i);
        assert_eq!(d.entry(i), &words[i][..]);
    }
    // The slice path (FIXED_LEN_BYTE_ARRAY) agrees with the buffer path.
    for w in &words {
        assert_eq!(
            d.intern(w) as usize,
            words.iter().position(|x| x == w).unwrap()
        );
    }
    assert_eq!(d.len(), words.len());
}

#[test]
fn gather_and_plain_size() {
    let mut d = DictEncoder::<f32>::new();
    let values = [1.5f32, -0.0, 0.0, 1.5, f32::NAN];
    let mut idx = Vec::new();
    d.put(&values, &mut idx).unwrap();
    assert_eq!(d.plain_size(&idx), 20);
    let mut out = Vec::new();
    d.gather(&idx, &mut out).unwrap();
    assert_eq!(
        out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        values.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    let mut none = Vec::new();
    assert!(d.gather(&[0, 3], &mut none).is_ok());
    assert!(d.gather(&[0, 9], &mut Vec::new()).is_err());
}

#[test]
fn min_max_entries_order_bytes_as_unsigned_with_prefixes_first() {
    // Shared 8-byte prefixes (ties of the first word), trailing zero bytes, strings shorter
    // than a word, of exactly 31 and 32 bytes and longer, and bytes above 0x7f.
    let mut words: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"a".to_vec(),
        b"a\0".to_vec(),
        b"customer_0001".to_vec(),
        b"customer_0001\0".to_vec(),
        b"customer_0002".to_vec(),
        b"customer_".to_vec(),
        vec![0xff; 3],
        vec![0x80, 0],
        vec![b'x'; 31],
        vec![b'x'; 32],
        [vec![b'x'; 40], vec![0]].concat(),
        [vec![b'x'; 40], vec![1]].concat(),
    ];
    let mut state = 7u64;
    for _ in 0..200 {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let len = (state >> 59) as usize + (state >> 58 & 1) as usize * 20;
        let w: Vec<u8> = (0..len)
            .map(|j| b"customer_\0\x7f\x80\xff"[(state >> (j % 50)) as usize % 13])
            .collect();
        words.push(w);
    }
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for w in &words {
        data.extend_from_slice(w);
        offsets.push(data.len() as i64);
    }
    let mut d = ByteArrayDictEncoder::new();
    let mut idx = Vec::new();
    d.put(&offsets, &data, &mut idx).unwrap();
    assert_eq!(d.min_max_entries(&[]), None);
    // Every window of the values, in both directions.
    for start in 0..idx.len() {
        for end in [start + 1, (start + 7).min(idx.len()), idx.len()] {
            for slice in [idx[start..end].to_vec(), idx[start..end].iter().rev().copied().collect()] {
                let (lo, hi) = d.min_max_entries(&slice).unwrap();
                let values = slice.iter().map(|&i| d.entry(i as usize));
                assert_eq!(d.entry(lo as usize), values.clone().min().unwrap());
                assert_eq!(d.entry(hi as usize), values.max().unwrap());
            }
        }
    }
}
