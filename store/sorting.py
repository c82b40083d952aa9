"""A batch's placements sorted whole, a range at a time: what a merge or a compaction writes.

A batch's ``placements`` are one file sorted by place, piece, game and ply (``schema.SORTED``:
pattern search reads the row groups of the squares it names). Sorted by one DuckDB query, they
did not fit a merge's 256 MB (``store.folder.MERGE_MEMORY``) once there were 1.1 billion of
them (four batches of 128M positions, on one thread or two), whereas 280 million sorted. So the
rows are sorted a range of (place, piece) at a time, each range of at most ``SORT_ROWS`` rows
(a single (place, piece) of more is a range of its own), and the ranges are written one after
another into the one file, in whole row groups. The ranges come from the rows' counts by
(place, piece), a scan of two one-byte columns.

    >>> ranges([(0, 1, 5), (0, 2, 5), (1, 1, 20), (2, 3, 1), (2, 4, 1)], most=10)
    [((0, 1), (0, 2)), ((1, 1), (1, 1)), ((2, 3), (2, 4))]
    >>> condition(((0, 1), (2, 4)))
    'place BETWEEN 0 AND 2 AND (place > 0 OR piece >= 1) AND (place < 2 OR piece <= 4)'
"""

from __future__ import annotations

from typing import Iterator

import pyarrow as pa

#: the most rows one sort of a range holds (a (place, piece) of more is sorted alone)
SORT_ROWS = 1 << 25


def ranges(counts: list, most: int) -> list:
    """Consecutive runs of ``counts`` (``[(place, piece, rows)]`` in order) of at most ``most``
    rows (a pair of more alone): ``[(first pair, last pair)]``."""
    runs: list = []
    held = 0
    for place, piece, rows in counts:
        if runs and held + rows <= most:
            runs[-1] = (runs[-1][0], (place, piece))
            held += rows
        else:
            runs.append(((place, piece), (place, piece)))
            held = rows
    return runs


def condition(run: tuple) -> str:
    """The SQL condition of the rows of a run of (place, piece) pairs, first and last
    included; its ``BETWEEN`` lets DuckDB skip the row groups of other places."""
    (low_place, low_piece), (high_place, high_piece) = run
    return (f"place BETWEEN {int(low_place)} AND {int(high_place)} "
            f"AND (place > {int(low_place)} OR piece >= {int(low_piece)}) "
            f"AND (place < {int(high_place)} OR piece <= {int(high_piece)})")


def sorted_by_ranges(connection, query: str, schema: pa.Schema, row_group: int,
                     source: str = "placements_all") -> Iterator[pa.Table]:
    """The rows of ``query`` (its ``{places}`` a range's condition, its ``ORDER BY`` the
    table's order), range by range, as tables of whole row groups of ``row_group`` rows (the
    last table the rest): for ``store.folder.write_table``. The ranges are counted in
    ``source``, the rows the query reads from (a compaction's drops some: a range then holds
    fewer)."""
    counts = connection.execute(f"SELECT place, piece, count(*) FROM {source} "
                                "GROUP BY place, piece ORDER BY place, piece").fetchall()
    pending: list = []
    held = 0
    for run in ranges(counts, SORT_ROWS):
        reader = connection.sql(query.replace("{places}", condition(run))) \
            .to_arrow_reader(row_group)
        for batch in reader:
            pending.append(pa.Table.from_batches([batch]).cast(schema))
            held += batch.num_rows
            if held >= row_group:
                table = pa.concat_tables(pending)
                whole = held - held % row_group
                yield table.slice(0, whole)
                pending, held = [table.slice(whole)], held - whole
    if held:
        yield pa.concat_tables(pending)
