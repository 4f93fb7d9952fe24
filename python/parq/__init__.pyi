from __future__ import annotations

import os

from typing import Any, Optional, Sequence, Union

import pyarrow as pa
import pyarrow.compute

from parq import encryption as encryption
from parq._variant import VariantType as VariantType
from parq._parq import (
    ColumnChunkMetaData as ColumnChunkMetaData,
    FileMetaData as FileMetaData,
    ParquetError as ParquetError,
    ParquetInvalidFileError as ParquetInvalidFileError,
    ParquetIOError as ParquetIOError,
    ParquetUnsupportedError as ParquetUnsupportedError,
    ParquetFile as ParquetFile,
    ParquetWriter as ParquetWriter,
    RowGroupMetaData as RowGroupMetaData,
    Statistics as Statistics,
    Source,
    read_metadata as read_metadata,
    read_schema as read_schema,
    release_buffers as release_buffers,
    clear_metadata_cache as clear_metadata_cache,
    write_table as write_table,
    merge as merge,
)

Filters = Union[
    str, pa.compute.Expression, Sequence[tuple[str, str, Any]], Sequence[Sequence[tuple[str, str, Any]]]
]

def read_table(
    source: Source,
    columns: Optional[Sequence[str]] = None,
    row_groups: Optional[Sequence[int]] = None,
    filters: Optional[Filters] = None,
    use_threads: bool = True,
    batch_size: Optional[int] = None,
    string_view: bool = False,
    partitioning: Union[str, None, pa.Schema] = "hive",
    storage_options: Optional[dict[str, str]] = None,
    decryption_properties: Optional[encryption.FileDecryptionProperties] = None,
    memory_map: bool = False,
    schema: Optional[pa.Schema] = None,
    union_by_name: bool = True,
) -> pa.Table: ...

class Dataset:
    @property
    def schema(self) -> pa.Schema: ...
    @property
    def files(self) -> list[str]: ...
    def to_table(
        self, columns: Optional[Sequence[str]] = None, filters: Optional[Filters] = None, use_threads: bool = True
    ) -> pa.Table: ...
    def to_batches(
        self, columns: Optional[Sequence[str]] = None, filters: Optional[Filters] = None, use_threads: bool = True
    ) -> pa.RecordBatchReader: ...
    def count_rows(self, filters: Optional[Filters] = None, use_threads: bool = True) -> int: ...

def dataset(
    source: Union[str, os.PathLike[str], Sequence[Union[str, os.PathLike[str]]]],
    partitioning: Union[str, None, pa.Schema] = "hive",
    storage_options: Optional[dict[str, str]] = None,
    schema: Optional[pa.Schema] = None,
    string_view: bool = False,
    batch_size: Optional[int] = None,
    include_file_paths: Optional[str] = None,
    row_index: Optional[str] = None,
    union_by_name: bool = True,
) -> Dataset: ...

def write_to_dataset(
    table: Any,
    root_path: Union[str, os.PathLike[str]],
    partition_cols: Optional[Sequence[str]] = None,
    basename_template: Optional[str] = None,
    max_rows_per_file: Optional[int] = None,
    storage_options: Optional[dict[str, str]] = None,
    **write_options: Any,
) -> list[str]: ...
