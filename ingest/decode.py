"""Turn the bytes of a record file into text, and say which encoding was used and why.

Order: a byte-order mark (UTF-8, UTF-32 and UTF-16, little- or big-endian); an encoding the file
declares (``#KIF version=2.0 encoding=UTF-8``, ``'CSA encoding=SHIFT_JIS``); ISO-2022-JP (7-bit
text with its escape sequences ``ESC $ B`` … ``ESC ( B``); UTF-16 without a byte-order mark, when
NUL bytes stand at every other position (with a finding that says so); strict UTF-8; then
Shift_JIS (cp932) or EUC-JP, whichever decodes and reads more like Japanese. Line ends become
``\\n`` (CRLF and lone CR alike)::

    >>> decode("▲７六歩".encode("cp932")).encoding
    'cp932'
    >>> decode("▲７六歩".encode("euc-jp")).encoding
    'euc-jp'
    >>> d = decode(b"\\xef\\xbb\\xbfV2.2\\r\\n+\\r\\n")
    >>> d.encoding, d.text
    ('utf-8-sig', 'V2.2\\n+\\n')
    >>> [decode(codecs.BOM_UTF16_LE + "▲７六歩".encode("utf-16-le")).encoding,
    ...  decode(codecs.BOM_UTF32_BE + "▲７六歩".encode("utf-32-be")).encoding,
    ...  decode("先手：羽生".encode("iso2022_jp")).encoding]
    ['utf-16-le', 'utf-32-be', 'iso-2022-jp']

Bytes that fit no encoding are replaced (U+FFFD) and reported as a finding, never dropped silently.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

from kifudb.ingest.record import Finding, WARNING, ERROR

_DECLARED = re.compile(rb"encoding\s*=\s*([A-Za-z0-9_\-]+)", re.IGNORECASE)
_CODECS = {
    "utf8": "utf-8", "utf-8": "utf-8",
    "shift_jis": "cp932", "shift-jis": "cp932", "sjis": "cp932", "cp932": "cp932",
    "windows-31j": "cp932", "ms932": "cp932", "x-sjis": "cp932",
    "euc-jp": "euc-jp", "eucjp": "euc-jp", "euc_jp": "euc-jp",
    "iso-2022-jp": "iso-2022-jp", "iso2022jp": "iso-2022-jp", "iso2022_jp": "iso-2022-jp",
    "jis": "iso-2022-jp",
}
#: byte-order marks and the encoding they name (UTF-32's first: UTF-16-LE's mark begins it)
_MARKS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
          (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
#: the escape sequences that switch ISO-2022-JP into JIS X 0208 (or 0212, or half-width kana)
_JIS_ESCAPES = (b"\x1b$B", b"\x1b$@", b"\x1b$(D", b"\x1b(I", b"\x1b$(Q", b"\x1b$(O")


@dataclass
class Decoded:
    """The text of a file, the codec that produced it, and anything worth reporting."""

    text: str
    encoding: str
    findings: list = field(default_factory=list)


def _normalize(text: str) -> str:
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def declared_encoding(data: bytes):
    """The codec a file declares in its first lines (KIF ``#KIF … encoding=``, CSA
    ``'CSA encoding=``), or None."""
    head = data[:512]
    if b"ncoding" not in head.lower():  # (the quick answer for most files)
        return None
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
    for mark, codec in _MARKS:
        if data.startswith(mark):
            wide = _wide(data[len(mark):], codec, f"the file starts with a {codec.upper()} mark")
            if wide is not None:
                return wide
    declared = declared_encoding(data)
    if declared:
        try:
            return Decoded(_normalize(data.decode(declared)), declared)
        except (UnicodeDecodeError, LookupError) as error:
            findings.append(Finding(WARNING, "wrong_encoding_declared",
                                    f"the file declares encoding {declared!r} but does not decode "
                                    f"with it ({error}); detecting instead"))
    if b"\x1b" in data and any(escape in data for escape in _JIS_ESCAPES):
        for codec in ("iso2022_jp", "iso2022_jp_ext", "iso2022_jp_2"):  # the plainest first
            try:
                return Decoded(_normalize(data.decode(codec)), "iso-2022-jp", findings)
            except UnicodeDecodeError:
                continue
    if b"\x00" in data:
        codec = _wide_without_mark(data)
        if codec is not None:
            name = codec.upper()
            said = (f"the file looks like {name} without a byte-order mark (NUL bytes at "
                    + ("every other position" if "16" in codec else
                       "the two high bytes of every 4-byte character") + ")")
            wide = _wide(data, codec, f"read as {name}", findings)
            if wide is not None:
                wide.findings.insert(len(findings), Finding(WARNING, "no_byte_order_mark",
                                                            f"{said}; read as {name}"))
                return wide
            findings.append(Finding(ERROR, "no_byte_order_mark", f"{said}, but it does not "
                                    f"decode as {name}; detecting another encoding instead"))
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


def _wide(data: bytes, codec: str, why: str, findings=None):
    """``data`` decoded with UTF-16 or UTF-32 ``codec`` (bytes that do not fit are replaced and
    reported), or None when most of it does not fit (not that encoding after all)."""
    findings = list(findings or [])
    try:
        return Decoded(_normalize(data.decode(codec)), codec, findings)
    except UnicodeDecodeError as error:
        text = data.decode(codec, errors="replace")
        if text.count("\ufffd") * 10 > len(text):
            return None
        findings.append(_bad_bytes(data, codec, error, why))
        return Decoded(_normalize(text), codec, findings)


def _wide_without_mark(data: bytes):
    """The UTF-32 or UTF-16 encoding (``utf-16-le`` …) the NUL bytes of the first 8 KB point to,
    else None: in UTF-32 the two high bytes of every character are NUL; in UTF-16 the high byte
    of each ASCII character (line ends, digits, blanks), and no low byte."""
    head = data[:8192]
    quads = len(head) // 4
    if quads < 2:
        return None
    nul = [head[k::4][:quads].count(0) for k in range(4)]
    if nul[2] == nul[3] == quads and nul[0] * 20 <= quads:
        return "utf-32-le"
    if nul[0] == nul[1] == quads and nul[3] * 20 <= quads:
        return "utf-32-be"
    even, odd = nul[0] + nul[2], nul[1] + nul[3]
    if odd * 4 >= quads and even * 20 <= odd:
        return "utf-16-le"
    if even * 4 >= quads and odd * 20 <= even:
        return "utf-16-be"
    return None


def _bad_bytes(data: bytes, codec: str, error: UnicodeDecodeError, why: str) -> Finding:
    if codec.startswith(("utf-16", "utf-32")):  # a line end is more than one byte there
        line = data[:error.start].decode(codec, errors="replace").count("\n") + 1
    else:
        line = data.count(b"\n", 0, error.start) + 1
    snippet = data[error.start:error.start + 8].hex(" ")
    return Finding(ERROR, "encoding_error",
                   f"{why}: bytes {snippet} at offset {error.start} are not {codec}; they are "
                   f"shown as U+FFFD", line=line)
