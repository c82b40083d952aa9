"""Issue 32: the shape of a castle or opening drawn from its definition (``labels.shapes``):
a diagram of the pieces it asks for, which is itself a position the label holds in."""

from __future__ import annotations

import pytest

from kifudb.core.pieces import SILVER, square
from kifudb.core.position import Position
from kifudb.labels.classify import definitions
from kifudb.labels.shapes import shape_sfen

NAMES = [name for kind in ("castle", "opening") for name in definitions().names(kind)]


def test_most_castles_have_a_shape():
    castles = definitions().names("castle")
    drawn = [name for name in castles if shape_sfen(name) is not None]
    assert len(drawn) == len(castles)  # every castle names the squares of its pieces


@pytest.mark.parametrize("name", NAMES)
def test_a_shape_is_a_position_and_draws_what_its_definition_requires(name):
    shape = shape_sfen(name)
    if shape is None:
        assert definitions()[name].kind == "opening"  # told by its moves, not by squares
        return
    position = Position.from_sfen(shape)
    condition = definitions().condition(name)
    for key, colour in (("own", 0), ("theirs", 1)):
        for types, squares in condition[key]:
            if len(types) < 14:  # "*": any piece, not drawn
                assert any(position.board[s] and position.board[s] % 16 in types
                           and position.board[s] // 16 == colour for s in squares), (key, types)


def test_a_label_is_drawn_with_the_labels_it_requires():
    # 角換わり腰掛け銀 names no square itself: it requires 角換わり and 腰掛け銀, whose silver
    # on 5六 is drawn; a required label's king is not drawn twice (神吉流三間飛車 requires 穴熊)
    known = definitions()
    assert "腰掛け銀" in known.requires("角換わり腰掛け銀")
    assert Position.from_sfen(shape_sfen("角換わり腰掛け銀")).board[square(5, 6)] % 16 == SILVER
    assert shape_sfen("神吉流三間飛車").split()[0].count("K") == 1
    assert [name for name in known.names("opening") if shape_sfen(name) is None] == [
        "筋違い角", "相筋違い角", "ゴリ違い角", "丸山ワクチン"]  # told by a bishop's moves


def test_techniques_and_notes_have_no_shape():
    assert shape_sfen("垂れ歩") is None and shape_sfen("急戦") is None
