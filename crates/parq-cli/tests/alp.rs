//! `parq convert --encoding COLUMN=ALP` writes ALP for a float column (read back equal by
//! parquet 60.1, checked clean by `parq check`) and refuses it for an integer column.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Float64Type;
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Encoding;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;

fn parq(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_parq"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("parq-cli-alp-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn convert_writes_alp_for_float_columns_only() {
    let d = dir();
    let input = d.join("in.parquet");
    let prices: Vec<Option<f64>> = (0..5000)
        .map(|i| (i % 13 != 4).then(|| f64::from(i * 7919 % 100_000) / 100.0))
        .collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("price", DataType::Float64, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(0..5000)),
        Arc::new(Float64Array::from(prices.clone())),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let mut w = ArrowWriter::try_new(std::fs::File::create(&input).unwrap(), schema, None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();

    let out = d.join("alp.parquet");
    let (inp, outp) = (input.to_str().unwrap(), out.to_str().unwrap());
    let (code, err) = parq(&["convert", inp, outp, "--encoding", "price=ALP"]);
    assert_eq!(code, 0, "{err}");
    let r = SerializedFileReader::new(std::fs::File::open(&out).unwrap()).unwrap();
    let chunk = r.metadata().row_group(0).column(1).clone();
    assert!(chunk.encodings().any(|e| e == Encoding::ALP));
    let got: Vec<Option<f64>> =
        ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&out).unwrap())
            .unwrap()
            .build()
            .unwrap()
            .flat_map(|b| {
                b.unwrap()
                    .column(1)
                    .as_primitive::<Float64Type>()
                    .iter()
                    .collect::<Vec<_>>()
            })
            .collect();
    assert_eq!(got, prices);
    let (code, err) = parq(&["check", "-q", outp]);
    assert_eq!(code, 0, "parq check: {err}");

    let refused = d.join("refused.parquet");
    let (code, err) = parq(&[
        "convert",
        inp,
        refused.to_str().unwrap(),
        "--encoding",
        "id=ALP",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("ALP"), "{err}");
    let _ = std::fs::remove_dir_all(d);
}
