"""``NotationError``: why a move text could not be read.

Every reader in ``core.notation`` raises ``NotationError`` (a ``ValueError``) with a stable
``code``, a plain ``message`` and the ``text`` it was given::

    >>> err = NotationError("unparsable_move", "no destination square", "歩(77)")
    >>> err.code, err.message, err.text
    ('unparsable_move', 'no destination square', '歩(77)')
    >>> str(err)
    '歩(77): unparsable_move: no destination square'
    >>> isinstance(err, ValueError)
    True

The codes:

* ``unparsable_move``: the text is not a move of that notation;
* ``wrong_turn``: the text's side mark (▲ △, CSA ``+``/``-``) is not the side to move;
* ``no_piece``: the from-square the record gives is empty or holds another kind of piece;
* ``no_matching_move``: no piece of the named kind can play the move (KI2, Western);
* ``ambiguous_move``: several moves fit the text (KI2, Western); the message lists them;
* ``not_in_hand``: a drop of a piece the mover does not hold;
* ``no_previous_move``: 同 ("same square") with no previous move to refer to.

A move a reader returns may still break a rule (a pinned piece, 二歩, ...): the caller asks
``Position.illegality`` about it, as for any other move.
"""

from __future__ import annotations


class NotationError(ValueError):
    """A move text that cannot be read as a move here: ``code``, ``message`` and ``text``."""

    def __init__(self, code: str, message: str, text: str = ""):
        self.code = code
        self.message = message
        self.text = text
        super().__init__(f"{text}: {code}: {message}" if text else f"{code}: {message}")

    def __reduce__(self):  # keep code/message/text through pickling (worker processes)
        return (type(self), (self.code, self.message, self.text))
