"""Turn the bytes of a record file into text, and say which encoding was used and why.

Order: a UTF-8 byte-order mark; an encoding the file declares (``#KIF version=2.0 encoding=UTF-8``,
``'CSA encoding=SHIFT_JIS``); strict UTF-8; then Shift_JIS (cp932) or EUC-JP, whichever decodes and
reads more like Japanese. Line ends become ``\\n`` (CRLF and lone CR alike)::

    >>> decode("▲７六歩".encode("cp932")).encoding
    'cp932'
    >>> decode("▲７六歩".encode("euc-jp")).encoding
    'euc-jp'
    >>> d = decode(b"\\xef\\xbb\\xbfV2.2\\r\\n+\\r\\n")
    >>> d.encoding, d.text
    ('utf-8-sig', 'V2.2\\n+\\n')

Bytes that fit no encoding are replaced (U+FFFD) and reported as a finding, never dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingest.record import Finding, WARNING, ERROR

_DECLARED = re.compile(rb"encoding\s*=\s*([A-Za-z0-9_\-]+)", re.IGNORECASE)
_CODECS = {
    "utf8": "utf-8", "utf-8": "utf-8",
    "shift_jis": "cp932", "shift-jis": "cp932", "sjis": "cp932", "cp932": "cp932",
    "windows-31j": "cp932", "ms932": "cp932", "x-sjis": "cp932",
    "euc-jp": "euc-jp", "eucjp": "euc-jp", "euc_jp": "euc-jp",
}


@dataclass
class Decoded:
    """The text of a file, the codec that produced it, and anything worth reporting."""

    text: str
    encoding: str
    findings: list = field(default_factory=list)


def _normalize(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def declared_encoding(data: bytes):
    """The codec a file declares in its first lines (KIF ``#KIF … encoding=``, CSA
    ``'CSA encoding=``), or None."""
    head = data[:512]
    for raw_line in head.splitlines()[:5]:
        stripped = raw_line.lstrip()
        if stripped.startswith((b"#KIF", b"'CSA", b"#KI2", b"# KIF")) or b"encoding=" in stripped:
            match = _DECLARED.search(raw_line)
            if match:
                return _CODECS.get(match.group(1).decode("ascii").lower(), match.group(1).decode())
    return None


_KANA_KANJI = re.compile("[\u3040-\u30ff\u4e00-\u9fff\uff01-\uff5e\u25b2\u25b3]")
_GARBLED = re.compile("[\uff61-\uff9f\ue000-\uf8ff\x00-\x08\x0b\x0c\x0e-\x1f]")


def _japanese_score(text: str) -> int:
    """Higher for text made of kana, common kanji and full-width forms; half-width katakana,
    private-use and control characters count against it (the marks of a wrong decoding)."""
    return 2 * len(_KANA_KANJI.findall(text)) - 3 * len(_GARBLED.findall(text))


def decode(data: bytes) -> Decoded:
    """Decode a record file's bytes (see the module docstring for the order of tries)."""
    findings = []
    if data.startswith(b"\xef\xbb\xbf"):
        try:
            return Decoded(_normalize(data[3:].decode("utf-8")), "utf-8-sig")
        except UnicodeDecodeError as error:
            findings.append(_bad_bytes(data[3:], "utf-8", error, "the file starts with a UTF-8 mark"))
    declared = declared_encoding(data)
    if declared:
        try:
            return Decoded(_normalize(data.decode(declared)), declared)
        except (UnicodeDecodeError, LookupError) as error:
            findings.append(Finding(WARNING, "wrong_encoding_declared",
                                    f"the file declares encoding {declared!r} but does not decode "
                                    f"with it ({error}); detecting instead"))
    try:
        return Decoded(_normalize(data.decode("utf-8")), "utf-8", findings)
    except UnicodeDecodeError:
        pass
    candidates = []
    for codec in ("cp932", "euc-jp"):
        try:
            candidates.append((codec, data.decode(codec)))
        except UnicodeDecodeError:
            continue
    if candidates:  # when both decode, the one that reads more like Japanese (cp932 on a tie)
        codec, text = max(candidates, key=lambda c: _japanese_score(c[1][:4000])) \
            if len(candidates) > 1 else candidates[0]
        return Decoded(_normalize(text), codec, findings)
    # nothing fits every byte: take the codec that fits most of them, and say where it fails
    def fit(codec):
        text = data.decode(codec, errors="replace")
        return _japanese_score(text) - 5 * text.count("\ufffd")

    best = max(("utf-8", "cp932", "euc-jp"), key=fit)
    try:
        data.decode(best)
    except UnicodeDecodeError as error:
        findings.append(_bad_bytes(data, best, error, "no encoding fits every byte"))
    return Decoded(_normalize(data.decode(best, errors="replace")), best, findings)


def _bad_bytes(data: bytes, codec: str, error: UnicodeDecodeError, why: str) -> Finding:
    line = data.count(b"\n", 0, error.start) + 1
    snippet = data[error.start:error.start + 8].hex(" ")
    return Finding(ERROR, "encoding_error",
                   f"{why}: bytes {snippet} at offset {error.start} are not {codec}; they are "
                   f"shown as U+FFFD", line=line)
