"""Encoding detection on every real record of the fixtures, and on hostile bytes."""

import csv
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from kifudb.ingest.decode import decode

RECORDS = Path(__file__).parent / "fixtures" / "records"
EXPECTED = {"utf-8-bom": "utf-8-sig", "ascii": "utf-8", "utf-8": "utf-8", "cp932": "cp932",
            "shift_jis": "cp932", "euc-jp": "euc-jp"}
ROWS = list(csv.DictReader(open(RECORDS / "MANIFEST.csv", encoding="utf-8")))
# files that declare UTF-8 in their '#KIF … encoding=' line but are written in Shift_JIS
MISDECLARED = {"kifu-for-js/packages/json-kifu-format/test/files/kif/no_henka.kif",
               "shogi-kifu-converter/data/tests/kif/Shogidokoro.kif",
               "shogi-kifu-converter/data/tests/kif/forks.kif"}


@pytest.mark.parametrize("row", ROWS, ids=[r["path"] for r in ROWS])
def test_every_fixture_decodes_with_its_encoding(row):
    decoded = decode((RECORDS / row["path"]).read_bytes())
    assert decoded.encoding == EXPECTED[row["encoding"]]
    assert "\r" not in decoded.text and "\ufffd" not in decoded.text
    codes = [f.code for f in decoded.findings]
    assert codes == (["wrong_encoding_declared"] if row["path"] in MISDECLARED else [])


def test_declared_encoding_wins_over_detection():
    text = "'CSA encoding=UTF-8\nV3.0\nN+先手\n"
    assert decode(text.encode("utf-8")).encoding == "utf-8"
    text = "#KIF version=2.0 encoding=Shift_JIS\n先手：羽生\n"
    assert decode(text.encode("cp932")).encoding == "cp932"


def test_undecodable_bytes_are_reported_with_their_line():
    data = "先手：羽生\n".encode("utf-8") + b"\n\x80\xff\xfe junk\n"
    decoded = decode(data)
    assert decoded.findings and decoded.findings[0].code == "encoding_error"
    assert decoded.findings[0].line == 3
    assert "\ufffd" in decoded.text and decoded.text.count("\n") == 3


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_decode(data):
    decoded = decode(data)
    assert isinstance(decoded.text, str) and decoded.encoding
