"""Parquet modular encryption, as ``pyarrow.parquet.encryption`` offers it.

Envelope encryption through a KMS: a :class:`CryptoFactory` made with a KMS client factory
(a callable that takes a :class:`KmsConnectionConfig` and returns a :class:`KmsClient`)
turns an :class:`EncryptionConfiguration` (master key ids of the footer and the columns) into
``FileEncryptionProperties`` for ``parq.write_table(..., encryption_properties=...)``, and a
:class:`DecryptionConfiguration` into ``FileDecryptionProperties`` for
``parq.read_table(..., decryption_properties=...)``, ``ParquetFile`` and ``read_metadata``.
KMS clients written for pyarrow work unchanged: any object with ``wrap_key(key_bytes,
master_key_identifier)`` (returning ``str`` or ``bytes``) and ``unwrap_key(wrapped_key,
master_key_identifier)`` (returning ``bytes``). The files are those pyarrow and
parquet-java write and read: the same key material (``PKMT1``), single or double wrapping.

Explicit keys, without a KMS: ``FileDecryptionProperties(footer_key, column_keys=None,
aad_prefix=None)`` and ``FileEncryptionProperties(footer_key, column_keys=None,
algorithm="AES_GCM_V1", plaintext_footer=False, aad_prefix=None, store_aad_prefix=True)``,
keys as ``bytes``, ``column_keys`` by dotted leaf path (``"l.list.element"``).
"""

import datetime

from parq._parq import (
    FileDecryptionProperties,
    FileEncryptionProperties,
    kms_decryption_properties as _kms_decryption_properties,
    kms_encryption_properties as _kms_encryption_properties,
)

__all__ = [
    "CryptoFactory",
    "DecryptionConfiguration",
    "EncryptionConfiguration",
    "FileDecryptionProperties",
    "FileEncryptionProperties",
    "KmsClient",
    "KmsConnectionConfig",
]


class KmsClient:
    """The client of a key management service: subclass it and implement ``wrap_key`` and
    ``unwrap_key`` (pyarrow's ``KmsClient`` subclasses work as well)."""

    def __init__(self):
        pass

    def wrap_key(self, key_bytes, master_key_identifier):
        """Wraps ``key_bytes`` (bytes) with the master key ``master_key_identifier``; returns
        the wrapped key as ``str`` (or ``bytes``)."""
        raise NotImplementedError("KmsClient.wrap_key")

    def unwrap_key(self, wrapped_key, master_key_identifier):
        """Unwraps ``wrapped_key`` (str) with the master key ``master_key_identifier``;
        returns the key as ``bytes``."""
        raise NotImplementedError("KmsClient.unwrap_key")


class KmsConnectionConfig:
    """How to reach the KMS: ``kms_instance_id``, ``kms_instance_url`` (``"DEFAULT"``: as the
    file's footer key material says), ``key_access_token`` and ``custom_kms_conf`` (a dict of
    strings for the client)."""

    def __init__(
        self,
        kms_instance_id=None,
        kms_instance_url=None,
        key_access_token=None,
        custom_kms_conf=None,
    ):
        self.kms_instance_id = kms_instance_id or "DEFAULT"
        self.kms_instance_url = kms_instance_url or "DEFAULT"
        self.key_access_token = key_access_token or "DEFAULT"
        self.custom_kms_conf = dict(custom_kms_conf or {})

    def refresh_key_access_token(self, value):
        """Sets a new access token."""
        self.key_access_token = value

    def __repr__(self):
        return (
            f"KmsConnectionConfig(kms_instance_id={self.kms_instance_id!r}, "
            f"kms_instance_url={self.kms_instance_url!r})"
        )


class EncryptionConfiguration:
    """Which keys encrypt a file: ``footer_key`` (a master key id), ``column_keys``
    (``{master_key_id: [column, ...]}``, a column being a top-level name covering its leaves
    or a dotted leaf path; the other columns stay plaintext) or ``uniform_encryption`` (every
    column under the footer key); ``encryption_algorithm`` (``"AES_GCM_V1"``, default, or
    ``"AES_GCM_CTR_V1"``), ``plaintext_footer`` (default False), ``double_wrapping`` (default
    True), ``internal_key_material`` (default True; parq writes key material into the file
    only), ``data_key_length_bits`` (128, default, 192 or 256). ``cache_lifetime`` is
    accepted (parq keeps keys for the life of the properties made)."""

    def __init__(
        self,
        footer_key,
        *,
        column_keys=None,
        uniform_encryption=None,
        encryption_algorithm=None,
        plaintext_footer=None,
        double_wrapping=None,
        cache_lifetime=None,
        internal_key_material=None,
        data_key_length_bits=None,
    ):
        self.footer_key = footer_key
        self.column_keys = dict(column_keys or {})
        self.uniform_encryption = bool(uniform_encryption)
        self.encryption_algorithm = encryption_algorithm or "AES_GCM_V1"
        self.plaintext_footer = bool(plaintext_footer)
        self.double_wrapping = True if double_wrapping is None else bool(double_wrapping)
        self.cache_lifetime = cache_lifetime or datetime.timedelta(minutes=10)
        self.internal_key_material = (
            True if internal_key_material is None else bool(internal_key_material)
        )
        self.data_key_length_bits = data_key_length_bits or 128


class DecryptionConfiguration:
    """How to decrypt: ``cache_lifetime`` is accepted (keys are kept for the life of the
    properties made)."""

    def __init__(self, cache_lifetime=None):
        self.cache_lifetime = cache_lifetime or datetime.timedelta(minutes=10)


def _client_maker(kms_client_factory, base):
    """A callable the Rust side calls with the connection (its instance id and URL taken from
    the file when ``base`` says ``DEFAULT``) to get a KMS client."""

    def make(kms_instance_id, kms_instance_url, key_access_token, custom_kms_conf):
        config = KmsConnectionConfig(
            kms_instance_id=kms_instance_id,
            kms_instance_url=kms_instance_url,
            key_access_token=key_access_token,
            custom_kms_conf=custom_kms_conf,
        )
        return kms_client_factory(config)

    return make


def _conf(kms_connection_config):
    c = kms_connection_config or KmsConnectionConfig()
    return (
        str(c.kms_instance_id),
        str(c.kms_instance_url),
        str(c.key_access_token),
        {str(k): str(v) for k, v in dict(c.custom_kms_conf).items()},
    )


def _columns(column_keys):
    out = {}
    for master, columns in dict(column_keys or {}).items():
        if isinstance(columns, str):
            columns = [columns]
        out[str(master)] = [str(c) for c in columns]
    return out


class CryptoFactory:
    """Makes encryption and decryption properties through the KMS clients that
    ``kms_client_factory(kms_connection_config)`` returns."""

    def __init__(self, kms_client_factory):
        if not callable(kms_client_factory):
            raise TypeError("kms_client_factory must be callable")
        self._factory = kms_client_factory

    def file_encryption_properties(
        self,
        kms_connection_config,
        encryption_config,
        parquet_file_path=None,
        filesystem=None,
    ):
        """The ``FileEncryptionProperties`` of one file: fresh data keys for the footer and
        each encrypted column, wrapped through the KMS."""
        e = encryption_config
        conf = _conf(kms_connection_config)
        return _kms_encryption_properties(
            _client_maker(self._factory, kms_connection_config),
            *conf,
            str(e.footer_key),
            _columns(e.column_keys),
            bool(e.uniform_encryption),
            str(e.encryption_algorithm),
            bool(e.plaintext_footer),
            bool(e.double_wrapping),
            bool(e.internal_key_material),
            int(e.data_key_length_bits),
        )

    def file_decryption_properties(
        self,
        kms_connection_config,
        decryption_config=None,
        parquet_file_path=None,
        filesystem=None,
    ):
        """The ``FileDecryptionProperties`` of files written with key material: each key is
        unwrapped through the KMS when a read needs it (a column's key only when that column
        is read). ``parquet_file_path`` locates external key material (parquet-java's
        ``_KEY_MATERIAL_FOR_<name>.json``); a read of a path finds it by itself."""
        conf = _conf(kms_connection_config)
        path = None if parquet_file_path is None else str(parquet_file_path)
        return _kms_decryption_properties(
            _client_maker(self._factory, kms_connection_config), *conf, path
        )

    def remove_cache_entries_for_token(self, access_token):
        """Accepted for pyarrow's API: parq keeps no keys beyond the properties made."""

    def remove_cache_entries_for_all_tokens(self):
        """Accepted for pyarrow's API: parq keeps no keys beyond the properties made."""
