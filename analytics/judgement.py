"""What an engine's analysis says of the moves of a game: the win probability of each position,
the mover's loss, a judgement (inaccuracy, mistake, blunder), the engine's better move, and per
side an accuracy, the average loss, the counts of each judgement and the ply where the game
turned.

The analysis is the store's ``analysis`` view (``kifudb analyse``: one row per position key,
engine, limit and line; ``store.schema``). The formulas are lishogi's:

- **win probability** of a score ``cp`` (centipawns from Black's side):
  ``win = 2 / (1 + e^(−k·cp)) − 1`` on a ±1 scale, with ``k = 0.0007`` (``WIN_K``: lishogi's
  coefficient for YaneuraOu's centipawns, in the formula lishogi keeps from lichess's
  ``WinPercent``, whose chess coefficient is 0.00368208); a mate found is ±1 (+1 when Black
  mates); no ceiling on ``cp`` (the curve saturates by itself). ``win_black`` is the same on 0–100: ``50 · (win + 1)``, Black's
  chance in percent. ``kifudb calibrate`` fits ``k`` to the store's own decided games
  (``analytics.calibration``) and, once it has, the judgements of that engine and limit use
  the fitted ``k`` (``analyses`` says which ``k`` each uses);
- **loss** of a move: the mover's drop in win percent from the position before the move to the
  position after it (0–100, never below 0; null unless both positions are analysed);
- **judgement**: lishogi grades a drop of 0.1 / 0.2 / 0.3 on the ±1 scale (``INACCURACY``,
  ``MISTAKE``, ``BLUNDER``; that is 5 / 10 / 15 points of win percent) as an inaccuracy
  (``?!``), a mistake (``?``) and a blunder (``??``); a judged move is given the engine's
  ``best`` move of the position before it;
- **accuracy** of a move (lishogi's insights, after lichess): ``103.1668 · e^(−0.04354 · loss)
  − 3.1669``, clamped to 0–100, with ``loss`` in win-percent points; **a side's accuracy in a
  game** (and of a player, an opening … over many games: ``analytics.accuracy``) is the plain
  mean of the accuracies of its moves whose loss is known, and its **average loss** the mean
  of those losses;
- **the turning ply**: the move after which the eventual winner never again fell below an even
  position (a win percent under 50) in the analysed positions that follow; None for a game
  without a winner, one the winner led throughout, or one that ended with the winner below
  even (a win on time, say).

Numbers, by hand::

    >>> round(win_chance(300), 4), win_black(300), win_black(None, mate_black=-5)
    (0.1046, 55.23, 0.0)
    >>> move_accuracy(0.0), move_accuracy(10.0), move_accuracy(60.0)
    (100.0, 63.58, 4.4)
    >>> [judgement_of(loss) for loss in (4.99, 5.0, 10.0, 15.0, None)]
    [None, 'inaccuracy', 'mistake', 'blunder', None]

The formulas are written once, as Python functions over numbers that build the SQL too when
given columns (``SQL``: ``exp``, ``least`` and ``greatest`` are DuckDB's), so the per-move
rows of one game (``game_analysis``) and the statistics over the collection
(``analytics.accuracy``) compute the same values in the same way. Which analysis: a store may
hold several engines and limits; a question uses the one named (``engine``, ``limit``), else
the one with the most analysed positions (``chosen_analysis``).
"""

from __future__ import annotations

import math
import os
import threading
from types import SimpleNamespace
from typing import Optional

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.filters import GameFilter
from kifudb.core.move import DROP_BASE, code_usi
from kifudb.core.pieces import USI_LETTERS, USI_RANKS
from kifudb.store.engine import as_store, fetch, game_summary, metadata, positions

__all__ = ["WIN_K", "INACCURACY", "MISTAKE", "BLUNDER", "JUDGEMENTS", "MARKS", "NoAnalysis",
           "win_chance", "win_black", "move_accuracy", "judgement_of", "analyses",
           "chosen_analysis", "calibration_key", "judged_moves", "game_analysis",
           "game_judgement", "side_summary", "turning_ply", "PYTHON", "SQL"]

#: lishogi's coefficient of the win probability for YaneuraOu's centipawns
WIN_K = 0.0007
#: drops of the mover's win probability, on the ±1 scale, that make a judgement (lishogi)
INACCURACY, MISTAKE, BLUNDER = 0.1, 0.2, 0.3
#: the judgements, mildest first, and their marks beside a move
JUDGEMENTS = ("inaccuracy", "mistake", "blunder")
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
#: the name of each judgement's count
_COUNTED = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
#: each judgement's least loss in win-percent points (a drop of 0.1 on ±1 is 5 points), worst
#: first
_LEAST_LOSS = tuple((name, round(50 * drop, 9)) for name, drop in
                    (("blunder", BLUNDER), ("mistake", MISTAKE), ("inaccuracy", INACCURACY)))
#: lishogi's per-move accuracy: a · e^(b · loss) + c
_ACCURACY = (103.1668, -0.04354, -3.1669)

#: the functions the formulas use, on numbers and in SQL
PYTHON = SimpleNamespace(exp=math.exp, least=min, greatest=max)
SQL = SimpleNamespace(exp=sa.func.exp, least=sa.func.least, greatest=sa.func.greatest)

analysis = metadata.tables["analysis"]
A, P, G = analysis.c, positions.c, game_summary.c


class NoAnalysis(ValueError):
    """The store holds no engine analysis, or not of the engine and limit asked for (the
    message says which it holds)."""


# ----- the formulas --------------------------------------------------------------------------------


def win_chance(cp, k: float = WIN_K, ops=PYTHON):
    """Black's win probability on the ±1 scale for a score of ``cp`` centipawns (Black's side):
    ``2 / (1 + e^(−k·cp)) − 1`` (lishogi). With ``ops=SQL`` and a column, the SQL of it.

    >>> win_chance(0), round(win_chance(1000), 4), round(win_chance(-1000), 4)
    (0.0, 0.3364, -0.3364)
    """
    return 2 / (1 + ops.exp(-k * cp)) - 1


def win_black(score_black, mate_black=None, black_to_move: bool = True,
              k: float = WIN_K) -> Optional[float]:
    """Black's chance in percent (0–100, two decimals) of a position scored ``score_black``
    centipawns, or with a mate found in ``mate_black`` plies (positive: Black mates; 0: the
    side to move is mated): 100 or 0. None without a score.

    >>> win_black(0), win_black(-300), win_black(None, 3), win_black(None, 0, black_to_move=True)
    (50.0, 44.77, 100.0, 0.0)
    >>> win_black(None) is None
    True
    """
    if mate_black is not None:
        if mate_black == 0:
            return 0.0 if black_to_move else 100.0
        return 100.0 if mate_black > 0 else 0.0
    if score_black is None:
        return None
    return round(50 * (win_chance(score_black, k) + 1), 2)


def _win_black_sql(score_black, mate_black, black_to_move, k: float):
    """``win_black`` in SQL (the same rules; the cp formula is ``win_chance``'s)."""
    return sa.case((mate_black > 0, sa.literal(100.0)), (mate_black < 0, sa.literal(0.0)),
                   (mate_black == 0, sa.case((black_to_move, sa.literal(0.0)),
                                             else_=sa.literal(100.0))),
                   else_=50 * (win_chance(score_black, k, SQL) + 1))


def move_accuracy(loss, ops=PYTHON):
    """A move's accuracy (0–100) from its ``loss`` in win-percent points: lishogi's
    ``103.1668 · e^(−0.04354 · loss) − 3.1669``, clamped (two decimals on numbers; None for
    an unknown loss).

    >>> move_accuracy(5.0), move_accuracy(15.0), move_accuracy(None) is None
    (79.82, 50.52, True)
    """
    if loss is None:
        return None
    a, b, c = _ACCURACY
    value = ops.greatest(0.0, ops.least(100.0, a * ops.exp(b * loss) + c))
    if ops is PYTHON:
        return round(value, 2)
    # DuckDB's least and greatest pass over a null: an unknown loss stays unknown
    return sa.case((loss.is_(None), sa.null()), else_=value)


def judgement_of(loss) -> Optional[str]:
    """The judgement of a loss in win-percent points: ``blunder`` from 15, ``mistake`` from
    10, ``inaccuracy`` from 5, else None."""
    if loss is None:
        return None
    return next((name for name, least in _LEAST_LOSS if loss >= least), None)


def usi_sql(code):
    """The USI text of a move code (``core.move.move_code``) in SQL: ``code_usi``'s, from the
    same facts (squares ``(file − 1) · 9 + rank``, ``USI_LETTERS``, ``DROP_BASE``).

    >>> print(usi_sql(sa.column("code")).compile())  # doctest: +ELLIPSIS
    CASE WHEN (code >= :code_1) THEN ...
    """
    def square(index):
        return (sa.cast(sa.func.divide(index, 9) + 1, sa.String)
                + sa.func.substr(sa.literal(USI_RANKS), sa.func.mod(index, 9) + 1, 1))

    board = sa.func.mod(code, 6561)
    drop = code - DROP_BASE
    return sa.case(
        (code >= DROP_BASE, sa.func.substr(sa.literal(USI_LETTERS), sa.func.divide(drop, 81) + 2,
                                           1) + "*" + square(sa.func.mod(drop, 81))),
        else_=square(sa.func.divide(board, 81)) + square(sa.func.mod(board, 81))
        + sa.case((code >= 6561, sa.literal("+")), else_=sa.literal("")))


def _judgement_sql(loss):
    return sa.case(*((loss >= least, sa.literal(name)) for name, least in _LEAST_LOSS),
                   else_=sa.null())


# ----- which analysis ------------------------------------------------------------------------------


def calibration_key(engine: str, limit: str) -> str:
    """The name of an engine and limit's entry in the manifest's ``calibration``."""
    return f"{engine}|{limit}"


def _coefficient(manifest: dict, engine: str, limit: str) -> tuple:
    """``(k, calibrated)`` for an engine and limit: the fitted coefficient recorded by ``kifudb
    calibrate`` (``analytics.calibration``), else ``WIN_K``."""
    entry = (manifest.get("calibration") or {}).get(calibration_key(engine, limit))
    if isinstance(entry, dict) and isinstance(entry.get("k"), (int, float)) \
            and not isinstance(entry.get("k"), bool) and entry["k"] > 0:
        return float(entry["k"]), True
    return WIN_K, False


_KEPT: dict = {}  # (store root, stamp) -> analyses
_KEPT_LOCK = threading.Lock()


def analyses(store) -> list:
    """The analyses the store holds, one per engine and limit, most analysed positions first:
    dicts of ``engine``, ``limit``, ``positions`` (analysed, best line), ``multipv`` (the
    most lines stored for a position), ``k`` (the win coefficient its judgements use) and
    ``calibrated`` (whether ``k`` was fitted: ``kifudb calibrate``). Kept until the next
    commit."""
    store = as_store(store)
    stamp = store.stamp()
    with _KEPT_LOCK:
        found = _KEPT.get((store.root, stamp))
    if found is not None:
        return [dict(row) for row in found]
    rows = fetch(store, sa.select(A.engine, A["limit"],
                                  sa.func.count().filter(A.multipv == 1).label("positions"),
                                  sa.func.max(A.multipv).label("multipv"))
                 .group_by(A.engine, A["limit"])
                 .order_by(sa.desc("positions"), A.engine, A["limit"]))
    manifest = store.manifest()
    for row in rows:
        row["k"], row["calibrated"] = _coefficient(manifest, row["engine"], row["limit"])
    with _KEPT_LOCK:
        _KEPT[(store.root, stamp)] = rows
        while len(_KEPT) > 8:
            _KEPT.pop(next(iter(_KEPT)))
    return [dict(row) for row in rows]


def _listing(rows: list) -> str:
    return "; ".join(f"{r['engine']} at {r['limit']} ({r['positions']} positions)" for r in rows)


def chosen_analysis(store, engine: Optional[str] = None, limit: Optional[str] = None) -> dict:
    """The analysis a question uses (a row of ``analyses``): of ``engine`` (its name as stored,
    or a case-insensitive part of it, or the file name of its path: ``fairy-stockfish`` and
    ``/usr/games/fairy-stockfish`` find "Fairy-Stockfish 11.1 LB") and ``limit`` (as stored,
    ``nodes=1000``), each when given; of those, the one with the most analysed positions.
    ``NoAnalysis`` when the store holds none, or none of that engine and limit (the message
    lists those it holds)."""
    store = as_store(store)
    stored = analyses(store)
    if not stored:
        raise NoAnalysis(f"no engine analysis in {store.root}: run 'kifudb analyse --store "
                         f"{store.root} --engine ENGINE --nodes N' first")
    found = stored
    if engine is not None:
        engine = checks.name(engine, "engine")
        exact = [r for r in stored if r["engine"] == engine]
        wanted = {engine.lower(), os.path.basename(engine).lower()}
        found = exact or [r for r in stored if any(w and w in r["engine"].lower()
                                                   for w in wanted)]
        if len({r["engine"] for r in found}) > 1:
            raise NoAnalysis(f"engine {engine!r} names several analysed engines of "
                             f"{store.root}: {_listing(found)}; give the whole name")
    if limit is not None:
        limit = "".join(checks.name(limit, "limit").split())
        found = [r for r in found if r["limit"] == limit]
    if not found:
        asked = " and ".join(part for part in (engine and f"engine {engine!r}",
                                               limit and f"limit {limit!r}") if part)
        raise NoAnalysis(f"no analysis of {asked} in {store.root}: it holds {_listing(stored)}")
    return found[0]


# ----- the moves judged ----------------------------------------------------------------------------


def judged_moves(choice: dict, filters: GameFilter = GameFilter(), game: Optional[int] = None):
    """A subquery of every main-line move of the games of ``filters`` (or of ``game`` only),
    judged with the analysis ``choice`` (a row of ``analyses``): ``game``, ``ply`` (1 …),
    ``black_moved``, ``move`` (its code, ``store.schema.code_usi``), ``score_black``,
    ``mate_black``, ``pv``, ``win_black`` (of the position after the move, 0–100),
    ``win_before`` (Black's, before it), ``best_before`` (the engine's best move before it),
    ``loss``, ``accuracy`` and ``judgement`` (null where a position is not analysed)."""
    best = analysis.alias("best")
    scored = (sa.select(P.game, P.ply, P.black_to_move, P.next_move, best.c.score_black,
                        best.c.mate_black, best.c.best, best.c.pv,
                        _win_black_sql(best.c.score_black, best.c.mate_black, P.black_to_move,
                                       choice["k"]).label("win_black"))
              .join_from(positions, game_summary, G.game == P.game)
              .outerjoin(best, sa.and_(best.c.key == P.key,
                                       best.c.engine == sa.bindparam("analysis_engine",
                                                                     choice["engine"]),
                                       best.c["limit"] == sa.bindparam("analysis_limit",
                                                                       choice["limit"]),
                                       best.c.multipv == sa.literal(1)))
              .where(*filters.where()))
    if game is not None:
        scored = scored.where(P.game == sa.bindparam("game", game))
    s = scored.subquery("scored")

    def before(column):
        return sa.func.lag(column).over(partition_by=s.c.game, order_by=s.c.ply)

    moved = sa.select(s.c.game, s.c.ply, before(s.c.black_to_move).label("black_moved"),
                      before(s.c.next_move).label("move"), s.c.score_black, s.c.mate_black,
                      s.c.pv, s.c.win_black, before(s.c.win_black).label("win_before"),
                      before(s.c.best).label("best_before")).subquery("moved")
    m = moved.c

    def mover(win):
        return sa.case((m.black_moved, win), else_=100 - win)

    loss = sa.case((sa.or_(m.win_before.is_(None), m.win_black.is_(None)), sa.null()),
                   (usi_sql(m.move) == m.best_before, sa.literal(0.0)),
                   else_=sa.func.greatest(0.0, mover(m.win_before) - mover(m.win_black)))
    lost = (sa.select(*m, loss.label("loss")).where(m.ply >= 1).subquery("lost"))
    return sa.select(*lost.c, move_accuracy(lost.c.loss, SQL).label("accuracy"),
                     _judgement_sql(lost.c.loss).label("judgement")).subquery("judged")


def _rounded(value, places: int = 2):
    return None if value is None else round(float(value), places)


def game_analysis(store, game_id: int, engine: Optional[str] = None,
                  limit: Optional[str] = None) -> list:
    """The main-line moves of a game, judged (``chosen_analysis(store, engine, limit)``), in
    order: dicts of ``ply``, ``usi``, ``mover`` (black/white), ``engine`` and ``limit`` (null
    where the position after the move is not analysed), ``score_black``, ``mate_black`` and
    ``pv`` (the engine's, for the position after the move), ``win_black`` (0–100, after the
    move), ``win_before`` (Black's, before it), ``loss``, ``accuracy``, ``judgement`` (None,
    ``inaccuracy``, ``mistake`` or ``blunder``) and ``best`` (the engine's best move in the
    position before, given when the move was judged). ``NoAnalysis`` as ``chosen_analysis``;
    ``ValueError`` for a game the store does not have."""
    return _game_rows(as_store(store), checks.game_id(game_id),
                      chosen_analysis(store, engine, limit))


def _game_rows(store, game_id: int, choice: dict) -> list:
    judged = judged_moves(choice, game=game_id)
    rows = fetch(store, sa.select(judged).order_by(judged.c.ply))
    if not rows and not fetch(store, sa.select(G.game).where(
            G.game == sa.bindparam("game", game_id))):
        raise ValueError(f"the store has no game {game_id}")
    return [_move_row(row, choice) for row in rows]


def _move_row(row: dict, choice: dict) -> dict:
    analysed = row["win_black"] is not None
    return {"ply": row["ply"], "usi": None if row["move"] is None else code_usi(row["move"]),
            "mover": "black" if row["black_moved"] else "white",
            "engine": choice["engine"] if analysed else None,
            "limit": choice["limit"] if analysed else None,
            "score_black": row["score_black"], "mate_black": row["mate_black"],
            "pv": row["pv"], "win_black": _rounded(row["win_black"]),
            "win_before": _rounded(row["win_before"]), "loss": _rounded(row["loss"]),
            "accuracy": _rounded(row["accuracy"]), "judgement": row["judgement"],
            "best": row["best_before"] if row["judgement"] is not None else None}


# ----- per game and side ---------------------------------------------------------------------------


def side_summary(rows: list, side: str) -> dict:
    """What ``game_analysis`` rows say of ``side``'s moves: ``accuracy`` (the mean of its
    moves' accuracies), ``average_loss`` (the mean of their losses, win-percent points),
    ``moves`` (those with a known loss), ``inaccuracies``, ``mistakes``, ``blunders``; the
    means are None without such a move.

    >>> rows = [{"mover": "black", "loss": 0.0, "accuracy": 100.0, "judgement": None},
    ...         {"mover": "black", "loss": 15.0, "accuracy": 50.52, "judgement": "blunder"},
    ...         {"mover": "white", "loss": None, "accuracy": None, "judgement": None}]
    >>> side_summary(rows, "black")
    {'accuracy': 75.26, 'average_loss': 7.5, 'moves': 2, 'inaccuracies': 0, 'mistakes': 0, 'blunders': 1}
    >>> side_summary(rows, "white")["accuracy"] is None
    True
    """
    own = [r for r in rows if r["mover"] == side and r["loss"] is not None]
    mean = (lambda values: round(sum(values) / len(values), 2)) if own else (lambda _: None)
    return {"accuracy": mean([r["accuracy"] for r in own]),
            "average_loss": mean([r["loss"] for r in own]), "moves": len(own),
            **{_COUNTED[name]: sum(r["judgement"] == name for r in own) for name in JUDGEMENTS}}


def turning_ply(rows: list, winner: Optional[str]) -> Optional[int]:
    """The ply of the move after which ``winner`` (black or white) never again fell below an
    even position (under 50%) in the analysed positions after it, from ``game_analysis``
    rows; None without a winner, when the winner never fell below even, or when it was below
    even in the last analysed position.

    >>> rows = [{"ply": p, "win_before": b, "win_black": a} for p, b, a in
    ...         [(1, 50.0, 60.0), (2, 60.0, 40.0), (3, 40.0, 45.0), (4, 45.0, 70.0),
    ...          (5, 70.0, 55.0), (6, 55.0, None), (7, None, 90.0)]]
    >>> turning_ply(rows, "black"), turning_ply(rows, "white"), turning_ply(rows, "draw")
    (4, None, None)
    """
    if winner not in ("black", "white") or not rows:
        return None
    own = (lambda win: win) if winner == "black" else (lambda win: 100 - win)
    shown = [(rows[0]["ply"] - 1, rows[0]["win_before"])] + [(r["ply"], r["win_black"])
                                                              for r in rows]
    shown = [(ply, own(win)) for ply, win in shown if win is not None]
    below = [i for i, (_, win) in enumerate(shown) if win < 50]
    if not below or below[-1] == len(shown) - 1:
        return None
    return shown[below[-1]][0] + 1


def game_judgement(store, game_id: int, engine: Optional[str] = None,
                   limit: Optional[str] = None) -> dict:
    """A game judged: ``engine``, ``limit``, ``k`` (the win coefficient used), ``moves``
    (``game_analysis``), ``black`` and ``white`` (``side_summary``), ``turning_ply``
    (``turning_ply`` for the game's winner) and ``start_win_black`` (Black's chance at the
    start, or None). ``NoAnalysis`` and ``ValueError`` as ``game_analysis``."""
    store = as_store(store)
    game_id = checks.game_id(game_id)
    choice = chosen_analysis(store, engine, limit)
    rows = _game_rows(store, game_id, choice)
    winner = fetch(store, sa.select(G.winner).where(G.game == sa.bindparam("game", game_id)))
    return {"engine": choice["engine"], "limit": choice["limit"], "k": choice["k"],
            "moves": rows, "black": side_summary(rows, "black"),
            "white": side_summary(rows, "white"),
            "turning_ply": turning_ply(rows, winner[0]["winner"] if winner else None),
            "start_win_black": rows[0]["win_before"] if rows else None}
