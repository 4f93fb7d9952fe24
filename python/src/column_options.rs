//! pyarrow's writer options that are given for every column or by column path, as
//! `pyarrow.parquet.write_table` takes them: `compression` (a codec name, or a dict of
//! codecs by column, the columns left out uncompressed), `compression_level` (an int, or a
//! dict by column), `use_dictionary` and `write_statistics` (a bool, or the columns they
//! are on for, off for the rest). A column is a leaf's dotted path (`s.a`,
//! `l.list.element`); as in pyarrow, a name that is no leaf of the table is ignored.

use arrow_schema::Schema as ArrowSchema;
use parq::write::{Codec, StatisticsLevel, WriterPropertiesBuilder};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString};

use crate::error;

/// An option for every column, or by column path.
#[derive(Debug, Clone, PartialEq)]
enum PerColumn<T> {
    All(T),
    Columns(Vec<(String, T)>),
}

/// `compression`: a codec name for every column (`None`: uncompressed, as pyarrow takes it),
/// or a dict of codec names by column (the columns left out uncompressed).
#[derive(Debug, Clone)]
pub(crate) struct Codecs(PerColumn<String>);

impl Default for Codecs {
    fn default() -> Self {
        Codecs(PerColumn::All("snappy".to_string()))
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Codecs {
    type Error = PyErr;

    fn extract(v: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if v.is_none() {
            return Ok(Codecs(PerColumn::All("uncompressed".to_string())));
        }
        if v.is_instance_of::<PyString>() {
            return Ok(Codecs(PerColumn::All(v.extract()?)));
        }
        Ok(Codecs(PerColumn::Columns(by_column(&v, "a codec name")?)))
    }
}

/// `compression_level`: none, an int for every column, or a dict of ints by column.
#[derive(Debug, Clone, Default)]
pub(crate) struct Levels(Option<PerColumn<i32>>);

impl<'a, 'py> FromPyObject<'a, 'py> for Levels {
    type Error = PyErr;

    fn extract(v: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if v.is_none() {
            return Ok(Levels(None));
        }
        if v.is_instance_of::<PyDict>() {
            return Ok(Levels(Some(PerColumn::Columns(by_column(&v, "an int")?))));
        }
        let level = v
            .extract()
            .map_err(|_| PyTypeError::new_err("must be an int or a dict of ints by column"))?;
        Ok(Levels(Some(PerColumn::All(level))))
    }
}

/// `use_dictionary` / `write_statistics`: on or off for every column (`None`: on), or an
/// iterable of the column paths it is on for (off for the rest).
#[derive(Debug, Clone)]
pub(crate) struct OnColumns(PerColumn<bool>);

impl Default for OnColumns {
    fn default() -> Self {
        OnColumns(PerColumn::All(true))
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for OnColumns {
    type Error = PyErr;

    fn extract(v: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let wrong = || PyTypeError::new_err("must be a bool or a list of column names");
        if v.is_none() {
            return Ok(OnColumns::default());
        }
        if v.is_instance_of::<PyBool>() {
            return Ok(OnColumns(PerColumn::All(v.extract()?)));
        }
        // A str is iterable too, by character: refused rather than read so.
        if v.is_instance_of::<PyString>() {
            return Err(wrong());
        }
        let mut columns = Vec::new();
        for name in v.try_iter().map_err(|_| wrong())? {
            columns.push((name?.extract::<String>().map_err(|_| wrong())?, true));
        }
        Ok(OnColumns(PerColumn::Columns(columns)))
    }
}

/// The per-column options of one write.
#[derive(Debug, Clone)]
pub(crate) struct ColumnOptions {
    compression: PerColumn<String>,
    compression_level: Option<PerColumn<i32>>,
    use_dictionary: PerColumn<bool>,
    write_statistics: PerColumn<bool>,
}

impl ColumnOptions {
    pub(crate) fn new(
        compression: Codecs,
        compression_level: Levels,
        use_dictionary: OnColumns,
        write_statistics: OnColumns,
    ) -> Self {
        ColumnOptions {
            compression: compression.0,
            compression_level: compression_level.0,
            use_dictionary: use_dictionary.0,
            write_statistics: write_statistics.0,
        }
    }

    /// `b` with these options, statistics with the column index where `page_index`.
    /// `leaves`: the dotted paths of the leaves written, when known (names that are none of
    /// them are left out, as pyarrow ignores them); `None` passes every name on.
    pub(crate) fn apply(
        &self,
        mut b: WriterPropertiesBuilder,
        leaves: Option<&[String]>,
        page_index: bool,
    ) -> PyResult<WriterPropertiesBuilder> {
        let known = |name: &str| leaves.is_none_or(|l| l.iter().any(|p| p == name));
        let level_of = |column: Option<&str>| -> Option<i32> {
            match &self.compression_level {
                None => None,
                Some(PerColumn::All(l)) => Some(*l),
                Some(PerColumn::Columns(c)) => column
                    .and_then(|name| c.iter().find(|(n, _)| n == name))
                    .map(|(_, l)| *l),
            }
        };
        let codec = |name: &str, level: Option<i32>| {
            let spec = match level {
                Some(l) => format!("{name}:{l}"),
                None => name.to_string(),
            };
            Codec::parse(&spec).map_err(error)
        };
        // Codecs: file-wide, or by column with the rest uncompressed (pyarrow's default
        // under a dict); a level by column applies to that column's codec.
        let (default_codec, mut codecs) = match &self.compression {
            PerColumn::All(c) => (c.as_str(), Vec::new()),
            PerColumn::Columns(c) => ("uncompressed", c.clone()),
        };
        b = b.compression(codec(default_codec, level_of(None))?);
        if let Some(PerColumn::Columns(levels)) = &self.compression_level {
            for (name, _) in levels {
                if !codecs.iter().any(|(n, _)| n == name) {
                    codecs.push((name.clone(), default_codec.to_string()));
                }
            }
        }
        for (name, c) in codecs.iter().filter(|(n, _)| known(n)) {
            b = b.column_compression(name, codec(c, level_of(Some(name)))?);
        }
        match &self.use_dictionary {
            PerColumn::All(on) => b = b.dictionary(*on),
            PerColumn::Columns(c) => {
                b = b.dictionary(false);
                for (name, on) in c.iter().filter(|(n, _)| known(n)) {
                    b = b.column_dictionary(name, *on);
                }
            }
        }
        let level = |on: bool| match (on, page_index) {
            (false, _) => StatisticsLevel::None,
            (true, false) => StatisticsLevel::Chunk,
            (true, true) => StatisticsLevel::Page,
        };
        match &self.write_statistics {
            PerColumn::All(on) => b = b.statistics(level(*on)),
            PerColumn::Columns(c) => {
                b = b.statistics(level(false));
                for (name, on) in c.iter().filter(|(n, _)| known(n)) {
                    b = b.column_statistics(name, level(*on));
                }
            }
        }
        Ok(b)
    }
}

/// A dict of `T` by column path (`value` names the type wanted).
fn by_column<'py, T: FromPyObjectOwned<'py>>(
    v: &Borrowed<'_, 'py, PyAny>,
    value: &str,
) -> PyResult<Vec<(String, T)>> {
    let wrong = || PyTypeError::new_err(format!("must be {value} or a dict of them by column"));
    let dict = v.cast::<PyDict>().map_err(|_| wrong())?;
    dict.iter()
        .map(|(k, v)| {
            Ok((
                k.extract().map_err(|_| wrong())?,
                v.extract().map_err(|_| wrong())?,
            ))
        })
        .collect()
}

/// The dotted paths of the leaves `schema` is written as (the names the per-column options
/// take).
pub(crate) fn leaf_paths(schema: &ArrowSchema) -> PyResult<Vec<String>> {
    let (parquet, _) =
        parq::write::arrow_schema::to_parquet_schema(schema, true, false).map_err(error)?;
    Ok((0..parquet.num_columns())
        .map(|i| parquet.leaf_path_string(i))
        .collect())
}
