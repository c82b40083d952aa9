"""Records out with the engine's analysis (issue 27): ``kifudb export`` writes it into the
records' comments in ShogiHome's research dialect (``#評価値=`` …,
``analytics.analysis_comments``), which ``kifudb ingest`` reads back as the same
``score_black``, ``mate`` and ``pv``; hcpe/psv take their scores from it where the record has
none. On real records with analysis rows made by hand (``analysis_store``), so that every
number is known; ``test_export_analysis_engine.py`` does it with the real engine."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.analytics.judgement import game_analysis
from kifudb.cli import main
from kifudb.core.move import Move
from kifudb.core.position import Position
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

from analysis_store import BLUNDER, ENGINE, LIMIT, ROOT, commit_analysis, games_of, main_line

RECORDS = ROOT / "data" / "samples" / "records"
EVALUATIONS = ROOT / "tests" / "fixtures" / "evaluations"
MATE = 100_000


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """``(store, {game: {ply: row}})``: the sample records, three games analysed by hand."""
    store = tmp_path_factory.mktemp("export-analysis") / "store"
    ingest_paths([str(RECORDS)], store)
    made = commit_analysis(store, games_of(store))
    return store, made


def export(*arguments) -> str:
    result = CliRunner().invoke(main, ["export", *map(str, arguments)])
    assert result.exit_code == 0, result.output
    return result.output


def stored_moves(store, game: int) -> dict:
    """``{ply: (score_black, mate, pv, engine, dialect)}`` of a game's main line as stored."""
    connection = Store(store).connect()
    try:
        return {ply: rest for ply, *rest in connection.execute(
            "SELECT ply, score_black, mate, pv, engine, dialect FROM moves WHERE game = ? AND "
            "line = 0 ORDER BY ply", [game]).fetchall()}
    finally:
        connection.close()


def game_of_file(store, name: str) -> int:
    connection = Store(store).connect()
    try:
        return connection.execute("SELECT game FROM sources WHERE path LIKE ?",
                                  [f"%{name}"]).fetchone()[0]
    finally:
        connection.close()


def legal_prefix(sfen_after: str, pv: str | None) -> str | None:
    """The moves of ``pv`` that replay from ``sfen_after`` (all of a real line)."""
    if not pv:
        return None
    position, kept = Position.from_sfen(sfen_after), []
    for usi in pv.split():
        move = Move.from_usi(usi)
        if position.illegality(move) is not None:
            break
        position.push(move)
        kept.append(usi)
    return " ".join(kept) or None


@pytest.mark.parametrize("fmt", ["kif", "ki2", "jkf", "csa"])
def test_the_analysis_goes_out_as_shogihome_comments_and_comes_back(analysed, tmp_path, fmt):
    store, made = analysed
    out = tmp_path / "out"
    said = export("--store", store, "--to", fmt, "--output", out, "--min-moves", 10)
    # every move after which the position was analysed, in any game (openings are shared)
    connection = Store(store).connect()
    moves, games = connection.execute(
        "SELECT count(*), count(DISTINCT game) FROM positions JOIN games USING (game) WHERE "
        "ply >= 1 AND moves >= 10 AND key IN (SELECT key FROM analysis)").fetchone()
    connection.close()
    assert games > len(made)
    assert f"the engine's analysis of {moves} moves of {games} games" in said
    again = tmp_path / "again"
    ingest_paths([str(out)], again)
    for game, rows in made.items():
        [written] = out.glob(f"{game}-*")
        text = written.read_text(encoding="utf-8")
        assert "#評価値=" in text and "#読み筋=" in text and f"#エンジン={ENGINE} {LIMIT}" in text
        start, usi, _ = main_line(store, game)
        back = stored_moves(again, game_of_file(again, written.name))
        position = Position.from_sfen(start)
        for ply in range(1, len(usi) + 1):
            position.push(Move.from_usi(usi[ply - 1]))
            row = rows.get(ply)  # the analysis of the position after the move
            if row is None:  # the final position: not analysed, nothing written
                assert tuple(back[ply][:3]) == (None, None, None), (game, ply)
                continue
            score, mate, pv, engine, dialect = back[ply]
            if row["mate_black"] is not None:
                assert (score, mate) == (MATE if row["mate_black"] > 0 else -MATE,
                                         row["mate_black"])
            else:
                assert (score, mate) == (row["score_black"], None), (game, ply)
            assert pv == legal_prefix(position.sfen(), row["pv"]) == row["pv"], (game, ply)
            assert (engine, dialect) == (f"{ENGINE} {LIMIT}", "shogihome-research")


def test_the_blunder_and_the_mate_read_back(analysed, tmp_path):
    store, made = analysed
    game = next(iter(made))
    out = tmp_path / "out"
    export("--store", store, "--to", "kif", "--output", out, "--min-moves", 10)
    [written] = out.glob(f"{game}-*")
    lines = written.read_text(encoding="utf-8").splitlines()
    # the move after which Black's score fell from +300 to -2000 carries -2000
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith(f"{BLUNDER} "))
    assert lines[at + 1] == "*#評価値=-2000"
    last = max(made[game])
    mate = made[game][last]["mate_black"]
    assert f"*#詰み={'先手勝ち' if mate > 0 else '後手勝ち'}:3手" in lines


def test_no_analysis_and_usi_write_none(analysed, tmp_path):
    store, made = analysed
    said = export("--store", store, "--to", "kif", "--output", tmp_path / "plain", "--no-analysis",
                  "--min-moves", 10)
    assert "engine's analysis" not in said
    assert not any("#評価値" in f.read_text(encoding="utf-8")
                   for f in (tmp_path / "plain").iterdir())
    said = export("--store", store, "--to", "usi", "--output", tmp_path / "games.usi",
                  "--min-moves", 10)
    assert "engine's analysis" not in said


def test_a_store_without_analysis_writes_what_it_wrote_before(tmp_path):
    store = tmp_path / "store"
    ingest_paths([str(RECORDS)], store)
    with_default = export("--store", store, "--to", "kif", "--output", tmp_path / "a",
                          "--min-moves", 10)
    export("--store", store, "--to", "kif", "--output", tmp_path / "b", "--no-analysis",
           "--min-moves", 10)
    assert "engine's analysis" not in with_default
    for first in (tmp_path / "a").iterdir():
        assert first.read_bytes() == (tmp_path / "b" / first.name).read_bytes()


def test_a_move_with_research_lines_of_its_own_keeps_them(tmp_path):
    """ShogiHome's research record: moves 5–7 carry an analysis of their own (``#評価値=-102``
    …); they keep it, and the other moves get the engine's."""
    store = tmp_path / "store"
    ingest_paths([str(EVALUATIONS / "shogihome-research.kifu")], store)
    [game] = games_of(store, minimum_moves=1, limit=1, evaluated=True)
    made = commit_analysis(store, [game])
    out = tmp_path / "out"
    said = export("--store", store, "--to", "kif", "--output", out)
    assert "3 moves kept the record's own" in said
    [written] = out.glob("*.kif")
    text = written.read_text(encoding="utf-8")
    assert text.count("*#評価値=-102") == 1 and "*#深さ=21" in text
    again = tmp_path / "again"
    ingest_paths([str(out)], again)
    back = stored_moves(again, 1)
    assert back[5][0] == -102 and back[5][3] == "MyEngine"  # the record's own analysis
    assert back[8][0] == made[game][8]["score_black"] and back[8][3] == f"{ENGINE} {LIMIT}"


def test_a_record_with_evaluations_of_its_own_gets_the_analysis_beside_them(tmp_path):
    """The WCSC32 final: both engines' ``'**`` lines stay, the analysis's lines follow them,
    and read again the record's own evaluation is the move's (its dialect comes first)."""
    store = tmp_path / "store"
    ingest_paths([str(RECORDS / "WCSC32_F7_NBS_DLS.csa")], store)
    [game] = games_of(store, limit=1, evaluated=True)
    made = commit_analysis(store, [game])[game]
    out = tmp_path / "out"
    said = export("--store", store, "--to", "kif", "--output", out)
    assert f"the engine's analysis of {len(made) - 1} moves of 1 game" in said  # not the start
    [written] = out.glob("*.kif")
    text = written.read_text(encoding="utf-8")
    assert "*** " in text and text.count("*#評価値=") + text.count("*#詰み=") == len(made) - 1
    again = tmp_path / "again"
    ingest_paths([str(out)], again)
    assert stored_moves(again, 1) == stored_moves(store, game)


# ----- training data --------------------------------------------------------------------------------

HCPE = struct.Struct("<32shHbx")
PSV = struct.Struct("<32shHHbx")


def scores_of(path: Path, fmt: str) -> list:
    shape = HCPE if fmt == "hcpe" else PSV
    data = path.read_bytes()
    return [shape.unpack_from(data, at)[1] for at in range(0, len(data), shape.size)]


def expected(row, black_to_move: bool):
    """A position's analysis as the side to move's score on YaneuraOu's scale."""
    if row["mate_black"] is not None:
        value = 32000 - abs(row["mate_black"])
        return value if (row["mate_black"] > 0) == black_to_move else -value
    return row["score_black"] if black_to_move else -row["score_black"]


@pytest.mark.parametrize("fmt", ["hcpe", "psv"])
@pytest.mark.parametrize("record", ["habu-fujii-2006.kif", "WCSC32_F7_NBS_DLS.csa"])
def test_training_data_takes_its_scores_from_the_analysis_where_the_record_has_none(
        tmp_path, fmt, record):
    """A professional game (no evaluation in its record: the analysis gives every score but
    the start's) and a WCSC final (both engines' evaluations in the record: they win), each
    analysed by hand, alone in a store."""
    store = tmp_path / "store"
    ingest_paths([str(RECORDS / record)], store)
    [game] = games_of(store, limit=1, evaluated=record.endswith(".csa"))
    plain, scored = tmp_path / "plain.bin", tmp_path / "scored.bin"
    export("--store", store, "--to", fmt, "--output", plain)
    before = scores_of(plain, fmt)
    made = commit_analysis(store, [game])[game]
    export("--store", store, "--to", fmt, "--output", plain, "--no-analysis", "--overwrite")
    assert scores_of(plain, fmt) == before
    said = export("--store", store, "--to", fmt, "--output", scored)
    after = scores_of(scored, fmt)
    assert len(after) == len(before) == len(main_line(store, game)[1])
    own = stored_moves(store, game)
    start_row = any(row["ply"] == 0 for row in game_analysis(store, game))
    from_analysis = 0
    for ply, (old, new) in enumerate(zip(before, after), 1):
        if own[ply][0] is not None:  # the record's own evaluation wins
            assert new == old, ply
        elif ply == 1 and not start_row:  # game_analysis has no row of the start position
            assert new == old == 0
        else:  # the position before the move: the row of the ply before
            assert new == expected(made[ply - 1], ply % 2 == 1), ply
            from_analysis += 1
    if from_analysis:
        assert f"({from_analysis} of them from the engine's analysis)" in said
    else:
        assert "engine's analysis" not in said
    if record.endswith(".kif"):
        assert from_analysis == len(after) - (not start_row)
