"""Type stubs of parq's native module (``parq._parq``)."""

from __future__ import annotations

import os
from typing import Any, BinaryIO, Iterable, Mapping, Optional, Sequence, Union

import pyarrow as pa

Source = Union[str, os.PathLike, bytes, bytearray, memoryview, BinaryIO]
Sink = Union[str, os.PathLike, BinaryIO]
# pyarrow's per-column writer options: for every column, or by a leaf's dotted path. A dict of
# codecs leaves the other columns uncompressed (``None``: every column uncompressed); a list
# turns dictionaries or statistics on for those columns only; names of no leaf are ignored.
Compression = Union[str, None, Mapping[str, str]]
CompressionLevel = Union[int, None, Mapping[str, int]]
ColumnsOn = Union[bool, Iterable[str]]
# A value encoding ("PLAIN", "BYTE_STREAM_SPLIT", "DELTA_BINARY_PACKED", ...) for every column
# or by column, for columns without dictionaries.
ColumnEncoding = Union[str, None, Mapping[str, str]]

class ParquetError(Exception):
    """An error reading or writing Parquet: what went wrong and where (file offset, row
    group, column, page)."""

class ParquetInvalidFileError(ParquetError):
    """The file's bytes are not valid Parquet (truncated, corrupt, inconsistent)."""

class ParquetUnsupportedError(ParquetError):
    """Valid Parquet that parq does not read (a codec, an encrypted footer, a type)."""

class ParquetIOError(ParquetError):
    """Reading or writing the file failed."""

def read_table(
    source: Source,
    columns: Optional[Sequence[str]] = None,
    row_groups: Optional[Sequence[int]] = None,
    filter: Optional[str] = None,
    use_threads: bool = True,
    batch_size: Optional[int] = None,
    string_view: bool = False,
    decryption_properties: Optional[FileDecryptionProperties] = None,
    memory_map: bool = False,
) -> pa.Table: ...
def read_metadata(
    source: Source,
    row_groups: Optional[Sequence[int]] = None,
    columns: Optional[Sequence[Union[int, str]]] = None,
    statistics: bool = True,
    lazy: bool = False,
    decryption_properties: Optional[FileDecryptionProperties] = None,
) -> FileMetaData: ...
def read_schema(source: Source, decryption_properties: Optional[FileDecryptionProperties] = None) -> pa.Schema: ...
def unshred_variant(storage: pa.Array) -> pa.StructArray:
    """The ``struct<metadata, value>`` of shredded Variant storage ``storage``
    (``struct<metadata, value, typed_value>`` as the Parquet spec shreds it), each row's value
    reassembled from ``value`` and ``typed_value``."""
def release_buffers() -> None:
    """Frees the buffers parq keeps between reads (file ranges and pages read, and the
    buffers of tables it returned that have been dropped since)."""
def clear_metadata_cache() -> None:
    """Forgets the footers kept from dataset reads."""
def write_table(
    table: Any,
    where_: Sink,
    compression: Compression = "snappy",
    compression_level: CompressionLevel = None,
    use_dictionary: ColumnsOn = True,
    write_statistics: ColumnsOn = True,
    column_encoding: ColumnEncoding = None,
    use_byte_stream_split: ColumnsOn = False,
    bloom_filter_options: Optional[Mapping[str, Union[bool, Mapping[str, Union[int, float]]]]] = None,
    dictionary_pagesize_limit: Optional[int] = None,
    write_page_checksum: bool = False,
    use_compliant_nested_type: bool = True,
    max_rows_per_page: Optional[int] = None,
    sorting_columns: Optional[Sequence[Any]] = None,
    data_page_version: str = "1.0",
    row_group_size: Optional[int] = None,
    data_page_size: Optional[int] = None,
    write_page_index: bool = True,
    write_footer_index: bool = True,
    encryption_properties: Optional[FileEncryptionProperties] = None,
    variant_shredding: Optional[Mapping[str, pa.DataType]] = None,
    store_decimal_as_integer: bool = False,
    float_total_order: bool = False,
) -> None: ...

def merge(
    inputs: Sequence[Union[str, os.PathLike[str]]],
    output: Union[str, os.PathLike[str]],
    compression: Compression = "snappy",
    compression_level: CompressionLevel = None,
    use_dictionary: ColumnsOn = True,
    write_statistics: ColumnsOn = True,
    column_encoding: ColumnEncoding = None,
    use_byte_stream_split: ColumnsOn = False,
    bloom_filter_options: Optional[Mapping[str, Union[bool, Mapping[str, Union[int, float]]]]] = None,
    data_page_version: str = "1.0",
    row_group_size: Optional[int] = None,
    data_page_size: Optional[int] = None,
    write_page_index: bool = True,
    write_footer_index: bool = True,
) -> dict[str, int]:
    """Merges Parquet files into ``output``: row groups copied byte for byte where a file
    has the output's Parquet schema, the rest encoded with the options; columns united by
    name. Returns ``{"row_groups_copied", "files_reencoded", "rows"}``."""

class FileDecryptionProperties:
    """The keys to read an encrypted file (explicit, or from ``CryptoFactory``)."""

    def __init__(
        self,
        footer_key: bytes,
        column_keys: Optional[dict[str, bytes]] = None,
        aad_prefix: Optional[bytes] = None,
    ) -> None: ...

class FileEncryptionProperties:
    """How to encrypt a file (explicit keys, or from ``CryptoFactory``)."""

    def __init__(
        self,
        footer_key: bytes,
        column_keys: Optional[dict[str, bytes]] = None,
        algorithm: str = "AES_GCM_V1",
        plaintext_footer: bool = False,
        aad_prefix: Optional[bytes] = None,
        store_aad_prefix: bool = True,
    ) -> None: ...

def kms_encryption_properties(
    make_client: Any,
    kms_instance_id: str,
    kms_instance_url: str,
    key_access_token: str,
    custom_kms_conf: dict[str, str],
    footer_key: str,
    column_keys: dict[str, list[str]],
    uniform_encryption: bool,
    encryption_algorithm: str,
    plaintext_footer: bool,
    double_wrapping: bool,
    internal_key_material: bool,
    data_key_length_bits: int,
) -> FileEncryptionProperties: ...
def kms_decryption_properties(
    make_client: Any,
    kms_instance_id: str,
    kms_instance_url: str,
    key_access_token: str,
    custom_kms_conf: dict[str, str],
    file_path: Optional[str] = None,
) -> FileDecryptionProperties: ...

class ParquetFile:
    """A Parquet file opened for reading: its footer read once and opened lazily (a read of
    some columns decodes only their part of it; ``metadata`` and a read of every column
    decode it whole, once), row groups and columns read on demand."""

    def __init__(
        self,
        source: Source,
        string_view: bool = False,
        decryption_properties: Optional[FileDecryptionProperties] = None,
        memory_map: bool = False,
    ) -> None: ...
    @property
    def metadata(self) -> FileMetaData: ...
    @property
    def schema_arrow(self) -> pa.Schema: ...
    @property
    def num_row_groups(self) -> int: ...
    def read(
        self, columns: Optional[Sequence[str]] = None, use_threads: bool = True, filter: Optional[str] = None
    ) -> pa.Table: ...
    def read_row_group(self, i: int, columns: Optional[Sequence[str]] = None, use_threads: bool = True) -> pa.Table: ...
    def read_row_groups(
        self, row_groups: Sequence[int], columns: Optional[Sequence[str]] = None, use_threads: bool = True
    ) -> pa.Table: ...
    def iter_batches(
        self,
        batch_size: int = 65536,
        row_groups: Optional[Sequence[int]] = None,
        columns: Optional[Sequence[str]] = None,
        use_threads: bool = False,
        filter: Optional[str] = None,
    ) -> pa.RecordBatchReader: ...

class ParquetWriter:
    """An open Parquet writer; ``close()`` (or the end of a ``with`` block) writes the
    footer. With ``append=True`` the rows are appended to the existing file at the path as
    new row groups; ``close()`` replaces the file whole (a crash leaves the old file)."""

    def __init__(
        self,
        where_: Sink,
        schema: pa.Schema,
        compression: Compression = "snappy",
        compression_level: CompressionLevel = None,
        use_dictionary: ColumnsOn = True,
        write_statistics: ColumnsOn = True,
        column_encoding: ColumnEncoding = None,
        use_byte_stream_split: ColumnsOn = False,
        bloom_filter_options: Optional[Mapping[str, Union[bool, Mapping[str, Union[int, float]]]]] = None,
        dictionary_pagesize_limit: Optional[int] = None,
        write_page_checksum: bool = False,
        use_compliant_nested_type: bool = True,
        max_rows_per_page: Optional[int] = None,
        sorting_columns: Optional[Sequence[Any]] = None,
        data_page_version: str = "1.0",
        row_group_size: Optional[int] = None,
        data_page_size: Optional[int] = None,
        write_page_index: bool = True,
        write_footer_index: bool = True,
        encryption_properties: Optional[FileEncryptionProperties] = None,
        append: bool = False,
    ) -> None: ...
    def write_table(self, table: Any) -> None: ...
    def write_batch(self, batch: Any) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> ParquetWriter: ...
    def __exit__(self, *args: Any) -> bool: ...

class FileMetaData:
    @property
    def num_rows(self) -> int: ...
    @property
    def num_row_groups(self) -> int: ...
    @property
    def num_columns(self) -> int: ...
    @property
    def created_by(self) -> Optional[str]: ...
    @property
    def format_version(self) -> str: ...
    @property
    def metadata(self) -> Optional[dict[bytes, Optional[bytes]]]: ...
    def row_group(self, i: int) -> RowGroupMetaData: ...
    def to_dict(self) -> dict[str, Any]: ...

class RowGroupMetaData:
    @property
    def num_rows(self) -> int: ...
    @property
    def num_columns(self) -> int: ...
    @property
    def total_byte_size(self) -> int: ...
    def column(self, j: int) -> ColumnChunkMetaData: ...
    def to_dict(self) -> dict[str, Any]: ...

class ColumnChunkMetaData:
    @property
    def path_in_schema(self) -> str: ...
    @property
    def physical_type(self) -> str: ...
    @property
    def compression(self) -> str: ...
    @property
    def encodings(self) -> list[str]: ...
    @property
    def num_values(self) -> int: ...
    @property
    def total_compressed_size(self) -> int: ...
    @property
    def total_uncompressed_size(self) -> int: ...
    @property
    def data_page_offset(self) -> int: ...
    @property
    def dictionary_page_offset(self) -> Optional[int]: ...
    @property
    def has_dictionary_page(self) -> bool: ...
    @property
    def has_column_index(self) -> bool: ...
    @property
    def has_offset_index(self) -> bool: ...
    @property
    def statistics(self) -> Optional[Statistics]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Statistics:
    @property
    def has_min_max(self) -> bool: ...
    @property
    def min(self) -> Any: ...
    @property
    def max(self) -> Any: ...
    @property
    def null_count(self) -> Optional[int]: ...
    @property
    def has_null_count(self) -> bool: ...
    @property
    def distinct_count(self) -> Optional[int]: ...
    @property
    def physical_type(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
