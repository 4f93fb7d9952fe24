//! pyarrow's writer options that are given for every column or by column path, as
//! `pyarrow.parquet.write_table` takes them: `compression` (a codec name, or a dict of
//! codecs by column, the columns left out uncompressed), `compression_level` (an int, or a
//! dict by column), `use_dictionary` and `write_statistics` (a bool, or the columns they
//! are on for, off for the rest), `column_encoding` (an encoding name for every column or a
//! dict by column, with dictionaries off for those columns) and `use_byte_stream_split` (a
//! bool, or the columns BYTE_STREAM_SPLIT is for), `bloom_filter_options` (a dict by column of
//! `True`, `False` or `{"ndv": int, "fpp": float}`). A column is a leaf's dotted path (`s.a`,
//! `l.list.element`); as in pyarrow, a name that is no leaf of the table is ignored. The
//! file-wide options that pyarrow takes beside them are [`FileOptions`].

use arrow_schema::Schema as ArrowSchema;
use parq::format::metadata::{Encoding, SortingColumn};
use parq::write::{BloomFilterProperties, Codec, StatisticsLevel, WriterPropertiesBuilder};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

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

/// `column_encoding`: none, an encoding name for every column, or a dict of them by column.
#[derive(Debug, Clone, Default)]
pub(crate) struct Encodings(Option<PerColumn<String>>);

impl<'a, 'py> FromPyObject<'a, 'py> for Encodings {
    type Error = PyErr;

    fn extract(v: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if v.is_none() {
            return Ok(Encodings(None));
        }
        if v.is_instance_of::<PyString>() {
            return Ok(Encodings(Some(PerColumn::All(v.extract()?))));
        }
        Ok(Encodings(Some(PerColumn::Columns(by_column(
            &v,
            "an encoding name",
        )?))))
    }
}

/// `bloom_filter_options`: Bloom filters by column, each `True` (the default NDV and FPP),
/// `False` (none) or a dict with `ndv` (an int above 0) and / or `fpp` (a float in (0, 1)).
#[derive(Debug, Clone, Default)]
pub(crate) struct Blooms(Vec<(String, Option<BloomFilterProperties>)>);

impl<'a, 'py> FromPyObject<'a, 'py> for Blooms {
    type Error = PyErr;

    fn extract(v: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if v.is_none() {
            return Ok(Blooms::default());
        }
        let dict = v
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("'bloom_filter_options' must be a dictionary"))?;
        let mut blooms = Vec::new();
        for (column, options) in dict.iter() {
            let column: String = column.extract()?;
            let settings = if options.is_instance_of::<PyBool>() {
                options
                    .extract::<bool>()?
                    .then(BloomFilterProperties::default)
            } else if let Ok(options) = options.cast::<PyDict>() {
                Some(bloom_settings(&column, options)?)
            } else {
                return Err(PyTypeError::new_err(format!(
                    "'bloom_filter_options:{column}' must be a boolean or a dictionary"
                )));
            };
            blooms.push((column, settings));
        }
        Ok(Blooms(blooms))
    }
}

/// One column's `{"ndv": ..., "fpp": ...}`, checked as pyarrow checks them.
fn bloom_settings(column: &str, options: &Bound<'_, PyDict>) -> PyResult<BloomFilterProperties> {
    let mut settings = BloomFilterProperties::default();
    if let Some(ndv) = options.get_item("ndv")? {
        if !ndv.is_instance_of::<PyInt>() || ndv.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err(format!(
                "'bloom_filter_options:ndv' for column '{column}' must be an int"
            )));
        }
        settings.ndv = match ndv.extract::<i64>().ok().and_then(|n| u64::try_from(n).ok()) {
            Some(n) if n > 0 => n,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "'bloom_filter_options:ndv' for column '{column}' must be greater than zero, got {ndv}"
                )))
            }
        };
    }
    if let Some(fpp) = options.get_item("fpp")? {
        if !fpp.is_instance_of::<PyFloat>() {
            return Err(PyTypeError::new_err(format!(
                "'bloom_filter_options:fpp' for column '{column}' must be a float"
            )));
        }
        settings.fpp = fpp.extract()?;
        if !(settings.fpp > 0.0 && settings.fpp < 1.0) {
            return Err(PyValueError::new_err(format!(
                "'bloom_filter_options:fpp' for column '{column}' must be in (0.0, 1.0), got {fpp}"
            )));
        }
    }
    Ok(settings)
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

impl OnColumns {
    /// Off for every column (`use_byte_stream_split`'s default).
    pub(crate) fn off() -> Self {
        OnColumns(PerColumn::All(false))
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
    /// The value encodings asked for, `use_byte_stream_split`'s columns included.
    encoding: Option<PerColumn<Encoding>>,
    blooms: Blooms,
}

impl ColumnOptions {
    /// The options of one write; errors (`ValueError`) as pyarrow's for a value encoding
    /// beside dictionaries on for its columns, `use_byte_stream_split` beside
    /// `column_encoding` for the same columns, and encoding names that are unknown or a
    /// dictionary's.
    pub(crate) fn new(
        compression: Codecs,
        compression_level: Levels,
        use_dictionary: OnColumns,
        write_statistics: OnColumns,
        column_encoding: Encodings,
        use_byte_stream_split: OnColumns,
        blooms: Blooms,
    ) -> PyResult<Self> {
        let encoding = match column_encoding.0 {
            None => None,
            Some(PerColumn::All(name)) => Some(PerColumn::All(encoding_of(&name)?)),
            Some(PerColumn::Columns(c)) => Some(PerColumn::Columns(
                c.iter()
                    .map(|(column, name)| Ok((column.clone(), encoding_of(name)?)))
                    .collect::<PyResult<_>>()?,
            )),
        };
        // A value encoding asked for by name is for columns without a dictionary.
        let dictionary_too = match (&use_dictionary.0, &encoding) {
            (_, None) | (PerColumn::All(false), _) => false,
            (PerColumn::All(true), Some(_)) => true,
            (PerColumn::Columns(on), Some(PerColumn::Columns(c))) => {
                on.iter().any(|(n, _)| c.iter().any(|(e, _)| e == n))
            }
            (PerColumn::Columns(on), Some(PerColumn::All(_))) => !on.is_empty(),
        };
        if dictionary_too {
            return Err(PyValueError::new_err(
                "to use 'column_encoding', set 'use_dictionary' to False (for its columns)",
            ));
        }
        let conflict = || {
            PyValueError::new_err(
                "'use_byte_stream_split' cannot be passed together with 'column_encoding' \
                 (for the same columns)",
            )
        };
        // BYTE_STREAM_SPLIT: the values' encoding (the fallback of a dictionary).
        let encoding = match (use_byte_stream_split.0, encoding) {
            (PerColumn::All(false), e) => e,
            (PerColumn::All(true), None) => Some(PerColumn::All(Encoding::ByteStreamSplit)),
            (PerColumn::All(true), Some(_)) | (PerColumn::Columns(_), Some(PerColumn::All(_))) => {
                return Err(conflict())
            }
            (PerColumn::Columns(split), None) => Some(PerColumn::Columns(
                split
                    .into_iter()
                    .map(|(c, _)| (c, Encoding::ByteStreamSplit))
                    .collect(),
            )),
            (PerColumn::Columns(split), Some(PerColumn::Columns(mut c))) => {
                for (column, _) in split {
                    if c.iter().any(|(n, _)| *n == column) {
                        return Err(conflict());
                    }
                    c.push((column, Encoding::ByteStreamSplit));
                }
                Some(PerColumn::Columns(c))
            }
        };
        Ok(ColumnOptions {
            compression: compression.0,
            compression_level: compression_level.0,
            use_dictionary: use_dictionary.0,
            write_statistics: write_statistics.0,
            encoding,
            blooms,
        })
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
        // One lookup per name, however wide the table.
        let leaves: Option<std::collections::HashSet<&str>> =
            leaves.map(|l| l.iter().map(String::as_str).collect());
        let known = |name: &str| leaves.as_ref().is_none_or(|l| l.contains(name));
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
        match &self.encoding {
            None => {}
            Some(PerColumn::All(e)) => b = b.encoding(*e),
            Some(PerColumn::Columns(c)) => {
                for (name, e) in c.iter().filter(|(n, _)| known(n)) {
                    b = b.column_encoding(name, *e);
                }
            }
        }
        for (name, settings) in self.blooms.0.iter().filter(|(n, _)| known(n)) {
            b = b.column_bloom_filter(name, *settings);
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

/// The value encoding of pyarrow's name for it: a dictionary's is refused (dictionaries are
/// `use_dictionary`'s), as is a name of none.
fn encoding_of(name: &str) -> PyResult<Encoding> {
    match Encoding::from_spec_name(name) {
        Some(Encoding::RleDictionary | Encoding::PlainDictionary) => Err(PyValueError::new_err(
            format!("'{name}' is already used by default (see 'use_dictionary')"),
        )),
        Some(e) => Ok(e),
        None => Err(PyValueError::new_err(format!(
            "unsupported column encoding: {name:?}"
        ))),
    }
}

/// The dotted paths of the leaves `schema` is written as (the names the per-column options
/// take), list elements named `element` when `compliant`.
pub(crate) fn leaf_paths(schema: &ArrowSchema, compliant: bool) -> PyResult<Vec<String>> {
    let (parquet, _) =
        parq::write::arrow_schema::to_parquet_schema(schema, compliant, false).map_err(error)?;
    Ok((0..parquet.num_columns())
        .map(|i| parquet.leaf_path_string(i))
        .collect())
}

/// pyarrow's file-wide writer options beside the per-column ones: `dictionary_pagesize_limit`,
/// `write_page_checksum`, `use_compliant_nested_type`, `max_rows_per_page` and
/// `sorting_columns` (pyarrow's `SortingColumn`s).
#[derive(Debug, Clone)]
pub(crate) struct FileOptions {
    dictionary_pagesize_limit: Option<usize>,
    page_checksum: bool,
    /// List elements named `element` (else after their Arrow field).
    pub(crate) compliant: bool,
    max_rows_per_page: Option<usize>,
    sorting_columns: Vec<SortingColumn>,
}

impl Default for FileOptions {
    fn default() -> Self {
        FileOptions {
            dictionary_pagesize_limit: None,
            page_checksum: false,
            compliant: true,
            max_rows_per_page: None,
            sorting_columns: Vec::new(),
        }
    }
}

impl FileOptions {
    pub(crate) fn new(
        dictionary_pagesize_limit: Option<usize>,
        write_page_checksum: bool,
        use_compliant_nested_type: bool,
        max_rows_per_page: Option<usize>,
        sorting_columns: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let sorting_columns = match sorting_columns {
            Some(s) if !s.is_none() => sorting(s)?,
            _ => Vec::new(),
        };
        Ok(FileOptions {
            dictionary_pagesize_limit,
            page_checksum: write_page_checksum,
            compliant: use_compliant_nested_type,
            max_rows_per_page,
            sorting_columns,
        })
    }

    /// `b` with these options.
    pub(crate) fn apply(&self, mut b: WriterPropertiesBuilder) -> WriterPropertiesBuilder {
        if let Some(bytes) = self.dictionary_pagesize_limit {
            b = b.dictionary_page_size_limit(bytes.max(1));
        }
        if let Some(rows) = self.max_rows_per_page {
            b = b.data_page_rows(Some(rows.max(1)));
        }
        b.page_crc(self.page_checksum)
            .compliant_nested_types(self.compliant)
            .sorting_columns(self.sorting_columns.clone())
    }
}

/// pyarrow's `SortingColumn`s (any objects with `column_index`, `descending` and
/// `nulls_first`), in order.
fn sorting(columns: &Bound<'_, PyAny>) -> PyResult<Vec<SortingColumn>> {
    let wrong = || {
        PyTypeError::new_err(
            "sorting_columns must be a sequence of SortingColumn (column_index, descending, nulls_first)",
        )
    };
    let mut out = Vec::new();
    for c in columns.try_iter().map_err(|_| wrong())? {
        let c = c?;
        let field = |name: &str| c.getattr(name).map_err(|_| wrong());
        out.push(SortingColumn {
            column_idx: field("column_index")?.extract().map_err(|_| wrong())?,
            descending: field("descending")?.extract().map_err(|_| wrong())?,
            nulls_first: field("nulls_first")?.extract().map_err(|_| wrong())?,
        });
    }
    Ok(out)
}
