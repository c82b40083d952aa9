"""Twins: one game stored as two, for the user to merge or keep (never merged here).

The store already keeps a game read from several files once when the sources agree (same moves,
and no different date or player: ``store.writer``). What is left are

* ``same moves``: games with the same start and moves (the same ``fingerprint``) that the
  store kept apart because their metadata differ — names spelled differently (``羽生名人``
  and ``羽生善治``), one date missing or another date;
* ``prefix``: a game whose whole main line is the beginning of a longer game's (a record that
  stops early, an unfinished copy): every position of the shorter one at the same ply of the
  longer one.

Only games of at least ``min_moves`` moves count (two short fragments of a common opening are
not the same game)::

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["tests/fixtures/players", "tests/fixtures/twins"], folder)
    >>> for twin in twins(folder):
    ...     print(twin["kind"], [(g["game"], g["moves"]) for g in twin["games"]],
    ...           twin["differences"], twin["same_players"])
    prefix [(2, 181), (14, 80)] ['moves', 'winner'] True
    same moves [(2, 181), (15, 181)] ['black', 'white', 'date'] False
    prefix [(15, 181), (14, 80)] ['black', 'white', 'date', 'moves', 'winner'] False

``same_players``: the two games' players have the same canonical names (``labels.players``);
羽生王将 in an undated game is not resolved, so it is False here.
"""

from __future__ import annotations

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.store.engine import fetch, game_summary, games, positions

__all__ = ["twins"]

G, P = game_summary.c, positions.c
#: what the listing shows of each game, and compares to say what differs
_SHOWN = ("black", "white", "date", "event", "moves", "winner")


def _same_moves(min_moves: int):
    """Pairs (first, other) of games with one fingerprint, in id order."""
    a, b = games.alias("a"), games.alias("b")
    return (sa.select(a.c.game.label("first"), b.c.game.label("other"),
                      sa.literal("same moves").label("kind"))
            .join_from(a, b, sa.and_(a.c.fingerprint == b.c.fingerprint, a.c.game < b.c.game))
            .where(a.c.moves >= sa.bindparam("min_moves", min_moves)))


def _prefixes(min_moves: int):
    """Pairs (shorter, longer) where every position of the shorter game's main line is the
    longer one's at the same ply."""
    short, long_ = game_summary.alias("short"), game_summary.alias("long")
    end, there = positions.alias("end"), positions.alias("there")
    candidates = (sa.select(short.c.game.label("first"), long_.c.game.label("other"),
                            short.c.moves.label("moves"))
                  .join_from(short, end, sa.and_(end.c.game == short.c.game,
                                                 end.c.ply == short.c.moves))
                  .join(there, sa.and_(there.c.key == end.c.key, there.c.ply == end.c.ply,
                                       there.c.game != end.c.game))
                  .join(long_, sa.and_(long_.c.game == there.c.game,
                                       long_.c.moves > short.c.moves))
                  .where(short.c.moves >= sa.bindparam("min_moves", min_moves))
                  .distinct().subquery("candidates"))
    mine, theirs = positions.alias("mine"), positions.alias("theirs")
    same = sa.func.count(sa.distinct(mine.c.ply))
    return (sa.select(candidates.c.first, candidates.c.other,
                      sa.literal("prefix").label("kind"))
            .join_from(candidates, mine, mine.c.game == candidates.c.first)
            .join(theirs, sa.and_(theirs.c.game == candidates.c.other,
                                  theirs.c.ply == mine.c.ply, theirs.c.key == mine.c.key))
            .group_by(candidates.c.first, candidates.c.other, candidates.c.moves)
            .having(same == candidates.c.moves + 1))


def twins(store, min_moves: int = 40) -> list:
    """The pairs of games that are probably one game: dicts of ``kind`` (``same moves`` or
    ``prefix``), ``games`` (two dicts of ``game``, ``black``, ``white``, ``date``, ``event``,
    ``moves``, ``winner``, ``path``; for a prefix the longer game first) and ``differences``
    (the fields whose values differ) and ``same_players`` (the canonical names agree), most
    moves first."""
    least = checks.at_least(min_moves, "min_moves", 1)
    pairs = fetch(store, sa.union_all(_same_moves(least), _prefixes(least)))
    ids = sorted({r[k] for r in pairs for k in ("first", "other")})
    if not ids:
        return []
    shown = {r["game"]: r for r in checks.iso_dates(fetch(
        store, sa.select(G.game, *(G[c] for c in _SHOWN), G.path, G.black_player,
                         G.white_player)
        .where(G.game.in_(sa.bindparam("ids", ids, expanding=True)))), "date")}
    found = []
    for pair in pairs:
        first, other = shown.get(pair["first"]), shown.get(pair["other"])
        if first is None or other is None:
            continue
        if pair["kind"] == "prefix":
            first, other = other, first
        same = all(first[c] == other[c] for c in ("black_player", "white_player"))
        found.append({"kind": pair["kind"], "games": [first, other],
                      "differences": [c for c in _SHOWN if first[c] != other[c]],
                      "same_players": same})
    return sorted(found, key=lambda t: (-t["games"][0]["moves"], t["games"][0]["game"],
                                        t["games"][1]["game"]))
