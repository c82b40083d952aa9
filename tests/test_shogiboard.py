"""The board you can play on, without a browser: what it is told may be played
(``dashboard.shogiboard.moves.board_moves``) is exactly the legal moves of ``kifudb.core`` —
board moves, drops (no second pawn on a file, no pawn drop that mates, none on a square a piece
could never leave), promotions that are a choice or forced —, a move that comes back is checked
again, the arrows, and the built bundle is the one its sources make (``build.py``, what
``make shogiboard`` checks).

The board in a real browser: ``tests/test_shogiboard_e2e.py``.
"""

from __future__ import annotations

import doctest
import json
import shutil
from pathlib import Path

import pytest

from kifudb.analytics.position_input import position_from_moves
from kifudb.core.position import Position
from kifudb.dashboard import board
from kifudb.dashboard.shogiboard import BRUSHES, arrow, build, moves
from kifudb.dashboard.shogiboard.moves import board_moves, usi_of

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "data" / "samples" / "games.usi"

#: Positions with every kind of move: drops of each piece, a pawn drop that would mate
#: (forbidden), a second pawn on a file (forbidden), promotions that are a choice, promotions
#: that are forced (a pawn, lance or knight that could not move again), moves out of check.
POSITIONS = {
    "start": "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "every piece in hand": "4k4/9/9/9/9/9/4P4/9/4K4 b RBGSNLP 1",
    "pawn drop mate": "8k/9/6NGG/9/9/9/9/9/K8 b P 1",
    "promotions": "4k4/PL5S1/9/2P2N3/3N5/9/9/9/4K4 b - 1",
    "white promotes": "4k4/9/9/9/9/9/2p6/pl5s1/4K4 w - 1",
    "check": "4k4/9/9/9/9/9/9/4r4/4K4 b G 1",
    "handicap": "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
}


def moves_offered(offered: dict) -> set:
    """The USI moves the board lets be played, from what it was told."""
    found = set()
    for origin, targets in offered["moves"].items():
        for target in targets:
            way = offered["promotions"].get(origin + target)
            if way in (None, "choice"):
                found.add(origin + target)
            if way in ("choice", "forced"):
                found.add(origin + target + "+")
    for letter, targets in offered["drops"].items():
        found |= {f"{letter}*{target}" for target in targets}
    return found


def real_positions(limit: int = 400):
    """Positions of the sample games (professional, handicap, computer and amateur), every
    tenth ply of each."""
    from kifudb.core.notation.usi import parse_position_line

    found = []
    for line in GAMES.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        start, played = parse_position_line(line.split(" #", 1)[0].split("%", 1)[0].strip())
        position = Position.from_sfen(start)
        for ply, usi in enumerate(played):
            if ply % 10 == 0:
                found.append(position.sfen())
            if usi_of(position, usi) is None:
                break
            position.push_usi(usi)
    return found[:limit]


@pytest.mark.parametrize("name", POSITIONS)
def test_the_board_offers_exactly_the_legal_moves(name):
    position = Position.from_sfen(POSITIONS[name])
    legal = {m.usi() for m in position.legal_moves()}
    assert legal and moves_offered(board_moves(position)) == legal


def test_the_same_over_the_positions_of_real_games():
    positions = real_positions()
    assert len(positions) > 100
    for sfen in positions:
        position = Position.from_sfen(sfen)
        assert moves_offered(board_moves(position)) == {m.usi() for m in position.legal_moves()}


def test_drops_and_promotions_as_the_rules_say():
    hand = board_moves(Position.from_sfen(POSITIONS["every piece in hand"]))["drops"]
    assert set(hand) == set("RBGSNLP")
    assert "5e" not in hand["P"] and "5f" not in hand["P"]        # a pawn on file 5 already
    assert "4a" not in hand["P"] and "4a" not in hand["L"]        # never to move again
    assert "4b" not in hand["N"] and "4c" in hand["N"] and "4a" in hand["G"]
    mate = board_moves(Position.from_sfen(POSITIONS["pawn drop mate"]))["drops"]["P"]
    assert "1b" not in mate and "1d" in mate and "2a" not in mate  # 打ち歩詰め
    promotions = board_moves(Position.from_sfen(POSITIONS["promotions"]))["promotions"]
    assert promotions["9b9a"] == "forced" and promotions["8b8a"] == "forced"  # pawn, lance
    assert promotions["7d7c"] == "choice" and promotions["6e7c"] == "choice"
    assert promotions["4d5b"] == "forced" == promotions["4d3b"]   # a knight on rank b
    assert promotions["2b1a"] == "choice" and promotions["2b3c"] == "choice"  # silver
    white = board_moves(Position.from_sfen(POSITIONS["white promotes"]))["promotions"]
    assert white["9h9i"] == "forced" and white["7g7h"] == "choice"
    check = board_moves(Position.from_sfen(POSITIONS["check"]))
    assert check["drops"] == {} and check["moves"] == {"5i": ["4i", "5h", "6i"]}


def test_a_move_from_the_browser_is_checked_again():
    start = Position()
    assert usi_of(start, "7g7f") == "7g7f"
    for wrong in ("7g7e", "P*5e", "7g7f+", "", None, "7g7f; drop table", 77, "5i5h5g"):
        assert usi_of(start, wrong) is None, wrong


def test_arrows():
    after = position_from_moves("7g7f 3c3d")
    found = [{"move": "2g2f"}, {"move": "8h2b+"}, {"move": "6i7h"}, {"move": "4i5h"}]
    drawn = board.played_arrows(found)
    assert [a["usi"] for a in drawn] == ["2g2f", "8h2b+", "6i7h"]
    assert all(usi_of(after, a["usi"]) for a in drawn)
    assert [a["brush"] for a in drawn] == ["alternative1", "alternative2", "alternative2"]
    assert board.engine_arrow({"pv": "P*5e 5d5e"})[0]["usi"] == "P*5e"
    assert board.engine_arrow({"pv": None}) == [] == board.engine_arrow({"pv": ""})
    assert set(BRUSHES) >= {a["brush"] for a in drawn}
    with pytest.raises(ValueError, match="brush"):
        arrow("7g7f", "red")
    with pytest.raises(ValueError):
        arrow("7g7")


def test_the_modules_examples():
    for module in (moves, build, board):
        failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)[:2]
        assert tried and not failed, module.__name__


def test_the_bundle_is_built_from_the_sources_as_they_are():
    """What ``make shogiboard`` checks: the bundle in ``web-build/`` (which the wheel ships)
    was made from the sources of ``web-src/`` as they are now."""
    assert build.stale() == []
    page = (build.HERE / "web-build" / "index.html").read_text(encoding="utf-8")
    assert 'src="shogiboard.js"' in page and 'href="shogiboard.css"' in page
    lock = json.loads((build.HERE / "web-src" / "package-lock.json").read_text("utf-8"))
    assert lock["packages"]["node_modules/shogiground"]["version"] == "0.10.3"
    assert "GNU GENERAL PUBLIC LICENSE" in (build.HERE / "web-build" /
                                            "LICENSE-shogiground.txt").read_text("utf-8")


def test_a_changed_source_makes_the_bundle_stale(tmp_path):
    copy = tmp_path / "shogiboard"
    shutil.copytree(build.HERE, copy, ignore=shutil.ignore_patterns("node_modules"))
    assert build.stale(copy) == []
    source = copy / "web-src" / "src" / "board.css"
    source.write_text(source.read_text("utf-8") + "\n/* changed */\n", encoding="utf-8")
    (copy / "web-build" / "shogiboard.js").unlink()
    (copy / "web-src" / "src" / "new.js").write_text("//\n", encoding="utf-8")
    assert build.stale(copy) == ["web-build/shogiboard.js", "web-src/src/board.css",
                                 "web-src/src/new.js"]
    (copy / "web-build" / "sources.json").unlink()
    assert build.stale(copy) == ["web-build/sources.json"]


def test_the_package_ships_the_bundle_and_its_sources(tmp_path):
    """The files git knows (as ``tests/test_packaging.py`` builds its wheel from them), built
    as a wheel builds its package (setuptools' ``build_py``): the bundle and the sources it
    is made from are in ``kifudb/dashboard/shogiboard``, and no warning is printed (a data
    folder with a Python name is one: "Package would be ignored")."""
    import subprocess
    import sys

    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    from tools.build_native import PACKAGE_DIRS

    folders = tuple(f"{folder}/" for folder in (*PACKAGE_DIRS.values(), "tools"))
    source = tmp_path / "source"
    for name in filter(None, listed):
        if (ROOT / name).is_file() and (name.startswith(folders) or "/" not in name):
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "-d",
                           str(tmp_path / "out")], cwd=source, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Package would be ignored" not in done.stderr, done.stderr
    built = tmp_path / "out" / "kifudb" / "dashboard" / "shogiboard"
    shipped = sorted(str(p.relative_to(built)) for p in built.rglob("*") if p.is_file())
    expected = {f"web-build/{name}" for name in (*build.BUNDLE, "sources.json")}
    expected |= {f"web-src/{name}" for name in build.sources(build.HERE / "web-src")}
    assert expected <= set(shipped), shipped
    assert not any("node_modules" in name for name in shipped)
    assert build.stale(built) == []  # the shipped bundle is the one its shipped sources make


def _board_page():
    """A page with a board to play on (run by Streamlit's AppTest): a handicap position, an
    arrow; the move played is written under it."""
    import streamlit as st

    from kifudb.core.position import Position
    from kifudb.dashboard import board

    sfen = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
    played = board.play_board(Position.from_sfen(sfen), key="b", handicap=True,
                              arrows=board.played_arrows([{"move": "3c3d"}]))
    st.write(f"played: {played}")


HANDICAP = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"


def test_the_board_is_told_the_position_its_moves_and_its_hands_names():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_board_page).run()
    assert not at.exception
    (component,) = at.get("component_instance")
    told = json.loads(component.proto.json_args)
    assert told["sfen"] == HANDICAP and told["orientation"] == "black"
    assert told["hand_names"] == {"black": "▲下手の持駒", "white": "△上手の持駒"}
    assert moves_offered(told) == {m.usi() for m in Position.from_sfen(HANDICAP).legal_moves()}
    assert [a["usi"] for a in told["arrows"]] == ["3c3d"]
    assert [m.value for m in at.markdown if m.value.startswith("played")] == ["played: None"]


@pytest.mark.parametrize("sent, expected", [
    ({"usi": "3c3d", "sfen": HANDICAP, "id": "1"}, "3c3d"),
    ({"usi": "3c3b", "sfen": HANDICAP, "id": "2"}, "None"),        # not a legal move
    ({"usi": "7g7f", "sfen": POSITIONS["start"], "id": "3"}, "None"),  # from another position
    ({"usi": "3c3d", "sfen": HANDICAP}, "None"),                   # no id: not the board's
    ("3c3d", "None"),                                               # not what the board sends
])
def test_a_move_sent_by_the_board_is_taken_once_if_legal_on_the_position_shown(sent, expected):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_board_page).run()
    at.session_state["b"] = sent
    at.run()
    assert not at.exception
    assert [m.value for m in at.markdown if m.value.startswith("played")] == [
        f"played: {expected}"]
    at.run()  # taken once
    assert [m.value for m in at.markdown if m.value.startswith("played")] == ["played: None"]
