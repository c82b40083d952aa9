"""The names a user may give for a label (a castle, opening, technique or note) and for a
handicap, and the nearest known ones when a name is unknown: every door (the command line, the
Python and HTTP APIs, the dashboard) asks through ``GameFilter``, which checks its ``label``
and ``handicap`` here, so that an unknown name is an error that says what was meant instead of
"no games".

A label is named as its definition (``labels/*.toml``) names it, by one of its aliases or by
its English name (what the dashboard shows), in any case, with any spacing or hyphens; a
handicap as ``core.handicap`` names it (``香落ち``, ``香落``, ``KY``, ``lance`` …)::

    >>> label_name("四間飛車"), label_name("Fourth-file rook"), label_name("fourth file ROOK")
    ('四間飛車', '四間飛車', '四間飛車')
    >>> label_name("Amano Yagura")   # each of the English names in "Half Yagura (Amano Yagura)"
    '片矢倉'
    >>> label_name("四間")
    Traceback (most recent call last):
    ...
    ValueError: label: unknown castle, opening, technique or note '四間': did you mean 四間飛車 (Fourth-file rook), 右四間飛車 (Right fourth-file rook), 幻想四間飛車 (Illusion fourth-file rook)? ('kifudb stats labels' lists them)
    >>> handicap_name("KY"), handicap_name(" 飛車落 ")
    ('香落ち', '飛車落ち')
    >>> handicap_name("foo")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: handicap: unknown handicap 'foo' (known: 平手, 香落ち, 右香落ち, 角落ち, 飛車落ち, ...)
    >>> handicap_name("飛香")
    Traceback (most recent call last):
    ...
    ValueError: handicap: unknown handicap '飛香': did you mean 飛香落ち, 香落ち?
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata

from kifudb.core.handicap import HANDICAPS, canonical_name

__all__ = ["label_name", "label_family", "handicap_name", "SUGGESTED"]

#: How many near names an error suggests at most.
SUGGESTED = 3


def _folded(text: str) -> str:
    """``text`` as names are compared: NFKC, case-folded, without spaces, hyphens and
    punctuation."""
    return re.sub(r"[\s\-‐_・,.'’()（）]+", "", unicodedata.normalize("NFKC", text).casefold())


@functools.cache
def _labels() -> tuple:
    """``({folded spelling: label name}, [(name, english)])`` of every label definition."""
    from kifudb.labels.classify import definitions

    spellings, named = {}, []
    for name, info in definitions().info.items():
        named.append((name, info.english))
        for spelling in (name, *info.aliases):
            spellings.setdefault(_folded(spelling), name)
        english = [info.english, *re.findall(r"\(([^)]*)\)", info.english),
                   re.sub(r"\s*\([^)]*\)", "", info.english)]
        for spelling in english:
            if spelling.strip():
                spellings.setdefault(_folded(spelling), name)
    return spellings, named


def label_name(value, what: str = "label") -> str:
    """The name (the definitions') of the label ``value`` names — its name, an alias or its
    English name, in any case and spacing —; ``ValueError`` naming ``what`` and ``value``, with
    the nearest names, for any other text."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty name, not {value!r}")
    spellings, named = _labels()
    given = _folded(value)
    if given in spellings:
        return spellings[given]
    near = _nearest(given, {name: (_folded(name), _folded(english)) for name, english in named})
    english = dict(named)
    shown = ", ".join(f"{name} ({english[name]})" for name in near)
    hint = f": did you mean {shown}?" if near else ""
    raise ValueError(f"{what}: unknown castle, opening, technique or note {value.strip()!r}"
                     f"{hint} ('kifudb stats labels' lists them)")


def label_family(name: str) -> tuple:
    """A label and every label below it in the family tree (its children, theirs …), the label
    first, the others in the definitions' order::

        >>> family = label_family("美濃囲い")
        >>> family[0], "高美濃囲い" in family, "銀冠" in family, "矢倉囲い" in family
        ('美濃囲い', True, True, False)
    """
    from kifudb.labels.classify import definitions

    known = definitions()
    below = known.descendants(name) - {name}
    return (name, *(other for other in known if other in below))


def handicap_name(value, what: str = "handicap") -> str:
    """The KIF name (``core.handicap``) of the handicap ``value`` names, in any spelling
    ``core.handicap`` knows; ``ValueError`` naming ``what`` and ``value``, with the nearest
    names, for any other text."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty name, not {value!r}")
    try:
        return canonical_name(unicodedata.normalize("NFKC", value).strip())
    except KeyError:
        pass
    near = _nearest(_folded(value), {name: (_folded(name), _folded(name.replace("落ち", "")))
                                     for name in HANDICAPS})
    if near:
        raise ValueError(f"{what}: unknown handicap {value.strip()!r}: did you mean "
                         f"{', '.join(near)}?")
    raise ValueError(f"{what}: unknown handicap {value.strip()!r} (known: "
                     f"{', '.join(HANDICAPS)})")


def _nearest(given: str, candidates: dict) -> list:
    """The names of ``candidates`` (name → its folded spellings) nearest ``given``: those of
    which a spelling holds it or is held in it (the shortest first), then difflib's closest."""
    if not given:
        return []
    holding = sorted((name for name, spelled in candidates.items()
                      if any(s and (given in s or s in given) for s in spelled)),
                     key=lambda name: (min(abs(len(s) - len(given)) for s in candidates[name]),
                                       name))
    by_spelling = {s: name for name, spelled in candidates.items() for s in spelled if s}
    close = [by_spelling[s] for s in difflib.get_close_matches(given, list(by_spelling),
                                                               n=SUGGESTED * 2, cutoff=0.6)]
    return list(dict.fromkeys(holding + close))[:SUGGESTED]
