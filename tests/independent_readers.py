"""Independent readers of the record formats, and the agreement of kifudb's reading with them.

Used by ``tests/test_agreement.py`` (every real record file of ``tests/fixtures``) and by
``tools/agreement.py`` (the shared corpus). The readers are cshogi's (CSA, KIF, KI2, and a
csa1 line read move by move with its board), python-shogi's (CSA, KIF) and rsshogi's (CSA,
KIF, KI2, JKF, USI lines with its special tokens): development dependencies the product never
imports. cshogi crashes (SIGSEGV) on some inputs, so every file is read by all of them in a
forked child, and again reader by reader in children of their own when that child dies.

Where a library lacks a feature, it is given the record in a form it reads, with the same meaning:
cshogi and python-shogi get the 七枚落ち handicaps added to their tables; python-shogi's side to
move for a board diagram is corrected (it reports the side after the last move); rsshogi gets a
tsume record without its 手数 header, older JKF drops without their ``"from": null`` and KI2
squares in full width (``_full_width_ki2``). cshogi is not asked about board diagrams (it ignores
them) nor ``00AL`` (it ignores it).

A game of kifudb *agrees* when one of the independent readers reads a game of the same file to
the same start position (board, side to move and hands), the same moves and the same final
position. Otherwise it is *explained* when kifudb's game carries a finding (a warning or an
error) that says why: one located at the ply where the nearest independent reading departs
from it, or one about the start position when the starts differ. What is left *disagrees*::

    >>> norm_sfen("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1'
    >>> norm_sfen("4k4/9/9/9/9/9/9/9/4K4 w P2G 7")
    '4k4/9/9/9/9/9/9/9/4K4 w 2GP 1'
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import re
from dataclasses import dataclass, field
from typing import Optional

from kifudb.core.move import code_usi
from kifudb.ingest.pipeline import read_file

#: the readers, in the order their readings are tried
READERS = ("cshogi", "python-shogi", "rsshogi")
_PIECE_ORDER = "RBGSNLPrbgsnlp"
_STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
#: codes of findings about the start position (they explain a start that differs)
START_FINDINGS = frozenset({"bad_start_position", "unknown_handicap", "assumed_side_to_move",
                            "side_from_move_number", "unparsable_line"})
#: handicaps the libraries' tables lack (JKF presets 7_L / 7_R of na2hiro/Kifu-for-JS)
_EXTRA_HANDICAPS = {
    "左七枚落ち": "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "右七枚落ち": "3gkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
}


def norm_sfen(sfen: str) -> str:
    """A SFEN with its hands in a fixed order (RBGSNLP, Black's then White's) and move number 1:
    two readers' positions compare equal when they are the same position."""
    parts = sfen.split()
    if parts[:1] == ["sfen"]:
        parts = parts[1:]
    if parts[:1] == ["startpos"]:
        return _STARTPOS
    board, side, hands = (parts + ["b", "-"])[:3]
    counts: dict = {}
    if hands != "-":
        for number, piece in re.findall(r"(\d*)([A-Za-z])", hands):
            counts[piece] = counts.get(piece, 0) + int(number or 1)
    hand = "".join((str(counts[p]) if counts[p] > 1 else "") + p for p in _PIECE_ORDER
                   if counts.get(p))
    return f"{board} {side} {hand or '-'} 1"


# ----- the readers (run in a child) -----------------------------------------------------------

def _patch_handicaps() -> None:
    import cshogi.KI2
    import cshogi.KIF
    import shogi.KIF
    for table in (cshogi.KIF.Parser.HANDYCAP_SFENS, cshogi.KI2.Parser.HANDYCAP_SFENS,
                  shogi.KIF.Parser.HANDYCAP_SFENS):
        for name, sfen in _EXTRA_HANDICAPS.items():
            table.setdefault(name, sfen)


def _main_line_text(text: str) -> str:
    """A KIF text up to its first variation (cshogi and python-shogi would play the branch's
    moves on the main line)."""
    found = re.search(r"^\s*変化[：:]", text, re.M)
    return text[:found.start()] if found else text


def _has_board(text: str) -> bool:
    return re.search(r"^\|.*\|[一二三四五六七八九]", text, re.M) is not None


def _csa_games(text: str) -> list:
    games, current = [], []
    for line in text.split("\n"):
        if line.strip() == "/":
            games.append("\n".join(current))
            current = []
        else:
            current.append(line)
    games.append("\n".join(current))
    return [g for g in games if g.strip()]


def _cshogi(fmt: str, text: str) -> list:
    import cshogi
    import cshogi.KI2
    import cshogi.KIF
    _patch_handicaps()
    if fmt == "csa":
        if re.search(r"^P[+-](?:\d\d[A-Z]{2})*00AL", text, re.M):
            raise NotImplementedError("cshogi ignores 00AL")
        out = []
        for game in _csa_games(text):
            parser = cshogi.Parser()
            parser.parse_csa_str(game)
            out.append((parser.sfen, [cshogi.move_to_usi(m) for m in parser.moves]))
        return out
    if fmt in ("kif", "kifu", "ki2"):
        if _has_board(text):
            raise NotImplementedError("cshogi ignores board diagrams")
        parser = (cshogi.KI2.Parser.parse_str(text) if fmt == "ki2"
                  else cshogi.KIF.Parser.parse_str(_main_line_text(text)))
        return [(parser.sfen, [cshogi.move_to_usi(m) for m in parser.moves])]
    if fmt == "csa1":
        return _cshogi_csa1(text)
    if fmt == "usi":
        out = []
        for line in text.split("\n"):
            line = line.strip()
            if line and not line.startswith("#"):
                board = cshogi.Board()
                words = line.split()
                head = line if words[0] in ("startpos", "sfen", "position") else "sfen " + line
                board.set_position(head.removeprefix("position ").split(" moves ")[0])
                start = board.sfen()
                moves = head.split(" moves ")[1].split() if " moves " in head else []
                out.append((start, moves))
        return out
    raise NotImplementedError(fmt)


def _cshogi_csa1(text: str) -> list:
    """A csa1 file (a header line, then a line of six-character CSA moves) read with cshogi's
    board: each move is what ``Board.move_from_csa`` makes of it."""
    import cshogi
    lines = [line for line in text.split("\n") if line.strip()]
    games = []
    for body in lines[1::2]:
        board = cshogi.Board()
        moves = []
        for at in range(0, len(body.strip()), 6):
            move = board.move_from_csa(body.strip()[at:at + 6])
            if not move or not board.is_legal(move):
                moves.append("?")
                break
            moves.append(cshogi.move_to_usi(move))
            board.push(move)
        games.append((_STARTPOS, moves))
    return games


def _python_shogi(fmt: str, text: str) -> list:
    import shogi.CSA
    import shogi.KIF
    _patch_handicaps()
    if fmt == "csa":
        return [(x["sfen"], list(x["moves"])) for game in _csa_games(text)
                for x in shogi.CSA.Parser.parse_str(game)]
    if fmt in ("kif", "kifu"):
        out = []
        for x in shogi.KIF.Parser.parse_str(_main_line_text(text)):
            sfen, moves = x["sfen"], list(x["moves"])
            if _has_board(text):
                # python-shogi 1.1.1 gives a board diagram's game the side to move after its
                # last move: its side at the start is that one, switched once a move
                fields = sfen.split()
                fields[1] = "bw"[("bw".index(fields[1]) + len(moves)) % 2]
                sfen = " ".join(fields)
            out.append((sfen, moves))
        return out
    raise NotImplementedError(fmt)


_HALF_WIDTH_SQUARE = re.compile(r"([▲△▼▽☗☖])([1-9])([1-9])")
_FULL_FILES = str.maketrans("123456789", "１２３４５６７８９")


def _full_width_ki2(text: str) -> str:
    """KI2 squares written ``▲26歩`` and White's ``▽`` as rsshogi 1.7 reads them (``▲２六歩``,
    ``△``): the same moves in the notation it knows.

    >>> _full_width_ki2("▲26歩 ▽34歩")
    '▲２六歩 △３四歩'
    """
    return _HALF_WIDTH_SQUARE.sub(lambda m: m[1] + m[2].translate(_FULL_FILES)
                                  + "〇一二三四五六七八九"[int(m[3])], text).replace("▽", "△")


def _rsshogi(fmt: str, text: str) -> list:
    from rsshogi.record import Record
    if fmt == "csa":
        records = [Record.from_csa_str(game) for game in _csa_games(text)]
    elif fmt in ("kif", "kifu"):
        # rsshogi 1.7 takes a tsume record's 手数 header for a move line
        records = [Record.from_kif_str(re.sub(r"^手数[：:].*\n", "", text, flags=re.M))]
    elif fmt == "ki2":
        records = [Record.from_ki2_str(_full_width_ki2(text))]
    elif fmt == "jkf":
        # rsshogi 1.7 refuses the drops of older JKF files, written with ``"from": null``
        records = [Record.from_jkf_str(re.sub(r'"from"\s*:\s*null\s*,', "", text))]
    elif fmt == "usi":
        records = []
        for line in text.split("\n"):
            line = line.strip()
            if line and not line.startswith("#"):
                records.append(Record.from_usi_position(line, allow_special_tokens=True))
    else:
        raise NotImplementedError(fmt)
    return [(r.init_position_sfen, [m.move.to_usi() for m in r.moves]) for r in records]


_READ = {"cshogi": _cshogi, "python-shogi": _python_shogi, "rsshogi": _rsshogi}


def _replayed(start: str, moves: list) -> tuple:
    """``(start, legal prefix of moves, final position)`` as cshogi plays them (None for a start
    cshogi cannot set up)."""
    import cshogi
    try:
        board = cshogi.Board(start)
    except Exception:  # noqa: BLE001 (a foreign library's complaint, whatever it is)
        return norm_sfen(start), moves, None
    played = []
    for usi in moves:
        try:
            move = board.move_from_usi(usi)
        except Exception:  # noqa: BLE001
            break
        if not move or not board.is_legal(move):
            break
        board.push(move)
        played.append(usi)
    return norm_sfen(start), played, norm_sfen(board.sfen())


def _read_one(name: str, fmt: str, text: str) -> tuple:
    try:
        games = _READ[name](fmt, text)
    except NotImplementedError as why:
        return "unsupported", str(why)
    except BaseException as error:  # noqa: BLE001 (a panic in rsshogi is a BaseException)
        return "error", f"{type(error).__name__}: {error}"[:200]
    try:
        done: dict = {}  # a file often holds the same game twice: replay it once
        for start, moves in games:
            key = (start, tuple(moves))
            if key not in done:
                done[key] = _replayed(start, list(moves))
        return "ok", [done[start, tuple(moves)] for start, moves in games]
    except BaseException as error:  # noqa: BLE001
        return "error", f"{type(error).__name__}: {error}"[:200]


def _child(connection, names, fmt, text) -> None:
    faulthandler.disable()  # a crash of cshogi's is expected: no traceback dump from the child
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # cshogi prints debug dumps to stdout
    connection.send({name: _read_one(name, fmt, text) for name in names})
    connection.close()


_CONTEXT = multiprocessing.get_context("fork")


def _in_child(names: tuple, fmt: str, text: str) -> Optional[dict]:
    receive, send = _CONTEXT.Pipe(duplex=False)
    process = _CONTEXT.Process(target=_child, args=(send, names, fmt, text))
    process.start()
    send.close()
    try:
        result = receive.recv()
    except EOFError:
        result = None
    process.join()
    return result


def independent_readings(fmt: str, text: str) -> dict:
    """``{reader: (status, games or message)}`` for a decoded record of format ``fmt``; a game is
    ``(start SFEN, legal moves, final SFEN)`` as cshogi replays the reader's moves."""
    result = _in_child(READERS, fmt, text)
    if result is None:
        result = {}
        for name in READERS:
            one = _in_child((name,), fmt, text)
            result[name] = one[name] if one else ("crash", f"{name} died reading the file")
    return result


# ----- the agreement -------------------------------------------------------------------------

#: how many of each piece (promoted or not) a game holds
_SET = {"k": 2, "r": 2, "b": 2, "g": 4, "s": 4, "n": 4, "l": 4, "p": 18}


def possible(sfen: str) -> bool:
    """False if a position holds more of a piece than the game has (a reader's mistake).

    >>> possible("9/9/9/9/4k4/9/9/B8/B8 b B 1"), possible("4k4/9/9/9/9/9/9/9/4K4 b 2G 1")
    (False, True)
    """
    board, _, hands = (sfen.split() + ["b", "-"])[:3]
    counts: dict = {}
    for piece in re.findall(r"[A-Za-z]", board):
        counts[piece.lower()] = counts.get(piece.lower(), 0) + 1
    if hands != "-":
        for number, piece in re.findall(r"(\d*)([A-Za-z])", hands):
            counts[piece.lower()] = counts.get(piece.lower(), 0) + int(number or 1)
    return all(counts.get(piece, 0) <= most for piece, most in _SET.items())


@dataclass
class GameAgreement:
    """How one game compares with the independent readings of its file: ``verdict`` is
    ``agrees``, ``explained`` (it differs, and a finding of kifudb's says why), ``unverified``
    (no independent reader reads the file: ``why`` says what they said) or ``disagrees``."""

    path: str
    index: int
    verdict: str
    readers: list = field(default_factory=list)  # the readers that read it alike
    why: str = ""


def _common(a: list, b: list) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def file_agreement(path) -> tuple:
    """``(format, [GameAgreement])`` of every game kifudb reads from the file at ``path``, and
    one ``disagrees`` for each game an independent reader finds beyond kifudb's."""
    from kifudb.ingest.read import load

    read, text = load(path)
    if text is None:
        return read.format, []
    ours = read_file(path, positions=True)
    readings = independent_readings(read.format, text)
    theirs, impossible = [], []
    for name in READERS:
        status, games = readings[name]
        if status == "ok":
            for game in games:
                (theirs if possible(game[0]) else impossible).append((name, game))
    said = "; ".join(f"{name}: {value}" for name, (status, value) in readings.items()
                     if status != "ok")
    said += "".join(f"; {name} reads a start with more pieces than a game has ({game[0]})"
                    for name, game in impossible)
    results = []
    for game in ours.games:
        start = norm_sfen(game.start_sfen) if game.start_sfen else ""
        moves = [code_usi(code) for code in game.move_codes]
        final = norm_sfen(game.sfens[-1]) if game.sfens else None
        alike = [name for name, (s, m, f) in theirs if s == start and m == moves and f == final]
        if alike:
            results.append(GameAgreement(str(path), game.index, "agrees", sorted(set(alike))))
        elif not theirs:
            results.append(GameAgreement(str(path), game.index, "unverified",
                                         why=f"no independent reading ({said.strip('; ')})"))
        else:
            results.append(_explain(str(path), game, start, moves, theirs))
    counts = {name: len(games) for name, (status, games) in readings.items() if status == "ok"}
    most = max(counts.values(), default=0)
    for index in range(len(ours.games), most):
        who = [name for name, n in counts.items() if n == most]
        results.append(GameAgreement(str(path), index, "disagrees", who,
                                     f"{who[0]} reads {most} games, kifudb {len(ours.games)} "
                                     f"({'; '.join(f.code for f in ours.findings) or 'no finding'})"))
    return read.format, results


def _explain(path, game, start, moves, theirs) -> GameAgreement:
    """Agreement for a game no reader reads alike: the nearest reading (the same start, the
    longest common prefix of moves), and the finding that says why kifudb's differs from it."""
    said = [f for f in game.findings if f.severity in ("warning", "error")]
    same_start = [(name, m) for name, (s, m, _) in theirs if s == start]
    if not same_start:  # a finding about the start, of any severity, says why
        found = [f for f in game.findings if f.code in START_FINDINGS]
        return GameAgreement(path, game.index, "explained" if found else "disagrees",
                             why=f"start differs: ours {start!r}, theirs "
                                 f"{sorted({s for _, (s, _, _) in theirs})[:2]}"
                                 + (f"; finding {found[0].code}" if found else ""))
    name, best = max(same_start, key=lambda item: _common(item[1], moves))
    ply = _common(best, moves) + 1
    found = [f for f in said if f.ply == ply]
    return GameAgreement(path, game.index, "explained" if found else "disagrees", [name],
                         f"{name} departs at ply {ply} ({len(moves)} vs {len(best)} moves)"
                         + (f"; finding {found[0].code}" if found else ""))
