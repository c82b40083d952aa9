"""Start positions: the even game and every handicap of KIF's 手合割 list.

In a handicap game the stronger player (上手) removes pieces, plays White and moves first; the
removed pieces are out of the game, in nobody's hand::

    >>> handicap_sfen("香落ち")
    'lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1'
    >>> handicap_sfen("KY") == handicap_sfen("香落ち") == handicap_sfen("lance")
    True
    >>> handicap_name("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
    '二枚落ち'
    >>> removed_pieces("飛香落ち")
    (6, 2)

The names are KIF's; JKF's preset codes (``KY``, ``KY_R``, ``KA``, ``HI``, ``HIKY``, ``2`` …
``10``) and English names are accepted too. Verified against the handicap records of
``tests/fixtures/records`` (香落ち, 四枚落ち, 左七枚落ち, 八枚落ち and CSA ``PI`` lines).
"""

from __future__ import annotations

from kifudb.core.pieces import LANCE, KNIGHT, SILVER, BISHOP, ROOK, GOLD, STARTING_SFEN

#: The even start below White's first two ranks, with White (the handicap giver) to move.
_LOWER = "/" + "/".join(STARTING_SFEN.split()[0].split("/")[2:]) + " w - 1"

#: KIF name -> (JKF preset, English name, White's first two ranks, removed piece types).
_TABLE = {
    "香落ち": ("KY", "lance", "lnsgkgsn1/1r5b1", (LANCE,)),
    "右香落ち": ("KY_R", "right lance", "1nsgkgsnl/1r5b1", (LANCE,)),
    "角落ち": ("KA", "bishop", "lnsgkgsnl/1r7", (BISHOP,)),
    "飛車落ち": ("HI", "rook", "lnsgkgsnl/7b1", (ROOK,)),
    "飛香落ち": ("HIKY", "rook-lance", "lnsgkgsn1/7b1", (ROOK, LANCE)),
    "二枚落ち": ("2", "two-piece", "lnsgkgsnl/9", (ROOK, BISHOP)),
    "三枚落ち": ("3", "three-piece", "lnsgkgsn1/9", (ROOK, BISHOP, LANCE)),
    "四枚落ち": ("4", "four-piece", "1nsgkgsn1/9", (ROOK, BISHOP, LANCE, LANCE)),
    "五枚落ち": ("5", "five-piece", "2sgkgsn1/9", (ROOK, BISHOP, LANCE, LANCE, KNIGHT)),
    "左五枚落ち": ("5_L", "left five-piece", "1nsgkgs2/9", (ROOK, BISHOP, LANCE, LANCE, KNIGHT)),
    "六枚落ち": ("6", "six-piece", "2sgkgs2/9", (ROOK, BISHOP, LANCE, LANCE, KNIGHT, KNIGHT)),
    "左七枚落ち": ("7_L", "left seven-piece", "2sgkg3/9",
                (ROOK, BISHOP, LANCE, LANCE, KNIGHT, KNIGHT, SILVER)),
    "右七枚落ち": ("7_R", "right seven-piece", "3gkgs2/9",
                (ROOK, BISHOP, LANCE, LANCE, KNIGHT, KNIGHT, SILVER)),
    "八枚落ち": ("8", "eight-piece", "3gkg3/9",
              (ROOK, BISHOP, LANCE, LANCE, KNIGHT, KNIGHT, SILVER, SILVER)),
    "十枚落ち": ("10", "ten-piece", "4k4/9",
              (ROOK, BISHOP, LANCE, LANCE, KNIGHT, KNIGHT, SILVER, SILVER, GOLD, GOLD)),
}

EVEN = "平手"

#: KIF name -> start SFEN, for 平手 and every handicap.
HANDICAPS = {EVEN: STARTING_SFEN}
HANDICAPS.update({name: top + _LOWER for name, (_, _, top, _) in _TABLE.items()})

_ALIASES = {EVEN: EVEN, "HIRATE": EVEN, "even": EVEN, "平手": EVEN}
for _name, (_jkf, _english, _top, _removed) in _TABLE.items():
    _ALIASES[_name] = _ALIASES[_jkf] = _ALIASES[_english] = _name
    _ALIASES[_name.replace("落ち", "落")] = _name
_ALIASES["飛落ち"] = "飛車落ち"
_ALIASES["香車落ち"] = "香落ち"
_BY_BOARD = {sfen.split()[0]: name for name, sfen in HANDICAPS.items()}


def canonical_name(name: str) -> str:
    """The KIF name of a handicap given any accepted spelling; ``KeyError`` if unknown."""
    key = name.strip()
    if key in _ALIASES:
        return _ALIASES[key]
    lowered = key.lower()
    for alias, canonical in _ALIASES.items():
        if alias.lower() == lowered:
            return canonical
    raise KeyError(f"unknown handicap {name!r}; known: {', '.join(HANDICAPS)}")


def handicap_sfen(name: str) -> str:
    """The start SFEN of a handicap (or of the even game, ``平手``)."""
    return HANDICAPS[canonical_name(name)]


def handicap_name(sfen: str):
    """The KIF name of a start position, if it is the even start or a standard handicap."""
    fields = sfen.split()
    if fields and fields[0] == "sfen":
        fields = fields[1:]
    if len(fields) < 3 or fields[2] != "-":
        return None
    name = _BY_BOARD.get(fields[0])
    if name is None or fields[1] != HANDICAPS[name].split()[1]:
        return None
    return name


def jkf_preset(name: str) -> str:
    """JKF's ``initial.preset`` code of a handicap (``HIRATE`` for the even game).

    >>> jkf_preset("香落ち"), jkf_preset("平手"), jkf_preset("二枚落ち")
    ('KY', 'HIRATE', '2')
    """
    canonical = canonical_name(name)
    return "HIRATE" if canonical == EVEN else _TABLE[canonical][0]


def removed_pieces(name: str) -> tuple:
    """The piece types the handicap giver removed (empty for the even game)."""
    canonical = canonical_name(name)
    return () if canonical == EVEN else _TABLE[canonical][3]
