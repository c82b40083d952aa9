#!/usr/bin/env python3
"""Regenerate kifudb's test fixtures and demo samples from the shared game-record corpus.

Dev-only tool.  It reads the corpus (default /work/shared/corpus, or $KIFUDB_CORPUS, or
--corpus) and writes, under the project root:

  tests/fixtures/usi/real_games.usi   every game record a library can read, as USI lines
  tests/fixtures/usi/openings.usi     first 2,000 lines of tanukicoliseum/records2016_10818.sfen
  tests/fixtures/records/<source>/... raw record files, byte-for-byte copies
  tests/fixtures/SOURCES.md           where all of the above came from
  data/samples/games.usi              12 hand-picked real games for the demo
  data/samples/SOURCES.md             where those came from

It uses cshogi, python-shogi and rsshogi (dev-only; the product never imports them).  cshogi
is run in a forked child for every record because it crashes (SIGSEGV) on some inputs
(e.g. a CSA position with only one king given as a P+/P- piece list).

Output is deterministic: running it twice gives identical files.

Line format of the .usi files written here
------------------------------------------
  # <corpus path> #<1-based index of the game in that file>[ <ending>][ illegal-at=<ply>]
  sfen <board> <side> <hands> 1 moves <usi> <usi> ...

* The start SFEN is canonical: hands in R B G S N L P order (sente first, then gote),
  move number always 1, "sfen ..." even for the standard start position.
* "moves" is always written, even when no move follows (problem positions).
* <ending> is a CSA special-move token (%TORYO, %CHUDAN, %SENNICHITE, %KACHI, %TSUMI,
  %TIME_UP, %ILLEGAL_MOVE, %+ILLEGAL_ACTION, %-ILLEGAL_ACTION, %JISHOGI, %FUZUMI ...).
  KIF/KI2 terminal words are mapped to these tokens; it is omitted when the record has none.
* illegal-at=<ply>: the record's move number <ply> (1-based) is illegal per cshogi's or
  rsshogi's move generator; the move list stops before it.
* The corpus path may contain spaces, so parse the comment with
  ^# (.+) #(\\d+)(?: (%\\S+))?(?: illegal-at=(\\d+))?$
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import multiprocessing
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path(os.environ.get("KIFUDB_CORPUS", "/work/shared/corpus"))

STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

# Handicap presets missing from cshogi / python-shogi (their tables stop at 六枚落ち/八枚落ち/十枚落ち).
# Values from the JKF presets "7_L" / "7_R" of na2hiro/Kifu-for-JS packages/shogi.js/src/presets.ts.
EXTRA_HANDICAPS = {
    "左七枚落ち": "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "右七枚落ち": "3gkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
}

ENCODINGS = {
    "ascii": "utf-8",
    "utf-8": "utf-8",
    "utf-8-bom": "utf-8-sig",
    "cp932": "cp932",
    "euc-jp": "euc_jp",
}

# Raw record copies (task 1e).
RECORD_DIRS = [
    "kifu-for-js",
    "shogi-kifu-converter",
    "shogihome",
    "csa-rs",
    "shogi-supplement",
    "python-shogi",
    "yaneuraou-nodchip",
    "tsshogi",
    "sunfish4/kifu/learn/pro10",
]
APERY_EXTRA = ["apery-wcsc28/kifu.csa1", "apery-wcsc28/benchmark.sfen"]
APERY_SAMPLE_SIZE = 30

OPENINGS_SRC = "tanukicoliseum/records2016_10818.sfen"
OPENINGS_LINES = 2000

# Demo games (task 1c): (corpus path, 1-based game index, why it is interesting).
SAMPLES = [
    ("python-shogi/data/games/habu-fujii-2006.kif", 1, "professional: 順位戦 2006 羽生–藤井, 181 plies"),
    ("kifu-for-js/packages/json-kifu-format/test/files/kif/ryuou201409020101.kif", 1,
     "professional: 第27期竜王戦 挑戦者決定三番勝負 第2局 (2014) 羽生–糸谷"),
    ("shogi-kifu-converter/data/tests/kif/oui202106290101.kif", 1, "professional: 王位戦 2021 藤井–豊島"),
    ("yaneuraou-nodchip/_history/src/testdata/csa1line/utf82chkifu.csa", 1,
     "professional: 王位戦 2003 羽生–谷川 (one-line csa1 record)"),
    ("kifu-for-js/packages/json-kifu-format/test/files/kif/20081220kyoochi.kif", 1,
     "handicap (香落ち), professionals: 上手 深浦–下手 糸谷, 2008"),
    ("sunfish4/kifu/learn/pro10/kifu25654.csa", 1, "handicap (香落ち), 1917 game from 2chkifu"),
    ("apery-wcsc28/kifu/utf8_WCSC28_U7_QHA_MCB.csa", 1, "sennichite (repetition draw), WCSC28"),
    ("apery-wcsc28/kifu/utf8_WCSC28_U1_TSG_HFW.csa", 1, "entering-king declaration win (%KACHI), WCSC28"),
    ("shogi-supplement/app/kifu/src/jvmTest/resources/narikei_abbrev_game1.kif", 1,
     "ends in checkmate (詰み), amateur online game"),
    ("kifu-for-js/packages/json-kifu-format/test/files/csa/"
     "dr1test1test0+tu-1_aobazero_viper-300-5F+aobazero+viper+20200719201040.csa", 1,
     "long game: 400 plies, ends with %KACHI"),
    ("shogi-kifu-converter/data/tests/csa/WCSC32_F7_NBS_DLS.csa", 1, "WCSC32 final round, 2022"),
    ("apery-wcsc28/kifu/utf8_WCSC28_L5_WDF_GIR.csa", 1, "short computer game lost on time (%TIME_UP), WCSC28"),
]

PIECE_ORDER = "RBGSNLPrbgsnlp"


# --------------------------------------------------------------------------- helpers

def norm_sfen(sfen: str) -> str:
    """Canonical SFEN: hands in RBGSNLP order (sente, then gote), move number 1."""
    sfen = sfen.strip()
    if sfen == "startpos":
        sfen = STARTPOS
    parts = sfen.split()
    if parts and parts[0] == "sfen":
        parts = parts[1:]
    if len(parts) < 3:
        raise ValueError(f"bad sfen: {sfen!r}")
    board, side, hands = parts[0], parts[1], parts[2]
    if side not in ("b", "w"):
        raise ValueError(f"bad side to move in {sfen!r}")
    counts: dict[str, int] = {}
    if hands != "-":
        pos = 0
        for m in re.finditer(r"(\d*)([A-Za-z])", hands):
            if m.start() != pos:
                raise ValueError(f"bad hands in {sfen!r}")
            pos = m.end()
            counts[m[2]] = counts.get(m[2], 0) + int(m[1] or 1)
        if pos != len(hands):
            raise ValueError(f"bad hands in {sfen!r}")
    hand = "".join((str(counts[p]) if counts[p] > 1 else "") + p for p in PIECE_ORDER if counts.get(p))
    return f"{board} {side} {hand or '-'} 1"


def read_manifest(corpus: Path) -> list[dict]:
    with open(corpus / "MANIFEST.csv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def decode(corpus: Path, row: dict) -> str:
    text = (corpus / row["path"]).read_bytes().decode(ENCODINGS[row["encoding"]])
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def main_line_text(text: str) -> str:
    """KIF text up to (not including) the first variation block."""
    out = []
    for line in text.split("\n"):
        if line.startswith("変化："):
            break
        out.append(line)
    return "\n".join(out)


def has_bod(text: str) -> bool:
    return bool(re.search(r"^\|.*\|[一二三四五六七八九]", text, re.M))


def is_csa1(text: str) -> bool:
    lines = [l for l in text.split("\n") if l.strip()]
    return (len(lines) >= 2 and len(lines) % 2 == 0 and re.match(r"^\d+ \S", lines[0]) is not None
            and re.fullmatch(r"(?:\d{4}[A-Z]{2})+", lines[1]) is not None)


def split_csa_games(text: str) -> list[str]:
    """Split a CSA file into records on lines holding only '/'."""
    games, cur = [], []
    for line in text.split("\n"):
        if line.strip() == "/":
            games.append("\n".join(cur))
            cur = []
        else:
            cur.append(line)
    games.append("\n".join(cur))
    return [g for g in games if g.strip()]


# --------------------------------------------------------------------------- endings and metadata

KIF_END = {
    "投了": "%TORYO", "中断": "%CHUDAN", "千日手": "%SENNICHITE", "持将棋": "%JISHOGI",
    "切れ負け": "%TIME_UP", "時間切れ": "%TIME_UP", "反則負け": "%ILLEGAL_MOVE", "入玉勝ち": "%KACHI",
    "詰み": "%TSUMI", "詰": "%TSUMI", "不詰": "%FUZUMI",
}


def csa_ending(game_text: str) -> str | None:
    for line in game_text.split("\n"):
        for stmt in line.split(","):
            stmt = stmt.strip()
            if stmt.startswith("%"):
                return stmt.split()[0]
    return None


def side_at_ply(start_sfen: str, ply: int) -> str:
    first = start_sfen.split()[1]
    if ply % 2 == 1:
        return first
    return "w" if first == "b" else "b"


def illegal_action_token(start_sfen: str, ply: int) -> str:
    # "反則勝ち" at ply N: the side to move at N wins because the other side acted illegally.
    winner = side_at_ply(start_sfen, ply)
    return "%-ILLEGAL_ACTION" if winner == "b" else "%+ILLEGAL_ACTION"


def kif_ending(text: str, start_sfen: str) -> str | None:
    for line in main_line_text(text).split("\n"):
        m = re.match(r"^\s*(\d+)\s+(\S+)", line)
        if not m:
            continue
        word = m[2]
        if word in KIF_END:
            return KIF_END[word]
        if word == "反則勝ち":
            return illegal_action_token(start_sfen, int(m[1]))
    return summary_ending(text)


def summary_ending(text: str) -> str | None:
    m = re.search(r"^\s*まで、?(\d+)手で?(.+?)\s*$", main_line_text(text), re.M)
    if not m:
        return None
    what = m[2]
    for word in ("中断", "千日手", "持将棋", "切れ負け", "時間切れ", "入玉勝ち", "不詰", "詰み", "詰"):
        if word in what:
            return KIF_END[word]
    mm = re.match(r"(先|後|下|上)手の(反則勝ち|反則負け|勝ち)", what)
    if mm:
        if mm[2] == "反則負け":
            return "%ILLEGAL_MOVE"
        if mm[2] == "反則勝ち":
            return "%-ILLEGAL_ACTION" if mm[1] in "先下" else "%+ILLEGAL_ACTION"
        return "%TORYO"
    return None


def jkf_ending(text: str) -> str | None:
    try:
        moves = json.loads(text).get("moves", [])
    except ValueError:
        return None
    for mv in moves:
        if isinstance(mv, dict) and mv.get("special"):
            return "%" + mv["special"]
    return None


def csa_meta(game_text: str) -> dict:
    meta = {}
    for line in game_text.split("\n"):
        if line.startswith("N+") and line[2:].strip():
            meta["black"] = line[2:].strip()
        elif line.startswith("N-") and line[2:].strip():
            meta["white"] = line[2:].strip()
        elif line.startswith("$EVENT:") and line[7:].strip():
            meta["event"] = line[7:].strip()
        elif line.startswith("$START_TIME:") and line[12:].strip():
            meta["date"] = line[12:].strip()
    return meta


def kif_meta(text: str) -> dict:
    keys = {"先手": "black", "下手": "black", "後手": "white", "上手": "white", "棋戦": "event",
            "開始日時": "date", "対局日": "date", "手合割": "handicap"}
    meta = {}
    for line in text.split("\n"):
        m = re.match(r"^([^：:\s]+)[：:](.*)$", line)
        if m and m[1] in keys and m[2].strip(" 　") and keys[m[1]] not in meta:
            meta[keys[m[1]]] = m[2].strip(" 　")
    return meta


# --------------------------------------------------------------------------- parsers

def _patch_handicaps():
    import cshogi.KI2
    import cshogi.KIF
    import shogi.KIF
    for table in (cshogi.KIF.Parser.HANDYCAP_SFENS, cshogi.KI2.Parser.HANDYCAP_SFENS, shogi.KIF.Parser.HANDYCAP_SFENS):
        for k, v in EXTRA_HANDICAPS.items():
            table.setdefault(k, v)


def parse_csa1(text: str) -> list[dict]:
    """One-line CSA ("csa1", 2chkifu style): a header line then all moves as 6-char tokens."""
    import cshogi
    lines = [l for l in text.split("\n") if l.strip()]
    games = []
    for head, body in zip(lines[0::2], lines[1::2]):
        b = cshogi.Board()
        moves = []
        for i in range(0, len(body), 6):
            tok = body[i:i + 6]
            m = b.move_from_csa(tok)
            if not m or not b.is_legal(m):
                moves.append(f"?{tok}")  # stop marker: not convertible
                break
            u = cshogi.move_to_usi(m)
            moves.append(u)
            b.push(m)
        f = head.split()
        meta = {"header": head}
        plies = None
        if len(f) >= 8 and re.fullmatch(r"\d{4}/\d\d/\d\d", f[1]):  # 2chkifu: no date sente gote result plies event opening
            meta.update(date=f[1], black=f[2], white=f[3], event=f[6], opening=f[7])
            plies = int(f[5])
        elif len(f) >= 6 and f[-2] == "?" or (len(f) >= 6 and f[-3].isdigit()):  # apery: no path sente gote result plies ? score
            plies = int(f[-3]) if f[-3].isdigit() else None
            meta["record"] = f[1]
        meta["plies_in_header"] = plies
        games.append({"sfen": STARTPOS, "moves": moves, "meta": meta})
    return games


def cshogi_parse(fmt: str, text: str) -> list[tuple[str, list[str]]]:
    import cshogi
    import cshogi.KI2
    import cshogi.KIF
    _patch_handicaps()
    if fmt == "csa":
        if re.search(r"^P[+-](?:\d\d[A-Z]{2})*00AL", text, re.M):
            raise NotImplementedError("cshogi.Parser ignores P+00AL / P-00AL (all remaining pieces to hand)")
        out = []
        for g in split_csa_games(text):
            p = cshogi.Parser()
            p.parse_csa_str(g)
            out.append((p.sfen, [cshogi.move_to_usi(m) for m in p.moves]))
        return out
    if fmt == "kif":
        if has_bod(text):
            raise NotImplementedError("cshogi.KIF ignores BOD boards")
        p = cshogi.KIF.Parser.parse_str(main_line_text(text))
        return [(p.sfen, [cshogi.move_to_usi(m) for m in p.moves])]
    if fmt == "ki2":
        if has_bod(text):
            raise NotImplementedError("cshogi.KI2 ignores BOD boards")
        p = cshogi.KI2.Parser.parse_str(text)
        return [(p.sfen, [cshogi.move_to_usi(m) for m in p.moves])]
    raise NotImplementedError(fmt)


def pyshogi_parse(fmt: str, text: str) -> list[tuple[str, list[str]]]:
    import shogi.CSA
    import shogi.KIF
    _patch_handicaps()
    if fmt == "csa":
        out = []
        for g in split_csa_games(text):
            s = shogi.CSA.Parser.parse_str(g)
            out.extend((x["sfen"], list(x["moves"])) for x in s)
        return out
    if fmt == "kif":
        s = shogi.KIF.Parser.parse_str(main_line_text(text))
        out = []
        for x in s:
            sfen = x["sfen"]
            if has_bod(text):
                # python-shogi 1.1.1 gives a BOD position the side to move *after the last move*;
                # a KIF board diagram is sente to move unless a 後手番/上手番 line says otherwise.
                side = "w" if re.search(r"^(後手番|上手番)", text, re.M) else "b"
                f = sfen.split()
                sfen = " ".join([f[0], side] + f[2:])
            out.append((sfen, list(x["moves"])))
        return out
    raise NotImplementedError(fmt)


def rsshogi_parse(fmt: str, text: str) -> list[tuple[str, list[str]]]:
    from rsshogi.record import Record
    if fmt == "csa":
        recs = [Record.from_csa_str(g) for g in split_csa_games(text)]
    elif fmt == "kif":
        recs = [Record.from_kif_str(text)]
    elif fmt == "ki2":
        recs = [Record.from_ki2_str(text)]
    elif fmt == "jkf":
        recs = [Record.from_jkf_str(text)]
    else:
        raise NotImplementedError(fmt)
    return [(r.init_position_sfen, [m.move.to_usi() for m in r.moves]) for r in recs]


# --------------------------------------------------------------------------- legality checks

def cshogi_replay(sfen: str, moves: list[str]) -> tuple[str | None, int]:
    """(problem with the start position or None, number of leading moves legal per cshogi)."""
    import cshogi
    b = cshogi.Board(sfen)
    if norm_sfen(b.sfen()) != sfen:
        return f"cshogi reads the SFEN as {b.sfen()}", 0
    if not b.is_ok():
        return "cshogi: Board.is_ok() is False", 0
    for i, u in enumerate(moves):
        if u not in {cshogi.move_to_usi(m) for m in b.legal_moves}:
            return None, i
        b.push_usi(u)
    return None, len(moves)


def rsshogi_replay(sfen: str, moves: list[str]) -> tuple[str | None, int]:
    from rsshogi.core import Board, Move
    try:
        b = Board(sfen)
    except Exception as e:  # noqa: BLE001
        return f"rsshogi: {e}", 0
    if not b.is_valid():
        return "rsshogi: " + ",".join(sorted({i.kind for i in b.validate_all().issues})), 0
    if norm_sfen(b.to_sfen()) != sfen:
        return f"rsshogi reads the SFEN as {b.to_sfen()}", 0
    for i, u in enumerate(moves):
        try:
            m = Move.from_usi(u)
        except Exception:  # noqa: BLE001
            return None, i
        if not b.is_legal_move(m):
            return None, i
        b.push_move(m)
    return None, len(moves)


def pyshogi_replay(sfen: str, moves: list[str]) -> tuple[str | None, int]:
    import shogi
    try:
        b = shogi.Board(sfen)
    except Exception as e:  # noqa: BLE001
        return f"python-shogi: {e}", 0
    for i, u in enumerate(moves):
        try:
            m = shogi.Move.from_usi(u)
            ok = b.is_legal(m)
        except Exception:  # noqa: BLE001
            ok = False
        if not ok:
            return None, i
        b.push(m)
    return None, len(moves)


# --------------------------------------------------------------------------- isolation

_CTX = multiprocessing.get_context("fork")


def _child(conn, func, args):
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # cshogi prints debug dumps to stdout
    try:
        conn.send(("ok", func(*args)))
    except NotImplementedError as e:
        conn.send(("unsupported", str(e)))
    except BaseException as e:  # noqa: BLE001
        conn.send(("error", f"{type(e).__name__}: {e}"[:200]))
    conn.close()


def isolated(func, *args):
    """Run func(*args) in a forked child. Returns (status, value); status 'crash' on a signal."""
    r, w = _CTX.Pipe(duplex=False)
    p = _CTX.Process(target=_child, args=(w, func, args))
    p.start()
    w.close()
    try:
        res = r.recv()
    except EOFError:
        res = None
    p.join()
    if res is None:
        return "crash", f"exit code {p.exitcode}"
    return res


def guarded(func, *args):
    try:
        return "ok", func(*args)
    except NotImplementedError as e:
        return "unsupported", str(e)
    except Exception as e:  # noqa: BLE001
        return "error", f"{type(e).__name__}: {e}"[:200]


def _cshogi_file_job(fmt, text, candidates):
    """Child-side: cshogi parse of the file, then cshogi replay of every candidate game."""
    status, value = guarded(cshogi_parse, fmt, text)
    checks = {}
    parsed = value if status == "ok" else None
    pool = list(candidates)
    if parsed:
        for sfen, moves in parsed:
            try:
                pool.append((norm_sfen(sfen), moves))
            except ValueError:
                pass
    for sfen, moves in pool:
        key = sfen + "|" + " ".join(moves)
        if key in checks:
            continue
        st, v = guarded(cshogi_replay, sfen, moves)
        checks[key] = v if st == "ok" else (f"cshogi {st}: {v}", 0)
    return (status, value), checks


def cshogi_checks_isolated(fmt, text, candidates):
    """cshogi work for one file in one child; if the child dies, redo the replays one by one."""
    st, v = isolated(_cshogi_file_job, fmt, text, candidates)
    if st == "ok":
        return v
    parse_res = isolated(cshogi_parse, fmt, text)
    checks = {}
    pool = list(candidates)
    if parse_res[0] == "ok":
        for sfen, moves in parse_res[1]:
            try:
                pool.append((norm_sfen(sfen), moves))
            except ValueError:
                pass
    for sfen, moves in pool:
        key = sfen + "|" + " ".join(moves)
        if key not in checks:
            s2, v2 = isolated(cshogi_replay, sfen, moves)
            checks[key] = v2 if s2 == "ok" else (f"cshogi {s2}: {v2}", 0)
    return parse_res, checks


# --------------------------------------------------------------------------- record extraction

LIB_ORDER = ("cshogi", "python-shogi", "rsshogi")
USI_MOVE = re.compile(r"^(?:[1-9][a-i][1-9][a-i]\+?|[RBGSNLP]\*[1-9][a-i])$")


def record_format(row: dict, text: str) -> str:
    if row["format"] == "csa" and is_csa1(text):
        return "csa1"
    return {"kifu": "kif"}.get(row["format"], row["format"])


def extract_file(corpus: Path, row: dict, log: list[str]) -> list[dict]:
    """All games of one corpus file, each {path, index, sfen, moves, ending, illegal_at, lib, meta}."""
    path = row["path"]
    text = decode(corpus, row)
    fmt = record_format(row, text)

    if fmt == "csa1":
        games = isolated(parse_csa1, text)
        if games[0] != "ok":
            log.append(f"SKIP {path}: csa1 parse {games}")
            return []
        out = []
        for i, g in enumerate(games[1], 1):
            moves = g["moves"]
            stop = next((k for k, u in enumerate(moves) if u.startswith("?")), None)
            if stop is not None:
                moves = moves[:stop]
            cand = [(norm_sfen(g["sfen"]), moves)]
            _, cchecks = cshogi_checks_isolated("none", "", cand)
            out.append(choose(path, i, {"cshogi": cand[0]}, cchecks, g["meta"], None, log,
                              extra_illegal=None if stop is None else stop + 1))
            hp = g["meta"].get("plies_in_header")
            if hp is not None and hp != len(g["moves"]):
                log.append(f"NOTE {path} #{i}: header says {hp} plies, line holds {len(g['moves'])}")
        return [g for g in out if g]

    if fmt not in ("csa", "kif", "ki2", "jkf"):
        return []

    parsed: dict[str, tuple[str, object]] = {}
    parsed["python-shogi"] = guarded(pyshogi_parse, fmt, text)
    parsed["rsshogi"] = guarded(rsshogi_parse, fmt, text)
    pool = []
    for lib in ("python-shogi", "rsshogi"):
        st, v = parsed[lib]
        if st == "ok":
            for sfen, moves in v:
                try:
                    pool.append((norm_sfen(sfen), list(moves)))
                except ValueError:
                    pass
    parsed["cshogi"], cchecks = cshogi_checks_isolated(fmt, text, pool)

    # per-game candidates from every library that read the file
    n_games = max((len(v[1]) for v in parsed.values() if v[0] == "ok"), default=0)
    if n_games == 0:
        why = "; ".join(f"{lib}: {parsed[lib][0]} {parsed[lib][1]}" for lib in LIB_ORDER)
        log.append(f"SKIP {path}: no library read it ({why})")
        return []
    games_text = split_csa_games(text) if fmt == "csa" else [text]
    out = []
    for gi in range(n_games):
        cands = {}
        for lib in LIB_ORDER:
            st, v = parsed[lib]
            if st == "ok" and len(v) == n_games:
                sfen, moves = v[gi]
                try:
                    cands[lib] = (norm_sfen(sfen), list(moves))
                except ValueError as e:
                    log.append(f"NOTE {path} #{gi + 1}: {lib} gave a bad SFEN ({e})")
        gtext = games_text[gi] if gi < len(games_text) else text
        if fmt == "csa":
            meta, ending_fn = csa_meta(gtext), (lambda s, t=gtext: csa_ending(t))
        elif fmt == "jkf":
            meta, ending_fn = {}, (lambda s, t=gtext: jkf_ending(t))
            try:
                hdr = json.loads(gtext).get("header", {})
                meta = {k2: hdr[k1] for k1, k2 in (("先手", "black"), ("下手", "black"), ("後手", "white"),
                                                    ("上手", "white"), ("棋戦", "event"), ("開始日時", "date"))
                        if hdr.get(k1)}
            except ValueError:
                pass
        elif fmt == "kif":
            meta, ending_fn = kif_meta(gtext), (lambda s, t=gtext: kif_ending(t, s))
        else:
            meta, ending_fn = kif_meta(gtext), (lambda s, t=gtext: summary_ending(t))
        for lib in LIB_ORDER:
            st, v = parsed[lib]
            if st != "ok":
                meta.setdefault("_failed", []).append(f"{lib}: {st}: {v}")
        g = choose(path, gi + 1, cands, cchecks, meta, ending_fn, log)
        if g:
            out.append(g)
    return out


def choose(path, index, cands, cchecks, meta, ending_fn, log, extra_illegal=None):
    """Pick one library's reading of a game and cut it at the first move illegal per cshogi or rsshogi."""
    scored = []
    for rank, lib in enumerate(LIB_ORDER):
        if lib not in cands:
            continue
        sfen, moves = cands[lib]
        bad_tok = next((i for i, u in enumerate(moves) if not USI_MOVE.match(u)), None)
        if bad_tok is not None:
            log.append(f"READER {path} #{index}: {lib} produced {moves[bad_tok]!r} at ply {bad_tok + 1}; "
                       f"its reading stops there")
            moves = moves[:bad_tok]
        key = sfen + "|" + " ".join(moves)
        c_err, c_ok = cchecks.get(key, ("cshogi: not checked", 0))
        r_err, r_ok = rsshogi_replay(sfen, moves)
        p_err, p_ok = pyshogi_replay(sfen, moves)
        err = c_err or r_err
        scored.append(dict(lib=lib, rank=rank, sfen=sfen, moves=moves, err=err, c_ok=c_ok, r_ok=r_ok,
                           p_ok=p_ok, p_err=p_err, ok=0 if err else min(c_ok, r_ok)))
    good = [s for s in scored if not s["err"]]
    if not good:
        errs = "; ".join(f"{s['lib']}'s reading -> {s['err']}" for s in scored) or "no parse"
        log.append(f"SKIP {path} #{index}: start position rejected ({errs})")
        return None
    best = sorted(good, key=lambda s: (-s["ok"], s["rank"]))[0]
    # report disagreements between libraries
    readings = {}
    for s in good:
        readings.setdefault((s["sfen"], tuple(s["moves"][: s["ok"]])), []).append(s["lib"])
    if len(readings) > 1:
        desc = " | ".join(f"{'+'.join(libs)}: {len(mv)} legal plies from {sf}" for (sf, mv), libs in readings.items())
        log.append(f"DISAGREE {path} #{index}: {desc} -> using {best['lib']}")
    if best["c_ok"] != best["r_ok"]:
        log.append(f"LEGALITY {path} #{index}: cshogi accepts {best['c_ok']} plies, rsshogi {best['r_ok']} "
                   f"(of {len(best['moves'])})")
    if best["p_err"] is None and best["p_ok"] != min(best["c_ok"], best["r_ok"]):
        log.append(f"LEGALITY {path} #{index}: python-shogi accepts {best['p_ok']} plies, "
                   f"cshogi {best['c_ok']}, rsshogi {best['r_ok']}")
    n_ok = best["ok"]
    illegal_at = n_ok + 1 if n_ok < len(best["moves"]) else extra_illegal
    if illegal_at is not None:
        bad = best["moves"][n_ok] if n_ok < len(best["moves"]) else "(unconvertible token)"
        log.append(f"ILLEGAL {path} #{index}: ply {illegal_at} {bad} is illegal; kept {n_ok} plies")
    ending = ending_fn(best["sfen"]) if ending_fn else None
    return dict(path=path, index=index, sfen=best["sfen"], moves=best["moves"][:n_ok], ending=ending,
                illegal_at=illegal_at, lib=best["lib"], meta=meta, total=len(best["moves"]))


def usi_line(g: dict) -> str:
    return " ".join(["sfen", g["sfen"], "moves"] + g["moves"])


def origin_comment(g: dict) -> str:
    s = f"# {g['path']} #{g['index']}"
    if g["ending"]:
        s += f" {g['ending']}"
    if g["illegal_at"] is not None:
        s += f" illegal-at={g['illegal_at']}"
    return s


# --------------------------------------------------------------------------- SOURCES facts

def source_facts(corpus: Path) -> dict[str, dict]:
    """Rows of the table in corpus/SOURCES.md, keyed by source dir."""
    facts = {}
    for line in (corpus / "SOURCES.md").read_text(encoding="utf-8").split("\n"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 7 and (corpus / cells[0]).is_dir():
            facts[cells[0]] = dict(repo=cells[1], licence=cells[2])
    return facts


def history_index(corpus: Path, source: str) -> dict[str, str]:
    idx = corpus / source / "_history" / "INDEX.txt"
    out = {}
    if idx.exists():
        for line in idx.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                commit, rel = line.split(" ", 1)
                out[f"{source}/_history/{rel}"] = commit
    return out


# --------------------------------------------------------------------------- main

def write_text(path: Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def pick_apery(rows: list[dict]) -> list[str]:
    apery = sorted(r["path"] for r in rows if r["path"].startswith("apery-wcsc28/kifu/"))
    ending = {r["path"]: r["endings"] for r in rows}
    special = [p for p in apery if ending[p] != "%TORYO"]
    toryo = [p for p in apery if ending[p] == "%TORYO"]
    need = APERY_SAMPLE_SIZE - len(special)
    step = len(toryo) / need
    chosen = special + [toryo[int(i * step)] for i in range(need)]
    return sorted(chosen)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--out", type=Path, default=ROOT, help="project root to write into")
    ap.add_argument("--log", type=Path, help="also write the log to this file")
    args = ap.parse_args(argv)
    corpus, out = args.corpus, args.out
    rows = read_manifest(corpus)
    facts = source_facts(corpus)
    log: list[str] = []

    # (a) real games
    games = []
    for row in sorted(rows, key=lambda r: r["path"]):
        if row["format"] == "sfen":
            continue  # position lists, not game records (openings go to openings.usi)
        games.extend(extract_file(corpus, row, log))
    lines = [
        "# Real game records from the kifudb development corpus, one game per line. Made by tools/make_fixtures.py;",
        "# origins in tests/fixtures/SOURCES.md. Each game: '# <corpus path> #<index> [<ending>] [illegal-at=<ply>]'",
        "# then 'sfen <start> moves <usi>...'. Every move is legal per cshogi and rsshogi.",
        "",
    ]
    for g in games:
        lines.append(origin_comment(g))
        lines.append(usi_line(g))
    write_text(out / "tests/fixtures/usi/real_games.usi", "\n".join(lines) + "\n")
    n_moves = sum(len(g["moves"]) for g in games)
    distinct = len({(g["sfen"], tuple(g["moves"])) for g in games})
    used_files = sorted({g["path"] for g in games})

    # (b) openings
    src_lines = (corpus / OPENINGS_SRC).read_text(encoding="ascii").split("\n")[:OPENINGS_LINES]
    op_head = (f"# First {OPENINGS_LINES} lines of {OPENINGS_SRC} (nodchip/TanukiColiseum, GPL-3.0), copied verbatim;"
               f" see tests/fixtures/SOURCES.md")
    write_text(out / "tests/fixtures/usi/openings.usi", op_head + "\n" + "\n".join(src_lines) + "\n")
    op_bad = []
    op_moves = 0
    for i, line in enumerate(src_lines, 1):
        toks = line.split()
        assert toks[:2] == ["startpos", "moves"], line
        mv = toks[2:]
        op_moves += len(mv)
        _, cchk = cshogi_checks_isolated("none", "", [(norm_sfen(STARTPOS), mv)])
        c_ok = cchk[norm_sfen(STARTPOS) + "|" + " ".join(mv)][1]
        _, r_ok = rsshogi_replay(norm_sfen(STARTPOS), mv)
        if min(c_ok, r_ok) != len(mv):
            op_bad.append((i, c_ok, r_ok))
    for i, c_ok, r_ok in op_bad:
        log.append(f"OPENINGS line {i}: cshogi legal {c_ok}, rsshogi legal {r_ok}")

    # (c) samples
    by_key = {(g["path"], g["index"]): g for g in games}
    s_lines = ["# Demo games for kifudb: real game records, one per line, made by tools/make_fixtures.py;",
               "# origins in data/samples/SOURCES.md. '# <corpus path> #<index> [<ending>] | ▲black vs △white[, handicap] | event | date | why'",
               "# (▲ = sente/black, △ = gote/white; in handicap games △ is 上手 and moves first).",
               ""]
    sample_games = []
    for path, idx, why in SAMPLES:
        g = by_key.get((path, idx))
        if g is None:
            raise SystemExit(f"sample {path} #{idx} was not extracted")
        sample_games.append((g, why))
        m = g["meta"]
        players = f"▲{m.get('black', '?')} vs △{m.get('white', '?')}"
        if m.get("handicap"):
            players += f", {m['handicap']}"
        info = " | ".join([origin_comment(g), players, m.get("event", "-"), m.get("date", "-"), why])
        s_lines.append(info)
        s_lines.append(usi_line(g))
    write_text(out / "data/samples/games.usi", "\n".join(s_lines) + "\n")

    # (e) raw record copies
    copied = []
    rec_root = out / "tests/fixtures/records"
    if rec_root.exists():
        shutil.rmtree(rec_root)
    for d in RECORD_DIRS:
        for p in sorted((corpus / d).rglob("*")):
            if p.is_file():
                copied.append(p.relative_to(corpus).as_posix())
    apery = pick_apery(rows)
    copied += apery + APERY_EXTRA
    total_bytes = 0
    for rel in copied:
        dst = rec_root / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus / rel, dst)
        total_bytes += dst.stat().st_size

    # (d) SOURCES.md
    write_text(out / "tests/fixtures/SOURCES.md",
               fixtures_sources(corpus, facts, rows, games, n_moves, distinct, used_files, op_moves, op_bad,
                                copied, apery, total_bytes, log))
    write_text(out / "data/samples/SOURCES.md", samples_sources(corpus, facts, sample_games))

    summary = [
        f"real_games.usi: {len(games)} games ({distinct} distinct), {n_moves} moves, from {len(used_files)} files",
        f"openings.usi: {len(src_lines)} lines, {op_moves} moves, {len(op_bad)} with an illegal move",
        f"games.usi: {len(sample_games)} games, {sum(len(g['moves']) for g, _ in sample_games)} moves",
        f"records/: {len(copied)} files, {total_bytes} bytes",
    ]
    text = "\n".join(log + [""] + summary) + "\n"
    sys.stdout.write(text)
    if args.log:
        write_text(args.log, text)


def lib_versions() -> str:
    from importlib import metadata
    return ", ".join(f"{d} {metadata.version(d)}" for d in ("cshogi", "python-shogi", "rsshogi"))


def _origin(facts, corpus, rel):
    """(source dir, 'owner/name @ commit', licence) for one corpus file."""
    src = rel.split("/", 1)[0]
    f = facts.get(src, {})
    text = f.get("repo", "?")
    name = text.split()[0]
    m = re.search(r"@ ([0-9a-f]{40})", text)
    commit = history_index(corpus, src).get(rel) or (m[1] if m else "?")
    return src, f"{name} @ {commit}", f.get("licence", "?")


def _licence_table(facts, sources):
    out = ["| source dir | upstream repository @ commit (as in the corpus SOURCES.md) | licence |", "|---|---|---|"]
    for s in sorted(sources):
        f = facts.get(s, {})
        out.append(f"| {s} | {f.get('repo', '?')} | {f.get('licence', '?')} |")
    return out


def fixtures_sources(corpus, facts, rows, games, n_moves, distinct, used_files, op_moves, op_bad, copied, apery,
                     total_bytes, log):
    by_src: dict[str, list[dict]] = {}
    for g in games:
        by_src.setdefault(g["path"].split("/", 1)[0], []).append(g)
    hist_used = {}
    for rel in sorted(set(copied) | set(used_files)):
        src = rel.split("/", 1)[0]
        c = history_index(corpus, src).get(rel)
        if c:
            hist_used[rel] = c
    L = [
        "# tests/fixtures — origins",
        "",
        "Everything here is made by `python tools/make_fixtures.py` (dev-only; needs cshogi, python-shogi and rsshogi,",
        f"made with {lib_versions()}; and the corpus at /work/shared/corpus or `--corpus DIR`).",
        "Do not edit by hand; rerun the script.",
        "All records come from the development corpus, itself unmodified copies of files in the public",
        "repositories below. The licence column is the source repository's licence (copied from the corpus SOURCES.md).",
        "",
        "## Upstream repositories",
        "",
    ]
    L += _licence_table(facts, {r.split("/", 1)[0] for r in copied} | set(by_src) | {"tanukicoliseum"})
    if hist_used:
        L += ["", "Files under `<source>/_history/` come from older commits of the same repository:", ""]
        L += [f"* `{rel}` — commit {c}" for rel, c in sorted(hist_used.items())]
    L += [
        "",
        "## usi/real_games.usi",
        "",
        f"{len(games)} games ({distinct} distinct move sequences), {n_moves} moves in all, read from {len(used_files)} corpus files",
        "(CSA, csa1 one-line, KIF, KIFU, KI2, KI2U and JKF). For each record the readings of cshogi, python-shogi and",
        "rsshogi were compared; the one with the longest legal prefix was kept (ties: cshogi, then python-shogi, then",
        "rsshogi). Every move was then replayed: it must be in cshogi's generated legal moves and pass rsshogi's",
        "`Board.is_legal_move`; the list stops before the first move that fails (`illegal-at=<ply>` in the comment).",
        "Start positions must pass cshogi `Board.is_ok()` and rsshogi `Board.is_valid()` (both accept a position",
        "with only one king, as in tsume problems). Work-arounds for known library gaps: cshogi/python-shogi get the",
        "JKF presets for 左七枚落ち/右七枚落ち added to their handicap tables; python-shogi's side to move for a KIF",
        "board diagram (BOD) is corrected (it reports the side to move after the last move); cshogi is not used for",
        "KIF/KI2 with a BOD (it ignores the diagram) nor for CSA with `00AL` (it ignores it).",
        "Variations (変化) are not included: only the main line. `.sfen` files are not game records and are left out.",
        "",
        "Comment line: `# <corpus path> #<1-based game index in the file>[ <ending>][ illegal-at=<ply>]`, then",
        "`sfen <canonical start SFEN> moves <usi>...` (\"moves\" is written even when none follow). Endings are CSA",
        "tokens; KIF/KI2 words are mapped (投了 %TORYO, 中断 %CHUDAN, 千日手 %SENNICHITE, 持将棋 %JISHOGI, 切れ負け",
        "%TIME_UP, 反則負け %ILLEGAL_MOVE, 反則勝ち %±ILLEGAL_ACTION by offender, 入玉勝ち %KACHI, 詰み %TSUMI).",
        "",
        "| source dir | games | moves | files |",
        "|---|---|---|---|",
    ]
    for s in sorted(by_src):
        gs = by_src[s]
        L.append(f"| {s} | {len(gs)} | {sum(len(g['moves']) for g in gs)} | {len({g['path'] for g in gs})} |")
    L += ["", "Corpus files used:", ""]
    L += [f"* `{p}`" for p in used_files]
    skips = [l.split(" ", 1)[1] for l in log if l.startswith("SKIP ")]
    illegal = [l.split(" ", 1)[1] for l in log if l.startswith("ILLEGAL ")]
    one_king = [f"{g['path']} #{g['index']}" for g in games
                if g["sfen"].split()[0].count("K") != 1 or g["sfen"].split()[0].count("k") != 1]
    L += ["", "Records left out (no library reads them correctly, or the start position is rejected):", ""]
    L += [f"* {x}" for x in skips] or ["* none"]
    L += ["", "Games cut at an illegal move:", ""]
    L += [f"* {x}" for x in illegal] or ["* none"]
    L += ["", "Games whose start position has only one king (tsume problems / 必至 studies):", ""]
    L += [f"* `{x}`" for x in one_king] or ["* none"]
    L += [
        "",
        "## usi/openings.usi",
        "",
        f"The first {OPENINGS_LINES} lines of `{OPENINGS_SRC}`, copied verbatim (format `startpos moves ...`), after one",
        f"header comment line. {op_moves} moves; {len(op_bad)} lines contain a move illegal per cshogi/rsshogi.",
        "These are floodgate 2016 openings truncated to 24 plies, not whole games.",
        "",
        "## records/",
        "",
        f"Byte-for-byte copies ({len(copied)} files, {total_bytes} bytes) at the same relative paths as in the corpus:",
        "",
    ]
    L += [f"* `records/{d}/` — every file" for d in RECORD_DIRS]
    L += [
        f"* `records/apery-wcsc28/kifu/` — {len(apery)} of the corpus's {sum(1 for r in rows if r['path'].startswith('apery-wcsc28/kifu/'))} WCSC28 CSA files:",
        "  every one whose ending is not %TORYO, plus evenly spaced %TORYO ones:",
        "",
    ]
    end = {r["path"]: r["endings"] for r in rows}
    L += [f"  * `{p.split('/', 2)[2]}` {end[p]}" for p in apery]
    L += [f"* `records/{p}`" for p in APERY_EXTRA]
    L += [
        "",
        "Licences: apery-wcsc28, yaneuraou-nodchip, python-shogi, shogi-supplement and tanukicoliseum come from",
        "GPL-3.0 repositories; the others from MIT ones. Professional game records (竜王戦, 王位戦, 名人戦, 順位戦 ...) are",
        "also subject to the Japan Shogi Association's rules on using game records; shogi-kifu-converter notes that its",
        "王位戦 2021 file was added with the JSA's permission. Check before publishing these files outside the project.",
        "",
    ]
    return "\n".join(L)


def samples_sources(corpus, facts, sample_games):
    L = [
        "# data/samples — origins",
        "",
        "`games.usi` holds 13 real games (12 legal, 1 with an illegal move) for the demo, made by `python tools/make_fixtures.py` (dev-only) from the",
        "development corpus. Same line format as tests/fixtures/usi/real_games.usi; the comment line before each game",
        "also gives players, event, date (when the record names them) and why the game was picked.",
        "",
        "| # | corpus file | game | plies | ending | upstream repository @ commit | licence | why |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, (g, why) in enumerate(sample_games, 1):
        src, repo, lic = _origin(facts, corpus, g["path"])
        L.append(f"| {i} | `{g['path']}` | #{g['index']} | {len(g['moves'])} | {g['ending'] or '-'} | {repo} | {lic} | {why} |")
    L += [
        "",
        "Licences: the licence column is the source repository's (copied from the corpus SOURCES.md). Game records are",
        "facts, but professional games (羽生, 藤井, 糸谷, 深浦, 豊島, 谷川 ...) are covered by the Japan Shogi",
        "Association's rules on game-record use; confirm that shipping them in a product is acceptable before release.",
        "",
    ]
    return "\n".join(L)


if __name__ == "__main__":
    main()
