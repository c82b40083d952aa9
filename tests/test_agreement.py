"""Every game of every real record file in ``tests/fixtures`` (``records/``, ``six_formats/``,
``dialects/``, ``usi/``) reads to the same start position, moves and final position as at least
one independent reader (cshogi, python-shogi, rsshogi: ``tests/independent_readers.py``), or
carries a finding that says why it differs. ``tools/agreement.py`` runs the same check over the
shared corpus.
"""

from pathlib import Path

import pytest

from independent_readers import file_agreement, norm_sfen, possible
from kifudb.ingest.read import record_files

FIXTURES = Path(__file__).parent / "fixtures"
FOLDERS = ("records", "six_formats", "dialects", "usi")

pytestmark = pytest.mark.slow  # about a minute: every file is read by four readers

#: the games no independent reader reads (rsshogi refuses, cshogi and python-shogi lack the
#: format or the feature, or a reader's start holds pieces a game does not have): their files
#: and why. A new one makes the test fail, so that it is looked at.
UNVERIFIED = {
    "tsumeshogi.csa": "P-00AL: cshogi ignores it, python-shogi fails, rsshogi gives White a "
                      "third bishop",
}


def _agreements():
    results = []
    for path in record_files([str(FIXTURES / folder) for folder in FOLDERS]):
        results += file_agreement(path)[1]
    return results


@pytest.fixture(scope="module")
def agreements():
    return _agreements()


def test_every_fixture_game_agrees_or_says_why(agreements):
    assert len(agreements) > 2500
    wrong = [f"{a.path} #{a.index}: {a.why}" for a in agreements if a.verdict == "disagrees"]
    assert not wrong, "\n".join(wrong)
    assert sum(a.verdict == "agrees" for a in agreements) > 0.99 * len(agreements)


def test_the_games_no_reader_reads_are_the_known_ones(agreements):
    unverified = {Path(a.path).name for a in agreements if a.verdict == "unverified"}
    assert unverified <= set(UNVERIFIED), unverified - set(UNVERIFIED)


def test_a_dialect_that_independent_readers_misread_is_explained(agreements):
    """bioshogi's record numbered from move 2 (White to move): cshogi and python-shogi read it
    with Black to move; kifudb's game says why (``side_from_move_number``)."""
    [game] = [a for a in agreements if a.path.endswith("first_move_2.kif")]
    assert game.verdict == "explained" and "side_from_move_number" in game.why


def test_the_comparison_can_tell_positions_apart():
    assert norm_sfen("startpos") == norm_sfen(
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 5")
    assert norm_sfen("9/9/9/9/4k4/9/9/9/4K4 b GP 1") != norm_sfen("9/9/9/9/4k4/9/9/9/4K4 w GP 1")
    assert not possible("9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b b2g2s2n2l5p 1")
