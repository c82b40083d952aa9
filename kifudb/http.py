"""The HTTP JSON API, the door for programs: a FastAPI app (``app(store)``, served by ``kifudb
serve`` on uvicorn), read-only, on one store. Its answers are shaped after lichess's opening
explorer where it fits.

- ``GET /explore?sfen=…`` or ``?moves=7g7f,3c3d`` (from ``startpos``, or ``&start=SFEN``): the
  results of the games in the position (``games``, ``black_wins``, ``white_wins``, ``draws``,
  ``other``, ``black_score`` …), the ``moves`` played next, ``top_games`` and
  ``recent_games`` (``analytics.explorer``: the fields of every door);
- ``GET /search?sfen=…&mirror=false&offset=0&limit=50``: every occurrence of a position (in
  the games of the filters);
- ``GET /game/{id}``: one game (headers, moves, variations, labels, evaluations), or with
  ``?format=kif|ki2|csa|jkf|usi`` its record as text (``core.writers``);
- ``GET /stats/overview``, ``/stats/results``, ``/stats/labels``, ``/stats/winrates``,
  ``/stats/pairings``, ``/stats/players``, ``/stats/player/{name}``, ``/stats/findings``,
  ``/stats/novelties``: the questions of ``kifudb stats``;
- ``GET /twins`` (``kifudb twins``) and ``GET /players/suggest`` (``kifudb players
  --suggest``);
- ``GET /analyses``, ``/accuracy``, ``/mistakes``, ``/puzzles``: what the store's engine
  analysis says (``kifudb stats accuracy``, ``kifudb stats mistakes``, ``kifudb puzzles``;
  ``engine`` and ``engine_limit`` choose among several; a store without it is a 404
  ``no_analysis``), and ``/game/{id}`` gives each move its ``analysis`` and the game its
  ``judgement``;
- ``GET /health``; ``GET /openapi.json`` and the interactive documentation at ``/docs`` (and
  ``/redoc``), whose Swagger UI and ReDoc files the API serves itself (``DOCS_FILES``, from
  the fastapi-offline package): they work without internet.

The games a question looks at are chosen by the filters ``player``, ``since``, ``until``,
``event``, ``handicap``, ``decided``, ``min_moves``, ``max_moves``, ``min_rating``,
``max_rating``, ``rating_of``, ``result``, ``reason``, ``time_control``, ``played_by``,
``label`` and ``label_side``: the command line's options and the Python API's keywords, by the
same names (``analytics.filters.OPTIONS``). An unknown label or handicap is a 400
``bad_filter`` that names the nearest ones; a label may be named in English.

    >>> from fastapi.testclient import TestClient
    >>> client = TestClient(app(sample_store))
    >>> answer = client.get("/explore", params={"moves": "7g7f,3c3d", "player": "羽生"}).json()
    >>> answer["black_wins"], answer["white_wins"], [(m["ki2"], m["games"]) for m in answer["moves"]]
    (2, 1, [('▲２六歩', 3)])
    >>> client.get("/explore", params={"moves": "7g7f,7g7e"}).json()
    {'error': {'code': 'bad_moves', 'message': 'move 2 (7g7e): illegal: there is no piece on 7g [no_piece]'}}

Bad input is a 4xx answer ``{"error": {"code", "message"}}`` saying what was wrong — never a
traceback: 400 for a value the API cannot use (``bad_sfen``, ``bad_moves``, ``bad_filter``,
``bad_request``), 404 for what does not exist (``not_found``), 422 for a parameter of the
wrong type or out of its range (``bad_parameter``: the framework's check, reshaped). A store
that cannot answer is a 503 (``store_unavailable``, ``timeout``), and so is a server too busy
to take the question (``busy``, with ``Retry-After``). No SQL is built from request text:
every question goes through ``analytics`` (bound parameters only). Pages are bounded
(``MAX_LIMIT`` rows).

Cheap questions keep answering under a flood of costly ones: each kind of question has its
own worker threads and its own short queue (``Desk``): the lookups (``/health``,
``/explore``, ``/search``, ``/game``) and the statistics (``/stats/…``, ``/twins``,
``/players/suggest``). A question that finds its desk's queue full is a 503 ``busy`` at once;
one not answered within ``timeout`` seconds (waiting included) is a 503, and its query is
interrupted (``Ticket``: DuckDB's ``interrupt()`` on the connection running it), so no thread
goes on working for an answer nobody waits for; its worker is taken until it has stopped,
so the threads stay as many as the desks have. Each request reads the store's latest commit
(the engine of ``store.engine`` is rebuilt when the manifest changes), so the server keeps
answering while an ingest commits, and sees its games once it has; answers are kept, as JSON,
until the next commit (``Answers``, up to ``CACHED_BYTES``), so a popular position is computed
once per commit. ``server`` is the uvicorn server of ``kifudb serve``, whose connections must
send their headers within a deadline (``guarded_protocol``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import logging
import math
import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal, Optional

from fastapi import Depends, FastAPI, Path as PathParam, Query, Request
from fastapi_offline import FastAPIOffline
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from kifudb.analytics import position_input
from kifudb.analytics import stats as _stats
from kifudb.analytics.filters import OPTIONS, FilterError, FilterOption, GameFilter, from_options
from kifudb.analytics.explorer import explorer_answer, search_answer
from kifudb.core.position import Position
from kifudb.api import stored_game
from kifudb.output import json_text
from kifudb.store.folder import Store

__all__ = ["app", "server", "ApiError", "Answers", "Desk", "MAX_LIMIT", "DEFAULT_TIMEOUT",
           "LOOKUPS", "STATISTICS", "CACHED_BYTES", "HEADER_TIMEOUT", "MAX_CONNECTIONS"]

#: Where the files of the interactive documentation (``/docs``, ``/redoc``) are served.
DOCS_FILES = "/docs-files"
#: The most rows a page holds (``limit``).
MAX_LIMIT = 500
#: The furthest a page starts (``offset``).
MAX_OFFSET = 1_000_000
#: The most top or recent games an explorer answer lists.
MAX_GAMES = 50
#: Seconds a question may take before the answer is a 503 ``timeout``.
DEFAULT_TIMEOUT = 10.0
#: Worker threads and waiting places of each kind of question (``Desk``): the lookups (a
#: position, a game) and the statistics (which read whole tables, and use every core while
#: they do: two at a time on two cores made a search of 30 ms take 2 s). Together they take at
#: most 9 of the 20 connections that the store's engine keeps.
LOOKUPS = (8, 64)
STATISTICS = (1, 8)
#: How much lower the statistics' threads run than the lookups' (their nice value).
STATISTICS_NICE = 10
#: Seconds a client asked to wait by a 503 ``busy`` (``Retry-After``).
RETRY_AFTER = 2
#: Bytes of answers (as JSON) kept per commit (``Answers``): the popular positions of an
#: explorer, the statistics.
CACHED_BYTES = 64 * 2 ** 20
#: What a kept answer costs besides its bytes (its question, the cache's entry).
ENTRY_BYTES = 512
#: Seconds a connection may take to send a request's headers, and to send the next request
#: once answered (``guarded_protocol``).
HEADER_TIMEOUT = 10.0
KEEP_ALIVE = 5
#: Connections open at once; one more is answered 503 and closed at once.
MAX_CONNECTIONS = 512
#: Bytes of a request's line and headers.
MAX_HEADER_BYTES = 64 * 1024

log = logging.getLogger("kifudb.http")


class ApiError(Exception):
    """An answer that is an error: HTTP ``status``, a stable ``code``, a ``message`` (and
    ``headers``)."""

    def __init__(self, status: int, code: str, message: str, headers: Optional[dict] = None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers


class Json(bytes):
    """An answer already written as JSON (``JsonAnswer`` sends it as it is)."""


def _json_bytes(content) -> bytes:
    """``content`` as ``kifudb.output.json_text`` writes it, compact, in UTF-8."""
    try:
        text = json_text(content, allow_nan=False, separators=(",", ":"))
    except ValueError:  # NaN or infinity somewhere: JSON has no word for them
        text = json_text(_finite(content), separators=(",", ":"))
    return text.encode("utf-8")


class JsonAnswer(JSONResponse):
    """JSON as ``kifudb.output.json_text`` writes it: UTF-8 text as it is, the controls a
    record may hold escaped; a float that is not a number becomes null."""

    def render(self, content) -> bytes:
        return bytes(content) if isinstance(content, Json) else _json_bytes(content)


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


class Answers:
    """The answers of the store's current commit, by question: a store changes only when it
    commits (``Store.stamp``), so an answer holds until then — as the dashboard keeps its
    answers. The most recently asked are kept, up to ``size`` bytes (an answer's bytes as
    sent, and ``ENTRY_BYTES`` more for each); a new stamp empties the cache, and an answer
    larger than the whole is not kept.

    >>> kept = Answers(size=2 * ENTRY_BYTES + 300)
    >>> kept.put("stamp 1", "a", "A", 100); kept.put("stamp 1", "b", "B", 100)
    >>> kept.put("stamp 1", "c", "C", 150)   # 350 bytes and 3 entries: "a" goes
    >>> kept.get("stamp 1", "a"), kept.get("stamp 1", "c"), kept.get("stamp 2", "c"), kept.held
    (None, 'C', None, 1274)
    """

    def __init__(self, size: int = CACHED_BYTES):
        self.size, self.stamp, self.kept, self.held = size, None, OrderedDict(), 0

    def get(self, stamp, question):
        if stamp != self.stamp:
            return None
        found = self.kept.get(question)
        if found is None:
            return None
        self.kept.move_to_end(question)
        return found[0]

    def put(self, stamp, question, answer, size: int) -> None:
        """Keep ``answer`` (of ``size`` bytes) to ``question``, dropping the least recently
        asked answers until the kept ones hold at most ``size`` bytes."""
        if stamp != self.stamp:
            self.stamp, self.kept, self.held = stamp, OrderedDict(), 0
        cost = size + ENTRY_BYTES
        if cost > self.size:
            return
        old = self.kept.pop(question, None)
        self.held += cost - (old[1] if old is not None else 0)
        self.kept[question] = (answer, cost)
        while self.held > self.size:
            self.held -= self.kept.popitem(last=False)[1][1]


class Interrupted(Exception):
    """A question given up (its time ran out) when it was about to run a query."""


#: The ticket of the question a worker thread answers (``Ticket.run``).
_WORKING = threading.local()


class Ticket:
    """One question in a worker thread, which can be given up: ``cancel`` interrupts the
    DuckDB query it runs (``interrupt()`` on the connection it holds, known from the pool's
    checkouts) and makes its next query raise ``Interrupted``, so that the thread stops."""

    def __init__(self):
        self.lock = threading.Lock()
        self.cancelled = self.started = False
        self.connection = None

    def run(self, call):
        """``call()`` in this (worker) thread, unless the question was given up already."""
        with self.lock:
            if self.cancelled:
                raise Interrupted("given up before it started")
            self.started = True
        _WORKING.ticket = self
        try:
            return call()
        finally:
            _WORKING.ticket = None

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
        self.interrupt()

    def interrupt(self) -> None:
        connection = self.connection
        if connection is not None:
            connection.interrupt()

    @staticmethod
    def _checked_out(dbapi_connection, record, proxy) -> None:
        ticket = getattr(_WORKING, "ticket", None)
        if ticket is not None:
            ticket.connection = dbapi_connection  # duckdb_engine's wrapper of a DuckDB cursor

    @staticmethod
    def _checked_in(dbapi_connection, record) -> None:
        ticket = getattr(_WORKING, "ticket", None)
        if ticket is not None:
            ticket.connection = None

    @staticmethod
    def _executing(connection, cursor, statement, parameters, context, executemany):
        ticket = getattr(_WORKING, "ticket", None)
        if ticket is not None and ticket.cancelled:
            raise Interrupted("given up: its time ran out")
        return statement, parameters


@functools.cache
def _follow_queries() -> None:
    """Let ``Ticket`` know the connection each worker thread runs its query on (SQLAlchemy's
    events, for every engine: ``store.engine`` builds one per commit)."""
    import sqlalchemy as sa

    sa.event.listen(sa.pool.Pool, "checkout", Ticket._checked_out)
    sa.event.listen(sa.pool.Pool, "checkin", Ticket._checked_in)
    sa.event.listen(sa.engine.Engine, "before_cursor_execute", Ticket._executing, retval=True)


class Desk:
    """The worker threads of one kind of question (``name``), ``nice`` lower than the
    server's: ``workers`` answer at a time, ``waiting`` more may wait their turn, and one more
    is refused at once (a 503 ``busy``, with
    ``Retry-After``). A question not answered within its time is a 503 (``busy`` if it never
    started, ``timeout`` if it did) and is given up (``Ticket.cancel``, repeated every 0.1 s
    by a watching thread until its thread stops); its worker counts as taken until then."""

    def __init__(self, name: str, workers: int, waiting: int, nice: int = 0):
        self.name, self.workers, self.capacity = name, workers, workers + waiting
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"kifudb-{name}",
                                       initializer=_nice, initargs=(nice,))
        self.lock = threading.Lock()
        self.taken = 0  # questions running or waiting
        self.tickets: set = set()  # their tickets
        self.given_up: list = []  # (work, ticket) of the questions given up, still running

    async def run(self, call, timeout: float):
        """``call()`` on a worker thread, within ``timeout`` seconds."""
        with self.lock:
            full = self.taken >= self.capacity
            self.taken += not full
        if full:
            raise ApiError(503, "busy", f"the server is busy: {self.capacity} {self.name} "
                                        f"questions are being answered or waiting; ask again "
                                        f"in {RETRY_AFTER} s",
                           headers={"Retry-After": str(RETRY_AFTER)})
        ticket = Ticket()
        with self.lock:
            self.tickets.add(ticket)
        work = self.pool.submit(ticket.run, call)
        work.add_done_callback(functools.partial(self._free, ticket))
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(work)), timeout)
        except (TimeoutError, asyncio.CancelledError) as stopped:
            work.cancel()  # a question still waiting never runs
            ticket.cancel()
            self._give_up(work, ticket)
            if isinstance(stopped, asyncio.CancelledError):
                raise
            if not ticket.started:
                raise ApiError(503, "busy", f"the server is busy: no {self.name} worker was "
                                            f"free within {timeout:g} s; ask again in "
                                            f"{RETRY_AFTER} s",
                               headers={"Retry-After": str(RETRY_AFTER)}) from None
            raise ApiError(503, "timeout", f"the question took more than {timeout:g} s; "
                                           f"narrow it (filters, a smaller limit)") from None

    def _free(self, ticket: Ticket, work) -> None:
        with self.lock:
            self.taken -= 1
            self.tickets.discard(ticket)

    def _give_up(self, work, ticket) -> None:
        with self.lock:
            self.given_up.append((work, ticket))
            if len(self.given_up) > 1:
                return  # watched already
        threading.Thread(target=self._watch, name=f"kifudb-{self.name}-watch",
                         daemon=True).start()

    def _watch(self) -> None:
        """Interrupt the queries of the questions given up every 0.1 s until their threads
        are done (an interrupt that comes between two queries is lost: the next one starts
        afresh)."""
        while True:
            time.sleep(0.1)
            with self.lock:
                self.given_up = [(w, t) for w, t in self.given_up if not w.done()]
                if not self.given_up:
                    return
                running = list(self.given_up)
            for _, ticket in running:
                ticket.interrupt()

    def close(self) -> None:
        """Give up every question (the server stops)."""
        self.pool.shutdown(wait=False, cancel_futures=True)
        with self.lock:
            running = list(self.tickets)
        for ticket in running:
            ticket.cancel()


def _nice(nice: int) -> None:
    """Lower this thread's priority by ``nice`` (Linux: a thread's own nice value)."""
    if nice and hasattr(os, "setpriority") and hasattr(threading, "get_native_id"):
        thread = threading.get_native_id()
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + nice)


def _worked(call) -> tuple:
    """``call()``'s answer and its size in bytes: an answer to send as JSON is written in the
    worker thread (``Json``); a record's text, an ``ApiError`` or None stay as they are."""
    found = call()
    if found is None:
        return None, 0
    if isinstance(found, str):
        return found, len(found.encode("utf-8"))
    if isinstance(found, ApiError):
        return found, len(found.message)
    body = Json(_json_bytes(found))
    return body, len(body)


def _question(function, args: tuple, kwargs: dict):
    """What tells a question apart (hashable): the function and its arguments, a position by
    its SFEN."""
    def plain(value):
        return value.sfen() if isinstance(value, Position) else value
    return (function.__module__, function.__qualname__, tuple(plain(a) for a in args),
            tuple(sorted((k, plain(v)) for k, v in kwargs.items())))


def _error(status: int, code: str, message: str) -> JsonAnswer:
    return JsonAnswer({"error": {"code": code, "message": message}}, status_code=status)


# ----- what a request gives ----------------------------------------------------------------------

def _filter_parameter(option: FilterOption) -> inspect.Parameter:
    """The query parameter of an ``analytics.filters.FilterOption``."""
    kinds = {"text": (str, {"max_length": 200}), "date": (str, {"max_length": 40}),
             "count": (int, {"ge": 0, "le": 1_000_000}), "flag": (bool, {}),
             "choice": (Literal[option.choices] if option.choices else str, {})}
    kind, limits = kinds[option.kind]
    help = f"YYYY-MM-DD: {option.help[0].lower()}{option.help[1:]}" if option.kind == "date" \
        else option.help
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY,
                             annotation=Optional[kind],
                             default=Query(None, description=help, **limits))


class Filters:
    """The query parameters that choose the games (a FastAPI dependency): one a filter of
    ``analytics.filters.OPTIONS``, as the command line's options are; ``filter`` is their
    ``GameFilter`` (a bad value: a 400 ``bad_filter`` naming the parameter)."""

    def __init__(self, **values):
        try:
            self.filter = from_options(values)
        except FilterError as error:
            raise ApiError(400, "bad_filter", str(error)) from None


Filters.__signature__ = inspect.Signature([_filter_parameter(o) for o in OPTIONS])


async def _filters(**values) -> Filters:
    """The request's ``Filters``, made on the event loop (a class as a dependency is made on a
    thread of its own: a flood of requests would start as many)."""
    return Filters(**values)


_filters.__signature__ = Filters.__signature__.replace(return_annotation=Filters)


def _position(sfen: Optional[str], moves: Optional[str], start: Optional[str],
              default: Optional[str] = None) -> Position:
    """The position of ``sfen``, or of ``moves`` played from ``start``; ``default`` (an SFEN)
    when neither is given, else a 400."""
    if sfen is not None and moves is not None:
        raise ApiError(400, "bad_request", "give the position one way: sfen or moves, not both")
    if start is not None and moves is None:
        raise ApiError(400, "bad_request", "start goes with moves (the SFEN they start from)")
    if sfen is None and moves is None:
        if default is None:
            raise ApiError(400, "bad_request", "give a position: sfen=SFEN or moves=7g7f,3c3d")
        sfen = default
    if sfen is not None:
        try:
            return position_input.position_from_sfen(sfen)
        except ValueError as error:
            raise ApiError(400, "bad_sfen", str(error)) from None
    try:
        origin = position_input.position_from_sfen(start or "startpos")
    except ValueError as error:
        raise ApiError(400, "bad_sfen", f"start: {error}") from None
    try:
        return position_input.position_from_moves(moves, start=origin)
    except ValueError as error:
        raise ApiError(400, "bad_moves", str(error)) from None


_SFEN = Query(None, max_length=position_input.MAX_SFEN,
              description="The position as an SFEN ('startpos' works).")
_MOVES = Query(None, max_length=position_input.MAX_MOVES_TEXT,
               description="Moves from the start, comma- or space-separated: USI 7g7f,3c3d, "
                           "KIF ７六歩(77) or KI2 ▲７六歩.")
_START = Query(None, max_length=position_input.MAX_SFEN,
               description="The SFEN the moves start from (default: startpos).")
_KINDS = Literal[_stats.KINDS]
_ENGINE = Query(None, min_length=1, max_length=200,
                description="The analysing engine (a part of its name); by default the "
                            "analysis with the most analysed positions.")
_ENGINE_LIMIT = Query(None, min_length=1, max_length=100,
                      description="The analysis' limit as stored (nodes=1000 …).")


# ----- the app -----------------------------------------------------------------------------------


def app(store_path, timeout: float = DEFAULT_TIMEOUT, lookups: tuple = LOOKUPS,
        statistics: tuple = STATISTICS, cache_bytes: int = CACHED_BYTES) -> FastAPI:
    """The API on the store in folder ``store_path`` (read-only): a question that takes more
    than ``timeout`` seconds is answered with a 503; ``lookups`` and ``statistics`` are the
    worker threads and waiting places of each kind of question (``Desk``); ``cache_bytes``
    the bytes of answers kept (``Answers``)."""
    store = Store(store_path)
    _follow_queries()
    desks = {"lookup": Desk("lookup", *lookups),
             "statistics": Desk("statistics", *statistics, nice=STATISTICS_NICE)}

    @contextlib.asynccontextmanager
    async def lifespan(api: FastAPI):
        yield
        for desk in desks.values():  # the questions still running are given up
            desk.close()

    # /docs and /redoc with Swagger UI's and ReDoc's files served by the API itself (the
    # fastapi-offline package's copies): FastAPI's own pages load them from a CDN, blank offline
    api = FastAPIOffline(title="kifudb", version="0.1.0", redirect_slashes=False,
                         lifespan=lifespan, static_url=DOCS_FILES,
                         summary="A shogi game-record database: the opening explorer, "
                                 "position search, games and statistics, read-only.")

    answers = Answers(cache_bytes)
    api.state.answers, api.state.desks = answers, desks  # what the tests look at

    async def answer(desk: Desk, function, *args, **kwargs):
        """``function(store, *args, **kwargs)`` on a worker thread of ``desk``, within the
        time limit (JSON answers as ``Json``); kept until the store's next commit."""
        stamp = store.stamp()
        if stamp is None:
            raise ApiError(503, "store_unavailable", "the store holds nothing yet: run "
                                                     "'kifudb ingest PATH... --store DIR' first")
        question = _question(function, args, kwargs)
        found = answers.get(stamp, question)
        if found is not None:
            return found  # nothing changes an answer once made
        call = functools.partial(_worked, functools.partial(function, store, *args, **kwargs))
        try:
            found, size = await desk.run(call, timeout)
        except Exception as error:
            raise _refusal(error, store.root) from None
        if found is not None:
            answers.put(stamp, question, found, size)
        return found

    lookup = functools.partial(answer, desks["lookup"])
    statistic = functools.partial(answer, desks["statistics"])

    @api.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError):
        answer = _error(error.status, error.code, error.message)
        answer.headers.update(error.headers or {})
        return answer

    @api.exception_handler(RequestValidationError)
    async def bad_parameter(request: Request, error: RequestValidationError):
        problems = []
        for problem in error.errors():
            where = [str(p) for p in problem.get("loc", ()) if p not in ("query", "path")]
            problems.append(f"{'.'.join(where) or 'request'}: {problem.get('msg', 'invalid')}")
        return _error(422, "bad_parameter", "; ".join(problems))

    @api.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException):
        if error.status_code == 404:
            moved = _without_slash(api, request)
            if moved is not None:
                return RedirectResponse(moved, status_code=307)
        code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "http")
        message = ("no such endpoint: see /docs" if error.status_code == 404
                   else str(error.detail))
        return _error(error.status_code, code, message)

    @api.exception_handler(Exception)
    async def failure(request: Request, error: Exception):
        refusal = _refusal(error, store.root)
        return _error(refusal.status, refusal.code, refusal.message)

    @api.get("/health", summary="Whether the store answers, and its size")
    async def health():
        view = json.loads(await lookup(_stats.overview))
        return JsonAnswer({"status": "ok", "games": view["games"],
                           "positions": view["positions"]})

    @api.get("/explore", summary="The moves played next in a position, with their results")
    async def explore(sfen: Optional[str] = _SFEN, moves: Optional[str] = _MOVES,
                      start: Optional[str] = _START,
                      top_games: int = Query(4, ge=0, le=MAX_GAMES,
                                             description="How many top games to list."),
                      recent_games: int = Query(4, ge=0, le=MAX_GAMES,
                                                description="How many recent games to list."),
                      min_count: int = Query(1, ge=1, le=1_000_000,
                                             description="Leave out moves of fewer games."),
                      chosen: Filters = Depends(_filters)) -> JsonAnswer:
        """The lichess explorer's answer for a position (by default the start of the
        ``handicap`` filter's games, else the even start; ``moves`` start there too), in the
        fields of every door (``analytics.explorer``): ``position``, then ``games``,
        ``black_wins``, ``white_wins``, ``draws``, ``other`` (games without a result),
        ``decided``, ``black_score``, ``ci_low``, ``ci_high`` over the games that continue
        from it, the ``moves`` (``usi``, ``kif``, ``ki2``, ``games``, ``black_wins``,
        ``white_wins``, ``draws``, ``other``, ``decided``, ``black_score``, ``ci_low``,
        ``ci_high``, ``average_rating`` of the players who chose it and their
        ``performance`` — null where none is rated — and ``latest_date``), ``top_games``
        (the best-rated games, then those of the most-seen players) and ``recent_games``."""
        handicap = chosen.filter.start_sfen()  # its games start from its position
        if handicap is not None and moves is not None and start is None:
            start = handicap
        position = _position(sfen, moves, start, default=handicap or "startpos")
        return JsonAnswer(await lookup(_explorer, position, chosen.filter, min_count,
                                      top_games, recent_games))

    @api.get("/search", summary="Every game and ply where a position occurred")
    async def search(sfen: Optional[str] = _SFEN, moves: Optional[str] = _MOVES,
                     start: Optional[str] = _START,
                     mirror: bool = Query(False, description="Also the left-right mirror "
                                                             "image."),
                     offset: int = Query(0, ge=0, le=MAX_OFFSET),
                     limit: int = Query(50, ge=1, le=MAX_LIMIT),
                     chosen: Filters = Depends(_filters)) -> JsonAnswer:
        """``occurrences`` and ``games`` (how many in all, in the games of the filters), and
        a page of ``hits``, newest games first: ``game``, ``ply``, ``black``, ``white``,
        ``date``, ``event``, ``winner``, ``reason``, ``handicap``, ``path`` (a file name),
        ``next_move`` (USI, null at the end) and ``mirrored``."""
        position = _position(sfen, moves, start)
        return JsonAnswer(await lookup(_searched, position, mirror, offset, limit,
                                       chosen.filter))

    @api.get("/pattern", summary="The games that reached a position of a pattern")
    async def pattern(q: str = Query(..., min_length=1, max_length=2000,
                                     description="The conditions, separated by spaces "
                                                 "(kifudb pattern's grammar: ▲金58 △飛2* "
                                                 "・55 !▲銀77 ▲持角 ▲飛=2 …)."),
                      turn: Optional[Literal["black", "white"]] = None,
                      min_ply: Optional[int] = Query(None, ge=0, le=2 ** 31 - 1),
                      max_ply: Optional[int] = Query(None, ge=0, le=2 ** 31 - 1),
                      mirror: bool = Query(False, description="Also the mirror image."),
                      either_side: bool = Query(False, description="Also for the other side."),
                      offset: int = Query(0, ge=0, le=MAX_OFFSET),
                      limit: int = Query(50, ge=1, le=MAX_LIMIT),
                      chosen: Filters = Depends(_filters)) -> JsonAnswer:
        """``kifudb pattern``: ``pattern`` (the search as the command's arguments), ``games``
        (how many reached it, in the games of the filters), a page of ``matches``, newest
        first (``game``, ``ply`` where it first held, ``plies`` held, ``black``, ``white``,
        ``date``, ``event``, ``winner``, ``reason``, ``handicap``, ``path`` — a file name) and
        ``next_moves`` (``usi`` played at each game's first matching ply, ``games`` and their
        results). A condition that cannot be read is a 400 that names it."""
        return JsonAnswer(await statistic(_pattern, q, turn, min_ply, max_ply, mirror,
                                          either_side, offset, limit, chosen.filter))

    @api.get("/game/{game_id}", summary="One game: headers, moves, variations, labels; or "
                                        "its record as KIF, KI2, CSA, JKF or USI")
    async def game(game_id: int = PathParam(ge=0, le=2 ** 31 - 1),
                   format: Optional[Literal["kif", "ki2", "csa", "jkf", "usi"]] = Query(
                       None, description="The record as text in this format (UTF-8) instead "
                                         "of the JSON description."),
                   engine: Optional[str] = _ENGINE,
                   engine_limit: Optional[str] = _ENGINE_LIMIT) -> Response:
        """The game as ``kifudb game ID --format json`` shows it: ``black``, ``white``,
        ``date``, ``event``, ``handicap``, ``winner``, ``reason``, ``headers``,
        ``start_sfen``, ``sources`` (file names), ``moves`` (``ply``, ``usi``, ``ki2``,
        ``text`` as written, ``seconds``, ``comment``, ``evaluation``), ``sfens`` (after each
        move), ``variations``, ``labels`` and ``unwritable`` (why the game cannot be written
        as a record, or null). With ``format``, the record itself (``core.writers``), named
        ``kifudb-ID.kif`` …; a game that cannot be written is a 422 ``unwritable``."""
        found = await lookup(_game, game_id, format, engine, engine_limit)
        if found is None:
            raise ApiError(404, "not_found", f"the store has no game {game_id}")
        if format is None:
            return JsonAnswer(found)
        if isinstance(found, ApiError):
            raise found
        from kifudb.core.writers import EXTENSIONS, MEDIA_TYPES

        name = f"kifudb-{game_id}{EXTENSIONS[format]}"
        return Response(found.encode("utf-8"), media_type=MEDIA_TYPES[format],
                        headers={"Content-Disposition": f'inline; filename="{name}"'})

    # ----- the engine's analysis: analytics.judgement, accuracy, puzzles --------------------------

    @api.get("/analyses", summary="The engine analyses the store holds")
    async def analyses() -> JsonAnswer:
        """One per engine and limit, most analysed positions first: ``engine``, ``limit``,
        ``positions``, ``multipv`` (lines stored), ``k`` (the win coefficient its judgements
        use) and ``calibrated``."""
        from kifudb.analytics.judgement import analyses as stored

        return JsonAnswer(await statistic(stored))

    @api.get("/accuracy", summary="The accuracy of the moves, in total or by a grouping")
    async def accuracy(by: Literal["total", "player", "opening", "castle", "year",
                                   "ply-range"] = "total",
                       bucket: int = Query(20, ge=1, le=1000,
                                           description="With by=ply-range: plies a range."),
                       min_games: int = Query(1, ge=1, le=1_000_000),
                       engine: Optional[str] = _ENGINE,
                       engine_limit: Optional[str] = _ENGINE_LIMIT,
                       chosen: Filters = Depends(_filters)) -> JsonAnswer:
        """``kifudb stats accuracy``: ``engine``, ``limit``, ``k``, ``by`` and ``groups``
        (the group's key, ``games``, ``moves``, ``accuracy``, ``average_loss``,
        ``inaccuracies``, ``mistakes``, ``blunders``). A store without analysis (or without
        the one named) is a 404 ``no_analysis``."""
        from kifudb.analytics.accuracy import accuracy as measured

        return JsonAnswer(await statistic(_analysed, measured, by=by, bucket=bucket,
                                          min_games=min_games, engine=engine,
                                          engine_limit=engine_limit, filters=chosen.filter))

    @api.get("/mistakes", summary="The most costly moves, with the engine's better move")
    async def mistakes(of: Optional[str] = Query(None, min_length=1, max_length=200,
                                                 description="Only this player's moves."),
                       least: Literal["inaccuracy", "mistake", "blunder"] = "inaccuracy",
                       offset: int = Query(0, ge=0, le=MAX_OFFSET),
                       limit: int = Query(20, ge=1, le=MAX_LIMIT),
                       engine: Optional[str] = _ENGINE,
                       engine_limit: Optional[str] = _ENGINE_LIMIT,
                       chosen: Filters = Depends(_filters)) -> JsonAnswer:
        """``kifudb stats mistakes``: ``engine``, ``limit``, ``k`` and ``moves`` (``game``,
        ``ply``, ``player``, ``usi``, ``ki2``, ``best``, ``best_ki2``, ``loss``,
        ``win_before``, ``win_after``, ``judgement``, ``sfen`` …), the largest loss first."""
        from kifudb.analytics.accuracy import mistakes as costly

        return JsonAnswer(await statistic(_analysed, costly, limit=limit, offset=offset, of=of,
                                          least=least, engine=engine,
                                          engine_limit=engine_limit, filters=chosen.filter))

    @api.get("/puzzles", summary="Positions where one move wins and the others do not")
    async def puzzles(offset: int = Query(0, ge=0, le=MAX_OFFSET),
                      limit: int = Query(50, ge=1, le=MAX_LIMIT),
                      engine: Optional[str] = _ENGINE,
                      engine_limit: Optional[str] = _ENGINE_LIMIT,
                      chosen: Filters = Depends(_filters)) -> JsonAnswer:
        """``kifudb puzzles``: ``engine``, ``limit``, ``k`` and ``puzzles`` (``game``,
        ``ply``, ``side``, ``sfen``, ``move``, ``ki2``, ``solution``, ``win``,
        ``second_move``, ``second_win``, ``played``, ``found``, ``occurrences`` …), the
        clearest first; the analysis needs two lines (``kifudb analyse --multipv 2``)."""
        from kifudb.analytics.puzzles import puzzles as found

        return JsonAnswer(await statistic(_analysed, found, limit=limit, offset=offset,
                                          engine=engine, engine_limit=engine_limit,
                                          filters=chosen.filter))

    # ----- statistics: the questions of ``kifudb stats`` -----------------------------------------

    @api.get("/stats/overview", summary="The size of the store and what it holds")
    async def overview() -> JsonAnswer:
        return JsonAnswer(await statistic(_stats.overview))

    @api.get("/stats/results", summary="Black's score and the results")
    async def results(by: Literal["total", "year", "reason", "length"] = "total",
                      bucket: int = Query(10, ge=1, le=1000,
                                          description="With by=length: moves a bucket."),
                      chosen: Filters = Depends(_filters)) -> JsonAnswer:
        """In total (one object), or a list by ``year``, by ``reason`` or by ``length``."""
        if by == "total":
            return JsonAnswer(await statistic(_stats.results, filters=chosen.filter))
        if by == "length":
            return JsonAnswer(await statistic(_stats.game_lengths, bucket, filters=chosen.filter))
        function = _stats.results_by_year if by == "year" else _stats.results_by_reason
        return JsonAnswer(await statistic(function, filters=chosen.filter))

    @api.get("/stats/labels",
             summary="How often each side reached each label (castle, opening, technique, note)")
    async def labels(kind: _KINDS = "castle", by_year: bool = False,
                     min_games: int = Query(1, ge=1, le=1_000_000), primary: bool = False,
                     chosen: Filters = Depends(_filters)) -> JsonAnswer:
        return JsonAnswer(await statistic(_stats.label_frequencies, kind, by_year=by_year,
                                          min_games=min_games, primary_only=primary,
                                          filters=chosen.filter))

    @api.get("/stats/winrates",
             summary="How each label (castle, opening, technique, note) scores for its side")
    async def winrates(kind: _KINDS = "castle", min_games: int = Query(1, ge=1, le=1_000_000),
                       primary: bool = False, chosen: Filters = Depends(_filters)) -> JsonAnswer:
        return JsonAnswer(await statistic(_stats.win_rates, kind, min_games=min_games,
                                          primary_only=primary, filters=chosen.filter))

    @api.get("/stats/pairings", summary="Black's main label against White's")
    async def pairings(kind: _KINDS = "castle", against: Optional[_KINDS] = None,
                       min_games: int = Query(1, ge=1, le=1_000_000),
                       chosen: Filters = Depends(_filters)) -> JsonAnswer:
        return JsonAnswer(await statistic(_stats.pairings, kind, against, min_games=min_games,
                                          filters=chosen.filter))

    @api.get("/stats/players", summary="The players with the most games, and their scores")
    async def players(limit: int = Query(50, ge=1, le=MAX_LIMIT),
                      min_games: int = Query(1, ge=1, le=1_000_000),
                      chosen: Filters = Depends(_filters)) -> JsonAnswer:
        return JsonAnswer(await statistic(_stats.players, min_games=min_games, limit=limit,
                                          filters=chosen.filter))

    @api.get("/stats/player/{name}", summary="One player, or two players' games")
    async def player(name: str = PathParam(min_length=1, max_length=200),
                     against: Optional[str] = Query(None, min_length=1, max_length=200,
                                                    description="Only the games against "
                                                                "this player (canonical name "
                                                                "or a spelling)."),
                     chosen: Filters = Depends(_filters)) -> JsonAnswer:
        """Score as Black and White, openings, castles, opponents and recent games of the
        player of this canonical name or spelling (``labels.players``); with ``against``,
        their games and record."""
        if against is not None:
            return JsonAnswer(await statistic(_stats.head_to_head, name, against,
                                              filters=chosen.filter))
        found = await statistic(_stats.player_summary, name, filters=chosen.filter)
        if found is None:
            raise ApiError(404, "not_found", f"no game in scope has a player named {name!r} "
                                             f"(a canonical name or a spelling as written: see "
                                             f"/stats/players)")
        return JsonAnswer(found)

    @api.get("/stats/findings", summary="What validation found in the stored records")
    async def findings(code: Optional[str] = Query(None, min_length=1, max_length=100),
                       severity: Optional[Literal["error", "warning", "info"]] = None,
                       path: Optional[str] = Query(None, min_length=1, max_length=500,
                                                   description="Files whose path contains "
                                                               "this."),
                       offset: int = Query(0, ge=0, le=MAX_OFFSET),
                       limit: int = Query(50, ge=1, le=MAX_LIMIT)) -> JsonAnswer:
        """``by_code`` (counts) and a page of ``findings`` (file names, not the server's
        paths)."""
        return JsonAnswer(await statistic(_findings, code, severity, path, offset, limit))

    # ----- research: novelties, twins, players' names --------------------------------------------

    @api.get("/stats/novelties", summary="The novelties of the latest dated games")
    async def novelties(offset: int = Query(0, ge=0, le=MAX_OFFSET),
                        limit: int = Query(20, ge=1, le=MAX_LIMIT),
                        chosen: Filters = Depends(_filters)) -> JsonAnswer:
        """A page of the latest dated games of the filters, newest first, each with its
        novelty (``kifudb stats novelties``): ``game``, ``date``, ``black``, ``white``,
        ``event``, ``ply`` (the first ply whose position no earlier-dated game reached),
        ``move`` (USI) and ``earlier_games`` (those that reached the position before it); a
        game without one is skipped, so a page is full but at the end."""
        return JsonAnswer(await statistic(_novelties, limit=limit, offset=offset,
                                          filters=chosen.filter))

    @api.get("/twins", summary="The games that are probably one game stored twice")
    async def twins(min_moves: int = Query(40, ge=1, le=100_000,
                                           description="Only games of at least N moves.")
                    ) -> JsonAnswer:
        """The pairs (``kifudb twins``): ``kind`` (``same moves`` or ``prefix``), ``games``
        (two: ``game``, ``black``, ``white``, ``date``, ``event``, ``moves``, ``winner``,
        ``path`` — a file name), ``differences`` and ``same_players``. Nothing is merged."""
        return JsonAnswer(await statistic(_twins, min_moves))

    @api.get("/players/suggest", summary="The probable merges of players' names not made")
    async def player_suggestions() -> JsonAnswer:
        """``kifudb players --suggest``: ``written``, ``games``, ``undated``, ``candidates``
        (the players it may be) and ``reason``."""
        return JsonAnswer(await statistic(_suggestions))

    return api


def _without_slash(api: FastAPI, request: Request) -> Optional[str]:
    """Where a GET of an endpoint's path with a trailing slash (``/explore/``) goes: the path
    without it, relative to the server (never a URL built from the ``Host`` header), with the
    query; None if that is no endpoint either."""
    from starlette.routing import Match

    path = request.url.path
    if request.method != "GET" or not path.endswith("/") or path.startswith("//"):
        return None
    bare = path.rstrip("/")
    if not bare:
        return None
    scope = {**request.scope, "path": bare}
    if not any(route.matches(scope)[0] == Match.FULL for route in api.router.routes):
        return None
    query = request.url.query
    return f"{bare}?{query}" if query else bare


def _refusal(error: Exception, root) -> ApiError:
    """The answer to an error raised while answering: the store's problem (damaged, written by
    another version: ``store.diagnose``'s wording) is a 503, a value an ``analytics`` check
    refused a 400; anything else is a 500 that says no more than the error's type (the server's
    log has the traceback)."""
    from kifudb.store.diagnose import diagnose

    if isinstance(error, ApiError):
        return error
    message = diagnose(error, root, check=False)
    if message is not None:
        return ApiError(503, "store_unavailable", message)
    if isinstance(error, ValueError):
        return ApiError(400, "bad_request", str(error))
    log.error("unexpected error", exc_info=error)
    return ApiError(500, "internal", f"the server could not answer ({type(error).__name__}); "
                                     f"its log says more")


# ----- the answers (run in a worker thread) ------------------------------------------------------


def _explorer(store, position: Position, filters: GameFilter, min_count: int, top: int,
              recent: int) -> dict:
    return explorer_answer(store, position, filters=filters, min_count=min_count,
                           top_games=top, recent_games=recent)


def _searched(store, position: Position, mirror: bool, offset: int, limit: int,
              filters: GameFilter) -> dict:
    found = search_answer(store, position, mirror=mirror, offset=offset, limit=limit,
                          filters=filters)
    for hit in found["hits"]:
        hit["path"] = hit["path"] and Path(hit["path"]).name  # not the server's paths
    return found


def _pattern(store, conditions: str, turn, min_ply, max_ply, mirror: bool, either_side: bool,
             offset: int, limit: int, filters: GameFilter) -> dict:
    from kifudb.analytics.pattern import PatternSearch, find_pattern

    search = PatternSearch.of(conditions, turn=turn, min_ply=min_ply, max_ply=max_ply,
                              mirror=mirror, either_side=either_side)
    found = find_pattern(store, search, filters=filters, limit=limit, offset=offset)
    for match in found["matches"]:
        match["path"] = match["path"] and Path(match["path"]).name  # not the server's paths
    return found


def _game(store, game_id: int, fmt: Optional[str], engine: Optional[str] = None,
          engine_limit: Optional[str] = None):
    """The game's JSON description, its record in ``fmt`` (text), an ``ApiError`` for a game
    that cannot be written, or None for an unknown game."""
    try:
        game = _analysed(store, stored_game, game_id, engine, engine_limit)
    except KeyError:
        return None
    if fmt is not None:
        try:
            return game.record(fmt)
        except ValueError as error:
            return ApiError(422, "unwritable", str(error))
    shown = game.as_dict()
    shown["sources"] = [{**s, "path": Path(s["path"]).name} for s in shown["sources"]]
    if shown["provenance"]:  # file names, not the server's paths
        shown["provenance"] = {field: {**given, "path": Path(given["path"]).name}
                               for field, given in shown["provenance"].items()}
    return shown


def _analysed(store, function, *args, **kwargs):
    """``function(store, …)``, a question of the engine's analysis: a store without it, or
    without the engine and limit named, is a 404 ``no_analysis`` that says so."""
    from kifudb.analytics.judgement import NoAnalysis

    try:
        return function(store, *args, **kwargs)
    except NoAnalysis as error:
        # the store's folder is STORE, as in every answer (not the server's paths)
        raise ApiError(404, "no_analysis",
                       str(error).replace(str(store.root), "STORE")) from None


def _findings(store, code, severity, path, offset: int, limit: int) -> dict:
    from kifudb.analytics.findings import findings_answer, names_only

    return names_only(findings_answer(store, code, severity, path, offset, limit))


def _novelties(store, limit: int, offset: int, filters: GameFilter) -> dict:
    from kifudb.analytics.novelty import novelties

    found = novelties(store, limit=limit, offset=offset, filters=filters)
    return {"offset": offset, "limit": limit, "novelties": found}


def _twins(store, min_moves: int) -> list:
    from kifudb.analytics.twins import twins

    found = twins(store, min_moves=min_moves)
    for twin in found:
        for game in twin["games"]:
            game["path"] = game["path"] and Path(game["path"]).name  # not the server's paths
    return found


def _suggestions(store) -> list:
    from kifudb.analytics.players import suggestions

    return suggestions(store)


# ----- the server ---------------------------------------------------------------------------------

_TOO_SLOW = (b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n"
              b"Content-Length: 0\r\n\r\n")
_FULL = (f"HTTP/1.1 503 Service Unavailable\r\nRetry-After: {RETRY_AFTER}\r\n"
         f"Connection: close\r\nContent-Length: 0\r\n\r\n").encode("ascii")


def guarded_protocol(header_timeout: float = HEADER_TIMEOUT,
                     max_connections: int = MAX_CONNECTIONS,
                     max_header_bytes: int = MAX_HEADER_BYTES):
    """uvicorn's HTTP/1.1 protocol (httptools), guarded: a connection that has not sent a
    request's line and headers ``header_timeout`` seconds after it opened or after the
    request's first byte is answered 408 and closed (uvicorn waits for them forever), one
    whose headers pass ``max_header_bytes`` is answered 431 and closed, and a connection
    beyond ``max_connections`` open is answered 503 and closed at once, so that slow
    clients cannot hold the server's files."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedProtocol(HttpToolsProtocol):
        header_deadline = None  # the timer of the headers awaited, if any
        header_bytes = 0

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.write(_FULL)
                transport.close()
                return
            self._await_headers()

        def _await_headers(self) -> None:
            if self.header_deadline is None:
                self.header_bytes = 0
                self.header_deadline = self.loop.call_later(header_timeout, self._refuse,
                                                            _TOO_SLOW)

        def _headers_done(self) -> None:
            if self.header_deadline is not None:
                self.header_deadline.cancel()
                self.header_deadline = None

        def _refuse(self, answer: bytes) -> None:
            self._headers_done()
            if not self.transport.is_closing():
                self.transport.write(answer)
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.header_deadline is not None:
                self.header_bytes += len(data)
                if self.header_bytes > max_header_bytes:
                    self._refuse(_TOO_LARGE)
                    return
            super().data_received(data)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._await_headers()

        def on_headers_complete(self) -> None:
            self._headers_done()
            super().on_headers_complete()

        def connection_lost(self, exc) -> None:
            self._headers_done()
            super().connection_lost(exc)

    return GuardedProtocol


def server(api: FastAPI, host: str, port: int, header_timeout: float = HEADER_TIMEOUT,
           max_connections: int = MAX_CONNECTIONS):
    """The uvicorn server of ``api`` (``kifudb serve``): headers within ``header_timeout``
    seconds, an idle connection closed after ``KEEP_ALIVE`` seconds, at most
    ``max_connections`` open (``guarded_protocol``; uvicorn's ``limit_concurrency`` backs it,
    counting requests being answered)."""
    import uvicorn

    config = uvicorn.Config(api, host=host, port=port, log_level="warning", access_log=False,
                            http=guarded_protocol(header_timeout, max_connections),
                            timeout_keep_alive=KEEP_ALIVE, limit_concurrency=max_connections + 1,
                            h11_max_incomplete_event_size=MAX_HEADER_BYTES)
    return uvicorn.Server(config)


def openapi_json(store_path) -> str:
    """The OpenAPI description of the API (what ``GET /openapi.json`` answers), as text.

    >>> json.loads(openapi_json(sample_store))["paths"]["/explore"]["get"]["summary"]
    'The moves played next in a position, with their results'
    """
    return json.dumps(app(store_path).openapi(), ensure_ascii=False)
