"""Engine evaluations written in move comments, read into typed values (the comments stay as
written): one reader per dialect, and the ratings of shogi-server's header comments.

A move's comments are searched in a fixed order of dialects; the first that holds a score (or a
mate) gives the move's ``Evaluation``:

=====================  ===============================================  ====================
dialect                written as (the comment's text, its ``'``/``*``  whose point of view
                       marker taken off)
=====================  ===============================================  ====================
``shogi-server``       ``** 113 -3334FU +2625FU …`` (CSA ``'**`` lines  Black's
                       of floodgate, WCSC and 電竜戦 logs; PV in CSA or
                       USI moves)
``shogihome``          ``*評価値=80``, ``*読み筋=△…``, ``*詰み=先手勝ち:   Black's
                       15手``, ``*深さ=``, ``*ノード数=``, ``*エンジン=``
                       (the player's search)
``shogigui``           ``*対局 時間 … 深さ 22/28 ノード数 … 評価値 88     Black's
                       読み筋 ▲３四飛(24) …`` (the player's search; the
                       PV starts with the move played)
``shogihome-research`` ``#評価値=``, ``#読み筋=`` … (an analysis)        Black's
``shogigui-analysis``  ``*解析 0 △ 候補1 … 評価値 -詰 3 読み筋 …``,       Black's
                       ``*検討 候補1 …``
``kishin-analytics``   ``* 候補1 … 評価値 N …``                          Black's
``kshogi``             ``#形勢[N]``, ``#指し手[N]``                      Black's
=====================  ===============================================  ====================

Whose point of view, and why we believe it:

* shogi-server: in the floodgate and WCSC32 logs of the corpus, both engines' scores keep one
  sign across a game and follow who is winning (floodgate 2021-04-05: 113, 126, 143 … from both
  sides); in the 電竜戦 log (aobazero–viper, 2020-07-19) White's engine writes ``100000``
  (a mate) on its last move as Black is about to win by declaration, and ``5944`` while Black
  leads: Black's view, like the other servers (``tests/test_evaluation.py`` holds each).
* ShogiHome writes ``詰み=先手勝ち`` for a positive mate whichever side searched
  (``buildSearchComment``, sunfish-shogi/shogihome), so its scores are Black's; in tsshogi's
  ``sample04.jkf`` (written by ShogiHome) White's engine writes ``*詰み=先手勝ち`` as Black
  mates.
* ShogiGUI, Kishin Analytics, KShogi: ShogiHome reads them as its own values (Black's view) when
  it draws its evaluation graph (``parseComment``), and engines that write ShogiGUI's form
  convert their own score to Black's view when they do (Miacis: ``mover == BLACK ? score :
  -score``). No real file of these three was found to check against.

``score`` is the number as written; ``score_black`` the same seen from Black (negated for a
dialect written from the mover's view: none so far, the table ``VIEWS`` says it per dialect);
a mate is ``±MATE`` in ``score_black`` (positive: Black mates), whatever the dialect writes for
it (``±30000``, ``±100000``, ``詰み=先手勝ち``). ``mate`` is the number of plies to mate when the
record says it, signed the same way (ShogiHome counts from the position before the move, the
move itself included: the mating move says ``1手``). ``pv`` is the principal variation in USI
from the position after the move (a PV that stops replaying keeps the moves before the stop).
Evaluations are read for the store only (``ingest.pipeline``'s ``lines=True``), not when a
record is read to be validated: an engine log's PV on every move holds thirty times the game's
own moves, and ``kifudb validate`` needs none of it.

    >>> from kifudb.core.position import Position
    >>> from kifudb.core.move import Move
    >>> found = settle(read_evaluation(["** 113 -3334FU +2625FU"]), 0)
    >>> found.score, found.score_black, found.dialect, found.pv
    (113, 113, 'shogi-server', None)
    >>> after = Position(); after.push(Move.from_usi("2g2f"))
    >>> usi_pv(found, after, 0); found.pv
    '3c3d 2f2e'
    >>> e = settle(read_evaluation(["互角", "*詰み=先手勝ち:7手", "*エンジン=Sunfish"]), 0)
    >>> e.mate, e.score, e.score_black, e.engine, e.dialect
    (7, None, 100000, 'Sunfish', 'shogihome')
    >>> read_evaluation(["a comment"]) is None
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, asdict
from typing import Optional

from kifudb.core.move import Move
from kifudb.core.notation.csa import parse_csa_move
from kifudb.core.position import Position
from kifudb.core.notation.ki2 import parse_ki2_move
from kifudb.core.notation.kif import parse_kif_move

__all__ = ["Evaluation", "read_evaluation", "settle", "usi_pv", "main_line", "replay_pvs",
           "engines", "ratings", "MATE", "VIEWS", "could_evaluate"]

#: ``score_black`` of a mate (positive: Black mates)
MATE = 100_000
#: a score this large (or more) is a mate in shogi-server logs (ShogiHome writes ±30000,
#: engines ±32000 less the distance, ±100000)
MATE_THRESHOLD = 30_000
#: whose point of view each dialect writes its scores from ("black", or "mover": the side that
#: made the move), see the module docstring
VIEWS = {"shogi-server": "black", "shogihome": "black", "shogigui": "black",
         "shogihome-research": "black", "shogigui-analysis": "black",
         "kishin-analytics": "black", "kshogi": "black"}
#: a PV replays at most this many moves (a damaged line of a megabyte stays cheap)
MAX_PV = 256


@dataclass(slots=True)
class Evaluation:
    """An engine's evaluation of one move, as the store keeps it (see the module docstring)."""

    score: Optional[int] = None
    score_black: Optional[int] = None
    mate: Optional[int] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    pv: Optional[str] = None
    engine: Optional[str] = None
    dialect: str = ""
    #: the PV as written and how to read it, until ``replay_pvs`` turns it into USI
    written_pv: str = ""
    pv_notation: str = ""

    def as_dict(self) -> dict:
        """The stored keys: ``score``, ``score_black``, ``mate``, ``depth``, ``nodes``, ``pv``,
        ``engine``, ``dialect``."""
        out = asdict(self)
        del out["written_pv"], out["pv_notation"]
        return out


def could_evaluate(comments) -> bool:
    """True if one of ``comments`` may hold an evaluation (every dialect starts with ``*`` or
    ``#``): the cheap test before ``read_evaluation``.

    >>> could_evaluate(["互角", "*評価値=3"]), could_evaluate(["good move"])
    (True, False)
    """
    for body in comments:
        if body[:1] in ("*", "#"):
            return True
    return False


def read_evaluation(comments) -> Optional[Evaluation]:
    """The evaluation the comments of one move hold (None if none): the first dialect, in the
    module docstring's order, that gives a score or a mate. Its PV stays as written until
    ``usi_pv``."""
    found: Optional[dict[str, dict]] = None
    for body in comments:
        value = _read_line(body)
        if value is None:
            continue
        dialect, fields = value
        if found is None:
            found = {}
        have = found.get(dialect)
        if have is None:
            found[dialect] = {k: v for k, v in fields.items() if v is not None}
        else:  # a later line of the same dialect: its first value of each field is kept
            for key, v in fields.items():
                if v is not None and key not in have:
                    have[key] = v
    if found is None:
        return None
    for dialect in _ORDER:
        fields = found.get(dialect)
        if fields and ("score" in fields or "mate" in fields or "mate_unknown" in fields):
            unknown = fields.pop("mate_unknown", None)
            evaluation = Evaluation(dialect=dialect, **fields)
            if unknown is not None and evaluation.mate is None and evaluation.score is None:
                # a mate without a distance (``詰み=先手勝ち``): ±MATE as the sign says
                evaluation.score_black = MATE * unknown
            return evaluation
    return None


_SERVER_START = frozenset("* +-0123456789")


def _read_line(body: str):
    """``(dialect, fields)`` of one comment line, or None: the reader is chosen by the line's
    first characters (every line of an engine log is read: this is the hot path)."""
    head = body[:1]
    if head == "*":
        second = body[1:2]
        if second in _SERVER_START:
            found = read_shogi_server(body)
            if found is None and second == " ":
                found = read_shogigui(body)  # Kishin Analytics' ``* 候補1 … 評価値 N``
            return found
        if second == "対" or second == "解" or second == "検":
            return read_shogigui(body)
        return read_shogihome(body)
    if head == "#":
        second = body[1:2]
        return read_kshogi(body) if second == "形" or second == "指" else read_shogihome(body)
    return None


def settle(evaluation: Optional[Evaluation], mover: int) -> Optional[Evaluation]:
    """Fill ``score_black`` (``mover`` is the side that made the move: 0 Black, 1 White)."""
    if evaluation is None:
        return None
    sign = -1 if VIEWS[evaluation.dialect] == "mover" and mover == 1 else 1
    score, mate = evaluation.score, evaluation.mate
    if mate is not None:
        evaluation.mate = mate * sign
        evaluation.score_black = MATE if evaluation.mate > 0 else -MATE
    elif score is not None:
        black = score * sign
        evaluation.score_black = black if abs(black) < MATE_THRESHOLD else (
            MATE if black > 0 else -MATE)
    return evaluation


def usi_pv(evaluation: Evaluation, after: Optional[Position], mover: int,
           played: Optional[Move] = None) -> None:
    """Turn the PV as written into ``pv`` (USI), replayed from ``after`` (the position after the
    move ``played`` by ``mover``; None: the move did not replay, no PV then)."""
    if evaluation.written_pv and after is not None:
        tokens = (_ki2_tokens(evaluation.written_pv) if evaluation.pv_notation == "ki2"
                  else tuple(evaluation.written_pv.split()))
        usi = _replay_pv(after, tokens, evaluation.pv_notation, mover, played)
        evaluation.pv = " ".join(usi) or None
    evaluation.written_pv = ""


# ----- the PV --------------------------------------------------------------------------------------

def _pv_move(notation: str, position: Position, text: str) -> Move:
    """The move ``text`` of a PV in ``notation`` (csa, usi, ki2 or kif) says in ``position``."""
    if notation == "csa":
        return parse_csa_move(position, text)
    if notation == "usi":
        return Move.from_usi(text)
    if notation == "ki2":
        return parse_ki2_move(position, text)
    return parse_kif_move(position, text.lstrip("▲△☗☖"))


_MARKS = {"▲": 0, "☗": 0, "△": 1, "☖": 1, "+": 0, "-": 1}


def _replay_pv(after: Position, tokens: tuple, notation: str, mover: int,
               played: Optional[Move] = None) -> list:
    """The USI moves of ``tokens`` replayed from ``after`` until one does not read or is
    illegal. A first move that is the move played (ShogiGUI's PV and some engines' USI PVs
    start with it: marked as the mover's, or the same USI move) is left out."""
    if tokens and (_MARKS.get(tokens[0][:1]) == mover
                   or (played is not None and tokens[0] == played.usi())):
        tokens = tokens[1:]
    # a CSA move says its side and piece, which its reader checks against the board: that is
    # enough to follow an engine's line (the full rules check would triple the cost of a log
    # whose every move carries a PV of 30 moves); the other notations are checked in full
    checked = notation != "csa"
    position = after.copy(last_move=True)
    out = []
    for text in tokens[:MAX_PV]:
        try:
            move = _pv_move(notation, position, text)
            if checked and position.illegality(move) is not None:
                break
            position.push(move)
        except Exception:  # noqa: BLE001 (a PV as written is data: it never stops a game)
            break
        out.append(move.usi())
    return out


_KI2_SPLIT = re.compile(r"(?=[▲△☗☖])")


def _ki2_tokens(text: str) -> tuple:
    return tuple(t.strip() for t in _KI2_SPLIT.split(text) if t.strip())


#: the largest value a stored number may have (the store's 32- and 64-bit columns)
INT32, INT64 = 2 ** 31 - 1, 2 ** 63 - 1


def _whole(text: Optional[str], limit: int = INT32) -> Optional[int]:
    """An int of a number as written (``+64``, ``-7``, ``80.5`` rounds), or None (also for one
    beyond ``limit``: a damaged comment, not a score).

    >>> _whole("+64"), _whole("80.5"), _whole("99999999999"), _whole("x")
    (64, 80, None, None)
    """
    if text is None:
        return None
    try:
        value = round(float(text))
    except (ValueError, OverflowError):
        return None
    return value if -limit <= value <= limit else None


# ----- the dialects --------------------------------------------------------------------------------

_CSA_MOVE = re.compile(r"[+-]\d{4}[A-Z]{2}")
_USI_MOVE = re.compile(r"(?:[1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i])")
_SERVER = re.compile(r"\*\*? *([+-]?\d+(?:\.\d+)?)(?:\s+(.*))?")


def read_shogi_server(body: str):
    """``** 113 -3334FU +2625FU`` (a CSA ``'**`` line; ``* 113`` as the protocol sends it):
    the score, then the PV in CSA or USI moves (anything else after the score: no match).

    >>> read_shogi_server("** 130 7g7f 8c8d")
    ('shogi-server', {'score': 130, 'written_pv': '7g7f 8c8d', 'pv_notation': 'usi'})
    >>> read_shogi_server("** 100000")[1]["score"], read_shogi_server("**対局 評価値 3")
    (100000, None)
    """
    match = _SERVER.fullmatch(body.rstrip())
    if match is None:
        return None
    rest = match.group(2) or ""
    notation = ""
    if rest:  # the first move says the notation (the PV is read when the game is stored)
        first = rest.split(None, 1)[0]
        if _CSA_MOVE.fullmatch(first):
            notation = "csa"
        elif _USI_MOVE.fullmatch(first):
            notation = "usi"
        else:
            return None
    return "shogi-server", {"score": _whole(match.group(1)), "written_pv": rest,
                            "pv_notation": notation}


_SHOGIHOME = re.compile(r"([*#])(評価値|読み筋|詰み|深さ|ノード数|エンジン)=(.*)")
_SHOGIHOME_MATE = re.compile(r"(先手勝ち|後手勝ち)(?::(\d+)手)?")


def read_shogihome(body: str):
    """One line of ShogiHome's search comment (``*…=`` the player's, ``#…=`` a research).

    >>> read_shogihome("#評価値=-102")
    ('shogihome-research', {'score': -102})
    >>> read_shogihome("*詰み=後手勝ち:15手"), read_shogihome("*詰み=先手勝ち")
    (('shogihome', {'mate': -15}), ('shogihome', {'mate_unknown': 1}))
    """
    match = _SHOGIHOME.match(body)
    if match is None:
        return None
    mark, key, value = match.groups()
    value = value.strip()
    dialect = "shogihome" if mark == "*" else "shogihome-research"
    if key == "評価値":
        score = _whole(value)
        return (dialect, {"score": score}) if score is not None else None
    if key == "読み筋":
        return dialect, {"written_pv": value, "pv_notation": "ki2"}
    if key == "詰み":
        mate = _SHOGIHOME_MATE.match(value)
        if mate is None:
            return None
        sign = 1 if mate.group(1) == "先手勝ち" else -1
        plies = _whole(mate.group(2))
        if plies is None:
            return dialect, {"mate_unknown": sign}
        return dialect, {"mate": sign * plies}
    if key == "深さ":
        return dialect, {"depth": _whole(value)}
    if key == "ノード数":
        return dialect, {"nodes": _whole(value, INT64)}
    return dialect, {"engine": value or None}


_SHOGIGUI = re.compile(r"\*(対局|解析|検討) ")
_KISHIN = re.compile(r"\* .*評価値 ")
_FIELD = {"深さ": re.compile(r" 深さ (\d+)"), "ノード数": re.compile(r" ノード数 (\d+)"),
          "評価値": re.compile(r" 評価値 ([+-]?)(詰|\d+)\s*(\d*)"),
          "読み筋": re.compile(r" 読み筋 (.*)")}


def read_shogigui(body: str):
    """ShogiGUI's ``*対局 …`` (the player's search), ``*解析 …`` and ``*検討 …`` (an analysis,
    a study) lines, and Kishin Analytics' ``* 候補1 … 評価値 N`` (the same fields).

    >>> read_shogigui("*対局 時間 00:00.8 深さ 22/28 ノード数 744743 評価値 88 読み筋 ▲３四飛(24) △３三角(22)")
    ('shogigui', {'depth': 22, 'nodes': 744743, 'score': 88, 'written_pv': '▲３四飛(24) △３三角(22)', 'pv_notation': 'kif'})
    >>> read_shogigui("*解析 0 △ 評価値 -詰 3 読み筋 △同　角成(46)")[1]["mate"]
    -3
    >>> read_shogigui("*検討 候補1 時間 00:06.0 深さ 27/43 ノード数 44995318 評価値 -7 読み筋 △８四歩(83)")
    ('shogigui-analysis', {'depth': 27, 'nodes': 44995318, 'score': -7, 'written_pv': '△８四歩(83)', 'pv_notation': 'kif'})
    """
    head = _SHOGIGUI.match(body)
    if head is not None:
        dialect = "shogigui" if head.group(1) == "対局" else "shogigui-analysis"
    elif _KISHIN.match(body):
        dialect = "kishin-analytics"
    else:
        return None
    fields: dict = {}
    text = " " + body[1:]
    depth = _FIELD["深さ"].search(text)
    nodes = _FIELD["ノード数"].search(text)
    score = _FIELD["評価値"].search(text)
    pv = _FIELD["読み筋"].search(text)
    if depth:
        fields["depth"] = _whole(depth.group(1))
    if nodes:
        fields["nodes"] = _whole(nodes.group(1), INT64)
    if score:
        sign, value, plies = score.groups()
        if value == "詰":
            length = _whole(plies) if plies else None
            if length is not None:
                fields["mate"] = (-1 if sign == "-" else 1) * length
            else:
                fields["mate_unknown"] = -1 if sign == "-" else 1
        else:
            fields["score"] = _whole(sign + value)
    if pv:
        fields["written_pv"] = pv.group(1).strip()
        fields["pv_notation"] = "kif"
    return dialect, fields


_KSHOGI = re.compile(r"#(?:形勢|指し手)\[([+-]?\d+)\]")


def read_kshogi(body: str):
    """KShogi's ``#形勢[N]`` / ``#指し手[N]``.

    >>> read_kshogi("#形勢[-250]")
    ('kshogi', {'score': -250})
    """
    match = _KSHOGI.match(body)
    score = _whole(match.group(1)) if match else None
    return ("kshogi", {"score": score}) if score is not None else None


#: the order the dialects are tried in (the module docstring's, ``VIEWS``')
_ORDER = tuple(VIEWS)


# ----- ratings ---------------------------------------------------------------------------------------

_RATE = re.compile(r"(black|white)_rate:(.*):([+-]?\d+(?:\.\d+)?)\s*")


def ratings(comments) -> tuple:
    """``(black, white)`` ratings of shogi-server's header comments ``black_rate:NAME:3382.0``
    (None where there is none).

    >>> ratings(["rating:a+1:b+2", "black_rate:a+1:3382.0", "white_rate:b+2:3613.0"])
    (3382.0, 3613.0)
    >>> ratings(["black_rate:a:x"])
    (None, None)
    """
    found: dict[str, Optional[float]] = {"black": None, "white": None}
    for body in comments:
        if body[:6] in ("black_", "white_"):
            match = _RATE.fullmatch(body)
            if match is None:
                continue
            rating = float(match.group(3))
            if abs(rating) < 1e6 and found[match.group(1)] is None:
                found[match.group(1)] = rating
    return found["black"], found["white"]


# ----- a game's main line ----------------------------------------------------------------------------

#: the dialects of the player's own search (the others are analyses made afterwards)
PLAYER_DIALECTS = frozenset({"shogi-server", "shogihome", "shogigui"})


def _first_mover(start_sfen: str) -> int:
    """The side to move at ``start_sfen`` (0 Black, 1 White)."""
    return 1 if start_sfen.split()[1:2] == ["w"] else 0


def main_line(moves: list, start_sfen: str) -> dict:
    """``{ply: Evaluation}`` of the main-line ``moves`` (``MoveRecord``s) that carry one, with
    ``score_black`` settled; their PVs stay as written until ``replay_pvs``. Moves without
    comments cost nothing but the test.

    >>> from kifudb.ingest.record import MoveRecord
    >>> moves = [MoveRecord("7g7f"), MoveRecord("3c3d", comments=["** -40 2g2f 8c8d"])]
    >>> start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    >>> found = main_line(moves, start)
    >>> list(found), found[2].score_black, found[2].pv
    ([2], -40, None)
    >>> replay_pvs(found, start, [Move.from_usi("7g7f"), Move.from_usi("3c3d")])
    >>> found[2].pv
    '2g2f 8c8d'
    """
    out = {}
    first = _first_mover(start_sfen)
    for index, move in enumerate(moves):
        comments = move.comments
        if not comments or not could_evaluate(comments):
            continue
        evaluation = read_evaluation(comments)
        if evaluation is not None:
            out[index + 1] = settle(evaluation, first ^ (index & 1))
    return out


def replay_pvs(evaluations: dict, start_sfen: str, played: list) -> None:
    """Turn the PVs of ``evaluations`` (``main_line``'s) into USI, each replayed from the
    position after its move; ``played`` are the main line's ``Move``s that replayed (a later
    move's PV is not replayed)."""
    position: Optional[Position] = None
    pushed = 0
    first = _first_mover(start_sfen)
    for ply in sorted(evaluations):
        evaluation = evaluations[ply]
        if not evaluation.written_pv:
            continue
        after = None
        if ply <= len(played):
            if position is None:
                position = Position.from_sfen(start_sfen)
            while pushed < ply:
                position.push(played[pushed])
                pushed += 1
            after = position
        usi_pv(evaluation, after, first ^ ((ply - 1) & 1),
               played[ply - 1] if ply <= len(played) else None)


def engines(evaluations: dict, start_sfen: str, black: Optional[str],
            white: Optional[str]) -> tuple:
    """``(black, white)``: the engine each side played with, where the record says it — the
    name a player's search comment gives (ShogiHome's ``*エンジン=``), else the side's name when
    its moves carry a shogi-server evaluation (the server's clients that send one are engines);
    None for a side that shows no engine.

    >>> e = {1: Evaluation(score=5, dialect="shogi-server"), 2: Evaluation(score=3, dialect="kshogi")}
    >>> engines(e, "9/9/9/9/9/9/9/9/9 b - 1", "gpsfish", "a human")
    ('gpsfish', None)
    """
    first = _first_mover(start_sfen)
    named: list = [{}, {}]
    server = [False, False]
    for ply, evaluation in evaluations.items():
        if evaluation.dialect not in PLAYER_DIALECTS:
            continue
        side = first ^ ((ply - 1) & 1)
        if evaluation.engine:
            named[side][evaluation.engine] = named[side].get(evaluation.engine, 0) + 1
        elif evaluation.dialect == "shogi-server":
            server[side] = True
    out = []
    for side, name in ((0, black), (1, white)):
        if named[side]:
            out.append(max(named[side], key=named[side].get))
        else:
            out.append(name if server[side] and name else None)
    return tuple(out)
