"""The research filters of ``analytics.filters.GameFilter`` — rating band, result, time
control, engine or not, labels reached by either side or one (several at once, a family, a
window of plies) — checked against
the rows of the games and labels tables of a store of every real record in ``tests/fixtures``,
and through the command line's options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.analytics import queries, stats
from kifudb.analytics.filters import FilterError, GameFilter
from kifudb.analytics.names import label_family
from kifudb.cli import main
from kifudb.store.folder import Store

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def store(fixtures_store) -> Path:
    return fixtures_store


@pytest.fixture(scope="module")
def rows(store) -> dict:
    connection = Store(store).connect()
    cursor = connection.execute("SELECT * FROM games")
    names = [d[0] for d in cursor.description]
    games = {r[0]: dict(zip(names, r)) for r in cursor.fetchall()}
    for game in games.values():
        game["labels"], game["reached"] = set(), set()
    for game, side, label, ply in connection.execute("SELECT game, side, label, ply FROM labels"
                                                     ).fetchall():
        games[game]["labels"].add((side, label))
        games[game]["reached"].add((side, label, ply))
    return games


def _chosen(store, filters: GameFilter) -> set:
    return {g["game"] for g in stats.games(store, limit=10 ** 5, filters=filters)}


@pytest.mark.parametrize("filters, keep", [
    (GameFilter(min_rating=3000, max_rating=3500),
     lambda g: g["black_rating"] is not None and g["white_rating"] is not None
     and 3000 <= min(g["black_rating"], g["white_rating"])
     and max(g["black_rating"], g["white_rating"]) <= 3500),
    (GameFilter(winner="draw"), lambda g: g["winner"] == "draw"),
    (GameFilter(time_control="時間"), lambda g: "時間" in (g["time_control"] or "")),
    (GameFilter(engine=True), lambda g: bool(g["black_engine"] or g["white_engine"])),
    (GameFilter(engine=False), lambda g: not (g["black_engine"] or g["white_engine"])),
    (GameFilter(label="四間飛車"), lambda g: any(l == "四間飛車" for _, l in g["labels"])),
    (GameFilter(label="四間飛車", label_side="white"),
     lambda g: ("white", "四間飛車") in g["labels"]),
    (GameFilter(label="美濃囲い", label_side="black", decided=True, moves_from=60),
     lambda g: ("black", "美濃囲い") in g["labels"] and g["winner"] != "none"
     and g["moves"] >= 60),
    (GameFilter(label="四間飛車, Mino castle"),  # several: each of them, by either side
     lambda g: {"四間飛車", "美濃囲い"} <= {l for _, l in g["labels"]}),
    (GameFilter(label="美濃囲い", label_family=True),  # 高美濃囲い and 銀冠 count
     lambda g: any(l in label_family("美濃囲い") for _, l in g["labels"])),
    (GameFilter(label="四間飛車", label_side="black", label_from_ply=10, label_to_ply=30),
     lambda g: any(s == "black" and l == "四間飛車" and 10 <= p <= 30
                   for s, l, p in g["reached"])),
    (GameFilter(label="Mino castle", label_family=True, label_side="white", label_to_ply=60),
     lambda g: any(s == "white" and l in label_family("美濃囲い") and p <= 60
                   for s, l, p in g["reached"])),
])
def test_each_filter_keeps_the_games_it_names(store, rows, filters, keep):
    expected = {game for game, row in rows.items() if keep(row)}
    assert expected, "the real records hold games of every kind filtered here"
    assert _chosen(store, filters) == expected
    assert stats.results(store, filters=filters)["games"] == len(expected)


def test_filters_are_checked_and_reach_the_explorer(store, rows):
    with pytest.raises(FilterError, match="label_side: needs a label"):
        GameFilter(label_side="black")
    with pytest.raises(FilterError, match="max_rating"):
        GameFilter(max_rating=-1)
    white_ranging = {g for g, r in rows.items() if ("white", "四間飛車") in r["labels"]
                     and r["start_sfen"].startswith("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/"
                                                    "PPPPPPPPP/1B5R1/LNSGKGSNL b")}
    moves = queries.explore(store, "startpos",
                            filters=GameFilter(label="四間飛車", label_side="white"))
    assert sum(m["count"] for m in moves) == len(white_ranging) > 20


def test_the_command_line_options(store, rows):
    runner = CliRunner()
    shown = runner.invoke(main, ["stats", "results", "--store", str(store), "--format", "json",
                                 "--label", "四間飛車", "--label-side", "white", "--result",
                                 "black", "--played-by", "human"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["games"] == sum(
        ("white", "四間飛車") in r["labels"] and r["winner"] == "black"
        and not (r["black_engine"] or r["white_engine"]) for r in rows.values())
    banded = runner.invoke(main, ["explore", "--store", str(store), "--format", "json",
                                  "--min-rating", "3300", "--max-rating", "3700"])
    assert banded.exit_code == 0, banded.output
    assert sum(m["games"] for m in json.loads(banded.output)["moves"]) == sum(
        r["black_rating"] is not None and 3300 <= r["black_rating"] <= 3700
        and 3300 <= r["white_rating"] <= 3700 for r in rows.values()) == 2
    timed = runner.invoke(main, ["explore", "--store", str(store), "--format", "json",
                                 "--time-control", "6時間"])
    assert sum(m["games"] for m in json.loads(timed.output)["moves"]) == 4
    refused = runner.invoke(main, ["stats", "results", "--store", str(store),
                                   "--label-side", "black"])
    assert refused.exit_code != 0 and "needs a label" in refused.output
    for option in ("--label-family", "--label-from-ply=3", "--label-to-ply=9"):
        refused = runner.invoke(main, ["stats", "results", "--store", str(store), option])
        assert refused.exit_code != 0 and "needs a label" in refused.output, option
    # "the games in which Black ranged the rook to the fourth file between ply 5 and 25"
    windowed = runner.invoke(main, ["stats", "results", "--store", str(store), "--format",
                                    "json", "--label", "四間飛車", "--label-side", "black",
                                    "--label-from-ply", "5", "--label-to-ply", "25"])
    assert windowed.exit_code == 0, windowed.output
    assert json.loads(windowed.output)["games"] == sum(
        any(s == "black" and l == "四間飛車" and 5 <= p <= 25 for s, l, p in r["reached"])
        for r in rows.values()) > 0
    listed = runner.invoke(main, ["stats", "games", "--store", str(store), "--format", "json",
                                  "--limit", "1000", "--label", "四間飛車", "--label-side",
                                  "black", "--label-from-ply", "5", "--label-to-ply", "25"])
    assert listed.exit_code == 0, listed.output
    assert {g["game"] for g in json.loads(listed.output)} == {
        game for game, r in rows.items()
        if any(s == "black" and l == "四間飛車" and 5 <= p <= 25 for s, l, p in r["reached"])}
    empty = runner.invoke(main, ["stats", "games", "--store", str(store), "--label", "居飛車",
                                 "--label-from-ply", "100000"])
    assert empty.exit_code == 0 and "nothing in scope" in empty.output


def test_each_move_has_its_score_performance_and_the_position_its_history(store, rows):
    from collections import Counter, defaultdict

    from kifudb.analytics.position_history import position_history
    from kifudb.analytics.results import wilson

    start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b"
    connection = Store(store).connect()
    first = dict(connection.execute("SELECT game, usi FROM moves WHERE line = 0 AND ply = 1 "
                                    "AND usi IS NOT NULL").fetchall())
    even = {g: r for g, r in rows.items() if r["start_sfen"].startswith(start) and g in first}
    by_move = defaultdict(list)
    for game, row in even.items():
        by_move[first[game]].append(row)
    found = {m["move"]: m for m in queries.explore(store, "startpos")}
    assert set(found) == set(by_move)  # every move, no top-N cut
    for move, played in by_move.items():
        m = found[move]
        wins = Counter(r["winner"] for r in played)
        decided = wins["black"] + wins["white"] + wins["draw"]
        assert m["count"] == len(played)
        if decided:
            score = (wins["black"] + wins["draw"] / 2) / decided
            assert m["black_score"] == round(score, 4)
            assert (m["ci_low"], m["ci_high"]) == tuple(round(x, 4) for x in wilson(
                wins["black"] + wins["draw"] / 2, decided))
        rated = [r for r in played if r["white_rating"] is not None and r["winner"] != "none"]
        if rated:
            points = sum(1.0 if r["winner"] == "black" else 0.5 if r["winner"] == "draw" else 0
                         for r in rated)
            average = sum(r["white_rating"] for r in rated) / len(rated)
            assert m["performance"] == round(average + 400 * (2 * points - len(rated))
                                             / len(rated), 1)
        else:
            assert m["performance"] is None
    assert sum(m["performance"] is not None for m in found.values()) >= 2
    months = Counter(r["date"].strftime("%Y-%m") for g, r in rows.items()
                     if r["date"] is not None and r["start_sfen"].startswith(start))
    history = position_history(store, "startpos")
    assert {h["month"]: h["games"] for h in history} == dict(months)
    assert [h["month"] for h in history] == sorted(months)
    shown = CliRunner().invoke(main, ["explore", "--store", str(store), "--history",
                                      "--format", "json"])
    assert json.loads(shown.output)["history"] == history


def explorer_page(store, monkeypatch):
    """The dashboard's explorer on ``store``, run once (Streamlit's AppTest)."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("KIFUDB_STORE", str(store))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("views/explorer.py")
    at.run()
    return at


def test_the_explorer_page_shows_the_history_by_month(store, monkeypatch):
    from kifudb.analytics.position_history import position_history

    at = explorer_page(store, monkeypatch)
    assert not at.exception
    months = position_history(store, "startpos")
    assert len(months) > 10
    assert any(e.label == f"By month · {len(months)} months with dated games"
               for e in at.expander)
    assert any(f"From {months[0]['month']} to {months[-1]['month']}" in str(c.value)
               for c in at.caption)


@pytest.mark.parametrize("opening", [(), ("7g7f",)])
def test_the_mover_rating_band(store, rows, opening):
    """A band on the mover (``rating_of="mover"``) keeps the games in which the player to move
    in the position is rated inside it — ▲ at the start, △ after 7g7f — where a band on both
    players keeps fewer; checked against the games' ratings and moves."""
    from collections import Counter

    from kifudb.analytics.position_games import position_games
    from kifudb.analytics.position_history import position_history
    from kifudb.core.position import Position

    start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b"
    connection = Store(store).connect()
    played = {}
    for game, ply, usi in connection.execute("SELECT game, ply, usi FROM moves WHERE line = 0 "
                                             "AND ply <= 2 ORDER BY game, ply").fetchall():
        played.setdefault(game, []).append(usi)
    position = Position()
    for usi in opening:
        position.push_usi(usi)
    mover = "black_rating" if len(opening) % 2 == 0 else "white_rating"
    band = dict(min_rating=3000, max_rating=3500)
    reached = {g: played[g][len(opening)] for g, r in rows.items()
               if r["start_sfen"].startswith(start) and len(played.get(g, [])) > len(opening)
               and tuple(played[g][:len(opening)]) == opening}
    in_band = {g: m for g, m in reached.items() if rows[g][mover] is not None
               and 3000 <= rows[g][mover] <= 3500}
    both = {g for g in reached if all(rows[g][side] is not None and 3000 <= rows[g][side] <= 3500
                                      for side in ("black_rating", "white_rating"))}
    assert len(in_band) == 2 and len(both) == 1  # the real records make the two differ
    chosen = GameFilter(**band, rating_of="mover")
    found = {m["move"]: m["count"] for m in queries.explore(store, position, filters=chosen)}
    assert found == dict(Counter(in_band.values()))
    assert sum(m["count"] for m in queries.explore(store, position,
                                                   filters=GameFilter(**band))) == len(both)
    assert sum(h["games"] for h in position_history(store, position, filters=chosen)) == len(
        [g for g in in_band if rows[g]["date"] is not None])
    assert {r["game"] for r in position_games(store, position, filters=chosen,
                                              limit=100)} == set(in_band)
    # without a position (the statistics), either player in the band
    either = {g for g, r in rows.items() if any(
        r[side] is not None and 3000 <= r[side] <= 3500 for side in ("black_rating",
                                                                     "white_rating"))}
    assert _chosen(store, chosen) == either and len(either) == 3
    # the command line's option
    shown = CliRunner().invoke(main, ["explore", "--store", str(store), "--format", "json",
                                      "--min-rating", "3000", "--max-rating", "3500",
                                      "--rating-of", "mover", *(["--moves", " ".join(opening)]
                                                                if opening else [])])
    assert shown.exit_code == 0, shown.output
    assert {m["usi"]: m["games"] for m in json.loads(shown.output)["moves"]} == found
    refused = CliRunner().invoke(main, ["explore", "--store", str(store), "--rating-of",
                                        "mover"])
    assert refused.exit_code != 0 and "needs min_rating or max_rating" in refused.output


def test_the_sidebar_sets_a_band_on_the_mover(store, monkeypatch):
    """The sidebar's "Rating band on: the player to move" reaches the explorer: at the start
    the games whose ▲ is rated 3000–3500 (two), not those whose two players are (one)."""
    at = explorer_page(store, monkeypatch)
    at.number_input(key="f_min_rating").set_value(3000)
    at.number_input(key="f_max_rating").set_value(3500)
    at.run()
    assert not at.exception
    shown = [h.value.replace("\\", "") for h in at.subheader]  # Markdown escapes
    assert any(" · 1 game · both rated 3000+, both rated at most 3500" in h for h in shown), shown
    at.selectbox(key="f_rating_of").set_value("the player to move")
    at.run()
    assert not at.exception
    shown = [h.value.replace("\\", "") for h in at.subheader]
    assert any(" · 2 games · mover rated 3000+, mover rated at most 3500" in h for h in shown)


def test_the_explorer_page_shows_each_moves_performance(store, monkeypatch):
    """The moves list has a performance column beside the average rating (where games are
    rated): each move's ``performance`` from ``analytics.queries.explore``, rounded."""
    import re

    at = explorer_page(store, monkeypatch)
    assert not at.exception
    cells = [(re.search(r'class="n rating">([^<]*)<', m.value).group(1),
              re.search(r'class="n perf">([^<]*)<', m.value).group(1))
             for m in at.markdown if 'class="n perf">' in m.value]
    found = queries.explore(store, "startpos")
    assert cells == [("—" if m["average_rating"] is None else f"{m['average_rating']:.0f}",
                      "—" if m["performance"] is None else f"{m['performance']:.0f}")
                     for m in found]
    assert sum(perf != "—" for _, perf in cells) >= 2
    assert any("perf." in m.value for m in at.markdown)  # the header
