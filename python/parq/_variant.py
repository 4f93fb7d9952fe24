"""The ``arrow.parquet.variant`` extension type: Variant columns as parq reads them
(``struct<metadata: binary, value: binary>``, the Parquet Variant binary encoding), or
shredded as other readers give them (``struct<metadata, value, typed_value>``, reassembled
first by parq's Rust reassembly, ``parq._parq.unshred_variant``), with
``to_pylist()`` and ``as_py()`` decoding each value to Python: ``None``, ``bool``, ``int``,
``float``, ``decimal.Decimal``, ``datetime.date``, ``datetime.time``, ``datetime.datetime``
(UTC-adjusted timestamps with ``tzinfo=timezone.utc``; nanosecond timestamps as
``pandas.Timestamp`` when pandas is installed), ``bytes``, ``str``, ``uuid.UUID``, ``dict``
and ``list``. A null row is ``None``, as is a Variant null.
"""

import datetime
import decimal
import struct
import uuid

import pyarrow as pa

EXTENSION_NAME = "arrow.parquet.variant"
_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_MAX_DEPTH = 128


class VariantError(ValueError):
    """Invalid Variant bytes."""


def _uint(b, at, width):
    if at < 0 or at + width > len(b):
        raise VariantError("Invalid variant, truncated value")
    return int.from_bytes(b[at : at + width], "little")


def _slice(b, start, end):
    if start < 0 or end > len(b) or start > end:
        raise VariantError("Invalid variant, truncated value")
    return b[start:end]


class _Metadata:
    def __init__(self, b):
        if not b or b[0] & 0x0F != 1:
            raise VariantError("Invalid variant, bad metadata header")
        self.b = b
        self.size = (b[0] >> 6) + 1
        self.len = _uint(b, 1, self.size)
        self.start = 1 + (self.len + 2) * self.size
        if self.start + self._offset(self.len) > len(b):
            raise VariantError("Invalid variant, metadata strings past its end")

    def _offset(self, i):
        return _uint(self.b, 1 + (i + 1) * self.size, self.size)

    def name(self, i):
        if i >= self.len:
            raise VariantError(f"Invalid variant, field id {i} not in the metadata")
        raw = _slice(self.b, self.start + self._offset(i), self.start + self._offset(i + 1))
        return bytes(raw).decode("utf-8")


def _timestamp(v, per_second, utc):
    if per_second == 1_000_000_000:
        try:
            import pandas as pd
        except ImportError:
            pd = None
        if pd is not None:
            t = pd.Timestamp(v, unit="ns")
            return t.tz_localize("UTC") if utc else t
        v //= 1000
    base = _EPOCH_UTC if utc else _EPOCH
    return base + datetime.timedelta(microseconds=v)


def _decimal(unscaled, scale):
    return decimal.Decimal(unscaled).scaleb(-scale)


def _primitive(t, b):
    def fixed(fmt, n, at=1):
        return struct.unpack_from(fmt, _slice(b, at, at + n))[0]

    if t == 0:
        return None
    if t in (1, 2):
        return t == 1
    if t == 3:
        return fixed("<b", 1)
    if t == 4:
        return fixed("<h", 2)
    if t == 5:
        return fixed("<i", 4)
    if t == 6:
        return fixed("<q", 8)
    if t == 7:
        return fixed("<d", 8)
    if t in (8, 9, 10):
        n = {8: 4, 9: 8, 10: 16}[t]
        scale = _uint(b, 1, 1)
        return _decimal(int.from_bytes(_slice(b, 2, 2 + n), "little", signed=True), scale)
    if t == 11:
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=fixed("<i", 4))
    if t in (12, 13):
        return _timestamp(fixed("<q", 8), 1_000_000, t == 12)
    if t == 14:
        return fixed("<f", 4)
    if t in (15, 16):
        n = _uint(b, 1, 4)
        raw = _slice(b, 5, 5 + n)
        return bytes(raw) if t == 15 else bytes(raw).decode("utf-8")
    if t == 17:
        us = fixed("<q", 8)
        return (datetime.datetime.min + datetime.timedelta(microseconds=us)).time()
    if t in (18, 19):
        return _timestamp(fixed("<q", 8), 1_000_000_000, t == 18)
    if t == 20:
        return uuid.UUID(bytes=bytes(_slice(b, 1, 17)))
    raise VariantError(f"Invalid variant, primitive type {t}")


def _value(meta, b, depth=0):
    if not b:
        raise VariantError("Invalid variant, empty value")
    if depth > _MAX_DEPTH:
        raise VariantError("Invalid variant, nested too deeply")
    basic, h = b[0] & 3, b[0] >> 2
    if basic == 0:
        return _primitive(h, b)
    if basic == 1:
        return bytes(_slice(b, 1, 1 + h)).decode("utf-8")
    if basic == 2:
        id_size, off_size, large = ((h >> 2) & 3) + 1, (h & 3) + 1, h & 0x10
    else:
        id_size, off_size, large = 0, (h & 3) + 1, h & 0x04
    width = 4 if large else 1
    n = _uint(b, 1, width)
    ids = 1 + width
    offs = ids + n * id_size
    values = offs + (n + 1) * off_size
    if values > len(b):
        raise VariantError("Invalid variant, truncated container")

    def child(i):
        start = values + _uint(b, offs + i * off_size, off_size)
        return _value(meta, _slice(b, start, len(b)), depth + 1)

    if basic == 3:
        return [child(i) for i in range(n)]
    return {meta.name(_uint(b, ids + i * id_size, id_size)): child(i) for i in range(n)}


def decode(metadata, value):
    """The Python value of the Variant of ``metadata`` and ``value`` bytes."""
    return _value(_Metadata(memoryview(metadata).cast("B")), memoryview(value).cast("B"))


def _is_shredded(storage_type):
    return storage_type.get_field_index("typed_value") >= 0


def _unshredded(storage):
    """``storage`` as ``struct<metadata, value>``: shredded storage reassembled."""
    if not _is_shredded(storage.type):
        return storage
    from parq._parq import unshred_variant

    return unshred_variant(storage)


class VariantScalar(pa.ExtensionScalar):
    def as_py(self, **kwargs):
        if self.value is None or not self.value.is_valid:
            return None
        if _is_shredded(self.value.type):
            return VariantArray.from_storage(
                self.type, pa.repeat(self.value, 1)
            ).to_pylist()[0]
        return decode(self.value["metadata"].as_buffer(), self.value["value"].as_buffer())


class VariantArray(pa.ExtensionArray):
    def to_pylist(self, **kwargs):
        storage = _unshredded(self.storage)
        metadata, values = storage.field("metadata"), storage.field("value")
        out = []
        for i, valid in enumerate(storage.is_valid().to_pylist()):
            if not valid:
                out.append(None)
                continue
            out.append(decode(metadata[i].as_buffer(), values[i].as_buffer()))
        return out


class VariantType(pa.ExtensionType):
    """``arrow.parquet.variant`` over ``struct<metadata: binary, value: binary>``, or over
    shredded storage (``struct<metadata, value, typed_value>``), whose rows are reassembled
    before they are decoded."""

    def __init__(self, storage_type=None):
        if storage_type is None:
            storage_type = pa.struct(
                [
                    pa.field("metadata", pa.binary(), nullable=False),
                    pa.field("value", pa.binary(), nullable=False),
                ]
            )
        super().__init__(storage_type, EXTENSION_NAME)

    def __arrow_ext_serialize__(self):
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return cls(storage_type)

    def __arrow_ext_class__(self):
        return VariantArray

    def __arrow_ext_scalar_class__(self):
        return VariantScalar


def register():
    """Registers :class:`VariantType` with pyarrow (once; another registration of the name
    is kept)."""
    try:
        pa.register_extension_type(VariantType())
    except pa.ArrowKeyError:
        pass
