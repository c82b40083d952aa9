"""A seeded synthetic corpus of record files for the store benchmark (``bench/store.py``).

Games are random legal games played by cshogi (a development dependency: the product never
imports it), shaped so that they look like games:

* starts: the even start, and about one game in twenty-five from a handicap (香落ち, 角落ち,
  飛車落ち, 二枚落ち, 四枚落ち, 六枚落ち), where White (上手) moves first;
* an opening phase of 6–24 plies in which each position has its own fixed, Zipf-like preference
  over its legal moves (the same position prefers the same moves in every game), so that the
  first plies form a tree of popular lines with transpositions, as real openings do;
* then random legal moves, with a preference for captures, promotions and (now and then)
  checks; 60–200 plies (triangular, mode 115), ending early at checkmate or at the fourth
  occurrence of a position;
* headers: players from a pool of 300 names, events from 30, dates spread over 2000–2025, time
  controls, and an ending (resignation mostly; loss on time, interruption, sennichite, mate).

Files: about 80 % of the games go into CSA files (V2.2, UTF-8, ``T`` times), 1–16 games a file
separated by ``/`` as in tournament archives; the others are one-game KIF files in cp932 with
move times, as Kifu for Windows writes them, their moves written by our own
``core.notation.kif.kif_move``. Files are spread over folders of at most 500.

Everything is a function of the seed and the game's number: game ``i`` is played with its own
``random.Random``, so the corpus is the same whatever the number of processes::

    >>> a = list(generate_games(3, seed=5))
    >>> a == list(generate_games(3, seed=5)) and len(a) == 3
    True
    >>> start, moves = a[0].start_sfen, a[0].usi
    >>> 1 <= len(moves) <= 200 and start.endswith(" 1")
    True

``python -m bench.corpus --positions 10000000 --out DIR --seed 1`` writes the files under
``DIR/files``, the games as USI lines in ``DIR/games.usi`` (one ``sfen … moves …`` line a game,
in corpus order, for baselines) and ``DIR/corpus.json`` (what was made; written last, so a
folder without it is an unfinished corpus). ``corpus_games(positions, seed)`` returns the same
games as ``(start_sfen, [usi, …])`` without writing anything; ``load_games(DIR)`` reads them back.

A position of the corpus is a position of a game's main line, start included: a game of n moves
holds n + 1 positions, as the store counts them.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import shutil
import sys
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import cshogi
from cshogi import move_cap, move_is_promotion, move_to, move_to_csa, move_to_usi

from kifudb.core.handicap import handicap_sfen
from kifudb.core.position import STARTING_SFEN
from kifudb.core.move import Move
from kifudb.core.notation.kif import kif_move

#: (KIF name, CSA ``PI`` line, share of the handicap games).
HANDICAPS = (("香落ち", "PI11KY", 30), ("角落ち", "PI22KA", 20), ("飛車落ち", "PI82HI", 20),
             ("二枚落ち", "PI82HI22KA", 20), ("四枚落ち", "PI82HI22KA91KY11KY", 5),
             ("六枚落ち", "PI82HI22KA91KY11KY81KE21KE", 5))
HANDICAP_SHARE = 0.04
KIF_SHARE = 0.2
GAMES_PER_CSA_FILE = (1, 16)
FILES_PER_FOLDER = 500
CHUNK = 250  # games per unit of work

_SURNAMES = ("佐藤", "鈴木", "高橋", "田中", "渡辺", "伊藤", "山本", "中村", "小林", "加藤", "吉田",
             "山田", "佐々木", "山口", "松本", "井上", "木村", "林", "斎藤", "清水", "山崎", "森",
             "池田", "橋本", "阿部", "石川", "藤井", "羽生", "谷川", "豊島")
_GIVEN = ("太郎", "健太", "翔太", "大輔", "誠", "浩二", "修", "康光", "善治", "聡太", "拓也", "亮",
          "直樹", "和也", "隆", "美咲", "陽子", "香織", "優", "恵", "武", "一郎", "二郎", "光",
          "真", "学", "剛", "望", "蓮", "匠")
_PROGRAMS = ("Bonanza", "GPS将棋", "YaneuraOu", "Apery", "elmo", "Qhapaq", "dlshogi", "Gikou",
             "Ponanza", "NNUE-kai", "sunfish", "Lesserkai", "tanuki-", "Hefeweizen", "Kristallweizen",
             "AobaZero", "Suisho", "Mizar", "BURNING_BRIDGES", "Novice")
EVENTS = ("竜王戦", "名人戦", "順位戦", "王位戦", "王座戦", "棋王戦", "王将戦", "棋聖戦", "叡王戦",
          "NHK杯", "銀河戦", "朝日杯将棋オープン戦", "JT杯", "新人王戦", "加古川青流戦", "女流名人戦",
          "女流王位戦", "マイナビ女子オープン", "アマ竜王戦", "学生名人戦", "支部名人戦", "社団戦",
          "将棋倶楽部24", "将棋ウォーズ", "floodgate", "世界コンピュータ将棋選手権",
          "電王トーナメント", "練習対局", "研究会", "職域団体対抗戦")
TIME_CONTROLS = (("00:10+10", "10分+10秒"), ("00:30+60", "30分+60秒"), ("01:00+60", "1時間+60秒"),
                 ("03:00+60", "3時間+60秒"), ("06:00+60", "6時間+60秒"), ("00:15+00", "15分切れ負け"))


def _player_pool() -> tuple:
    rng = random.Random(20250401)
    humans = [s + g for s in _SURNAMES for g in _GIVEN]
    rng.shuffle(humans)
    programs = [f"{name}{rng.randint(1, 9)}" if i % 3 == 0 else name
                for i, name in enumerate(_PROGRAMS)]
    return tuple(humans[:300 - len(programs)]) + tuple(programs)


PLAYERS = _player_pool()
_EVENT_WEIGHTS = [sum(1 / (i + 1) ** 0.8 for i in range(n + 1)) for n in range(len(EVENTS))]


@dataclass
class SyntheticGame:
    """One game: its start, moves (USI), how it ended, its headers, and its file text."""

    number: int
    start_sfen: str
    usi: list
    kind: str  # "csa" or "kif"
    text: str  # the game's text (a CSA game without the version line, or a whole KIF file)

    @property
    def positions(self) -> int:
        return len(self.usi) + 1


# ----- playing --------------------------------------------------------------------------------

class _Opening:
    """A fixed Zipf-like preference over the legal moves of every position, from the seed."""

    def __init__(self, seed: int, limit: int = 300_000):
        self.seed, self.limit, self.cache = seed, limit, {}

    def choose(self, rng: random.Random, board, moves: list):
        key = board.zobrist_hash()
        entry = self.cache.get(key)
        if entry is None:
            order = sorted(moves, key=lambda m: hash((key, self.seed, m)) & 0xFFFFFFFF)
            cumulative, total = [], 0.0
            for rank in range(len(order)):
                total += 1.0 / (rank + 1) ** 1.4
                cumulative.append(total)
            entry = (order, cumulative)
            if len(self.cache) < self.limit:
                self.cache[key] = entry
        order, cumulative = entry
        return order[bisect.bisect(cumulative, rng.random() * cumulative[-1])]


def _random_move(rng: random.Random, board, moves: list):
    if rng.random() < 0.12:  # now and then, a check if there is one
        checks = [m for m in board.check_moves if board.is_legal(m)]
        if checks:
            return checks[int(rng.random() * len(checks))]
    move = moves[int(rng.random() * len(moves))]
    for _ in range(3):  # prefer captures and promotions
        if move_cap(move) or move_is_promotion(move) or rng.random() < 0.4:
            break
        move = moves[int(rng.random() * len(moves))]
    return move


def play_game(number: int, seed: int, opening: _Opening):
    """Play game ``number``: ``(rng, start_sfen, handicap or None, [cshogi moves], ending)``,
    ``ending`` one of ``mate``, ``sennichite``, ``end`` (the planned length was reached)."""
    rng = random.Random(seed * 1_000_003 + number)
    handicap = None
    if rng.random() < HANDICAP_SHARE:
        handicap = rng.choices([h[0] for h in HANDICAPS], [h[2] for h in HANDICAPS])[0]
    start = handicap_sfen(handicap) if handicap else STARTING_SFEN
    board = cshogi.Board(start)
    length = int(rng.triangular(60, 200, 115))
    book = rng.randint(6, 24)
    seen = {board.zobrist_hash(): 1}
    played, ending = [], "end"
    for ply in range(length):
        moves = list(board.legal_moves)
        if not moves:
            ending = "mate"
            break
        move = opening.choose(rng, board, moves) if ply < book else _random_move(rng, board, moves)
        board.push(move)
        played.append(move)
        key = board.zobrist_hash()
        count = seen.get(key, 0) + 1
        seen[key] = count
        if count >= 4:
            ending = "sennichite"
            break
    else:
        if board.is_game_over():
            ending = "mate"
    return rng, start, handicap, played, ending


# ----- writing --------------------------------------------------------------------------------

def _headers(rng: random.Random):
    black, white = rng.sample(PLAYERS, 2)
    event = rng.choices(EVENTS, cum_weights=_EVENT_WEIGHTS)[0]
    day = rng.randrange(9497)  # 2000-01-01 .. 2025-12-31
    date = time.strftime("%Y/%m/%d", time.gmtime(946684800 + day * 86400))
    clock = f"{rng.randint(9, 21):02d}:{rng.choice((0, 0, 30, 15, 45)):02d}"
    return black, white, event, date, clock, rng.choice(TIME_CONTROLS)


def _result(rng: random.Random, ending: str, moves: int):
    """The declared ending: (csa word, kif word, who wins: 0 black 1 white 2 draw None)."""
    mover = moves % 2  # relative to the first mover: 0 = the side that moved first
    if ending == "mate":
        return "%TORYO", "詰み", 1 - mover
    if ending == "sennichite":
        return "%SENNICHITE", "千日手", 2
    r = rng.random()
    if r < 0.9:
        return "%TORYO", "投了", 1 - mover
    if r < 0.96:
        return "%TIME_UP", "切れ負け", 1 - mover
    return "%CHUDAN", "中断", None


def _csa_text(rng, start, handicap, moves, ending) -> str:
    black, white, event, date, clock, (limit, _) = _headers(rng)
    first_white = handicap is not None
    lines = [f"N+{black}", f"N-{white}", f"$EVENT:{event}", f"$START_TIME:{date} {clock}:00",
             f"$TIME_LIMIT:{limit}"]
    lines.append(next(h[1] for h in HANDICAPS if h[0] == handicap) if handicap else "PI")
    lines.append("-" if first_white else "+")
    signs = "-+" if first_white else "+-"
    for ply, move in enumerate(moves):
        lines.append(signs[ply % 2] + move_to_csa(move))
        lines.append(f"T{min(int(rng.expovariate(1 / 25)), 600)}")
    word, _, _ = _result(rng, ending, len(moves))
    lines.append(word)
    return "\n".join(lines) + "\n"


class _KifBoard:
    """What ``kif_move`` reads of a position (``board[square]``), from a cshogi board."""

    __slots__ = ("board", "last_move")

    class _Squares:
        __slots__ = ("cboard",)

        def __init__(self, cboard):
            self.cboard = cboard

        def __getitem__(self, square):
            return self.cboard.piece(square)

    def __init__(self, cboard):
        self.board, self.last_move = self._Squares(cboard), None


def _kif_text(rng, start, handicap, moves, ending) -> str:
    black, white, event, date, clock, (_, limit) = _headers(rng)
    names = ("下手", "上手") if handicap else ("先手", "後手")
    lines = ["# ---- Kifu for Windows V7 V7.70 棋譜ファイル ----", f"開始日時：{date} {clock}",
             f"棋戦：{event}", f"持ち時間：{limit}", f"手合割：{handicap or '平手'}",
             f"{names[0]}：{black}", f"{names[1]}：{white}", "手数----指手---------消費時間--"]
    cboard = cshogi.Board(start)
    view = _KifBoard(cboard)
    totals = [0, 0]
    previous_to = None
    for ply, move in enumerate(moves):
        usi = move_to_usi(move)
        text = kif_move(view, Move.from_usi(usi), previous_to)
        previous_to = move_to(move)
        cboard.push(move)
        seconds = min(int(rng.expovariate(1 / 25)), 600)
        totals[ply % 2] += seconds
        total = totals[ply % 2]
        pad = " " * max(1, 14 - sum(1 if c < "\x80" else 2 for c in text))
        lines.append(f"{ply + 1:>4} {text}{pad}({seconds // 60:>2}:{seconds % 60:02d}/"
                     f"{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d})")
    _, word, winner = _result(rng, ending, len(moves))
    n = len(moves)
    lines.append(f"{n + 1:>4} {word}         ( 0:00/00:00:00)")
    if winner == 2:
        lines.append(f"まで{n}手で千日手")
    elif winner is None:
        lines.append(f"まで{n}手で中断")
    else:
        first, second = ("上手", "下手") if handicap else ("先手", "後手")
        side = first if winner == 0 else second
        lines.append(f"まで{n}手で{'時間切れにより' if word == '切れ負け' else ''}{side}の勝ち")
    return "\r\n".join(lines) + "\r\n"


def make_game(number: int, seed: int, opening: _Opening) -> SyntheticGame:
    rng, start, handicap, moves, ending = play_game(number, seed, opening)
    kind = "kif" if rng.random() < KIF_SHARE else "csa"
    text = (_kif_text if kind == "kif" else _csa_text)(rng, start, handicap, moves, ending)
    return SyntheticGame(number, start, [move_to_usi(m) for m in moves], kind, text)


_OPENINGS: dict = {}


def _chunk(args) -> list:
    first, count, seed = args
    opening = _OPENINGS.setdefault(seed, _Opening(seed))
    return [make_game(n, seed, opening) for n in range(first, first + count)]


def generate_games(count=None, seed: int = 1, positions=None, jobs: int = 1, first: int = 0):
    """The games in order from game number ``first``: ``count`` of them, or as many as make at
    least ``positions`` positions. Worker processes (``jobs``) play chunks of games; the result
    does not depend on ``jobs``."""
    made = total = 0
    pool = get_context("fork").Pool(jobs) if jobs > 1 else None
    try:
        for games in _chunks(pool, jobs, seed, first):
            for game in games:
                if (count is not None and made >= count) or \
                        (positions is not None and total >= positions):
                    return
                made += 1
                total += game.positions
                yield game
    finally:
        if pool:
            pool.terminate()


def _chunks(pool, jobs: int, seed: int, first: int = 0):
    """The chunks of games in order from game ``first``, a few at a time in flight (the stream
    is endless)."""
    firsts = iter(range(first, 1 << 40, CHUNK))
    if pool is None:
        for start in firsts:
            yield _chunk((start, CHUNK, seed))
    window = deque(pool.apply_async(_chunk, ((next(firsts), CHUNK, seed),))
                   for _ in range(2 * jobs))
    while True:
        games = window.popleft().get()
        window.append(pool.apply_async(_chunk, ((next(firsts), CHUNK, seed),)))
        yield games


def corpus_games(positions: int, seed: int = 1, jobs: int = 1) -> list:
    """The corpus' games as ``(start_sfen, [usi, …])``, without writing anything."""
    return [(g.start_sfen, g.usi) for g in generate_games(seed=seed, positions=positions, jobs=jobs)]


def load_games(folder) -> list:
    """The games of a written corpus (``DIR/games.usi``) as ``(start_sfen, [usi, …])``."""
    games = []
    with open(Path(folder) / "games.usi", encoding="ascii") as stream:
        for line in stream:
            head, _, moves = line.rstrip("\n").partition(" moves ")
            games.append((head[5:], moves.split() if moves else []))
    return games


def write_corpus(out, positions=None, seed: int = 1, jobs: int = None, quiet: bool = False,
                 first: int = 0, count=None) -> dict:
    """Write the corpus under ``out`` (replacing what was there); returns ``corpus.json``'s
    content. ``first`` and ``count`` write the games from number ``first`` on (``count`` of
    them, or as many as make ``positions``): a part of a larger corpus (``bench.billion``),
    its files laid out by a generator of its own."""
    out = Path(out)
    jobs = jobs or os.cpu_count() or 1
    started = time.perf_counter()
    if out.exists():
        shutil.rmtree(out)
    (out / "files").mkdir(parents=True)
    layout = random.Random((seed ^ 0x5EED) + first)
    stats = {"seed": seed, "positions": 0, "games": 0, "moves": 0, "files": 0, "csa_files": 0,
             "kif_files": 0, "csa_games": 0, "kif_games": 0, "handicap_games": 0, "bytes": 0}
    pending, target = [], layout.randint(*GAMES_PER_CSA_FILE)

    def write(kind: str, text: str) -> None:
        n = stats["files"]
        folder = out / "files" / f"{n // FILES_PER_FOLDER:04d}"
        if n % FILES_PER_FOLDER == 0:
            folder.mkdir()
        data = text.encode("cp932" if kind == "kif" else "utf-8")
        (folder / f"g{n:07d}.{kind}").write_bytes(data)
        stats["files"] += 1
        stats[f"{kind}_files"] += 1
        stats["bytes"] += len(data)

    with open(out / "games.usi", "w", encoding="ascii") as usi:
        for game in generate_games(count, seed, positions, jobs, first):
            stats["games"] += 1
            stats["positions"] += game.positions
            stats["moves"] += len(game.usi)
            stats[f"{game.kind}_games"] += 1
            stats["handicap_games"] += game.start_sfen != STARTING_SFEN
            usi.write(f"sfen {game.start_sfen} moves {' '.join(game.usi)}\n")
            if game.kind == "kif":
                write("kif", game.text)
                continue
            pending.append(game.text)
            if len(pending) == target:
                write("csa", "V2.2\n" + "/\n".join(pending))
                pending, target = [], layout.randint(*GAMES_PER_CSA_FILE)
            if not quiet and stats["games"] % 5000 == 0:
                print(f"\r{stats['positions']:,} positions", end="", file=sys.stderr, flush=True)
        if pending:
            write("csa", "V2.2\n" + "/\n".join(pending))
    stats["seconds"] = round(time.perf_counter() - started, 1)
    stats["requested_positions"] = positions
    if first or count is not None:
        stats.update(first_game=first, requested_games=count)
    (out / "corpus.json").write_text(json.dumps(stats, indent=1), encoding="utf-8")
    if not quiet:
        print("\r", end="", file=sys.stderr)
    return stats


def cached_corpus(positions: int, seed: int = 1, root=None, jobs: int = None) -> tuple:
    """``(folder, stats)`` of the corpus, written once under ``bench/results``."""
    root = Path(root) if root else Path(__file__).resolve().parent / "results"
    folder = root / f"corpus-{positions}-seed{seed}"
    try:
        return folder, json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return folder, write_corpus(folder, positions, seed, jobs)


def describe(stats: dict, folder) -> str:
    return (f"{folder}: {stats['positions']:,} positions in {stats['games']:,} games "
            f"({stats['moves']:,} moves, {stats['handicap_games']:,} from handicap starts); "
            f"{stats['files']:,} files ({stats['csa_files']:,} CSA holding {stats['csa_games']:,} "
            f"games, {stats['kif_files']:,} KIF), {stats['bytes'] / 1e6:,.1f} MB; "
            f"seed {stats['seed']}, {stats.get('seconds', '?')} s")


def _count(text: str) -> int:
    text = text.strip().lower().replace("_", "").replace(",", "")
    for suffix, factor in (("k", 1_000), ("m", 1_000_000), ("g", 1_000_000_000)):
        if text.endswith(suffix):
            return int(float(text[:-1]) * factor)
    return int(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.corpus",
                                     description="Write a seeded synthetic corpus of CSA and KIF files.")
    parser.add_argument("--positions", type=_count, required=True, help="e.g. 100k, 10M, 250000")
    parser.add_argument("--out", required=True, help="folder (replaced)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    args = parser.parse_args(argv)
    stats = write_corpus(args.out, args.positions, args.seed, args.jobs)
    print(describe(stats, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
