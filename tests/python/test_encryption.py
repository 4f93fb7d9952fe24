"""Encrypted Parquet between parq and pyarrow, through the key tools both offer.

The KMS clients are the ones written for pyarrow (its documented in-memory test client,
subclassing ``pyarrow.parquet.encryption.KmsClient``; parquet-java's InMemoryKMS in Python),
handed unchanged to ``parq.encryption.CryptoFactory``. Over a matrix of modes (algorithm,
footer mode, uniform or per-column keys, single or double wrapping, data key length) pyarrow
reads every file parq writes and parq reads every file pyarrow writes, equal to the table
written; the encrypted files of DuckDB's tests (written by pyarrow) and parquet-java's file
with external key material read equal to pyarrow's reads; a KMS refusing a column's master
key leaves the other columns readable, and a read of some columns unwraps only their keys;
explicit keys round-trip; wrong keys are ``parq.ParquetError``.
"""

from __future__ import annotations

import base64
import itertools
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest

import parq
import parq.encryption as qe
from conftest import corpus_root

MASTER_KEYS = {
    "footer_key": "0123456789112345",
    "col_key": "1234567890123450",
    "hr_key": "1234567890123451",
}


class InMemoryKmsClient(pe.KmsClient):
    """pyarrow's documented test KMS: a wrapped key is base64(master key + key)."""

    unwrapped: list[str] = []

    def __init__(self, config):
        pe.KmsClient.__init__(self)
        self.master_keys_map = dict(config.custom_kms_conf)

    def wrap_key(self, key_bytes, master_key_identifier):
        master = self.master_keys_map[master_key_identifier].encode("utf-8")
        return base64.b64encode(master + key_bytes)

    def unwrap_key(self, wrapped_key, master_key_identifier):
        InMemoryKmsClient.unwrapped.append(master_key_identifier)
        if master_key_identifier not in self.master_keys_map:
            raise ValueError(f"master key {master_key_identifier} refused")
        expected = self.master_keys_map[master_key_identifier]
        raw = base64.b64decode(wrapped_key)
        if raw[:16].decode("utf-8") != expected:
            raise ValueError("incorrect master key")
        return raw[16:]


def kms_config(keys=MASTER_KEYS):
    return dict(custom_kms_conf=dict(keys))


def factories(keys=MASTER_KEYS):
    return (
        qe.CryptoFactory(lambda c: InMemoryKmsClient(c)),
        qe.KmsConnectionConfig(**kms_config(keys)),
        pe.CryptoFactory(lambda c: InMemoryKmsClient(c)),
        pe.KmsConnectionConfig(**kms_config(keys)),
    )


def table(n=2000):
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "name": pa.array([None if i % 9 == 0 else f"n{i % 40}" for i in range(n)]),
            "salary": pa.array([float(i) * 1.5 for i in range(n)]),
            "tags": pa.array([[i, i + 1] if i % 5 else None for i in range(n)], pa.list_(pa.int32())),
        }
    )


MODES = list(
    itertools.product(
        ["AES_GCM_V1", "AES_GCM_CTR_V1"],  # algorithm
        [False, True],  # plaintext footer
        [False, True],  # uniform
        [True, False],  # double wrapping
    )
)


def configs(algorithm, plaintext, uniform, double, bits):
    kw = dict(
        encryption_algorithm=algorithm,
        plaintext_footer=plaintext,
        double_wrapping=double,
        data_key_length_bits=bits,
    )
    if uniform:
        kw["uniform_encryption"] = True
        cols = None
    else:
        cols = {"col_key": ["name", "tags"], "hr_key": ["salary"]}
    return (
        qe.EncryptionConfiguration("footer_key", column_keys=cols, **kw),
        pe.EncryptionConfiguration("footer_key", column_keys=cols, **kw),
    )


@pytest.mark.parametrize("algorithm,plaintext,uniform,double", MODES)
def test_pyarrow_and_parq_read_each_others_files(tmp_path, algorithm, plaintext, uniform, double):
    t = table()
    bits = 256 if double else 128
    q_factory, q_kms, p_factory, p_kms = factories()
    q_conf, p_conf = configs(algorithm, plaintext, uniform, double, bits)

    # parq writes, pyarrow reads (with page checksums checked).
    ours = tmp_path / "parq.parquet"
    enc = q_factory.file_encryption_properties(q_kms, q_conf)
    parq.write_table(t, str(ours), encryption_properties=enc, row_group_size=700, data_page_size=4096)
    dec = p_factory.file_decryption_properties(p_kms)
    assert pq.read_table(ours, decryption_properties=dec).equals(t)
    md = pq.ParquetFile(ours, decryption_properties=dec).metadata
    assert md.num_row_groups == 3
    # pyarrow shows a footer-key column's plaintext (redacted) metadata under a plaintext
    # footer, as parquet-cpp writes it; the column-key columns' it decrypts.
    assert (md.row_group(0).column(0).statistics is None) == (plaintext and uniform)
    if not uniform:
        assert md.row_group(0).column(2).statistics.max == 699 * 1.5

    # pyarrow writes, parq reads.
    theirs = tmp_path / "pyarrow.parquet"
    enc = p_factory.file_encryption_properties(p_kms, p_conf)
    pq.write_table(t, theirs, encryption_properties=enc, row_group_size=700)
    dec = q_factory.file_decryption_properties(q_kms)
    assert parq.read_table(str(theirs), decryption_properties=dec).equals(t)
    with open(theirs, "rb") as f:
        data = f.read()
    assert parq.read_table(data, decryption_properties=dec).equals(t)
    pf = parq.ParquetFile(str(theirs), decryption_properties=dec)
    assert pf.read(columns=["id", "salary"]).equals(t.select(["id", "salary"]))
    assert parq.read_metadata(str(theirs), decryption_properties=dec).num_rows == t.num_rows


def test_a_refused_master_key_leaves_the_other_columns_readable(tmp_path):
    t = table()
    q_factory, q_kms, _, _ = factories()
    q_conf, _ = configs("AES_GCM_V1", False, False, True, 128)
    path = str(tmp_path / "f.parquet")
    parq.write_table(t, path, encryption_properties=q_factory.file_encryption_properties(q_kms, q_conf))
    refusing = {k: v for k, v in MASTER_KEYS.items() if k != "hr_key"}
    r_factory = qe.CryptoFactory(lambda c: InMemoryKmsClient(c))
    dec = r_factory.file_decryption_properties(qe.KmsConnectionConfig(**kms_config(refusing)))
    InMemoryKmsClient.unwrapped.clear()
    got = parq.read_table(path, columns=["id", "name"], decryption_properties=dec)
    assert got.equals(t.select(["id", "name"]))
    # Only the footer's and the read column's master keys were asked for.
    assert "hr_key" not in InMemoryKmsClient.unwrapped
    with pytest.raises(parq.ParquetError, match="hr_key refused"):
        parq.read_table(path, decryption_properties=dec)


def test_explicit_keys_round_trip_and_wrong_keys_fail(tmp_path):
    t = table()
    footer = b"0123456789012345"
    columns = {"name": b"1234567890123450", "tags.list.element": b"1234567890123451"}
    for algorithm, plaintext, prefix, store in [
        ("AES_GCM_V1", False, None, True),
        ("AES_GCM_CTR_V1", True, b"tables", True),
        ("AES_GCM_V1", False, b"tables", False),
    ]:
        path = str(tmp_path / f"{algorithm}{plaintext}{store}.parquet")
        enc = qe.FileEncryptionProperties(
            footer,
            columns,
            algorithm=algorithm,
            plaintext_footer=plaintext,
            aad_prefix=prefix,
            store_aad_prefix=store,
        )
        with parq.ParquetWriter(path, t.schema, encryption_properties=enc) as w:
            w.write_table(t)
        supplied = None if store else prefix
        dec = qe.FileDecryptionProperties(footer, columns, aad_prefix=supplied)
        assert parq.read_table(path, decryption_properties=dec).equals(t)
        assert parq.read_schema(path, decryption_properties=dec).equals(t.schema)
        wrong = qe.FileDecryptionProperties(footer, {**columns, "name": b"x" * 16}, aad_prefix=supplied)
        with pytest.raises(parq.ParquetError, match="decrypt"):
            parq.read_table(path, decryption_properties=wrong)
    with pytest.raises(parq.ParquetError):
        qe.FileEncryptionProperties(b"short")
    # An encrypted footer without keys is refused clearly.
    with pytest.raises(parq.ParquetError, match="encrypted"):
        parq.read_table(str(tmp_path / "AES_GCM_V1FalseTrue.parquet"))


def duckdb_file(name):
    return corpus_root() / "real-world/duckdb__duckdb" / f"data__parquet-testing__{name}"


@pytest.mark.parametrize("name", ["encryption__encrypted_column.parquet", "encryption__encrypted_footer.parquet"])
def test_duckdb_files_written_by_pyarrow_read_equal(name):
    keys = {"footer_key": "0123456789112345", "col_key": "1234567890123450"}
    q_factory, q_kms, p_factory, p_kms = factories(keys)
    path = duckdb_file(name)
    want = pq.read_table(path, decryption_properties=p_factory.file_decryption_properties(p_kms))
    got = parq.read_table(str(path), decryption_properties=q_factory.file_decryption_properties(q_kms))
    assert got.equals(want)


class JavaInMemoryKms(pe.KmsClient):
    """parquet-java's InMemoryKMS: AES-GCM with the master key, its id as AAD, base64 of nonce,
    ciphertext and tag."""

    MASTERS = {"kf": b"0123456789012345", "kc1": b"1234567890123450", "kc2": b"1234567890123451"}

    def __init__(self, config):
        pe.KmsClient.__init__(self)

    def wrap_key(self, key_bytes, master_key_identifier):
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        nonce = os.urandom(12)
        ct = AESGCM(self.MASTERS[master_key_identifier]).encrypt(nonce, key_bytes, master_key_identifier.encode())
        return base64.b64encode(nonce + ct).decode()

    def unwrap_key(self, wrapped_key, master_key_identifier):
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        raw = base64.b64decode(wrapped_key)
        return AESGCM(self.MASTERS[master_key_identifier]).decrypt(raw[:12], raw[12:], master_key_identifier.encode())


def test_parquet_java_external_key_material_reads_equal():
    path = corpus_root() / "parquet-testing/data/external_key_material_java.parquet.encrypted"
    p = pe.CryptoFactory(lambda c: JavaInMemoryKms(c))
    want = pq.read_table(
        path,
        decryption_properties=p.file_decryption_properties(pe.KmsConnectionConfig(), parquet_file_path=str(path)),
    )
    q = qe.CryptoFactory(lambda c: JavaInMemoryKms(c))
    dec = q.file_decryption_properties(qe.KmsConnectionConfig())
    got = parq.read_table(str(path), decryption_properties=dec)
    assert got.num_rows > 0
    assert got.equals(want)
