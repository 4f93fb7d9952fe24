//! Decimals written as integers (`WriterPropertiesBuilder::decimal_as_integer`): precision
//! up to 9 as INT32, up to 18 as INT64, annotated DECIMAL, wider ones still
//! FIXED_LEN_BYTE_ARRAY, from every Arrow decimal type and from dictionaries of decimals.
//!
//! - the `parquet` crate 60.1 reads the physical types, precision and scale, and the chunk
//!   min/max as the integers of the input's extreme valid values;
//! - pyarrow 26 reads every value as the input's (decimal strings formatted here), and parq
//!   reads back the input's arrays (the dictionary's as its values);
//! - without the option the same columns are FIXED_LEN_BYTE_ARRAY;
//! - a valid value too wide for its integer column is an error naming column and row.

mod common;

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, Decimal128Array, Decimal256Array, Decimal32Array, Decimal64Array,
    DictionaryArray, Int32Array, RecordBatch,
};
use arrow_buffer::i256;
use arrow_schema::{Field, Schema};
use parq::{ParquetReader, ParquetWriter, WriterProperties};
use parquet::basic::Type as Physical;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::statistics::Statistics;

/// Unscaled value of row `i` of column `c` (`None`: null), spread over both signs.
fn unscaled(c: usize, i: usize, max: i128) -> Option<i128> {
    if (i + c) % 9 == 4 {
        return None;
    }
    let x = (i as i128 * 7_919 * (c as i128 + 1)) % (2 * max + 1) - max;
    Some(x)
}

/// `v` with `scale` digits after the point, as Python's `str(Decimal)` prints it.
fn decimal_string(v: i128, scale: u32) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    let d = 10u128.pow(scale);
    format!(
        "{sign}{}.{:0w$}",
        a / d,
        a % d,
        w = usize::try_from(scale).unwrap()
    )
}

struct Col {
    name: &'static str,
    precision: u8,
    scale: i8,
    physical: Physical,
    array: ArrayRef,
    values: Vec<Option<i128>>,
}

fn columns(n: usize) -> Vec<Col> {
    let mut out = Vec::new();
    let specs: [(&str, u8, i8, Physical); 6] = [
        ("d32", 9, 2, Physical::INT32),
        ("d64_small", 7, 3, Physical::INT32),
        ("d64", 18, 4, Physical::INT64),
        ("d128", 15, 0, Physical::INT64),
        ("d128_wide", 30, 5, Physical::FIXED_LEN_BYTE_ARRAY),
        ("d256", 12, 2, Physical::INT64),
    ];
    for (c, (name, precision, scale, physical)) in specs.into_iter().enumerate() {
        let max = 10i128.pow(u32::from(precision)) - 1;
        let values: Vec<Option<i128>> = (0..n).map(|i| unscaled(c, i, max)).collect();
        // The extremes of the precision somewhere in the middle.
        let mut values = values;
        values[n / 2] = Some(max);
        values[n / 3] = Some(-max);
        let array: ArrayRef = match name {
            "d32" => Arc::new(
                values
                    .iter()
                    .map(|v| v.map(|x| i32::try_from(x).unwrap()))
                    .collect::<Decimal32Array>()
                    .with_precision_and_scale(precision, scale)
                    .unwrap(),
            ),
            "d64_small" | "d64" => Arc::new(
                values
                    .iter()
                    .map(|v| v.map(|x| i64::try_from(x).unwrap()))
                    .collect::<Decimal64Array>()
                    .with_precision_and_scale(precision, scale)
                    .unwrap(),
            ),
            "d256" => Arc::new(
                values
                    .iter()
                    .map(|v| v.map(i256::from_i128))
                    .collect::<Decimal256Array>()
                    .with_precision_and_scale(precision, scale)
                    .unwrap(),
            ),
            _ => Arc::new(
                values
                    .iter()
                    .copied()
                    .collect::<Decimal128Array>()
                    .with_precision_and_scale(precision, scale)
                    .unwrap(),
            ),
        };
        out.push(Col {
            name,
            precision,
            scale,
            physical,
            array,
            values,
        });
    }
    // A dictionary of Decimal128(9, 2) values, keys cycling over them.
    let dict = Decimal128Array::from(vec![-123_456_789, 5, 999_999_999, 0, -1])
        .with_precision_and_scale(9, 2)
        .unwrap();
    let keys: Int32Array = (0..n as i32)
        .map(|i| (i % 11 != 3).then_some(i % 5))
        .collect();
    let values = keys
        .iter()
        .map(|k| k.map(|k| dict.value(usize::try_from(k).unwrap())))
        .collect();
    let array = DictionaryArray::<Int32Type>::try_new(keys, Arc::new(dict)).unwrap();
    out.push(Col {
        name: "dict",
        precision: 9,
        scale: 2,
        physical: Physical::INT32,
        array: Arc::new(array),
        values,
    });
    out
}

fn batch(cols: &[Col]) -> RecordBatch {
    let fields: Vec<Field> = cols
        .iter()
        .map(|c| Field::new(c.name, c.array.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        cols.iter().map(|c| c.array.clone()).collect(),
    )
    .unwrap()
}

fn write(path: &std::path::Path, batch: &RecordBatch, as_integer: bool) -> parq::Result<()> {
    let props = WriterProperties::builder()
        .decimal_as_integer(as_integer)
        .max_row_group_rows(Some(700))
        .build()
        .unwrap();
    let mut w =
        ParquetWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), props)?;
    w.write(batch)?;
    w.close()?;
    Ok(())
}

#[test]
fn decimals_as_integers_read_by_60_and_pyarrow() {
    let n = 2000;
    let cols = columns(n);
    let batch = batch(&cols);
    let tmp = common::tmp_dir("decimal-integer");
    let path = tmp.join("int.parquet");
    write(&path, &batch, true).unwrap();

    // 60.1: types and statistics, row group by row group.
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let meta = reader.metadata();
    let schema = meta.file_metadata().schema_descr();
    assert_eq!(meta.num_row_groups(), 3);
    for (j, c) in cols.iter().enumerate() {
        let d = schema.column(j);
        assert_eq!(d.physical_type(), c.physical, "{}", c.name);
        assert_eq!(
            (d.type_precision(), d.type_scale()),
            (i32::from(c.precision), i32::from(c.scale)),
            "{}",
            c.name
        );
        for (g, rg) in meta.row_groups().iter().enumerate() {
            let rows = &c.values[g * 700..((g + 1) * 700).min(n)];
            let min = rows.iter().flatten().min().copied();
            let max = rows.iter().flatten().max().copied();
            let nulls = rows.iter().filter(|v| v.is_none()).count() as u64;
            let s = rg.column(j).statistics().unwrap();
            assert_eq!(s.null_count_opt(), Some(nulls), "{} row group {g}", c.name);
            let got = match s {
                Statistics::Int32(s) => (
                    s.min_opt().map(|&x| i128::from(x)),
                    s.max_opt().map(|&x| i128::from(x)),
                ),
                Statistics::Int64(s) => (
                    s.min_opt().map(|&x| i128::from(x)),
                    s.max_opt().map(|&x| i128::from(x)),
                ),
                Statistics::FixedLenByteArray(_) => continue,
                other => panic!("{}: {other:?}", c.name),
            };
            assert_eq!(got, (min, max), "{} row group {g}", c.name);
        }
    }

    // pyarrow: the values.
    let script = r#"
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
for name in t.column_names:
    print(name, ",".join("N" if v is None else str(v) for v in t.column(name).to_pylist()))
"#;
    let out = common::run_python(script, &[&path]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), cols.len());
    for (line, c) in lines.iter().zip(&cols) {
        let want: Vec<String> = c
            .values
            .iter()
            .map(|v| match v {
                None => "N".to_string(),
                Some(x) if c.scale == 0 => x.to_string(),
                Some(x) => decimal_string(*x, u32::try_from(c.scale).unwrap()),
            })
            .collect();
        assert_eq!(
            *line,
            format!("{} {}", c.name, want.join(",")),
            "{}",
            c.name
        );
    }

    // parq: the input's types (from `ARROW:schema`) and values.
    let back = ParquetReader::open(&path).unwrap().read_all().unwrap();
    let back = arrow_select::concat::concat_batches(&back[0].schema(), &back).unwrap();
    for (j, c) in cols.iter().enumerate() {
        let got = back.column(j);
        match c.array.data_type() {
            arrow_schema::DataType::Dictionary(..) => {
                let want = arrow_cast::cast(&c.array, got.data_type()).unwrap();
                assert_eq!(got.as_ref(), want.as_ref(), "{}", c.name);
            }
            _ => assert_eq!(got.as_ref(), c.array.as_ref(), "{}", c.name),
        }
    }

    // Without the option: FIXED_LEN_BYTE_ARRAY throughout.
    let flba = tmp.join("flba.parquet");
    write(&flba, &batch, false).unwrap();
    let reader = SerializedFileReader::new(std::fs::File::open(&flba).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr();
    for j in 0..cols.len() {
        assert_eq!(
            schema.column(j).physical_type(),
            Physical::FIXED_LEN_BYTE_ARRAY
        );
    }
}

#[test]
fn a_value_too_wide_for_its_integer_is_an_error() {
    let a = Decimal128Array::from(vec![Some(1), None, Some(10_000_000_000)])
        .with_precision_and_scale(9, 0)
        .unwrap();
    let schema = Schema::new(vec![Field::new("wide", a.data_type().clone(), true)]);
    let batch = RecordBatch::try_new(Arc::new(schema), vec![Arc::new(a)]).unwrap();
    let tmp = common::tmp_dir("decimal-integer-wide");
    let e = write(&tmp.join("x.parquet"), &batch, true).unwrap_err();
    let m = e.to_string();
    assert!(m.contains("`wide`") && m.contains("row 2"), "{m}");
}
