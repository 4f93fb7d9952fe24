//! Fuzzes the ALP decoder on arbitrary page bytes, as FLOAT and DOUBLE, for a value count
//! taken from the input, and checks that what it decodes encodes back to the same bits.
//! Nothing may panic or allocate beyond the values asked for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::encoding::alp::{decode, AlpFloat};
use parq::encoding::encode::alp::AlpEncoder;

fn check<T: AlpFloat>(page: &[u8], n: usize) {
    let mut out: Vec<T> = Vec::new();
    if decode(page, n, &mut out).is_err() {
        return;
    }
    assert_eq!(out.len(), n);
    let mut e = AlpEncoder::<T>::new();
    e.put(&out);
    let mut again = Vec::new();
    e.flush(&mut again).expect("encode");
    let mut back: Vec<T> = Vec::new();
    decode(&again, n, &mut back).expect("decode of our own page");
    assert!(back
        .iter()
        .zip(&out)
        .all(|(a, b)| a.bits_u64() == b.bits_u64()));
}

fuzz_target!(|data: &[u8]| {
    let Some((&[a, b], page)) = data.split_first_chunk::<2>() else {
        return;
    };
    let n = usize::from(u16::from_le_bytes([a, b]));
    check::<f32>(page, n);
    check::<f64>(page, n);
});
