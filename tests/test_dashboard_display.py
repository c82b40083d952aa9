"""What the dashboard's pages say and how (issue 29, defects 4 and 11), with Streamlit's test
harness on the store of the real records, checked against plain DuckDB over the store's views:
result bars of the decided games with the undecided count beside them, shares with one
decimal, the opening named above the explorer, engine comments in Japanese notation, "1 move"
(never "1 moves" nor "game(s)"), the charts' axes (the rating not from 0, months with their
year, years on a quantitative axis), the download cap said on the page, and the choice of
Shift_JIS (cp932) for KIF, KI2 and CSA downloads.
"""

from __future__ import annotations

import io
import json
import re
import zipfile

from streamlit.testing.v1 import AppTest

from kifudb.core.position import Position

from dashboard_pages import db, page, run, store_env, table  # noqa: F401 (fixtures)

START = Position()


def charts(at: AppTest) -> list:
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


# ----- defect 4: the result bar of the decided games ----------------------------------------------


def test_explorer_result_bars_are_of_the_decided_games(db):
    """The bar of the most played first move gives Black's wins, draws and White's wins as
    shares of the decided games (one decimal), and the games without a result beside it (it
    read "no result 99%" on a mixed collection)."""
    rows = db.execute(
        "SELECT p.next_move, count(DISTINCT g.game) FILTER (WHERE g.winner = 'black'), "
        "count(DISTINCT g.game) FILTER (WHERE g.winner = 'white'), count(DISTINCT g.game) "
        "FILTER (WHERE g.winner = 'draw'), count(DISTINCT g.game) FILTER (WHERE g.winner "
        "NOT IN ('black', 'white', 'draw')), count(DISTINCT g.game) FROM positions p JOIN games "
        "g USING (game) WHERE p.key = ? AND p.next_move IS NOT NULL GROUP BY p.next_move "
        "ORDER BY 6 DESC, 1 LIMIT 1", [START.key()]).fetchone()
    _, black, white, draws, other, _ = rows
    decided = black + white + draws
    assert other > 0 and decided > 0  # a mixed collection
    at = page("explorer")
    row = next(m.value for m in at.markdown if 'class="kifudb-move-stats"' in m.value
               and "kifudb-bar" in m.value)
    bar = row[row.index("kifudb-result"):]
    for count in (black, white):
        share = 100 * count / decided
        if share >= 16:
            assert f">{share:.1f}%</div>" in bar, (share, bar)
    assert f">{other:,}</span>" in bar and "no result" not in bar.split("kifudb-undecided")[0]
    shares = re.findall(r'<span class="n">(\d+(?:\.\d+)?%)</span>', row)
    assert shares and all(re.fullmatch(r"\d+\.\d%", s) for s in shares), shares


def test_the_opening_is_named_above_the_explorer():
    at = page("explorer", moves="7g7f 3c3d 2h6h 8c8d")
    named = [m.value for m in at.markdown if m.value.startswith("##### ")]
    assert named and "角道オープン四間飛車 · Open\\-diagonal fourth\\-file rook" in named[0], named
    assert "居飛車" in named[0], named


# ----- defect 11: wording, headers, charts, downloads, engine comments ---------------------------


def test_engine_comments_are_shown_as_score_and_moves_in_japanese(db):
    """A CSA engine comment (``** 24 +8877GI -3122GI``) was shown as it is; the move list and
    the comment under the board give the score and the principal variation in KI2."""
    found = db.execute("SELECT game, ply, comment FROM moves WHERE line = 0 AND comment LIKE "
                       "'**%' AND score_black IS NOT NULL AND ply > 1 ORDER BY game, ply "
                       "LIMIT 1").fetchone()
    assert found is not None
    game, ply, comment = found
    at = page("game", game=game, ply=ply)
    window = table(at, f"moves-{game}-")
    shown = window[window["ply"] == ply].iloc[0]["comment"]
    assert "**" not in shown and shown.startswith("評価値 ") and re.search(r"[▲△]", shown) \
        or comment.strip() == "**", (comment, shown)
    assert not any("**" in str(i.value) for i in at.info)


def test_counts_read_one_move_never_game_s(db):
    """"1 moves" and "game(s)" are gone: a one-move line reads "1 move"."""
    one = db.execute("SELECT game FROM games WHERE moves = 1 ORDER BY game LIMIT 1").fetchone()
    if one is not None:
        at = page("game", game=one[0])
        assert any(" · 1 move · " in str(c.value) for c in at.caption)
    texts = []
    for view in ("explorer", "game", "players"):
        at = page(view)
        texts += [str(e.value) for e in (*at.caption, *at.subheader, *at.markdown)]
        texts += [str(m.proto.delta) for m in at.metric]
    wrong = [t for t in texts if "game(s)" in t or re.search(r"(?<![\d,.])1 (moves|games)\b", t)]
    assert not wrong, wrong


def test_the_rating_chart_is_not_drawn_from_zero_and_its_months_say_the_year(db):
    player = db.execute(
        "SELECT p FROM (SELECT black p, date, winner FROM games UNION ALL SELECT white, date, "
        "winner FROM games) WHERE p IS NOT NULL AND date IS NOT NULL AND winner IN ('black', "
        "'white', 'draw') GROUP BY p ORDER BY count(*) DESC, p LIMIT 1").fetchone()[0]
    at = page("players", name=player)
    rating = next(c for c in charts(at) if "rating" in json.dumps(c.get("encoding", {})))
    assert rating["encoding"]["y"]["scale"]["zero"] is False
    assert rating["encoding"]["x"]["type"] == "temporal"
    assert "%Y" in rating["encoding"]["x"]["axis"]["format"]


def test_years_are_on_a_quantitative_axis():
    """Per-year charts put 1917 and 2003 86 years apart, not side by side (an ordinal axis)."""
    at = page("openings")
    specs = [json.dumps(c) for c in charts(at)]
    by_year = [json.loads(s) for s in specs if "share of the year" in s]
    assert by_year
    for spec in by_year:
        layers = spec.get("layer", [spec])
        assert all(layer["encoding"]["x"]["type"] == "quantitative" for layer in layers
                   if "x" in layer.get("encoding", {}))


def test_games_tables_headers_match_their_japanese_cells():
    at = page("search", moves="7g7f")
    found = next(d for d in at.dataframe if d.key and d.key.startswith("search-hits"))
    config = json.loads(found.proto.columns)
    labels = {name: c.get("label") for name, c in config.items()}
    assert labels["result"] == "結果 Result" and labels["event"] == "棋戦 Event"


def test_the_download_cap_is_said_on_the_page_and_shift_jis_can_be_chosen(db, dashboard_store):
    from kifudb.analytics.export import games_archive, record_text
    from kifudb.ingest.read import read_bytes
    from kifudb.ingest.validate import validate_record

    at = page("search", moves="7g7f")
    said = " ".join(str(c.value) for c in at.caption)
    assert "at most 2,000" in said.replace("\\", "")
    assert at.selectbox(key="search-encoding").value == "utf-8"
    run(at.selectbox(key="search-encoding").set_value("cp932"))
    assert at.selectbox(key="search-encoding").value == "cp932"
    run(at.selectbox(key="search-format").set_value("jkf"))
    assert not [s for s in at.selectbox if s.key == "search-encoding"]  # JKF: UTF-8 only

    game, fingerprint = db.execute(
        "SELECT game, fingerprint FROM games WHERE valid AND moves > 20 AND (black SIMILAR TO "
        "'.*[ぁ-んァ-ン一-龥].*') ORDER BY game LIMIT 1").fetchone()
    at = page("game", game=game)
    control = next(s for s in at.get("button_group") if s.key == f"download-encoding-{game}")
    run(control.set_value("cp932"))
    assert {b.label for b in at.get("download_button")} >= {"KIF", "KI2", "CSA"}
    for fmt in ("kif", "ki2", "csa"):
        text = record_text(dashboard_store, game, fmt, "cp932")["text"]
        if fmt != "ki2":  # KIF and CSA declare their encoding; a KI2 reader sniffs it
            assert "Shift_JIS" in "".join(text.splitlines()[:2]), fmt
        read = read_bytes(text.encode("cp932"), f"game.{fmt}")
        assert read.encoding == "cp932"
        assert validate_record(read.records[0]).fingerprint == fingerprint, fmt
    archive = games_archive(dashboard_store, [game], "kif", encoding="cp932")
    name = next(n for n in zipfile.ZipFile(io.BytesIO(archive.data)).namelist()
                if n.endswith(".kif"))
    data = zipfile.ZipFile(io.BytesIO(archive.data)).read(name)
    assert read_bytes(data, name).encoding == "cp932"
