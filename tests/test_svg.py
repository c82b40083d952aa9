"""The SVG board (``core.svg.board_svg`` / ``Position.svg``): structure, pieces, hands, highlights,
flipping and coordinates, read back by parsing the XML."""

import re
import xml.etree.ElementTree as ET

import pytest

from kifudb.core import Move, Position
from kifudb.core.handicap import HANDICAPS, handicap_sfen
from kifudb.core.svg import FONT_FAMILY, board_svg

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def classed(root: ET.Element, *names: str) -> list:
    """Elements whose class attribute holds every one of ``names``."""
    return [e for e in root.iter() if set(names) <= set((e.get("class") or "").split())]


def text_of(e: ET.Element) -> str:
    return "".join(e.itertext())


def translate(group: ET.Element) -> tuple:
    x, y = re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", group.get("transform")).groups()
    return float(x), float(y)


def played(*moves: str) -> Position:
    pos = Position()
    for m in moves:
        pos.push_usi(m)
    return pos


def piece_on(root: ET.Element, square: str) -> ET.Element:
    (group,) = [g for g in classed(root, "piece") if g.get("data-square") == square]
    return group


def board_middle(root: ET.Element) -> float:
    frame = classed(root, "frame")[0]
    return float(frame.get("y")) + float(frame.get("height")) / 2


SAMPLES = [
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "8l/+P+L+N+S1+B+R2/9/9/9/9/9/9/4K3k b 2P3gs 1",
    "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
    "ln1g3nl/1r3kg2/p2pppsp1/2ps2p1p/1p7/2P1P1P2/PPSP1PN1P/2G2S1R1/LN2KG2L w Bb 32",
] + [handicap_sfen(name) for name in HANDICAPS]


@pytest.mark.parametrize("sfen", SAMPLES)
@pytest.mark.parametrize("flip", [False, True])
def test_parses_as_xml_with_root_attributes(sfen, flip):
    pos = Position.from_sfen(sfen)
    root = parse(board_svg(pos, flip=flip))
    assert root.tag == NS + "svg"
    assert root.get("role") == "img"
    assert pos.sfen() in root.get("aria-label")
    assert root.get("font-family") == FONT_FAMILY
    x0, y0, w, h = map(float, root.get("viewBox").split())
    assert (x0, y0) == (0, 0) and w > 0 and h > 0
    assert int(root.get("width")) == 420
    assert int(root.get("height")) == round(420 * h / w)
    assert len(classed(root, "piece")) == sum(1 for code in pos.board if code)
    # self-contained: no images, scripts, external references or web fonts
    for e in root.iter():
        assert e.tag.split("}")[1] not in ("image", "script", "foreignObject", "style", "use")
        assert not any("href" in k for k in e.attrib)


def test_size_sets_width_and_keeps_proportions():
    small, large = parse(Position().svg(size=300)), parse(Position().svg(size=900))
    assert small.get("viewBox") == large.get("viewBox")
    assert (small.get("width"), large.get("width")) == ("300", "900")
    assert abs(int(large.get("height")) - 3 * int(small.get("height"))) <= 2


def test_start_position_has_forty_pieces():
    svg = Position().svg()
    root = parse(svg)
    assert len(classed(root, "piece", "black")) == 20
    assert len(classed(root, "piece", "white")) == 20
    assert svg.count('class="piece black"') == svg.count('class="piece white"') == 20
    kanji = sorted(text_of(g) for g in classed(root, "piece", "black"))
    assert kanji == sorted("香桂銀金玉金銀桂香飛角" + "歩" * 9)
    assert sorted(text_of(g) for g in classed(root, "piece", "white")) == \
        sorted("香桂銀金王金銀桂香飛角" + "歩" * 9)
    assert not classed(root, "promoted")
    assert len(classed(root, "star")) == 4


def test_white_pieces_are_upside_down():
    root = parse(Position().svg())
    for g in classed(root, "piece", "white"):
        assert "rotate(180)" in g.get("transform")
    for g in classed(root, "piece", "black"):
        assert "rotate" not in g.get("transform")
    # unflipped, Black's king is in the lower half and White's in the upper half
    middle = board_middle(root)
    assert translate(piece_on(root, "5i"))[1] > middle > translate(piece_on(root, "5a"))[1]
    assert text_of(piece_on(root, "5i")) == "玉" and text_of(piece_on(root, "5a")) == "王"


def test_flip_turns_the_board_round():
    root = parse(Position().svg(flip=True))
    for g in classed(root, "piece", "black"):
        assert "rotate(180)" in g.get("transform")
    for g in classed(root, "piece", "white"):
        assert "rotate" not in g.get("transform")
    middle = board_middle(root)
    assert translate(piece_on(root, "5i"))[1] < middle < translate(piece_on(root, "5a"))[1]
    # 1a is bottom left when flipped, top right otherwise
    unflipped = parse(Position().svg())
    assert translate(piece_on(root, "1a"))[0] < translate(piece_on(unflipped, "1a"))[0]
    assert translate(piece_on(root, "1a"))[1] > translate(piece_on(unflipped, "1a"))[1]


def test_promoted_pieces_are_red():
    pos = Position.from_sfen("8l/+P+L+N+S1+B+R2/9/9/9/9/9/9/4K3k b - 1")
    root = parse(pos.svg())
    promoted = classed(root, "piece", "promoted")
    assert sorted(text_of(g) for g in promoted) == sorted("と杏圭全馬龍")
    red = {g.find(NS + "text").get("fill") for g in promoted}
    assert len(red) == 1
    (colour,) = red
    r, gr, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    assert r > 150 and gr < 80 and b < 80
    for g in classed(root, "piece"):
        if "promoted" not in g.get("class"):
            assert g.find(NS + "text").get("fill") != colour


def test_promoted_bishop_after_capture_and_hands():
    pos = played("7g7f", "3c3d", "8h2b+")
    root = parse(pos.svg())
    assert text_of(piece_on(root, "2b")) == "馬"
    assert "promoted" in piece_on(root, "2b").get("class")
    (black_hand,) = classed(root, "hand", "black")
    (white_hand,) = classed(root, "hand", "white")
    assert "角" in text_of(black_hand) and "なし" in text_of(white_hand)
    pos.push_usi("3a2b")
    root = parse(pos.svg())
    for side, title in (("black", "先手の持駒"), ("white", "後手の持駒")):
        (hand,) = classed(root, "hand", side)
        text = text_of(hand)
        assert title in text and "角" in text and "なし" not in text
        (entry,) = classed(hand, "hand-piece")
        assert (entry.get("data-piece"), entry.get("data-count")) == ("B", "1")


def test_hands_show_counts():
    pos = Position.from_sfen("4k4/9/9/9/9/9/9/9/4K4 b R2G3S18Pbl2n 1")
    root = parse(pos.svg())
    (black,) = classed(root, "hand", "black")
    (white,) = classed(root, "hand", "white")
    entries = [text_of(e) for e in classed(black, "hand-piece")]
    assert entries == ["飛", "金2", "銀3", "歩18"]          # strongest first
    assert [text_of(e) for e in classed(white, "hand-piece")] == ["角", "桂2", "香"]
    assert black.get("data-hand") == "R2G3S18P" and white.get("data-hand") == "b2nl"


@pytest.mark.parametrize("handicap, titles", [(False, ("▲先手の持駒", "△後手の持駒")),
                                               (True, ("▲下手の持駒", "△上手の持駒"))])
def test_hands_are_titled_as_the_game_names_its_sides(handicap, titles):
    root = parse(board_svg(Position.from_sfen(handicap_sfen("香落ち")), handicap=handicap))
    assert tuple(text_of(classed(classed(root, "hand", side)[0], "hand-title")[0])
                 for side in ("black", "white")) == titles


def test_hands_sit_top_left_and_bottom_right():
    pos = Position.from_sfen("4k4/9/9/9/9/9/9/9/4K4 b P2p 1")
    for flip, top_left in ((False, "white"), (True, "black")):
        root = parse(pos.svg(flip=flip))
        frame = classed(root, "frame")[0]
        bottom_right = "black" if top_left == "white" else "white"
        far = classed(root, "hand", top_left)[0].find(NS + "rect")
        near = classed(root, "hand", bottom_right)[0].find(NS + "rect")
        assert float(far.get("x")) < float(frame.get("x"))
        assert float(near.get("x")) > float(frame.get("x")) + float(frame.get("width"))
        assert float(far.get("y")) < float(near.get("y"))


def test_last_move_highlight():
    assert not classed(parse(Position().svg()), "highlight")
    pos = played("7g7f", "3c3d", "8h2b+", "3a2b")
    highlights = classed(parse(pos.svg()), "highlight")
    assert sorted(h.get("data-square") for h in highlights) == ["2b", "3a"]
    pos.push_usi("B*5e")
    highlights = classed(parse(pos.svg()), "highlight")
    assert [h.get("data-square") for h in highlights] == ["5e"]
    # given explicitly, as a Move or as USI text, or switched off
    start = Position()
    explicit = classed(parse(board_svg(start, last_move=Move.from_usi("7g7f"))), "highlight")
    assert sorted(h.get("data-square") for h in explicit) == ["7f", "7g"]
    assert len(classed(parse(board_svg(start, last_move="P*5e")), "highlight")) == 1
    assert not classed(parse(board_svg(pos, last_move=False)), "highlight")


def test_highlight_follows_flip():
    pos = played("7g7f")
    plain = {h.get("data-square"): h for h in classed(parse(pos.svg()), "highlight")}
    flipped = {h.get("data-square"): h for h in classed(parse(pos.svg(flip=True)), "highlight")}
    assert float(flipped["7g"].get("y")) < float(plain["7g"].get("y"))
    assert float(flipped["7g"].get("x")) > float(plain["7g"].get("x"))


def test_coordinates():
    root = parse(Position().svg())
    assert "".join(text_of(e) for e in classed(root, "coord", "file")) == "９８７６５４３２１"
    assert "".join(text_of(e) for e in classed(root, "coord", "rank")) == "一二三四五六七八九"
    flipped = parse(Position().svg(flip=True))
    assert "".join(text_of(e) for e in classed(flipped, "coord", "file")) == "１２３４５６７８９"
    assert "".join(text_of(e) for e in classed(flipped, "coord", "rank")) == "九八七六五四三二一"
    # files along the top, ranks down the right side
    frame = classed(root, "frame")[0]
    top, right = float(frame.get("y")), float(frame.get("x")) + float(frame.get("width"))
    assert all(float(e.get("y")) < top for e in classed(root, "coord", "file"))
    assert all(float(e.get("x")) > right for e in classed(root, "coord", "rank"))
    assert not classed(parse(Position().svg(coordinates=False)), "coord")


def test_text_is_escaped():
    class Odd:  # a position whose SFEN needs escaping (Position is compiled: no subclass)
        def __getattr__(self, name):
            return getattr(Position(), name)

        def sfen(self, move_number=True):
            return 'a<b & "c"'

    root = parse(board_svg(Odd()))
    assert 'a<b & "c"' in root.get("aria-label")
    assert 'a<b & "c"' in text_of(root.find(NS + "title"))


def test_repr_svg_is_svg():
    pos = Position()
    assert pos._repr_svg_() == pos.svg() == board_svg(pos)
    moved = played("7g7f")
    assert moved._repr_svg_() == moved.svg()
    assert moved.svg(flip=True, size=300) == board_svg(moved, flip=True, size=300)
