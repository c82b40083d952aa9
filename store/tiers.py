"""Which batches to merge, so that a lookup reads few files and no ingest rewrites the store.

A key lookup reads one file of each batch (its key range, ``store.partitions``), so what it
costs grows with the number of batches. A long ingest writes a batch every half a million
positions, 200 at 100M positions. Rewriting everything into one batch (``Store.compact``) after
each ingest costs as much as the store, more with every ingest. Instead, batches are **tiered by
size**, as the levels of a log-structured merge tree: tier 0 holds batches under ``BASE``
positions, tier *t* ≥ 1 those of ``BASE·FANOUT^(t-1)`` up to ``BASE·FANOUT^t``. When a tier
below ``TOP`` holds ``FANOUT`` batches, its ``FANOUT`` oldest are merged into one batch of the
next tier, and so on up; batches of tier ``TOP`` (``BASE·FANOUT^(TOP-1)`` positions, 128M, and
more) are the largest and stay as they are. So:

* a store of *n* positions has fewer than ``FANOUT`` batches per tier below ``TOP``, and one
  batch of ``TOP`` or more per 128M positions: at most 15 batches at 100M positions, 23 at 1
  billion (8 of the largest), 93 at 10 billion;
* a merge rewrites the batches of one tier only, and each position is rewritten once per tier
  it climbs, ``min(log_FANOUT(n / BASE), TOP - 1)`` times over the store's life (4 at 100M):
  most merges are small, and the largest rewrites 128M positions, whatever the store's size;
* a merge sorts one key range at a time inside DuckDB, which spills to disk (``Store.merge``),
  and the placements one range of squares at a time (``store.sorting``);
* batches of 128M positions are the largest: merging four of them would rewrite 11 GB, about
  a quarter of an hour on this machine, at the end of whichever ingest fills the tier, to
  spare a lookup three row groups; a lookup reads one row group more per 128M positions
  instead (``docs/scale.md``).

    >>> merges([("b000001", 10), ("b000002", 20), ("b000003", 30)], base=100)
    []
    >>> merges([(f"b{i:06d}", 120) for i in range(1, 6)], base=100)
    [['b000001', 'b000002', 'b000003', 'b000004']]

A merge's result climbs: four merges of tier 1 make four batches of tier 2, merged in turn::

    >>> plan = merges([(f"b{i:06d}", 100) for i in range(1, 17)], base=100)
    >>> len(plan), plan[-1]
    (5, ['b000017', 'b000018', 'b000019', 'b000020'])

Batches of the largest tier are never merged::

    >>> merges([(f"b{i:06d}", 100 * FANOUT ** (TOP - 1)) for i in range(1, 9)], base=100)
    []
"""

from __future__ import annotations

#: positions of the smallest tier's batches: the ingest's batch size (``store.writer``)
BASE = 500_000
#: batches a tier holds before they are merged into one of the next tier
FANOUT = 4
#: the tier of the largest batches, never merged: ``BASE·FANOUT^(TOP-1)`` positions (128M) and more
TOP = 5


def tier(positions: int, base: int = BASE) -> int:
    """The tier of a batch of ``positions`` positions.

    >>> [tier(n, base=100) for n in (0, 99, 100, 399, 400, 1600)]
    [0, 0, 1, 1, 2, 3]
    """
    level, limit = 0, base
    while positions >= limit:
        level, limit = level + 1, limit * FANOUT
    return level


def merges(batches: list, base: int = BASE) -> list:
    """The merges to do, in order, for ``batches`` (``[(name, positions)]``, oldest first): each
    a list of the names to merge; a merge's result is named as the next new batch would be
    (one above the highest name given, then the next)."""
    batches = list(batches)
    following = 1 + max((int(name[1:]) for name, _ in batches), default=0)
    plan = []
    while True:
        by_tier: dict = {}
        for name, positions in batches:
            by_tier.setdefault(tier(positions, base), []).append((name, positions))
        full = sorted(t for t, members in by_tier.items() if t < TOP and len(members) >= FANOUT)
        if not full:
            return plan
        group = by_tier[full[0]][:FANOUT]
        names = [name for name, _ in group]
        plan.append(names)
        batches = [b for b in batches if b[0] not in names]
        batches.append((f"b{following:06d}", sum(positions for _, positions in group)))
        following += 1
