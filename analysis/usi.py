"""A USI engine as a process kifudb talks to: started, asked about one position at a time, and
restarted when it dies, hangs or answers nonsense.

Any USI engine works through the protocol alone (``usi``/``usiok``, ``setoption``,
``isready``/``readyok``, ``position sfen``, ``go``, ``info … score … pv``, ``bestmove``); what
one engine needs beyond it is in ``QUIRKS``, a small table keyed by the name the engine gives
(GPSShogi's ``go`` takes no node count and its search depth is an option; Fairy-Stockfish's
contempt is set to 0 so that its scores are judgements, not a player's preferences)::

    >>> limit = Limit.parse("nodes=2000")
    >>> limit, limit.text
    (Limit(kind='nodes', value=2000), 'nodes=2000')
    >>> Limit.parse("depth=0")
    Traceback (most recent call last):
    ...
    kifudb.analysis.usi.EngineError: a limit is nodes=N, depth=N or movetime=MS with N a whole number of at least 1, not 'depth=0'
    >>> engine = Engine(find_engine("fairy-stockfish"))
    >>> engine.name
    'Fairy-Stockfish 11.1 LB 64'
    >>> lines = engine.analyse("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", limit)
    >>> line = lines[0]
    >>> line.multipv, line.best == line.pv.split()[0], line.depth > 0, line.mate_black
    (1, True, True, None)
    >>> engine.close()

A score is kept from Black's point of view (``score_black``, ``mate_black``), whoever is to
move: an engine gives it from the side to move's.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Optional

from kifudb.core import Move, Position
from kifudb.core.pieces import BLACK

#: where Debian puts its engines (``/usr/games`` is not on every PATH)
ENGINE_FOLDERS = ("/usr/games", "/usr/local/games")
#: the longest pv kept (USI moves)
PV_MOVES = 16
#: how long an engine may take to answer ``usi`` and ``isready`` (seconds)
HANDSHAKE_SECONDS = 20.0


class EngineError(Exception):
    """An engine that cannot be used, or an answer that cannot be: the message names both."""


@dataclass(frozen=True)
class Limit:
    """What bounds one search: ``nodes``, ``depth`` or ``movetime`` (milliseconds)."""

    kind: str
    value: int

    KINDS = ("nodes", "depth", "movetime")

    @classmethod
    def parse(cls, text: str) -> "Limit":
        kind, _, number = str(text).partition("=")
        if kind not in cls.KINDS or not number.isdigit() or int(number) < 1:
            raise EngineError(f"a limit is nodes=N, depth=N or movetime=MS with N a whole number "
                              f"of at least 1, not {text!r}")
        return cls(kind, int(number))

    @property
    def text(self) -> str:
        return f"{self.kind}={self.value}"

    def deadline(self) -> float:
        """Seconds a search may take before its engine is said to hang: far above the limit."""
        if self.kind == "movetime":
            return 30.0 + 10 * self.value / 1000
        if self.kind == "nodes":
            return 30.0 + self.value / 5_000
        return 120.0 + 60.0 * max(0, self.value - 10)


@dataclass(frozen=True)
class Quirks:
    """What one engine needs beyond the protocol: ``options`` set before the first search,
    ``limits`` it supports, ``depth_option`` (the option that sets its depth, when ``go
    depth`` is not understood), ``multipv`` (whether it gives several lines), and
    ``go_time``: the ``go`` of a search bounded otherwise than by time (its byoyomi, in
    milliseconds, for an engine whose ``go`` takes only times)."""

    options: tuple = ()
    limits: tuple = Limit.KINDS
    depth_option: Optional[str] = None
    multipv: bool = True
    byoyomi_only: bool = False


#: known engines, by the start of the name they give (``id name``)
QUIRKS = {
    "gpsshogi": Quirks(options=(("BookDepth", "0"),), limits=("depth", "movetime"),
                       depth_option="LimitDepth", multipv=False, byoyomi_only=True),
    "Fairy-Stockfish": Quirks(options=(("Contempt", "0"),)),
}


@dataclass(frozen=True)
class Line:
    """One line of an engine's answer (``multipv``: 1 for its best)."""

    multipv: int
    score_black: Optional[int]
    mate_black: Optional[int]
    best: str
    pv: str
    depth: Optional[int]
    nodes: Optional[int]


def find_engine(name: str) -> str:
    """The path of the engine ``name``: a path, or a name on PATH or in ``ENGINE_FOLDERS``."""
    if os.sep in name:
        if os.path.isfile(name) and os.access(name, os.X_OK):
            return name
        raise EngineError(f"engine {name}: no such program (or it cannot be run)")
    found = shutil.which(name) or shutil.which(name, path=os.pathsep.join(ENGINE_FOLDERS))
    if found is None:
        raise EngineError(f"engine {name}: not found on PATH nor in {', '.join(ENGINE_FOLDERS)} "
                          f"(give its path, or install it: apt-get install fairy-stockfish)")
    return found


class Engine:
    """One engine process. ``analyse`` asks it about a position; a dead, hung or confused
    engine raises ``EngineError`` (after which ``restart`` gives a fresh process)."""

    def __init__(self, path: str, options: tuple = (), multipv: int = 1):
        self.path = path
        self.user_options = tuple(options)
        self.multipv = multipv
        self.name = path  # until it gives its name
        self.process: Optional[subprocess.Popen] = None
        self.lines: queue.Queue = queue.Queue()
        #: seconds spent searching (from each ``go`` to its ``bestmove``)
        self.searching = 0.0
        self.start()

    # ----- the process ----------------------------------------------------------------------------

    def start(self) -> None:
        try:
            self.process = subprocess.Popen(
                [self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, encoding="utf-8", errors="replace",
                bufsize=1, start_new_session=True)
        except OSError as error:
            raise EngineError(f"engine {self.path}: cannot start it: {error.strerror}") from None
        self.lines = queue.Queue()
        threading.Thread(target=_read_lines, args=(self.process.stdout, self.lines),
                         daemon=True).start()
        self._send("usi")
        advertised = {}
        name = None
        for line in self._until("usiok", HANDSHAKE_SECONDS, "usi"):
            words = line.split()
            if words[:2] == ["id", "name"]:
                name = line.split(None, 2)[2].strip() if len(words) > 2 else name
            elif words[:2] == ["option", "name"] and "type" in words:
                advertised[" ".join(words[2:words.index("type")])] = line
        self.name = name or self.path
        self.quirks = quirks_of(self.name)
        self.advertised = advertised
        for option, value in self.quirks.options:
            if option in advertised:
                self._send(f"setoption name {option} value {value}")
        for option, value in self.user_options:
            if option not in advertised:
                known = ", ".join(sorted(advertised)) or "none"
                self.close()
                raise EngineError(f"engine {self.name}: no option {option!r} (it has: {known})")
            self._send(f"setoption name {option} value {value}")
        if self.multipv > 1:
            if not self.quirks.multipv or "MultiPV" not in advertised:
                self.close()
                raise EngineError(f"engine {self.name}: it gives one line only (no MultiPV "
                                  f"option), not {self.multipv}")
            self._send(f"setoption name MultiPV value {self.multipv}")
        self.depth_set: Optional[int] = None
        self._ready()
        self._send("usinewgame")

    def restart(self) -> None:
        self.close()
        self.start()

    def close(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        try:
            process.stdin.write("quit\n")
            process.stdin.flush()
            process.wait(timeout=2)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass

    @property
    def pid(self) -> Optional[int]:
        return None if self.process is None else self.process.pid

    # ----- one search ---------------------------------------------------------------------------

    def analyse(self, sfen: str, limit: Limit, deadline: Optional[float] = None) -> list:
        """The engine's lines (best first) for the position ``sfen`` searched to ``limit``;
        ``EngineError`` if it dies, passes ``deadline`` seconds (``Limit.deadline`` by
        default) or answers a bestmove that is not a legal move there (the engine is then
        stopped: ``restart`` it)."""
        if self.process is None:
            self.start()
        self.check(limit)
        position = Position.from_sfen(sfen)
        black = position.turn == BLACK
        self._send(f"position sfen {sfen}")
        go = self._go(limit)
        started = time.perf_counter()
        self._send(go)
        best: dict = {}
        answer = None
        for text in self._until("bestmove", deadline or limit.deadline(), "go", sfen):
            if text.startswith("info "):
                line = _info_line(text.split(), black)
                if line is not None and line.multipv <= self.multipv:
                    best[line.multipv] = line
            elif text.startswith("bestmove"):
                answer = text
        self.searching += time.perf_counter() - started
        words = (answer or "").split()
        move = words[1] if len(words) > 1 else ""
        if move in ("resign", "win"):  # no move to judge: a mate or a lost position
            return [best[k] for k in sorted(best)]
        problem = _illegal(position, move)
        if problem is not None:
            self.close()
            raise EngineError(f"engine {self.name}: position {sfen}: {problem} "
                              f"(its answer: {answer!r})")
        lines = [best[k] for k in sorted(best)]
        if not lines or lines[0].best != move:  # no info, or info of another move: the answer
            first = lines[0] if lines else Line(1, None, None, move, move, None, None)
            lines = [Line(1, first.score_black, first.mate_black, move,
                          first.pv if first.best == move else move, first.depth, first.nodes),
                     *lines[1:]]
        return lines

    def check(self, limit: Limit) -> None:
        """``EngineError`` if this engine cannot search to ``limit``."""
        if limit.kind not in self.quirks.limits:
            raise EngineError(f"engine {self.name}: it cannot search to {limit.kind}= "
                              f"(it takes {' or '.join(k + '=' for k in self.quirks.limits)})")
        if limit.kind == "depth" and self.quirks.depth_option:
            low, high = _spin_range(self.advertised.get(self.quirks.depth_option, ""))
            if not low <= limit.value <= high:
                raise EngineError(f"engine {self.name}: it searches to a depth of {low} to "
                                  f"{high} (its option {self.quirks.depth_option}), not "
                                  f"{limit.value}")

    def _go(self, limit: Limit) -> str:
        if limit.kind == "depth" and self.quirks.depth_option:
            if self.depth_set != limit.value:  # set once: an engine may start afresh on it
                self._send(f"setoption name {self.quirks.depth_option} value {limit.value}")
                self._ready()
                self.depth_set = limit.value
            return f"go byoyomi {int(limit.deadline() * 1000)}"
        if limit.kind == "movetime" and self.quirks.byoyomi_only:
            return f"go byoyomi {limit.value}"
        return f"go {limit.kind} {limit.value}"

    # ----- the protocol ---------------------------------------------------------------------------

    def _send(self, command: str) -> None:
        try:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except (OSError, ValueError, AttributeError):
            self.close()
            raise EngineError(f"engine {self.name}: it stopped (sending {command.split()[0]!r})") \
                from None

    def _ready(self) -> None:
        self._send("isready")
        for _ in self._until("readyok", HANDSHAKE_SECONDS, "isready"):
            pass

    def _until(self, last: str, seconds: float, asked: str, sfen: str = ""):
        """The engine's lines up to and with the first that starts with ``last``."""
        end = time.monotonic() + seconds
        where = f"position {sfen}: " if sfen else ""
        while True:
            left = end - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                self.close()
                raise EngineError(f"engine {self.name}: {where}no {last!r} within {seconds:g} s "
                                  f"of {asked!r} (it hangs, or is not a USI engine)") from None
            if line is None:
                code = self.process.wait() if self.process else None
                self.close()
                raise EngineError(f"engine {self.name}: {where}it stopped (exit status {code}) "
                                  f"before {last!r}") from None
            yield line
            if line.split()[:1] == [last]:
                return

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 (an interpreter shutting down)
            pass


def quirks_of(name: str) -> Quirks:
    """What ``QUIRKS`` says of the engine that calls itself ``name`` (nothing: the protocol)."""
    return next((q for start, q in QUIRKS.items() if name.lower().startswith(start.lower())),
                Quirks())


def _spin_range(option: str) -> tuple:
    """``(min, max)`` of a spin option as the engine lists it (``option name LimitDepth type
    spin default 4 min 4 max 10``), unbounded where it says none.

    >>> _spin_range("option name LimitDepth type spin default 4 min 4 max 10")
    (4, 10)
    """
    words = option.split()
    bounds = []
    for name, default in (("min", 1), ("max", 1 << 30)):
        at = words.index(name) + 1 if name in words[:-1] else None
        bounds.append(int(words[at]) if at and words[at].lstrip("-").isdigit() else default)
    return tuple(bounds)


def _read_lines(stream, lines: queue.Queue) -> None:
    try:
        for line in stream:
            lines.put(line.strip())
    except (OSError, ValueError):
        pass
    lines.put(None)


def _info_line(words: list, black: bool) -> Optional[Line]:
    """The line an ``info`` gives (None without a score and a pv, or with a bound)."""
    if "score" not in words or "pv" not in words or "lowerbound" in words or "upperbound" in words:
        return None
    values = {}
    for name in ("multipv", "depth", "nodes"):
        if name in words[:-1] and words[words.index(name) + 1].isdigit():
            values[name] = int(words[words.index(name) + 1])
    at = words.index("score")
    if at + 2 >= len(words):
        return None
    kind, number = words[at + 1], words[at + 2]
    sign = 1 if black else -1
    score = mate = None
    try:
        if kind == "cp":
            score = sign * int(number)
        elif kind == "mate":  # YaneuraOu may say "mate +" / "mate -": plies unknown
            mate = sign * (int(number) if number not in ("+", "-") else int(number + "1"))
        else:
            return None
    except ValueError:
        return None
    pv = words[words.index("pv") + 1:][:PV_MOVES]
    if not pv:
        return None
    return Line(values.get("multipv", 1), score, mate, pv[0], " ".join(pv),
                values.get("depth"), values.get("nodes"))


def _illegal(position: Position, move: str) -> Optional[str]:
    """Why ``move`` (a bestmove) is not a legal move in ``position``, or None."""
    try:
        parsed = Move.from_usi(move)
    except ValueError:
        return f"bestmove {move!r} is not a USI move"
    problem = position.illegality(parsed)
    if problem is not None:
        return f"bestmove {move} is illegal there ({problem.message})"
    return None
