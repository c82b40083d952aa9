"""Records out with a real engine's analysis (issue 27), end to end: the WCSC28 games of
``analysed_store`` (``tests/conftest.py``: every position analysed by Debian's
``fairy-stockfish`` through the runner, ``kifudb.analysis.run``), exported as KIF with the
analysis in ShogiHome's research comments, and ingested again: every move gives back the
analysis's ``score_black``, mate and PV; hcpe takes its scores from it."""

from __future__ import annotations

import struct

import pytest
from click.testing import CliRunner

from kifudb.analytics.judgement import game_analysis
from kifudb.cli import main
from kifudb.core.move import Move
from kifudb.core.position import Position
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

from analysis_store import main_line

MATE = 100_000


@pytest.fixture
def store(analysed_store):
    return analysed_store


def export(*arguments) -> str:
    result = CliRunner().invoke(main, ["export", *map(str, arguments)])
    assert result.exit_code == 0, result.output
    return result.output


def games(folder) -> dict:
    """``{game: first source path}``."""
    connection = Store(folder).connect()
    try:
        return dict(connection.execute("SELECT game, min(path) FROM sources GROUP BY game")
                    .fetchall())
    finally:
        connection.close()


def test_the_engines_analysis_goes_out_as_kif_comments_and_comes_back(store, tmp_path):
    out = tmp_path / "out"
    said = export("--store", store, "--to", "kif", "--output", out)
    analysed = {game: [r for r in game_analysis(store, game) if r["engine"] is not None]
                for game in games(store)}
    moves = sum(len(rows) for rows in analysed.values())
    assert moves > 100
    assert f"the engine's analysis of {moves} moves of {len(analysed)} games" in said
    again = tmp_path / "again"
    ingest_paths([str(out)], again)
    back_games = {path.rsplit("/", 1)[-1].split("-", 1)[0]: game
                  for game, path in games(again).items()}
    connection = Store(again).connect()
    for game, rows in analysed.items():
        start, usi, _ = main_line(store, game)
        back = {ply: rest for ply, *rest in connection.execute(
            "SELECT ply, score_black, mate, pv, engine, dialect FROM moves WHERE game = ? AND "
            "line = 0", [back_games[str(game)]]).fetchall()}
        position = Position.from_sfen(start)
        played = {row["ply"]: row for row in rows}
        for ply in range(1, len(usi) + 1):
            position.push(Move.from_usi(usi[ply - 1]))
            row = played.get(ply)
            if row is None:
                assert back[ply][:2] == [None, None]
                continue
            score, mate, pv, engine, dialect = back[ply]
            if row["mate_black"] is not None:
                assert (score, mate) == (MATE if row["mate_black"] > 0 else -MATE,
                                         row["mate_black"]), (game, ply)
            else:
                assert (score, mate) == (row["score_black"], None), (game, ply)
            # the engine's line, as far as it replays (a real engine's PV does, whole)
            assert pv == row["pv"], (game, ply)
            assert engine == f"{row['engine']} {row['limit']}"
            assert dialect == "shogihome-research"
    connection.close()


def test_hcpe_takes_its_scores_from_the_engines_analysis(store, tmp_path):
    output = tmp_path / "games.hcpe"
    said = export("--store", store, "--to", "hcpe", "--output", output)
    data = output.read_bytes()
    shape = struct.Struct("<32shHbx")
    scores = [shape.unpack_from(data, at)[1] for at in range(0, len(data), shape.size)]
    expected, starts = [], 0
    for game in sorted(games(store)):
        rows = {r["ply"]: r for r in game_analysis(store, game)}
        start, usi, _ = main_line(store, game)
        starts += 0 not in rows
        for ply in range(1, len(usi) + 1):
            before = rows.get(ply - 1)
            black_to_move = ply % 2 == 1
            if before is None or before["engine"] is None:
                expected.append(0)
            elif before["mate_black"] is not None:
                value = 32000 - abs(before["mate_black"])
                expected.append(value if (before["mate_black"] > 0) == black_to_move else -value)
            else:
                expected.append(before["score_black"] if black_to_move
                                else -before["score_black"])
    assert scores == expected
    assert f"({len(scores) - starts} of them from the engine's analysis)" in said


def test_convert_takes_the_analysis_of_each_position_from_a_store(store, tmp_path):
    """``kifudb convert FILE --analysis-from STORE``: a record read from its file gets, at
    each move, the store's analysis of the position after it (found by its key), as
    ``export`` writes it; a store that analysed none of its positions is said."""
    from conftest import ANALYSED_GAMES

    source = ANALYSED_GAMES[0]
    result = CliRunner().invoke(main, ["convert", str(source), "--to", "kif", "--output",
                                       str(tmp_path / "out"), "--analysis-from", str(store)])
    assert result.exit_code == 0, result.output
    game = next(g for g, path in games(store).items() if path.endswith(source.name))
    analysed = [r for r in game_analysis(store, game) if r["engine"] is not None]
    assert f"the engine's analysis of {len(analysed)} moves of 1 game" in result.output
    again = tmp_path / "again"
    ingest_paths([str(tmp_path / "out")], again)
    back = dict(Store(again).connect().execute(
        "SELECT ply, score_black FROM moves WHERE line = 0 AND dialect = 'shogihome-research'"
    ).fetchall())
    assert back == {r["ply"]: (r["score_black"] if r["mate_black"] is None else
                               (MATE if r["mate_black"] > 0 else -MATE)) for r in analysed}
    empty = tmp_path / "empty"
    ingest_paths([str(ANALYSED_GAMES[-1])], empty)  # a store without analysis
    result = CliRunner().invoke(main, ["convert", str(source), "--to", "kif", "--output",
                                       str(tmp_path / "out2"), "--analysis-from", str(empty)])
    assert result.exit_code == 1 and "no engine analysis in" in result.output
