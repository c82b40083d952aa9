"""Issue 32: the shape of a castle or opening drawn from its definition (``labels.shapes``):
a diagram of the pieces it asks for, which is itself a position the label holds in."""

from __future__ import annotations

import pytest

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


def test_techniques_and_notes_have_no_shape():
    assert shape_sfen("垂れ歩") is None and shape_sfen("急戦") is None
