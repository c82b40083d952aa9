"""The positions of a batch, split by key prefix: one file per key range, so that a lookup reads
the one file of each batch whose range holds its key. The engine's analysis (``analysis``,
keyed by position too) is split the same way (``PARTITIONED``; the functions take the table).

A key lookup (``store.lookup``) reads the footer of each file once and then one row group;
DuckDB, which the analyses' queries use, weighs the statistics of every row group of the files
a query scans, so its lookup cost grows with their row groups, not with the one it reads: 20 ms
in the 100M-position file of a compacted store (3,052 row groups of 32k positions), 1.4 ms in
the thirty-second of it that holds the key. A batch of more than ``PARTITION_ROWS`` positions is therefore written as
``2**bits`` files, the smallest power of two that keeps each under ``PARTITION_ROWS`` (keys are
hashes, so the ranges fill evenly); a smaller batch keeps one file, ``positions.parquet``.
The name of a file says its range, so a reader needs nothing else::

    >>> partition_bits(500_000), partition_bits(10_000_000), partition_bits(100_000_000)
    (0, 3, 6)
    >>> names = [file_name(2, i) for i in range(4)]
    >>> names
    ['positions-2-0.parquet', 'positions-2-1.parquet', 'positions-2-2.parquet', 'positions-2-3.parquet']
    >>> covering(names, 0xC000_0000_0000_0000), covering(["positions.parquet"], 12345)
    ('positions-2-3.parquet', 'positions.parquet')
    >>> key_range(2, 1)
    (4611686018427387904, 9223372036854775808)
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

#: positions per file at most (256 row groups of ``store.folder.POSITIONS_ROW_GROUP``)
PARTITION_ROWS = 1 << 21
#: the most files a batch's positions are split into: 2**MAX_BITS
MAX_BITS = 16
#: the tables keyed by position, split by key range
PARTITIONED = ("positions", "analysis")
_NAMES = {table: re.compile(table + r"(?:-(\d+)-([0-9a-f]+))?\.parquet") for table in PARTITIONED}


def partition_bits(rows: int, partition_rows: int = PARTITION_ROWS) -> int:
    """The key bits that split ``rows`` positions into files of at most ``partition_rows``."""
    bits = 0
    while rows > partition_rows << bits and bits < MAX_BITS:
        bits += 1
    return bits


def file_name(bits: int, index: int, table: str = "positions") -> str:
    """The name of partition ``index`` of ``2**bits`` (``positions.parquet`` when unsplit).

    >>> file_name(2, 3, "analysis")
    'analysis-2-3.parquet'
    """
    if bits == 0:
        return f"{table}.parquet"
    return f"{table}-{bits}-{index:0{(bits + 3) // 4}x}.parquet"


@lru_cache(maxsize=4096)  # (each lookup asks again for every file of every batch)
def parse(name: str, table: str = "positions") -> Optional[tuple]:
    """``(bits, index)`` of a positions file's name, or None if it is not one (a split of
    more than ``MAX_BITS`` bits, or a range past its last, is none).

    >>> parse("positions.parquet"), parse("positions-2-3.parquet"), parse("positions-2-4.parquet")
    ((0, 0), (2, 3), None)
    """
    match = _NAMES[table].fullmatch(name)
    if match is None:
        return None
    if match.group(1) is None:
        return 0, 0
    bits, index = int(match.group(1)), int(match.group(2), 16)
    if not 0 < bits <= MAX_BITS or index >= 1 << bits:
        return None
    return bits, index


def mixed(names, table: str = "positions") -> bool:
    """True when ``names`` belong to more than one split (their ranges overlap).

    >>> mixed(["positions.parquet", "positions-1-0.parquet"]), mixed(["positions-1-1.parquet"])
    (True, False)
    """
    return len({parse(name, table)[0] for name in names}) > 1


def missing(names, table: str = "positions") -> list:
    """The positions files a batch whose files are ``names`` lacks: every range of its split
    must be there (``positions.parquet`` if there is none at all).

    >>> missing(["positions-2-0.parquet", "positions-2-3.parquet"])
    ['positions-2-1.parquet', 'positions-2-2.parquet']
    """
    splits = {parse(name, table)[0] for name in names}
    if not splits:
        return [file_name(0, 0, table)]
    bits = max(splits)
    return [file_name(bits, i, table) for i in range(1 << bits)
            if file_name(bits, i, table) not in names]


def key_range(bits: int, index: int) -> tuple:
    """``(low, high)``: the keys of partition ``index`` of ``2**bits`` are ``low <= key < high``."""
    shift = 64 - bits
    return index << shift, (index + 1) << shift


def covering(names, key: int, table: str = "positions") -> Optional[str]:
    """The one of ``names`` (a batch's files of ``table``) whose range holds ``key``."""
    for name in names:
        bits, index = parse(name, table)
        if bits == 0 or key >> (64 - bits) == index:
            return name
    return None
