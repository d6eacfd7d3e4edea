"""The resumable output: an append-only JSON Lines journal, and its conversion to Parquet.

Each record is written as one complete line by a single ``os.write`` to a file opened with
``O_APPEND``, and the file is fsynced every few lines and at the end, so a run killed at any moment (even
``kill -9``) leaves at worst one partial last line. Opening the journal again drops that partial line
(and any line that is not valid JSON) and returns the keys already done, so a restarted run skips them:
nothing is lost and nothing is written twice.

A record is ``{"path", "sha256", "task", "error", "parse"}``; its key is ``(path, sha256, task)``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

Key = tuple[str, str | None, str | None]


def record_key(record: Mapping[str, Any]) -> Key:
    """The resume key of a record: its path, the sha256 of its bytes and its task."""
    return (str(record["path"]), record.get("sha256"), record.get("task"))


def dump_line(record: Mapping[str, Any]) -> str:
    """One record as one JSON line (newlines inside strings are escaped, so it is a single line)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """The complete, valid records of a journal, in order (a partial or broken line is passed over)."""
    if not path.is_file():
        return
    with path.open("rb") as handle:
        for raw in handle:
            if not raw.endswith(b"\n"):
                return
            record = _decode(raw)
            if record is not None:
                yield record


def _decode(raw: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(record, dict) or "path" not in record:
        return None
    return record


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def repair(path: Path) -> set[Key]:
    """Make ``path`` a clean journal and return the keys it holds.

    A trailing partial line is cut off; lines that are not valid records, and repeats of a key, are
    dropped by rewriting the file (to a temporary file, then an atomic rename).
    """
    if not path.is_file():
        return set()
    keys: set[Key] = set()
    clean_end = 0
    rewrite = False
    with path.open("rb") as handle:
        for raw in handle:
            if not raw.endswith(b"\n"):
                break
            record = _decode(raw)
            if record is None or record_key(record) in keys:
                rewrite = True
            else:
                keys.add(record_key(record))
            clean_end += len(raw)
    if path.stat().st_size != clean_end:
        os.truncate(path, clean_end)
    if rewrite:
        temporary = path.with_name(path.name + ".repair")
        seen: set[Key] = set()
        with temporary.open("wb") as out:
            with path.open("rb") as handle:
                for raw in handle:
                    record = _decode(raw)
                    if record is not None and record_key(record) not in seen:
                        seen.add(record_key(record))
                        out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
        _fsync_dir(path.parent)
    return keys


class Journal:
    """An append-only JSONL file: whole lines only, fsynced every ``fsync_every`` lines or seconds."""

    def __init__(self, path: Path, *, fsync_every: int = 32, fsync_interval_s: float = 2.0) -> None:
        self.path = path
        self.fsync_every = fsync_every
        self.fsync_interval_s = fsync_interval_s
        self._fd: int | None = None
        self._unsynced = 0
        self._last_sync = time.monotonic()

    def open(self) -> set[Key]:
        """Repair the file, open it for appending and return the keys already done."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        done = repair(self.path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return done

    def write_line(self, line: str) -> None:
        """Append one complete line (it must end with a newline) with a single write."""
        if self._fd is None:
            raise RuntimeError("the journal is not open")
        if not line.endswith("\n") or "\n" in line[:-1]:
            raise ValueError("a journal line must be exactly one line ending with a newline")
        data = line.encode("utf-8")
        written = os.write(self._fd, data)
        while written < len(data):  # a short write is rare (disk full); a crash here leaves a partial line
            written += os.write(self._fd, data[written:])
        self._unsynced += 1
        now = time.monotonic()
        if self._unsynced >= self.fsync_every or now - self._last_sync >= self.fsync_interval_s:
            self.sync()

    def sync(self) -> None:
        """Flush the written lines to disk."""
        if self._fd is not None and self._unsynced:
            os.fsync(self._fd)
        self._unsynced = 0
        self._last_sync = time.monotonic()

    def close(self) -> None:
        """Sync and close."""
        if self._fd is not None:
            self.sync()
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


PARQUET_COLUMNS = (
    "path",
    "sha256",
    "task",
    "width",
    "height",
    "elements",
    "error_code",
    "error_message",
    "parse",
)


def journal_to_parquet(journal: Path, out: Path, *, rows_per_group: int = 1000) -> int:
    """Write the journal's records to a Parquet file (atomically); returns the number of rows.

    Columns: ``path``, ``sha256``, ``task``, ``width``, ``height``, ``elements`` (count),
    ``error_code`` and ``error_message`` (null when parsed) and ``parse`` (the public JSON, as a string).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [
            ("path", pa.string()),
            ("sha256", pa.string()),
            ("task", pa.string()),
            ("width", pa.int32()),
            ("height", pa.int32()),
            ("elements", pa.int32()),
            ("error_code", pa.string()),
            ("error_message", pa.string()),
            ("parse", pa.string()),
        ]
    )
    temporary = out.with_name(out.name + ".tmp")
    rows = 0
    columns: dict[str, list[Any]] = {name: [] for name in PARQUET_COLUMNS}

    def flush(writer: pq.ParquetWriter) -> None:
        if columns["path"]:
            writer.write_table(pa.table(columns, schema=schema))
            for values in columns.values():
                values.clear()

    with pq.ParquetWriter(temporary, schema) as writer:
        for record in read_records(journal):
            parse = record.get("parse")
            error = record.get("error")
            columns["path"].append(record["path"])
            columns["sha256"].append(record.get("sha256"))
            columns["task"].append(record.get("task"))
            columns["width"].append(parse["image"]["width"] if parse else None)
            columns["height"].append(parse["image"]["height"] if parse else None)
            columns["elements"].append(len(parse["elements"]) if parse else None)
            columns["error_code"].append(error["code"] if error else None)
            columns["error_message"].append(error["message"] if error else None)
            columns["parse"].append(json.dumps(parse, ensure_ascii=False) if parse else None)
            rows += 1
            if len(columns["path"]) >= rows_per_group:
                flush(writer)
        flush(writer)
    os.replace(temporary, out)
    return rows
