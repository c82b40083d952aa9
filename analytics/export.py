"""The store's games as records: each stored game as a ``core.kifu.Kifu`` (its headers as read,
start, moves with their times and comments, variations, comments and declared ending), for the
writers of ``core.writers``; the games chosen with a ``GameFilter`` (a castle or opening
reached is one of its fields) and a position they reached::

    >>> import tempfile
    >>> from kifudb.store.writer import ingest_paths
    >>> from kifudb.analytics.position_input import position_from_moves
    >>> from kifudb.core.writers import write
    >>> folder = tempfile.mkdtemp()
    >>> _ = ingest_paths(["data/samples/records"], folder)
    >>> chosen = chosen_games(folder, GameFilter(player="羽生"),
    ...                       position=position_from_moves("7g7f 3c3d 2g2f"))
    >>> [row["game"] for row in chosen]
    [7, 12, 13]
    >>> game, kifu, problem, _ = next(stored_kifus(folder, chosen))
    >>> kifu.header("先手"), write(kifu, "kif").splitlines()[-1]
    ('羽生善治', 'まで181手で先手の勝ち')
    >>> [row["game"] for row in chosen_games(folder, GameFilter(label="矢倉"))]
    [2, 6]
    >>> [found.problem for found in stored_kifus(folder, [8])]  # doctest: +ELLIPSIS
    ["move 3 '２一角成(88)' could not be played when the game was read ..."]
    >>> written = record_text(folder, 7, "csa")
    >>> written["text"].splitlines()[-1], written["left_out"]
    ('%TORYO', ['the headers 消費時間'])
    >>> import shutil; shutil.rmtree(folder)

What the store does not keep cannot come back: KIF bookmarks, the players' total times (the
writers add them up again), the endings of variations, a variation without moves. A game whose
main line (or, with ``variations``, one of its variations) stops at a move that could not be
replayed when it was read cannot be written: ``stored_kifus`` gives its problem instead of a
``Kifu`` (``core.kifu.UnwritableGame``'s message).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import PurePath
from typing import Iterator, NamedTuple, Optional

import sqlalchemy as sa

from kifudb.analytics import checks
from kifudb.analytics.files import fitted_name
from kifudb.analytics.filters import GameFilter
from kifudb.analytics.queries import hit_keys
from kifudb.core.kifu import Kifu, KifuEnding, KifuMove, KifuVariation, UnwritableGame
from kifudb.core.position import STARTING_SFEN
from kifudb.store.engine import fetch, game_summary, games, hits, moves

__all__ = ["chosen_games", "stored_kifus", "stored_kifu", "StoredKifu", "record_text",
           "record_file_name", "games_archive", "Archive"]

_CHUNK = 500  # games read per query


class StoredKifu(NamedTuple):
    """A stored game as a record: its id, its ``Kifu`` (None if it cannot be written), the
    problem that stops it, and how many variations were left out (``variations=False``)."""

    game: int
    kifu: Optional[Kifu]
    problem: Optional[str]
    dropped_variations: int = 0


def chosen_games(store, filters: GameFilter = GameFilter(), *, position=None) -> list:
    """The games of ``filters`` (a castle or opening reached is one: ``GameFilter.label``) that
    reached ``position`` (a ``Position``, an SFEN or a key; None: any), in the order of their
    ids: dicts of ``game`` and ``path`` (its first source file)."""
    g = game_summary.c
    statement = sa.select(g.game, g.path).where(*filters.where()).order_by(g.game)
    if position is None:
        return fetch(store, statement)
    return fetch(store, statement.where(g.game.in_(sa.select(hits.c.game))),
                 keys=hit_keys(position))


def stored_kifus(store, chosen: list, variations: bool = True,
                 analysis: Optional[dict] = None) -> Iterator[StoredKifu]:
    """A ``StoredKifu`` for each of ``chosen`` (``chosen_games`` rows, or game ids), in their
    order; ``variations=False`` leaves the variations out (for a format that holds none: then
    only the main line must be replayable). With ``analysis`` (a dict), the engine's analysis
    of the store (``kifudb analyse``) goes into the main line's comments as ShogiHome's
    research lines (``analytics.analysis_comments``), and its counts are added to the dict:
    ``games`` and ``moves`` annotated, ``kept`` (moves whose record held research lines of its
    own, kept instead)."""
    analysed = None
    if analysis is not None:
        for name in ("games", "moves", "kept"):
            analysis.setdefault(name, 0)
        from kifudb.analytics.analysed_moves import AnalysedMoves

        analysed = AnalysedMoves(store) or None
    ids = [row["game"] if isinstance(row, dict) else checks.game_id(row) for row in chosen]
    for at in range(0, len(ids), _CHUNK):
        chunk = ids[at:at + _CHUNK]
        rows = {row["game"]: row for row in fetch(store, sa.select(
            games.c.game, games.c.headers, games.c.start_sfen, games.c.declared_ending,
            games.c.winner, games.c.reason, games.c.comments)
            .where(*_among(games.c.game, chunk)))}
        lines = _lines(store, chunk)
        for game in chunk:
            row = rows.get(game)
            if row is None:
                yield StoredKifu(game, None, f"game {game} is not in the store")
                continue
            found = lines.get(game, {})
            dropped = 0 if variations else len(found) - (0 in found)
            if not variations:
                found = {0: found[0]} if 0 in found else {}
            try:
                kifu = _kifu(row, found)
            except UnwritableGame as error:
                yield StoredKifu(game, None, str(error), dropped)
                continue
            if analysed is not None:
                kifu = _with_analysis(analysed.of(game), kifu, analysis)
            yield StoredKifu(game, kifu, None, dropped)


def _with_analysis(rows: dict, kifu: Kifu, counts: dict) -> Kifu:
    """``kifu`` with the engine's analysis of its main line (``rows``:
    ``analytics.analysed_moves``, the position after each move) in its comments."""
    from kifudb.analytics.analysis_comments import annotated

    kifu, added, kept = annotated(kifu, rows)
    counts["games"] += bool(added)
    counts["moves"] += added
    counts["kept"] += kept
    return kifu


def stored_kifu(store, game: int, variations: bool = True) -> Kifu:
    """The ``Kifu`` of one stored game; ``UnwritableGame`` (a ``ValueError``) if it cannot be
    written or is not in the store."""
    [found] = stored_kifus(store, [game], variations)
    if found.kifu is None:
        raise UnwritableGame(found.problem)
    return found.kifu


def _lines(store, chunk: list) -> dict:
    """game -> line -> its move rows in ply order (line 0: the main line)."""
    m = moves.c
    conditions = _among(m.game, chunk)
    statement = (sa.select(m.game, m.line, m.parent, m.ply, m.usi, m.text, m.seconds, m.comment)
                 .where(*conditions).order_by(m.game, m.line, m.ply))
    out: dict = {}
    for row in fetch(store, statement):
        out.setdefault(row["game"], {}).setdefault(row["line"], []).append(row)
    return out


def _among(column, chunk: list) -> list:
    """The conditions that keep the games of ``chunk``: their range as well (the Parquet
    files' min/max statistics skip the row groups outside it), then the ids themselves."""
    return [column >= sa.bindparam("first", min(chunk)), column <= sa.bindparam("last", max(chunk)),
            column.in_(sa.bindparam("games", chunk, expanding=True))]


def _moves(rows: list, where: str) -> list:
    """The ``KifuMove``s of one line's rows; ``UnwritableGame`` at a move not replayed."""
    out = []
    for row in rows:
        if row["usi"] is None:
            raise UnwritableGame(f"{where}move {row['ply']} {row['text']!r} could not be played "
                                 f"when the game was read ('kifudb validate' says why); a record "
                                 f"holds legal moves only")
        out.append(KifuMove(row["usi"], row["seconds"], None,
                            row["comment"].split("\n") if row["comment"] else []))
    return out


def _kifu(row: dict, lines: dict) -> Kifu:
    headers = json.loads(row["headers"]) if row["headers"] else {}
    ending = None
    if row["declared_ending"]:
        ending = KifuEnding(row["declared_ending"], row["winner"] or "none",
                            row["reason"] or "unknown")
    kifu = Kifu(headers=list(headers.items()), start_sfen=row["start_sfen"] or STARTING_SFEN,
                moves=_moves(lines.get(0, []), ""),
                comments=row["comments"].split("\n") if row["comments"] else [], ending=ending)
    for number in sorted(n for n in lines if n):
        rows = lines[number]
        parent = rows[0]["parent"]
        kifu.variations.append(KifuVariation(
            rows[0]["ply"], _moves(rows, f"variation {number} (from ply {rows[0]['ply']}): "),
            None if not parent else parent - 1))
    return kifu


def record_text(store, game: int, fmt: str, encoding: str = "utf-8",
                analysis: bool = False) -> dict:
    """One stored game written in ``fmt`` (``core.writers.FORMATS``), as the game viewer offers
    it for download: ``text`` (None when it cannot be written), ``problem`` (why not) and
    ``left_out`` (what the format cannot hold of it, ``core.writers.left_out``). ``encoding``
    is what a KIF or CSA text declares (``cp932`` for old Windows tools); the caller encodes
    the text. With ``analysis``, the store's engine analysis goes into the comments
    (``stored_kifus``)."""
    from kifudb.core.writers import FORMATS, left_out, write

    fmt = checks.choice(fmt, "format", FORMATS)
    found = next(stored_kifus(store, [game], variations=fmt in ("kif", "ki2", "jkf"),
                              analysis={} if analysis and fmt != "usi" else None))
    if found.kifu is None:
        return {"text": None, "problem": found.problem, "left_out": []}
    said = left_out(found.kifu, fmt)
    if found.dropped_variations:
        said.insert(0, f"{found.dropped_variations} variation"
                       f"{'s' if found.dropped_variations > 1 else ''}")
    return {"text": write(found.kifu, fmt, encoding), "problem": None, "left_out": said}


_UNSAFE_NAME = re.compile(r"[^\w.\-]+")


def record_file_name(game: int, path: Optional[str], fmt: str) -> str:
    """The file name of stored game ``game`` written alone in ``fmt``: its id, then the stem of
    its source file ``path`` (what file names cannot hold made ``_``; a name too long cut by
    ``analytics.files.fitted_name``)::

        >>> record_file_name(7, "records/羽生 vs 藤井?.kif", "csa")
        '7-羽生_vs_藤井_.csa'
        >>> record_file_name(8, None, "jkf")
        '8-game.jkf'
    """
    from kifudb.core.writers import EXTENSIONS

    stem = _UNSAFE_NAME.sub("_", PurePath(path or "game").stem)
    return fitted_name(f"{game}-{stem}", EXTENSIONS[fmt])


class Archive(NamedTuple):
    """Games as one download: ``data`` (bytes), its ``file_name`` and ``media_type``, the
    number of games ``written`` and the ``problems`` of those that could not be (``game N:
    why``)."""

    data: bytes
    file_name: str
    media_type: str
    written: int
    problems: list


def games_archive(store, chosen: list, fmt: str = "kif", name: str = "kifudb-games",
                  encoding: str = "utf-8") -> Archive:
    """The games ``chosen`` (``chosen_games`` rows, or game ids) written in ``fmt`` as one
    download: one CSA file (games split by ``/``) or one USI file (a line each), else a ZIP of
    one file per game (``record_file_name``) named ``name``. A game that cannot be written is
    left out and said in ``problems``, and in the download: a ZIP's ``problems.txt``, comment
    lines at the top of a CSA or USI file. ``encoding``: the files' (``cp932`` for old Windows
    tools; a game with a character it lacks is left out and said)::

        >>> import tempfile, shutil
        >>> from kifudb.store.writer import ingest_paths
        >>> folder = tempfile.mkdtemp()
        >>> _ = ingest_paths(["data/samples/records"], folder)
        >>> archive = games_archive(folder, [7, 8, 12], "kif")
        >>> archive.file_name, archive.written, archive.problems  # doctest: +ELLIPSIS
        ('kifudb-games.zip', 2, ["game 8: move 3 '２一角成(88)' could not be played ..."])
        >>> sorted(zipfile.ZipFile(io.BytesIO(archive.data)).namelist())
        ['12-ryuou201409020101.kif', '7-habu-fujii-2006.kif', 'problems.txt']
        >>> usi = games_archive(folder, [7, 8, 12], "usi")
        >>> usi.file_name, usi.media_type, usi.data.decode().count("position ")
        ('kifudb-games.usi', 'text/plain; charset=utf-8', 2)
        >>> usi.data.decode().splitlines()[0]  # doctest: +ELLIPSIS
        "# kifudb: left out: game 8: move 3 '２一角成(88)' could not be played ..."
        >>> shutil.rmtree(folder)
    """
    from kifudb.core.writers import EXTENSIONS, FORMATS, MEDIA_TYPES, MULTI_GAME, write, write_games

    fmt = checks.choice(fmt, "format", FORMATS)
    paths = {row["game"]: row.get("path") for row in chosen if isinstance(row, dict)}
    unnamed = [checks.game_id(game) for game in chosen if not isinstance(game, dict)]
    for at in range(0, len(unnamed), _CHUNK):
        chunk = unnamed[at:at + _CHUNK]
        g = game_summary.c
        paths.update((row["game"], row["path"]) for row in fetch(
            store, sa.select(g.game, g.path).where(*_among(g.game, chunk))))
    kifus, files, problems = [], [], []
    for game, kifu, problem, _ in stored_kifus(store, chosen,
                                               variations=fmt in ("kif", "ki2", "jkf")):
        if kifu is None:
            problems.append(f"game {game}: {problem}")
            continue
        try:
            text = write(kifu, fmt, encoding)
            text.encode(encoding)
        except UnicodeEncodeError as error:
            problems.append(f"game {game}: {encoding} has no character "
                            f"{error.object[error.start]!r}")
            continue
        except ValueError as error:
            problems.append(f"game {game}: {error}")
            continue
        if fmt in MULTI_GAME:
            kifus.append(kifu)
            continue
        try:
            files.append((record_file_name(game, paths.get(game), fmt), text))
        except ValueError as error:
            problems.append(f"game {game}: {error}")
    if fmt in MULTI_GAME:  # the games left out are said in comment lines at the top
        mark = "'" if fmt == "csa" else "# "
        said = "".join(f"{mark}kifudb: left out: {problem}\n" for problem in problems)
        text = said + ("\n" if said and fmt == "usi" else "") + write_games(kifus, fmt,
                                                                           encoding)
        return Archive(text.encode(encoding, "replace"), name + EXTENSIONS[fmt], MEDIA_TYPES[fmt],
                       len(kifus), problems)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file_name, text in files:
            archive.writestr(file_name, text.encode(encoding))
        if problems:
            archive.writestr("problems.txt", "\n".join(problems) + "\n")
    return Archive(buffer.getvalue(), name + ".zip", "application/zip", len(files), problems)

