"""The record dialects of issue 12, on real files (``tests/fixtures/dialects``, origins in its
SOURCES.md, and the shared fixtures of ``tests/fixtures/records``): each test asserts values a
wrong reading would change (a ply, a side, a square, a variation's start, a winner).
"""

from pathlib import Path

from kifudb.core.outcome import Reason, Winner
from kifudb.ingest.pipeline import read_data, read_file
from kifudb.ingest.sniff import sniff

FIXTURES = Path(__file__).parent / "fixtures"
DIALECTS = FIXTURES / "dialects"
RECORDS = FIXTURES / "records"


# ----- USI game lines that end with a terminal word -------------------------------------------

def test_a_usi_line_ending_in_resign_is_the_games_ending():
    """ShogiHome's (tsshogi ``getUSI({resign: true})``) line: four moves, then Black, to move,
    resigns."""
    [game] = read_file(DIALECTS / "tsshogi" / "getusi_resign.usi").games
    assert game.moves == 4 and game.valid and not game.findings
    assert game.declared_ending == "resign"
    assert (game.winner, game.reason) == (Winner.WHITE, Reason.RESIGN)
    assert game.final_sfen.split()[1] == "b"  # the side that resigned is to move


def test_the_terminal_word_does_not_change_the_fingerprint():
    path = DIALECTS / "tsshogi" / "getusi_resign.usi"
    text = path.read_bytes()
    [with_word] = read_data(text, str(path)).games
    [without] = read_data(text.replace(b" resign", b""), str(path)).games
    assert with_word.fingerprint == without.fingerprint
    assert without.declared_ending is None


def test_each_terminal_word_names_its_winner():
    """The moves of the same real line, ended by each word GUIs write: the side to move after
    four moves is Black."""
    line = (DIALECTS / "tsshogi" / "getusi_resign.usi").read_text().split(" resign")[0]
    expected = {"win": (Winner.BLACK, Reason.DECLARATION), "lose": (Winner.WHITE, Reason.UNKNOWN),
                "timeout": (Winner.WHITE, Reason.TIME), "break": (Winner.NONE, Reason.ABORT),
                "illegal": (Winner.WHITE, Reason.ILLEGAL_MOVE),
                "draw": (Winner.DRAW, Reason.UNKNOWN)}
    for word, outcome in expected.items():
        [game] = read_data(f"{line} {word}\n".encode(), "x.usi").games
        assert (game.moves, game.declared_ending) == (4, word)
        assert (game.winner, game.reason) == outcome, word
    [game] = read_data(f"{line} rep_draw\n".encode(), "x.usi").games
    assert game.winner == Winner.DRAW
    assert [f.code for f in game.findings] == ["result_mismatch"]  # no position came four times


def test_a_word_after_the_ending_is_kept_and_said():
    line = (DIALECTS / "tsshogi" / "getusi_resign.usi").read_text().strip()
    [game] = read_data(f"{line} 2h2f\n".encode(), "x.usi").games
    assert game.moves == 4 and game.declared_ending == "resign"
    [finding] = [f for f in game.findings if f.code == "moves_after_ending"]
    assert finding.ply == 5


# ----- files of bare SFEN lines ---------------------------------------------------------------

def test_a_file_of_bare_sfen_lines_is_a_collection_of_positions():
    """apery's benchmark.sfen with its ``sfen`` and ``startpos`` words taken off (a position
    collection as engines' tools write it): one game a line, of no moves where none follow."""
    path = RECORDS / "apery-wcsc28" / "benchmark.sfen"
    lines = path.read_text().splitlines()
    bare = "\n".join(line.removeprefix("sfen ").replace(
        "startpos", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
        for line in lines) + "\n"
    assert sniff(bare, "positions.txt") == "usi"
    ours = read_data(bare.encode(), "positions.txt")
    theirs = read_file(path)
    assert [(g.start_sfen, g.moves, g.fingerprint) for g in ours.games] == \
        [(g.start_sfen, g.moves, g.fingerprint) for g in theirs.games]
    first = ours.games[0]
    assert first.moves == 0 and first.start_sfen.split()[1] == "w" and first.valid


# ----- KIF variation headers ------------------------------------------------------------------

def _henka(spelling: str):
    """json-kifu-format's henka.kif with its ``変化：N手`` headers written as ``spelling``."""
    path = RECORDS / "kifu-for-js" / "packages" / "json-kifu-format" / "test" / "files" / "kif" \
        / "henka.kif"
    text = path.read_bytes().decode("cp932")
    import re
    text = re.sub(r"変化：(\d+)手", lambda m: spelling.format(m.group(1)), text)
    return read_data(text.encode("cp932"), "henka.kif", lines=True).games[0]


def _said(game) -> list:
    return [f for f in game.findings if f.severity != "info"]


def test_variation_headers_in_every_spelling_read_as_variations():
    plain = _henka("変化：{}手")
    branches = sorted({(row[0], row[1], row[2]) for row in plain.move_rows if row[0] and
                       row[2] == min(r[2] for r in plain.move_rows if r[0] == row[0])})
    assert plain.variations == 5 and not _said(plain)
    assert [ply for _, _, ply in branches] == [3, 3, 2, 1, 2]
    for spelling in ("変化：{}手目", "変化:{}手", "変化 ： {}手", "変化：{} 手目", "変化：{}"):
        game = _henka(spelling)
        assert game.variations == 5 and not _said(game), spelling
        assert game.move_rows == plain.move_rows, spelling
        assert game.fingerprint == plain.fingerprint


# ----- a board diagram numbered from an even move ---------------------------------------------

def test_a_diagram_numbered_from_move_2_is_whites_move():
    """bioshogi's record (workbench/format_test/0200.rb): a diagram with no side-to-move line,
    its first move numbered 2 and played by White (５四歩(53))."""
    [game] = read_file(DIALECTS / "bioshogi" / "first_move_2.kif", lines=True).games
    assert game.start_sfen == "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
    assert game.moves == 2 and game.illegal_code is None
    assert [row[3] for row in game.move_rows] == ["5c5d", "3g3f"]
    assert (game.winner, game.reason) == (Winner.BLACK, Reason.RESIGN)  # 4 投了: White resigns
    codes = {f.code: f for f in game.findings}
    assert codes["side_from_move_number"].line == 16
    assert "move_number_mismatch" not in codes
    assert codes["move_count_mismatch"].line == 19  # まで5手: the last move is numbered 3


def test_a_diagram_that_names_its_side_keeps_it():
    """The same record with a 先手番 line: the move numbers do not overrule it, and White's
    pawn cannot be Black's first move."""
    path = DIALECTS / "bioshogi" / "first_move_2.kif"
    text = path.read_text().replace("先手の持駒：なし\n", "先手の持駒：なし\n先手番\n")
    [game] = read_data(text.encode(), "x.kif").games
    assert game.start_sfen.split()[1] == "b"
    assert game.moves == 0 and game.first_illegal_ply == 1
    assert "side_from_move_number" not in {f.code for f in game.findings}


def test_a_variation_of_a_game_numbered_from_move_2_counts_as_it_does():
    """``変化：3手`` in that record is the move numbered 3 (▲３六歩), the game's second ply."""
    path = DIALECTS / "bioshogi" / "first_move_2.kif"
    text = path.read_text() + "\n変化：3手\n  3 ２六歩(27)\n"
    [game] = read_data(text.encode(), "x.kif", lines=True).games
    [row] = [row for row in game.move_rows if row[0] == 1]
    assert (row[2], row[3]) == (2, "2g2f")  # ply 2, replayed from after △５四歩
    assert not [f for f in game.findings if f.code in ("bad_variation", "move_number_mismatch")]


# ----- a blank between the piece and its from-square ------------------------------------------

def test_a_blank_before_the_from_square_is_read_as_kifu_for_android_writes_it():
    """``同銀　(79)`` (tsshogi's em-space sample) is the move Kifu for Android writes ``同銀(79)``:
    the same 24 moves, the silver from 7i at ply 5, one fingerprint."""
    [spaced] = read_file(DIALECTS / "tsshogi" / "em_space_after_piece.kif", lines=True).games
    [android] = read_file(DIALECTS / "tsshogi" / "kifu_for_android.kif", lines=True).games
    assert spaced.moves == android.moves == 24 and not spaced.findings
    assert [row[3] for row in spaced.move_rows if row[2] in (5, 16, 24)] == \
        ["7i8h", "3d3e", "5d4e"]
    assert spaced.fingerprint == android.fingerprint


# ----- KI2 with half-width numbers ------------------------------------------------------------

def test_ki2_with_half_width_squares_and_open_triangles_is_ki2():
    """tsshogi's ``▲26歩 ▽34歩 …`` sample: sniffed as KI2 whatever the file is called, 19
    moves, the last ▲５八金右 (4i5h), and the final position tsshogi's test expects."""
    path = DIALECTS / "tsshogi" / "half_width_numbers.ki2"
    text = path.read_text()
    assert sniff(text, "moves.txt") == "ki2"
    [game] = read_file(path, lines=True).games
    assert game.moves == 19 and not game.findings
    assert [row[3] for row in game.move_rows][::18] == ["2g2f", "4i5h"]
    assert game.final_sfen.rsplit(" ", 1)[0] == \
        "lnsgkg1nl/4r2b1/pppp1p1pp/5sp2/9/2P1P2P1/PP1PSPP1P/1BK1G2R1/LNSG3NL w p"
