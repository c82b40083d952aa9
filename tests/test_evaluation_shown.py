"""Issue 29, defect 11: an engine's comment (``** 113 -3334FU +2625FU …``) shown as a reader
wants it — the score from Black's side and the PV in Japanese notation
(``analytics.game_record.evaluation_shown``, what the dashboard's game viewer shows) — on the
real floodgate log of ``tests/fixtures/evaluations``."""

from __future__ import annotations

from pathlib import Path

from kifudb.analytics.game_record import evaluation_shown, game_record
from kifudb.core.move import Move
from kifudb.core.notation import parse_ki2_move
from kifudb.core.position import Position
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

FLOODGATE = Path(__file__).resolve().parent / "fixtures" / "evaluations" / "floodgate-2021.csa"


def test_every_evaluated_move_reads_as_a_score_and_a_japanese_pv(tmp_path):
    store = tmp_path / "store"
    ingest_paths([str(FLOODGATE)], store)
    game = Store(store).connect().execute("SELECT min(game) FROM games").fetchone()[0]
    record = game_record(store, game)
    first = record["moves"][0]
    assert first["comment"].startswith("** 113 -3334FU +2625FU")  # as written
    shown = evaluation_shown(first["evaluation"], record["sfens"][1], first["usi"])
    assert shown["score"] == "+113" and shown["pv"].startswith("△３四歩 ▲２五歩")
    assert "FU" not in shown["text"] and shown["text"].startswith("+113 ")
    evaluated = 0
    for ply, move in enumerate(record["moves"], 1):
        if move["evaluation"] is None or not move["evaluation"]["pv"]:
            continue
        evaluated += 1
        shown = evaluation_shown(move["evaluation"], record["sfens"][ply], move["usi"],
                                 pv_moves=1000)
        # the KI2 PV is the stored USI PV, move for move, as far as it replays
        position = Position.from_sfen(record["sfens"][ply])
        previous = Move.from_usi(move["usi"]).to_square
        for written, usi in zip(shown["pv"].split(), move["evaluation"]["pv"].split()):
            parsed = parse_ki2_move(position, written.replace("同", "同\u3000")
                                    if len(written) == 3 and "同" in written else written,
                                    previous)
            assert parsed.usi() == usi, (ply, written, usi)
            position.push(parsed)
            previous = parsed.to_square
    assert evaluated > 50


def test_kifudb_game_shows_the_pv_in_japanese_not_the_raw_line(tmp_path):
    from click.testing import CliRunner

    from kifudb.cli import main

    store = tmp_path / "store"
    ingest_paths([str(FLOODGATE)], store)
    shown = CliRunner().invoke(main, ["game", "1", "--store", str(store)])
    assert shown.exit_code == 0, shown.output
    first = next(line for line in shown.output.splitlines() if line.lstrip().startswith("1  "))
    assert "+113" in first and "PV △３四歩 ▲２五歩" in first
    assert "** " not in shown.output  # no raw engine line
