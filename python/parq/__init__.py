"""parq: a fast, complete Apache Parquet implementation (Rust), for pyarrow, pandas and
polars users.

The API follows ``pyarrow.parquet``: ``read_table``, ``ParquetFile``, ``read_metadata``,
``read_schema``, ``write_table`` and ``ParquetWriter`` (``append=True`` appends to a file),
and ``merge`` joins files (row groups copied byte for byte). Tables come back as ``pyarrow.Table``
(hand them to ``polars.from_arrow`` or DuckDB without a copy); anything that exports an Arrow
stream (``__arrow_c_stream__``) can be written. The GIL is released while parq decodes and
encodes. Variant columns come back as the ``arrow.parquet.variant`` extension
type (``parq.VariantType``), whose ``to_pylist()`` gives Python values, and such columns
are written as Variant (``write_table(..., variant_shredding={"v": pa.struct(...)})`` shreds
column ``v`` by a ``typed_value`` schema). Errors are
``parq.ParquetError`` (``ParquetInvalidFileError``,
``ParquetUnsupportedError``, ``ParquetIOError``). ``parq.dask`` reads and writes Dask DataFrames
(a partition per row group) on any Dask scheduler, ``parq.ray`` Ray Data datasets. ``parq.encryption`` has the keys of
encrypted files: explicit, or through a KMS as ``pyarrow.parquet.encryption`` makes them. parq
keeps the buffers of its reads (and of the tables it returned, once dropped) for the next
reads, up to about 144 MiB and 32 MiB per thread that read; ``release_buffers()`` frees them.
"""

import os

from parq._parq import (
    ColumnChunkMetaData,
    FileMetaData,
    ParquetError,
    ParquetInvalidFileError,
    ParquetIOError,
    ParquetUnsupportedError,
    ParquetFile,
    ParquetWriter,
    RowGroupMetaData,
    Statistics,
    clear_metadata_cache,
    merge,
    read_metadata,
    read_schema,
    release_buffers,
    write_table,
)
from parq._parq import read_table as _read_table
from parq._filters import is_expression as _is_expression, to_sql
from parq import encryption
from parq._dataset import Dataset, dataset, is_dataset_source as _is_dataset_source, write_to_dataset
from parq._variant import VariantType, register as _register_variant

_register_variant()

__all__ = [
    "ColumnChunkMetaData",
    "Dataset",
    "FileMetaData",
    "ParquetError",
    "ParquetInvalidFileError",
    "ParquetIOError",
    "ParquetUnsupportedError",
    "ParquetFile",
    "ParquetWriter",
    "RowGroupMetaData",
    "Statistics",
    "VariantType",
    "clear_metadata_cache",
    "dataset",
    "encryption",
    "merge",
    "read_metadata",
    "read_schema",
    "read_table",
    "release_buffers",
    "write_table",
    "write_to_dataset",
]


def read_table(
    source,
    columns=None,
    row_groups=None,
    filters=None,
    use_threads=True,
    batch_size=None,
    string_view=False,
    partitioning="hive",
    storage_options=None,
    decryption_properties=None,
    memory_map=False,
    schema=None,
    union_by_name=True,
):
    """Reads a Parquet file or dataset into a ``pyarrow.Table``.

    ``source``: a path, ``bytes``/``memoryview``, or a binary file-like object; or a dataset:
    a directory, a glob, a list of paths or a URL (``s3://``, ``gs://``, ``az://``,
    ``http(s)://``), read as :func:`parq.dataset` reads it, with ``partitioning`` and
    ``storage_options``.
    ``columns``: names (dotted paths inside structs) to read, in this order.
    ``row_groups``: indices of the row groups to read.
    ``filters``: what ``pyarrow.parquet.read_table`` takes, with pyarrow's semantics: DNF (a
    list of ``(column, op, value)`` tuples, or a list of such lists) or a
    ``pyarrow.compute.Expression``; or an SQL condition as a string
    (``"id >= 10 AND name = 'x'"``). For DNF and SQL, row groups and pages that cannot hold a
    kept row are skipped by statistics, Bloom filters and the page index, and the other
    columns are decoded only for the rows kept; an Expression is applied to the rows read.
    A DNF or SQL column may be a dotted path: a field inside structs
    (``("s.a.b", ">", 5)``; a top-level column of that name is taken first) or an object
    field of a Variant column (``("v.a", ">", 5)``: numbers compare by value, strings,
    booleans and bytes with their own kind, other values are null); a shredded Variant
    field skips row groups by its ``typed_value`` statistics where no row holds it in
    ``value``.
    ``use_threads``: decode on all cores (row groups side by side).
    ``batch_size``: rows per record batch of the table (default: a batch per row group).
    ``string_view``: string columns as ``pa.string_view()``: views into the file's dictionary
    pages and PLAIN pages, no string copied (what polars and DataFusion hold strings as).
    ``decryption_properties``: the keys of an encrypted file (see :mod:`parq.encryption`).
    ``memory_map``: a file path is read through a memory mapping (as pyarrow's
    ``memory_map``) instead of by positional reads: no copy of the file's bytes, so faster
    when the pages are not compressed. The file must not be changed or truncated while it
    or the arrays read from it are in use (a read of a truncated part ends the process with
    SIGBUS). The files of a dataset are read by positional reads.
    ``schema``, ``union_by_name``: the schema of a dataset, or of a file path read as one (see
    :func:`parq.dataset`).
    """
    as_dataset = _is_dataset_source(source)
    if schema is not None and not as_dataset:
        if not isinstance(source, (str, os.PathLike)):
            raise ValueError("parq: schema applies to a path or a dataset, not to bytes or a file object")
        as_dataset = True
    if as_dataset:
        if row_groups is not None:
            raise ValueError("parq: row_groups applies to one file, not to a dataset")
        if decryption_properties is not None:
            raise ValueError("parq: decryption_properties applies to one file, not to a dataset")
        ds = dataset(
            source,
            partitioning=partitioning,
            storage_options=storage_options,
            string_view=string_view,
            batch_size=batch_size,
            schema=schema,
            union_by_name=union_by_name,
        )
        return ds.to_table(columns=columns, filters=filters, use_threads=use_threads)
    if _is_expression(filters):
        # A pyarrow.compute.Expression is evaluated by pyarrow itself on the rows read (no
        # row group or page is skipped for it).
        table = _read_table(
            source,
            columns=None,
            row_groups=row_groups,
            use_threads=use_threads,
            batch_size=batch_size,
            string_view=string_view,
            decryption_properties=decryption_properties,
            memory_map=memory_map,
        )
        table = table.filter(filters)
        return table if columns is None else table.select(list(columns))
    return _read_table(
        source,
        columns=columns,
        row_groups=row_groups,
        filter=to_sql(filters),
        use_threads=use_threads,
        batch_size=batch_size,
        string_view=string_view,
        decryption_properties=decryption_properties,
        memory_map=memory_map,
    )
