"""Normalize the headers of any format into one vocabulary, keeping the raw ones beside them.

KIF/KI2/JKF write Japanese keys (開始日時, 棋戦, 先手 or 下手 …), CSA writes ``N+``, ``$EVENT`` …
Every record gets the same fields: ``event``, ``start_date`` and ``end_date`` (ISO dates),
``black``, ``white``, ``handicap``, ``time_control``, ``place``, ``opening``::

    >>> h = normalize_headers({"開始日時": "2008/12/20(土)", "下手": "糸谷哲郎", "上手": "深浦康市",
    ...                        "棋戦": "その他の棋戦", "手合割": "香落ち", "持ち時間": "各３時間"})
    >>> h["start_date"], h["black"], h["white"], h["handicap"], h["time_control"]
    ('2008-12-20', '糸谷哲郎', '深浦康市', '香落ち', '各３時間')
    >>> normalize_headers({"$START_TIME": "2018/05/04 16:47:37", "$EVENT": "WCSC28"})["start_date"]
    '2018-05-04'
    >>> parse_date("２０１４年９月１３日")
    '2014-09-13'
"""

from __future__ import annotations

import datetime
import re
from typing import Final, Optional

from kifudb.core.handicap import canonical_name, handicap_name, EVEN
from kifudb.core.pieces import FILE_DIGITS_FULL
from kifudb.ingest.builder import quote
from kifudb.ingest.record import WARNING, Finding

_FULL_WIDTH = str.maketrans(FILE_DIGITS_FULL + "／：", "0123456789/:")
_DATE = re.compile(r"(\d{4})\s*[/\-年.]\s*(\d{1,2})\s*[/\-月.]\s*(\d{1,2})")

#: normalized field -> header keys that give it, first match wins (KIF/KI2/JKF, then CSA).
FIELDS: Final = {
    "event": ("棋戦", "表題", "$EVENT", "event"),
    "start_date": ("開始日時", "対局日", "$START_TIME", "date"),
    "end_date": ("終了日時", "$END_TIME"),
    "black": ("先手", "下手", "N+", "black"),
    "white": ("後手", "上手", "N-", "white"),
    "handicap": ("手合割", "手合"),
    "time_control": ("持ち時間", "$TIME_LIMIT", "$TIME"),
    "place": ("場所", "$SITE"),
    "opening": ("戦型", "$OPENING"),
}

#: header key -> (its field, its rank among the field's keys)
_FIELD_OF_KEY: Final = {key: (name, rank) for name, keys in FIELDS.items()
                 for rank, key in enumerate(keys)}


def parse_date(text: str) -> Optional[str]:
    """The ISO date (``YYYY-MM-DD``) at the start of a header value, or None if there is none
    or it is not a real calendar date."""
    match = _DATE.search(text if text.isascii() else text.translate(_FULL_WIDTH))
    if not match:
        return None
    try:
        year, month, day = match.groups()
        return datetime.date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return None


def normalize_headers(raw: dict) -> dict:
    """The normalized fields of a record's raw headers (missing ones are None)."""
    found: dict[str, tuple[int, str]] = {}  # field -> (rank of its key in FIELDS, value)
    for key, value in raw.items():
        field = _FIELD_OF_KEY.get(key)
        if field is not None and value:
            value = value.strip()
            name, rank = field
            if value and (name not in found or rank < found[name][0]):
                found[name] = rank, value
    out = dict.fromkeys(FIELDS)
    for name, (_, value) in found.items():
        out[name] = parse_date(value) if name.endswith("_date") else value
    return out


def header_findings(raw: dict, normalized: dict, start_sfen: str) -> list:
    """Problems in the headers: a date that is no date, an end before the start, a 手合割 that
    names a handicap the start position is not.

    >>> [f.code for f in header_findings({"開始日時": "2014/13/45"}, normalize_headers(
    ...     {"開始日時": "2014/13/45"}), "startpos")]
    ['bad_date']
    """
    findings = []
    for name in ("start_date", "end_date"):
        written = next((raw[k] for k in FIELDS[name] if raw.get(k, "").strip()), None)
        if written is not None and normalized[name] is None and any(c.isdigit() for c in
                                                                     written.translate(_FULL_WIDTH)):
            findings.append(Finding(WARNING, "bad_date", f"{quote(written)!r} is not a calendar "
                                    "date", text=quote(written)))
    start, end = normalized["start_date"], normalized["end_date"]
    if start and end and end < start:
        findings.append(Finding(WARNING, "bad_date", f"the game ends ({end}) before it starts "
                                f"({start})", text=end))
    written = normalized["handicap"]
    if written:
        try:
            named = canonical_name(written)
        except KeyError:
            named = None
        actual = handicap_name(start_sfen) if start_sfen != "startpos" else EVEN
        # 平手 beside a board diagram is how Kifu for Windows writes any set-up position
        if named is not None and named != EVEN and actual != named:
            findings.append(Finding(WARNING, "handicap_mismatch", f"the header says {written}, "
                                    f"but the start position is "
                                    f"{actual or 'not a standard handicap'}", text=quote(written)))
    return findings


def game_handicap(start_sfen: str, written: Optional[str]) -> Optional[str]:
    """A game's handicap, as ``ingest.validate`` gives it (so the store and ``kifudb validate``
    too): the name of its start position when that is the even start or a standard handicap (a
    CSA or USI record names none), else what its header says unless that names a standard start
    the board is not (Kifu for Windows writes 平手 above tsume diagrams); a known name in any
    spelling becomes its KIF name.

    >>> game_handicap("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", None)
    '平手'
    >>> game_handicap("4k4/9/9/9/9/9/9/9/4K4 b G 1", "平手"), game_handicap("", "香落")
    (None, '香落ち')
    """
    named = handicap_name(start_sfen) if start_sfen else None
    if named is not None or not written:
        return named
    try:
        known = canonical_name(written)
    except KeyError:
        return written  # その他, or a name of the record's own
    return known if not start_sfen else None
