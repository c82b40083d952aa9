"""Tell a record's format from its content; the file name only breaks ties.

    >>> sniff("V2.2\\nN+sente\\nPI\\n+\\n+7776FU\\n")
    'csa'
    >>> sniff('{"header": {}, "moves": [{}]}')
    'jkf'
    >>> sniff("startpos moves 7g7f")
    'usi'
    >>> sniff("先手：a\\n後手：b\\n▲７六歩　△３四歩\\n")
    'ki2'
    >>> sniff("手数----指手---------消費時間--\\n   1 ７六歩(77)\\n")
    'kif'
    >>> sniff("hello") is None
    True

A junk line before the games does not hide them (the USI and csa1 tests decide from the first
lines by majority; CSA's already does, and KIF's and KI2's look for their own lines)::

    >>> sniff("<html>\\nstartpos moves 7g7f\\n"), sniff("junk\\n1 2003/09/08 a b 2 2 e o\\n7776FU3334FU\\n")
    ('usi', 'csa1')
"""

from __future__ import annotations

from typing import Optional

#: file extensions and the format they usually hold (used when the content is undecided)
EXTENSIONS = {".kif": "kif", ".kifu": "kifu", ".ki2": "ki2", ".ki2u": "ki2", ".csa": "csa",
              ".csa1": "csa1", ".jkf": "jkf", ".json": "jkf", ".sfen": "usi", ".usi": "usi"}


_TESTS: list = []  # the readers' looks_like_* functions, imported at the first sniff


def _tests() -> list:
    if not _TESTS:
        from kifudb.ingest.csa import looks_like_csa, looks_like_csa1
        from kifudb.ingest.jkf import looks_like_jkf
        from kifudb.ingest.ki2 import looks_like_ki2
        from kifudb.ingest.kif import looks_like_kif
        from kifudb.ingest.usi_file import looks_like_usi
        _TESTS[:] = (looks_like_csa, looks_like_csa1, looks_like_jkf, looks_like_ki2,
                     looks_like_kif, looks_like_usi)
    return _TESTS


def sniff(text: str, name: str = "") -> Optional[str]:
    """The format of a decoded record (``kif``, ``kifu``, ``ki2``, ``csa``, ``csa1``, ``jkf``,
    ``usi``), or None if it looks like none of them."""
    looks_like_csa, looks_like_csa1, looks_like_jkf, looks_like_ki2, looks_like_kif, \
        looks_like_usi = _TESTS or _tests()
    extension = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    hinted = EXTENSIONS.get(extension)
    # the usual case first: the content is what the name says
    if hinted in ("csa", "csa1") and (looks_like_csa1 if hinted == "csa1" else looks_like_csa)(text):
        return "csa1" if hinted == "csa1" or looks_like_csa1(text) else "csa"
    if hinted in ("kif", "kifu") and looks_like_kif(text) and not looks_like_ki2(text):
        return hinted
    if hinted == "ki2" and looks_like_ki2(text) and not looks_like_kif(text):
        return "ki2"
    if text.lstrip().startswith("{"):
        return "jkf" if looks_like_jkf(text) else None
    if looks_like_usi(text):
        return "usi"
    if looks_like_csa1(text):
        return "csa1"
    if looks_like_csa(text):
        return "csa"
    kif, ki2 = looks_like_kif(text), looks_like_ki2(text)
    if kif and ki2:
        return hinted if hinted in ("kif", "kifu", "ki2") else "kif"
    if kif:
        return "kifu" if hinted == "kifu" else "kif"
    if ki2:
        return "ki2"
    return None
