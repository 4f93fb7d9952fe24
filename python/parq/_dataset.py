"""Datasets: many Parquet files read as one table, as ``pyarrow.dataset`` users know it.

A source is a file, a directory (its ``*.parquet`` files, recursively, outside paths with a
part that starts with ``_`` or ``.``), a glob (``*``, ``?``, ``[...]``, ``**``), a list of
paths, or a URL (``s3://``, ``gs://``, ``az://``, ``abfs://``, ``http(s)://``, ``file://``).
``storage_options`` are object_store's keys (``aws_endpoint_url``, ``aws_access_key_id``,
``aws_secret_access_key``, ``aws_region``, ``aws_allow_http``, ...) on top of the
environment's credentials.
"""

import os

from parq._filters import is_expression as _is_expression, to_sql
from parq._parq import _Dataset
from parq._parq import write_to_dataset as _write_to_dataset


def _source(source):
    if isinstance(source, (list, tuple)):
        return [os.fspath(s) for s in source]
    return os.fspath(source)


def _options(storage_options):
    if storage_options is None:
        return None
    return [(str(k), str(v)) for k, v in dict(storage_options).items()]


class Dataset:
    """Parquet files read as one table: ``.schema``, ``.files``, ``.to_table()``,
    ``.to_batches()``, ``.count_rows()``."""

    def __init__(self, inner):
        self._inner = inner

    @property
    def schema(self):
        """The ``pyarrow.Schema``: the files' columns united by name, then the partition
        columns."""
        return self._inner.schema

    @property
    def files(self):
        """The files, as absolute local paths or URLs, in the order they are read."""
        return self._inner.files

    def to_table(self, columns=None, filters=None, use_threads=True):
        """The chosen columns of the rows ``filters`` keeps (pyarrow's DNF, a
        ``pyarrow.compute.Expression``, or an SQL condition), as a ``pyarrow.Table``."""
        if _is_expression(filters):
            table = self._inner.to_table(use_threads=use_threads).filter(filters)
            return table if columns is None else table.select(list(columns))
        return self._inner.to_table(
            columns=None if columns is None else list(columns),
            filter=to_sql(filters),
            use_threads=use_threads,
        )

    def to_batches(self, columns=None, filters=None, use_threads=True):
        """The same as :meth:`to_table`, as a ``pyarrow.RecordBatchReader`` read as it is
        consumed."""
        if _is_expression(filters):
            import pyarrow as pa

            table = self.to_table(columns=columns, filters=filters, use_threads=use_threads)
            return pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
        return self._inner.to_reader(
            columns=None if columns is None else list(columns),
            filter=to_sql(filters),
            use_threads=use_threads,
        )

    def count_rows(self, filters=None, use_threads=True):
        """How many rows ``filters`` keeps: from the footers where the filter keeps whole
        files (by their partition values), else by reading the filter's columns."""
        if _is_expression(filters):
            return self.to_table(filters=filters, use_threads=use_threads).num_rows
        return self._inner.count_rows(filter=to_sql(filters), use_threads=use_threads)

    def __repr__(self):
        return repr(self._inner)


def dataset(
    source,
    partitioning="hive",
    storage_options=None,
    schema=None,
    string_view=False,
    batch_size=None,
    include_file_paths=None,
    row_index=None,
    union_by_name=True,
):
    """Opens the dataset of ``source`` (see the module documentation).

    ``partitioning``: ``"hive"`` (``key=value`` directories; keys typed int32 when every
    value is an integer, else string), ``None``, or a ``pyarrow.Schema`` of the keys and
    their types. ``schema``: the dataset's schema instead of the files' united.
    ``union_by_name``: without ``schema``, ``True`` reads every file's footer at once and
    unites their schemas by name; ``False`` takes the first file's schema (as
    ``pyarrow.dataset`` does) and reads the other footers only for the files a query reads
    (the others' columns it lacks are null, their extra columns left out, other types cast).
    ``include_file_paths`` / ``row_index``: names of extra columns holding each row's file
    and its index within its file.
    """
    inner = _Dataset(
        _source(source),
        partitioning=partitioning,
        schema=schema,
        storage_options=_options(storage_options),
        string_view=string_view,
        batch_size=batch_size,
        file_path_column=include_file_paths,
        row_index_column=row_index,
        union_by_name=union_by_name,
    )
    return Dataset(inner)


def is_dataset_source(source):
    """Whether ``read_table`` reads ``source`` as a dataset rather than as one local file
    or buffer."""
    if isinstance(source, (list, tuple)):
        return True
    if not isinstance(source, (str, os.PathLike)):
        return False
    s = os.fspath(source)
    if isinstance(s, bytes):
        return False
    if "://" in s:
        return True
    # A path that does not exist is a glob, or missing: the dataset says which.
    return not os.path.isfile(s)


def write_to_dataset(
    table,
    root_path,
    partition_cols=None,
    basename_template=None,
    max_rows_per_file=None,
    storage_options=None,
    **write_options,
):
    """Writes ``table`` (anything exporting an Arrow stream) as a dataset below ``root_path``
    (a directory or a URL), as ``pyarrow.parquet.write_to_dataset`` does: a ``key=value``
    directory level per column of ``partition_cols`` (those columns are not written into
    the files), files of at most ``max_rows_per_file`` rows named by ``basename_template``
    (``{i}`` numbers a directory's files; by default a name new to each write). A local file
    that exists is never replaced. ``write_options``: those of :func:`parq.write_table`.
    Returns the files written."""
    if isinstance(root_path, os.PathLike):
        root_path = os.fspath(root_path)
    return _write_to_dataset(
        table,
        str(root_path),
        partition_cols=None if partition_cols is None else list(partition_cols),
        max_rows_per_file=max_rows_per_file,
        basename_template=basename_template,
        storage_options=_options(storage_options),
        **write_options,
    )


def read_row_groups(
    files,
    selection,
    schema,
    partitions,
    storage_options=None,
    columns=None,
    filter=None,
    use_threads=False,
):
    """The rows of some row groups of some files of a dataset, as a ``pyarrow.Table``: what
    one task of a distributed read (``parq.dask``, ``parq.ray``) reads, away from the
    dataset it was planned on. ``files``: paths or URLs; ``selection``: (index in ``files``,
    row group indices) pairs; ``schema`` and ``partitions``: the dataset's schema and its
    partition columns (each file's values taken from its ``key=value`` directories);
    ``filter``: an SQL condition."""
    d = dataset(
        list(files),
        partitioning=partitions if len(partitions) else None,
        schema=schema,
        storage_options=storage_options,
    )
    return d._inner.to_table(
        columns=None if columns is None else list(columns),
        filter=filter,
        use_threads=use_threads,
        row_groups=[(i, list(groups)) for i, groups in selection],
    )
