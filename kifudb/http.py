"""The HTTP JSON API, the door for programs: a FastAPI app (``app(store)``, served by ``kifudb
serve`` on uvicorn), read-only, on one store. Its answers are shaped after lichess's opening
explorer where it fits.

- ``GET /explore?sfen=…`` or ``?moves=7g7f,3c3d`` (from ``startpos``, or ``&start=SFEN``): the
  results of the games in the position (``black``, ``white``, ``draws``, ``other``), the
  ``moves`` played next, ``top_games`` and ``recent_games``;
- ``GET /search?sfen=…&mirror=false&offset=0&limit=50``: every occurrence of a position;
- ``GET /game/{id}``: one game (headers, moves, variations, labels, evaluations), or with
  ``?format=kif|ki2|csa|jkf|usi`` its record as text (``core.writers``);
- ``GET /stats/overview``, ``/stats/results``, ``/stats/labels``, ``/stats/winrates``,
  ``/stats/pairings``, ``/stats/players``, ``/stats/player/{name}``, ``/stats/findings``,
  ``/stats/novelties``: the questions of ``kifudb stats``;
- ``GET /twins`` (``kifudb twins``) and ``GET /players/suggest`` (``kifudb players
  --suggest``);
- ``GET /health``; ``GET /openapi.json`` and the interactive documentation at ``/docs``.

The games a question looks at are chosen by the filters ``player``, ``since``, ``until``,
``event``, ``handicap``, ``decided``, ``min_moves``, ``min_rating``, ``max_rating``,
``rating_of``, ``result``, ``time_control``, ``played_by``, ``label`` and ``label_side``: the
command line's options, by the same names (``analytics.filters.OPTIONS``).

    >>> from fastapi.testclient import TestClient
    >>> client = TestClient(app(sample_store))
    >>> answer = client.get("/explore", params={"moves": "7g7f,3c3d", "player": "羽生"}).json()
    >>> answer["black"], answer["white"], [(m["ki2"], m["games"]) for m in answer["moves"]]
    (2, 1, [('▲２六歩', 3)])
    >>> client.get("/explore", params={"moves": "7g7f,7g7e"}).json()
    {'error': {'code': 'bad_moves', 'message': 'move 2 (7g7e): illegal: there is no piece on 7g [no_piece]'}}

Bad input is a 4xx answer ``{"error": {"code", "message"}}`` saying what was wrong — never a
traceback: 400 for a value the API cannot use (``bad_sfen``, ``bad_moves``, ``bad_filter``,
``bad_request``), 404 for what does not exist (``not_found``), 422 for a parameter of the
wrong type or out of its range (``bad_parameter``: the framework's check, reshaped). A store
that cannot answer is a 503 (``store_unavailable``, ``timeout``). No SQL is built from request
text: every question goes through ``analytics`` (bound parameters only). Pages are bounded
(``MAX_LIMIT`` rows); each question runs in a worker thread (at most ``WORKERS`` at a time)
and is given up after ``timeout`` seconds. Each request reads the store's latest commit (the
engine of ``store.engine`` is rebuilt when the manifest changes), so the server keeps
answering while an ingest commits, and sees its games once it has; answers are kept until the
next commit (``Answers``), so a popular position is computed once per commit.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import math
from collections import OrderedDict
from pathlib import Path
from typing import Literal, Optional

import anyio
from fastapi import Depends, FastAPI, Path as PathParam, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from kifudb.analytics import position_input
from kifudb.analytics import stats as _stats
from kifudb.analytics.filters import OPTIONS, FilterError, FilterOption, GameFilter, from_options
from kifudb.analytics.position_games import position_games
from kifudb.analytics.queries import explore as _explore
from kifudb.analytics.queries import occurrences as _occurrences
from kifudb.analytics.queries import search as _search
from kifudb.analytics.results import Results
from kifudb.core.position import Position
from kifudb.api import explorer_move, stored_game
from kifudb.output import json_text
from kifudb.store.folder import Store

__all__ = ["app", "ApiError", "MAX_LIMIT", "DEFAULT_TIMEOUT", "WORKERS"]

#: The most rows a page holds (``limit``).
MAX_LIMIT = 500
#: The furthest a page starts (``offset``).
MAX_OFFSET = 1_000_000
#: The most top or recent games an explorer answer lists.
MAX_GAMES = 50
#: Seconds a question may take before the answer is a 503 ``timeout``.
DEFAULT_TIMEOUT = 10.0
#: Questions answered at the same time (the store's engine keeps up to 20 connections).
WORKERS = 16
#: Answers kept per commit (``Answers``): the popular positions of an explorer, the statistics.
CACHED_ANSWERS = 4096

log = logging.getLogger("kifudb.http")


class ApiError(Exception):
    """An answer that is an error: HTTP ``status``, a stable ``code`` and a ``message``."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class JsonAnswer(JSONResponse):
    """JSON as ``kifudb.output.json_text`` writes it: UTF-8 text as it is, the controls a
    record may hold escaped; a float that is not a number becomes null."""

    def render(self, content) -> bytes:
        try:
            text = json_text(content, allow_nan=False, separators=(",", ":"))
        except ValueError:  # NaN or infinity somewhere: JSON has no word for them
            text = json_text(_finite(content), separators=(",", ":"))
        return text.encode("utf-8")


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
    answers. The most recently asked ``size`` are kept; a new stamp empties the cache.

    >>> kept = Answers(size=2)
    >>> kept.put("stamp 1", "a", 1); kept.put("stamp 1", "b", 2); kept.put("stamp 1", "c", 3)
    >>> kept.get("stamp 1", "a"), kept.get("stamp 1", "c"), kept.get("stamp 2", "c")
    (None, 3, None)
    """

    def __init__(self, size: int = CACHED_ANSWERS):
        self.size, self.stamp, self.kept = size, None, OrderedDict()

    def get(self, stamp, question):
        if stamp != self.stamp:
            return None
        found = self.kept.get(question)
        if found is not None:
            self.kept.move_to_end(question)
        return found

    def put(self, stamp, question, answer) -> None:
        if stamp != self.stamp:
            self.stamp, self.kept = stamp, OrderedDict()
        self.kept[question] = answer
        while len(self.kept) > self.size:
            self.kept.popitem(last=False)


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


def _described(position: Position) -> dict:
    return {"sfen": position.sfen(), "key": f"{position.key():#018x}"}


_SFEN = Query(None, max_length=position_input.MAX_SFEN,
              description="The position as an SFEN ('startpos' works).")
_MOVES = Query(None, max_length=position_input.MAX_MOVES_TEXT,
               description="Moves from the start, comma- or space-separated: USI 7g7f,3c3d, "
                           "KIF ７六歩(77) or KI2 ▲７六歩.")
_START = Query(None, max_length=position_input.MAX_SFEN,
               description="The SFEN the moves start from (default: startpos).")
_KINDS = Literal["castle", "opening"]


# ----- the app -----------------------------------------------------------------------------------


def app(store_path, timeout: float = DEFAULT_TIMEOUT) -> FastAPI:
    """The API on the store in folder ``store_path`` (read-only); a question that takes more
    than ``timeout`` seconds is answered with a 503."""
    store = Store(store_path)
    limiter = anyio.CapacityLimiter(WORKERS)
    api = FastAPI(title="kifudb", version="0.1.0",
                  summary="A shogi game-record database: the opening explorer, position search, "
                          "games and statistics, read-only.")

    answers = Answers()

    async def answer(function, *args, **kwargs):
        """``function(store, *args, **kwargs)`` in a worker thread, within the time limit;
        kept until the store's next commit."""
        stamp = store.stamp()
        if stamp is None:
            raise ApiError(503, "store_unavailable", "the store holds nothing yet: run "
                                                     "'kifudb ingest PATH... --store DIR' first")
        question = _question(function, args, kwargs)
        found = answers.get(stamp, question)
        if found is not None:
            return found  # nothing changes an answer once made
        call = functools.partial(function, store, *args, **kwargs)
        try:
            with anyio.fail_after(timeout):
                found = await anyio.to_thread.run_sync(call, limiter=limiter,
                                                       abandon_on_cancel=True)
            if found is not None:
                answers.put(stamp, question, found)
            return found
        except TimeoutError:
            raise ApiError(503, "timeout", f"the question took more than {timeout:g} s; "
                                           f"narrow it (filters, a smaller limit)") from None
        except Exception as error:
            raise _refusal(error, store.root) from None

    @api.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError):
        return _error(error.status, error.code, error.message)

    @api.exception_handler(RequestValidationError)
    async def bad_parameter(request: Request, error: RequestValidationError):
        problems = []
        for problem in error.errors():
            where = [str(p) for p in problem.get("loc", ()) if p not in ("query", "path")]
            problems.append(f"{'.'.join(where) or 'request'}: {problem.get('msg', 'invalid')}")
        return _error(422, "bad_parameter", "; ".join(problems))

    @api.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException):
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
        view = await answer(_stats.overview)
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
                      chosen: Filters = Depends()) -> JsonAnswer:
        """The lichess explorer's answer for a position (by default the start of the
        ``handicap`` filter's games, else the even start; ``moves`` start there too):
        ``black``, ``white``, ``draws``,
        ``other`` (games without a result) over the games that continue from it, the
        ``moves`` (``usi``, ``kif``, ``ki2``, ``games``, ``black``, ``white``, ``draws``,
        ``other``, ``average_rating`` of the players who chose it — null where none is rated
        — and ``latest``), ``top_games`` (the best-rated games, then those of the most-seen
        players) and ``recent_games``."""
        handicap = chosen.filter.start_sfen()  # its games start from its position
        if handicap is not None and moves is not None and start is None:
            start = handicap
        position = _position(sfen, moves, start, default=handicap or "startpos")
        return JsonAnswer(await answer(_explorer, position, chosen.filter, min_count,
                                       top_games, recent_games))

    @api.get("/search", summary="Every game and ply where a position occurred")
    async def search(sfen: Optional[str] = _SFEN, moves: Optional[str] = _MOVES,
                     start: Optional[str] = _START,
                     mirror: bool = Query(False, description="Also the left-right mirror "
                                                             "image."),
                     offset: int = Query(0, ge=0, le=MAX_OFFSET),
                     limit: int = Query(50, ge=1, le=MAX_LIMIT)) -> JsonAnswer:
        """``occurrences`` and ``games`` (how many in all), and a page of ``hits``, newest
        games first: ``game``, ``ply``, ``black``, ``white``, ``date``, ``event``,
        ``winner``, ``reason``, ``handicap``, ``next_move`` (USI, null at the end) and
        ``mirrored``."""
        position = _position(sfen, moves, start)
        return JsonAnswer(await answer(_searched, position, mirror, offset, limit))

    @api.get("/game/{game_id}", summary="One game: headers, moves, variations, labels; or "
                                        "its record as KIF, KI2, CSA, JKF or USI")
    async def game(game_id: int = PathParam(ge=0, le=2 ** 31 - 1),
                   format: Optional[Literal["kif", "ki2", "csa", "jkf", "usi"]] = Query(
                       None, description="The record as text in this format (UTF-8) instead "
                                         "of the JSON description.")) -> Response:
        """The game as ``kifudb game ID --format json`` shows it: ``black``, ``white``,
        ``date``, ``event``, ``handicap``, ``winner``, ``reason``, ``headers``,
        ``start_sfen``, ``sources`` (file names), ``moves`` (``ply``, ``usi``, ``ki2``,
        ``text`` as written, ``seconds``, ``comment``, ``evaluation``), ``sfens`` (after each
        move), ``variations``, ``labels`` and ``unwritable`` (why the game cannot be written
        as a record, or null). With ``format``, the record itself (``core.writers``), named
        ``kifudb-ID.kif`` …; a game that cannot be written is a 422 ``unwritable``."""
        found = await answer(_game, game_id, format)
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

    # ----- statistics: the questions of ``kifudb stats`` -----------------------------------------

    @api.get("/stats/overview", summary="The size of the store and what it holds")
    async def overview() -> JsonAnswer:
        return JsonAnswer(await answer(_stats.overview))

    @api.get("/stats/results", summary="Black's score and the results")
    async def results(by: Literal["total", "year", "reason", "length"] = "total",
                      bucket: int = Query(10, ge=1, le=1000,
                                          description="With by=length: moves a bucket."),
                      chosen: Filters = Depends()) -> JsonAnswer:
        """In total (one object), or a list by ``year``, by ``reason`` or by ``length``."""
        if by == "total":
            return JsonAnswer(await answer(_stats.results, filters=chosen.filter))
        if by == "length":
            return JsonAnswer(await answer(_stats.game_lengths, bucket, filters=chosen.filter))
        function = _stats.results_by_year if by == "year" else _stats.results_by_reason
        return JsonAnswer(await answer(function, filters=chosen.filter))

    @api.get("/stats/labels", summary="How often each side reached each castle or opening")
    async def labels(kind: _KINDS = "castle", by_year: bool = False,
                     min_games: int = Query(1, ge=1, le=1_000_000), primary: bool = False,
                     chosen: Filters = Depends()) -> JsonAnswer:
        return JsonAnswer(await answer(_stats.label_frequencies, kind, by_year=by_year,
                                       min_games=min_games, primary_only=primary,
                                       filters=chosen.filter))

    @api.get("/stats/winrates", summary="How each castle or opening scores for its side")
    async def winrates(kind: _KINDS = "castle", min_games: int = Query(1, ge=1, le=1_000_000),
                       primary: bool = False, chosen: Filters = Depends()) -> JsonAnswer:
        return JsonAnswer(await answer(_stats.win_rates, kind, min_games=min_games,
                                       primary_only=primary, filters=chosen.filter))

    @api.get("/stats/pairings", summary="Black's main label against White's")
    async def pairings(kind: _KINDS = "castle", against: Optional[_KINDS] = None,
                       min_games: int = Query(1, ge=1, le=1_000_000),
                       chosen: Filters = Depends()) -> JsonAnswer:
        return JsonAnswer(await answer(_stats.pairings, kind, against, min_games=min_games,
                                       filters=chosen.filter))

    @api.get("/stats/players", summary="The players with the most games, and their scores")
    async def players(limit: int = Query(50, ge=1, le=MAX_LIMIT),
                      min_games: int = Query(1, ge=1, le=1_000_000),
                      chosen: Filters = Depends()) -> JsonAnswer:
        return JsonAnswer(await answer(_stats.players, min_games=min_games, limit=limit,
                                       filters=chosen.filter))

    @api.get("/stats/player/{name}", summary="One player, or two players' games")
    async def player(name: str = PathParam(min_length=1, max_length=200),
                     against: Optional[str] = Query(None, min_length=1, max_length=200,
                                                    description="Only the games against "
                                                                "this player (canonical name "
                                                                "or a spelling)."),
                     chosen: Filters = Depends()) -> JsonAnswer:
        """Score as Black and White, openings, castles, opponents and recent games of the
        player of this canonical name or spelling (``labels.players``); with ``against``,
        their games and record."""
        if against is not None:
            return JsonAnswer(await answer(_stats.head_to_head, name, against,
                                           filters=chosen.filter))
        found = await answer(_stats.player_summary, name, filters=chosen.filter)
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
        return JsonAnswer(await answer(_findings, code, severity, path, offset, limit))

    # ----- research: novelties, twins, players' names --------------------------------------------

    @api.get("/stats/novelties", summary="The novelties of the latest dated games")
    async def novelties(offset: int = Query(0, ge=0, le=MAX_OFFSET),
                        limit: int = Query(20, ge=1, le=MAX_LIMIT),
                        chosen: Filters = Depends()) -> JsonAnswer:
        """A page of the latest dated games of the filters, newest first, each with its
        novelty (``kifudb stats novelties``): ``game``, ``date``, ``black``, ``white``,
        ``event``, ``ply`` (the first ply whose position no earlier-dated game reached),
        ``move`` (USI) and ``earlier_games`` (those that reached the position before it); a
        game of the page without one is left out."""
        found = await answer(_novelties, limit=limit, offset=offset, filters=chosen.filter)
        return JsonAnswer({"offset": offset, "limit": limit, "novelties": found})

    @api.get("/twins", summary="The games that are probably one game stored twice")
    async def twins(min_moves: int = Query(40, ge=1, le=100_000,
                                           description="Only games of at least N moves.")
                    ) -> JsonAnswer:
        """The pairs (``kifudb twins``): ``kind`` (``same moves`` or ``prefix``), ``games``
        (two: ``game``, ``black``, ``white``, ``date``, ``event``, ``moves``, ``winner``,
        ``path`` — a file name), ``differences`` and ``same_players``. Nothing is merged."""
        return JsonAnswer(await answer(_twins, min_moves))

    @api.get("/players/suggest", summary="The probable merges of players' names not made")
    async def player_suggestions() -> JsonAnswer:
        """``kifudb players --suggest``: ``written``, ``games``, ``undated``, ``candidates``
        (the players it may be) and ``reason``."""
        return JsonAnswer(await answer(_suggestions))

    return api


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
    moves = [explorer_move(row)
             for row in _explore(store, position, filters=filters, min_count=min_count)]
    total = Results(*(sum(m[side] for m in moves) for side in ("black", "white", "draws",
                                                                "other")))
    listed = {}
    for name, order, count in (("top_games", "top", top), ("recent_games", "recent", recent)):
        listed[name] = ([_shown_game(g) for g in position_games(
            store, position, filters=filters, order=order, limit=count)] if count else [])
    return {"position": _described(position), "black": total.black, "white": total.white,
            "draws": total.draws, "other": total.other, "moves": moves, **listed}


def _shown_game(row: dict) -> dict:
    return {"id": row["game"], "ply": row["ply"], "next_move": row["next_move"],
            "black": row["black"], "white": row["white"], "date": row["date"],
            "event": row["event"], "winner": row["winner"], "reason": row["reason"],
            "handicap": row["handicap"], "moves": row["moves"],
            "black_rating": row["black_rating"], "white_rating": row["white_rating"]}


def _searched(store, position: Position, mirror: bool, offset: int, limit: int) -> dict:
    total = _occurrences(store, position, mirror=mirror)
    hits = _search(store, position, mirror=mirror, limit=limit, offset=offset)
    for hit in hits:
        hit.pop("path")  # the server's files are not the client's business
    return {"position": _described(position), "mirror": mirror, **total, "offset": offset,
            "limit": limit, "hits": hits}


def _game(store, game_id: int, fmt: Optional[str]):
    """The game's JSON description, its record in ``fmt`` (text), an ``ApiError`` for a game
    that cannot be written, or None for an unknown game."""
    try:
        game = stored_game(store, game_id)
    except KeyError:
        return None
    if fmt is not None:
        try:
            return game.record(fmt)
        except ValueError as error:
            return ApiError(422, "unwritable", str(error))
    shown = game.as_dict()
    shown["sources"] = [{**s, "path": Path(s["path"]).name} for s in shown["sources"]]
    return shown


def _findings(store, code, severity, path, offset: int, limit: int) -> dict:
    counts = _stats.finding_counts(store, "code", severity, code)
    rows = _stats.findings(store, code=code, severity=severity, path=path, limit=limit,
                           offset=offset)
    for row in rows:
        row["path"] = Path(row["path"]).name
    return {"by_code": counts, "offset": offset, "limit": limit, "findings": rows}


def _novelties(store, **arguments) -> list:
    from kifudb.analytics.novelty import novelties

    return novelties(store, **arguments)


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


def openapi_json(store_path) -> str:
    """The OpenAPI description of the API (what ``GET /openapi.json`` answers), as text.

    >>> json.loads(openapi_json(sample_store))["paths"]["/explore"]["get"]["summary"]
    'The moves played next in a position, with their results'
    """
    return json.dumps(app(store_path).openapi(), ensure_ascii=False)
