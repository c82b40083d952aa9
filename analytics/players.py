"""Players' names in a store: each canonical name with its spellings (``labels.players``), and
the probable merges the rules did not make, for ``kifudb players`` and its ``--suggest``.

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["tests/fixtures/players"], folder)
    >>> habu = next(p for p in spellings(folder) if p["name"] == "羽生善治")
    >>> habu["games"], habu["spellings"][:3]
    (4, ['羽生善治', '羽生 善治竜王', '羽生五段'])
    >>> [s["written"] for s in suggestions(folder)]
    ['羽生七冠', '羽生名人', '藤井八冠', '藤井竜王', '谷川名人']
    >>> suggestions(folder)[3]["candidates"]
    ['藤井猛', '藤井聡太']
"""

from __future__ import annotations

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.labels.players import canonical
from kifudb.store.engine import fetch, game_summary

__all__ = ["spellings", "suggestions"]

G = game_summary.c


def _seats():
    """One row per (game, side) with a name: ``written``, ``player`` (canonical), ``date``."""
    return sa.union_all(*(
        sa.select(G.game, written.label("written"), player.label("player"), G.date)
        .where(written.is_not(None))
        for written, player in ((G.black, G.black_player), (G.white, G.white_player)))
    ).subquery("seat")


def spellings(store, limit: int | None = None) -> list:
    """Every canonical name with ``games`` and its ``spellings`` (as written, most used
    first, then by name), most games first: dicts of ``name``, ``games``, ``spellings``."""
    seat = _seats()
    rows = fetch(store, sa.select(seat.c.player, seat.c.written,
                                  sa.func.count(sa.distinct(seat.c.game)).label("games"))
                 .group_by(seat.c.player, seat.c.written)
                 .order_by(seat.c.player, sa.desc("games"), seat.c.written))
    players: dict = {}
    for r in rows:
        entry = players.setdefault(r["player"], {"name": r["player"], "games": 0,
                                                 "spellings": []})
        entry["spellings"].append(r["written"])
    totals = fetch(store, sa.select(seat.c.player, sa.func.count(sa.distinct(seat.c.game))
                                    .label("games")).group_by(seat.c.player))
    for r in totals:
        players[r["player"]]["games"] = r["games"]
    listed = sorted(players.values(), key=lambda p: (-p["games"], p["name"]))
    if limit is not None:
        listed = listed[:checks.at_least(limit, "limit", 1)]
    return listed


def suggestions(store) -> list:
    """The probable merges not made, by spelling: a name left as written because it could not
    be resolved (a surname with a title in an undated game, or with a rank), with the
    ``candidates`` it may be (those the store holds first); and names that differ only in
    letter case (``Apery``, ``apery``). Dicts of ``written``, ``games``, ``undated`` (its
    games without a date), ``candidates``, ``reason``."""
    seat = _seats()
    rows = fetch(store, sa.select(seat.c.written, seat.c.player,
                                  sa.func.count(sa.distinct(seat.c.game)).label("games"),
                                  sa.func.count(sa.distinct(seat.c.game))
                                  .filter(seat.c.date.is_(None)).label("undated"))
                 .group_by(seat.c.written, seat.c.player).order_by(seat.c.written))
    held = {r["player"] for r in rows}
    found = []
    for r in rows:
        if r["player"] != r["written"]:
            continue
        resolved = canonical(r["written"])
        if not resolved.ambiguous:
            continue
        candidates = resolved.candidates
        ordered = [c for c in candidates if c in held] + [c for c in candidates if c not in held]
        found.append({"written": r["written"], "games": r["games"], "undated": r["undated"],
                      "candidates": ordered,
                      "reason": "surname with a title, undated" if r["undated"] == r["games"]
                      else "surname with a title or rank: no holder known on its date"})
    by_case: dict = {}
    for name in sorted(held - {None}):
        by_case.setdefault(name.casefold(), []).append(name)
    games = {r["player"]: 0 for r in rows}
    for r in rows:
        games[r["player"]] += r["games"]
    for names in by_case.values():
        for name in names[1:]:
            found.append({"written": name, "games": games[name], "undated": None,
                          "candidates": [names[0]], "reason": "the same name in another case"})
    return found
