"""One name per player (``labels.players``, ``store.player_names``, ``analytics.players``):
the canonical names of every player of the real records, the title holders by period, the
player filter and statistics by canonical name, and ``kifudb players [--suggest]``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.analytics import players, stats
from kifudb.analytics.filters import GameFilter
from kifudb.cli import main
from kifudb.labels.players import RulesError, canonical, canonical_name, rules
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ROOT / "tests" / "fixtures" / "players"

#: Every spelling of the real records (``tests/fixtures``: records, classify, evaluations,
#: players …) whose canonical name is not the name as written, with the game's date.
RENAMED = {
    ("伊奈祐介六段", "2009-12-03"): "伊奈祐介", ("佐藤 天彦名人", "2018-05-08"): "佐藤天彦",
    ("木村一基七段", "2005-11-29"): "木村一基", ("森けい二", "1985-01-23"): "森雞二",
    ("渡辺\u3000明竜王", "2005-11-29"): "渡辺明", ("羽生 善治竜王", "2018-05-08"): "羽生善治",
    ("羽生五段", None): "羽生善治", ("菅井竜也五段", "2014-03-15"): "菅井竜也",
    ("藤井聡太王位", "2021-06-29"): "藤井聡太", ("西尾\u3000明五段", "2009-12-03"): "西尾明",
    ("豊島将之竜王", "2021-06-29"): "豊島将之", ("藤井\u3000猛九段", None): "藤井猛"}
#: The spellings of the real records left as written and flagged: surnames with a title in
#: undated games.
AMBIGUOUS = {"羽生七冠": ("羽生善治",), "羽生名人": ("羽生善治",), "藤井八冠": ("藤井聡太",),
             "藤井竜王": ("藤井猛", "藤井聡太"), "谷川名人": ("谷川浩司",),
             "羽生王将": ("羽生善治",)}  # the last in tests/fixtures/twins only


@pytest.fixture(scope="module")
def every_record(fixtures_store) -> Path:
    return fixtures_store


@pytest.fixture(scope="module")
def named(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("named") / "store"
    ingest_paths([str(PLAYERS)], folder)
    return folder


def test_canonical_names_hold_on_every_real_record(every_record):
    rows = Store(every_record).connect().execute(
        "SELECT DISTINCT name, date FROM (SELECT black AS name, date FROM games UNION ALL "
        "SELECT white, date FROM games) WHERE name IS NOT NULL").fetchall()
    assert len(rows) > 150
    renamed, ambiguous = {}, {}
    for name, date in rows:
        found = canonical(name, date)
        if found.ambiguous:
            ambiguous[name] = found.candidates
            assert found.name == name
        elif found.name != name:
            renamed[(name, date.isoformat() if date else None)] = found.name
    assert renamed == RENAMED
    assert ambiguous == AMBIGUOUS
    # the store's summary says the same (store.player_names)
    summary = {(r["black"], r["black_player"]) for r in stats.fetch(
        every_record, stats.sa.select(stats.G.black, stats.G.black_player))}
    assert ("渡辺\u3000明竜王", "渡辺明") in summary and ("藤井竜王", "藤井竜王") in summary
    assert all(written is None or player is not None for written, player in summary)


@pytest.mark.parametrize("written", ["羽生善治", "羽生 善治竜王", "羽生善治王位", "羽生善治 名人",
                                     "羽生善治九段", "羽生善治(竜王)", "羽生善治王位・棋聖",
                                     "羽生善治永世七冠", "羽生五段", "羽生善治先生"])
def test_spellings_of_one_player(written):
    assert canonical(written) == ("羽生善治", False, ())
    assert canonical("ＨＡＢＵ　Ｙｏｓｈｉｈａｒｕ").name == "HABU Yoshiharu"  # NFKC


def test_every_suffix_the_rules_know_leaves_the_player(tmp_path):
    """Each title (with its prefixes), crown, rank and honorific of ``players.toml`` after a
    name leaves the player's canonical name (``canonical_name``, what the ingest tells two
    games apart by), and a name that only begins another is another player."""
    r = rules()
    suffixes = [*r.titles, *r.crowns, *r.ranks, *r.honorifics,
                *(prefix + title for prefix in r.title_prefixes for title in r.titles)]
    assert len(suffixes) > 200
    assert {canonical_name("羽生善治" + suffix) for suffix in suffixes} == {"羽生善治"}
    assert {canonical_name("羽生 善治" + suffix) for suffix in suffixes} == {"羽生善治"}
    assert len({canonical_name(f"a{n}") for n in range(1, 201)}) == 200
    assert canonical_name("藤井竜王", "2022-01-10") == canonical_name("藤井聡太")
    assert canonical_name("藤井竜王", "1999-06-01") == canonical_name("藤井猛九段")


def one_game(folder: Path, name: str, black: str, white: str = "先手", date: str = None) -> None:
    """A CSA file of the same three moves, with these players (and date)."""
    started = f"$START_TIME:{date}\n" if date else ""
    (folder / f"{name}.csa").write_text(f"V2.2\nN+{black}\nN-{white}\n{started}PI\n+\n"
                                        f"+7776FU\n-3334FU\n+8822UM\n", encoding="utf-8")


def test_players_whose_names_begin_one_another_are_different_games(tmp_path):
    """200 files of the same moves by ``a1`` … ``a200`` are 200 games (they were 9: ``a1`` was
    taken for ``a10``, ``a100`` … as if ``0`` were a title)."""
    records = tmp_path / "records"
    records.mkdir()
    for n in range(1, 201):
        one_game(records, f"g{n}", f"a{n}", "b")
    report = ingest_paths([records], tmp_path / "store")
    assert (report.games_added, report.games_known) == (200, 0)
    store = Store(tmp_path / "store")
    assert store.connect().execute("SELECT count(DISTINCT black) FROM games").fetchone() == (200,)


def test_a_title_or_rank_after_a_name_is_the_same_game(tmp_path):
    """Sources of the same moves whose players differ only by a title, rank, honorific or
    spaces are one game, with a source each; other players (藤井猛, 藤井聡太) stay apart; a
    surname with a title is whoever held it on the game's date."""
    records = tmp_path / "records"
    records.mkdir()
    spellings = ["羽生善治", "羽生善治竜王", "羽生 善治九段", "羽生善治永世七冠", "羽生五段",
                 "羽生善治(名人)", "羽生善治先生", "羽生善治王位・棋聖"]
    for n, black in enumerate(spellings):
        one_game(records, f"habu{n}", black, "森内俊之名人")
    one_game(records, "fujii-dated", "藤井竜王", "渡辺明", "2022/01/10 10:00:00")
    one_game(records, "fujii-sota", "藤井聡太", "渡辺明九段", "2022/01/10 10:00:00")
    one_game(records, "fujii-takeshi", "藤井猛", "渡辺明", "2022/01/10 10:00:00")
    report = ingest_paths([records], tmp_path / "store")
    assert report.games_read == len(spellings) + 3
    assert (report.games_added, report.games_known) == (3, len(spellings))
    c = Store(tmp_path / "store").connect()
    assert sorted(c.execute("SELECT count(*) FROM sources GROUP BY game").fetchall()) == \
        [(1,), (2,), (len(spellings),)]


def test_titles_resolve_by_period_and_different_people_stay_apart():
    assert canonical("藤井竜王", "1999-06-01").name == "藤井猛"
    assert canonical("藤井竜王", "2021-11-12").ambiguous  # 豊島 held it until 2021-11-13
    assert canonical("藤井竜王", "2021-11-13").name == "藤井聡太"
    assert canonical("木村名人", "1940-01-01").name == "木村義雄"
    assert canonical("羽生七冠", "1996-03-01").name == "羽生善治"
    assert canonical("藤井八冠", "2024-01-01").name == "藤井聡太"
    assert canonical("藤井八冠", "2024-07-01").ambiguous  # 叡王 lost on 2024-06-20
    assert canonical("藤井竜王", "2030-01-01").ambiguous  # past the table's known_until
    assert canonical("中村王座", "2016-01-01") == ("中村王座", True, ("中村太地",))  # 羽生 held it
    assert canonical("大内棋王", "2018-01-01") == ("大内棋王", True, ())  # no such player known
    people = ["藤井猛", "藤井聡太", "木村義雄", "木村一基", "佐藤康光", "佐藤天彦"]
    assert [canonical(p).name for p in people] == people
    assert canonical("佐藤九段").ambiguous and canonical("佐藤").ambiguous
    assert canonical("名人コブラ").name == "名人コブラ"  # a title at the start is a name
    assert canonical("大合神クジラちゃん2").name == "大合神クジラちゃん2"


@pytest.mark.parametrize("written, date, expected", [
    # inside a term, for each title of the table
    ("羽生王座", "2010-05-01", "羽生善治"), ("藤井王位", "2022-01-01", "藤井聡太"),
    ("渡辺竜王", "2008-01-01", "渡辺明"), ("森内名人", "2005-01-01", "森内俊之"),
    ("谷川王将", "1994-01-01", "谷川浩司"), ("久保棋王", "2010-06-01", "久保利明"),
    ("佐藤棋聖", "2005-01-01", "佐藤康光"), ("高見叡王", "2018-10-01", "高見泰地"),
    ("中村王座", "2018-01-01", "中村太地"), ("永瀬王座", "2020-01-01", "永瀬拓矢"),
    ("深浦王位", "2008-12-01", "深浦康市"), ("郷田王将", "2016-01-01", "郷田真隆"),
    ("南棋王", "1990-06-01", "南芳一"), ("屋敷棋聖", "1990-12-01", "屋敷伸之"),
    ("伊藤叡王", "2024-06-21", "伊藤匠"),
    # a change-over: the day the decisive game was played belongs to the winner
    ("羽生棋王", "1991-03-17", None), ("羽生棋王", "1991-03-18", "羽生善治"),
    ("永瀬王座", "2023-10-10", "永瀬拓矢"), ("永瀬王座", "2023-10-11", None),
    ("木村王位", "2019-09-25", None), ("木村王位", "2019-09-26", "木村一基"),
    ("豊島竜王", "2019-12-06", None), ("豊島竜王", "2019-12-07", "豊島将之"),
    # outside every term of that player: stays as written, flagged
    ("羽生王座", "1991-01-01", None), ("谷川王将", "1997-01-01", None),
    ("藤井王位", "2019-01-01", None), ("藤井叡王", "2024-07-01", None),
    ("屋敷棋聖", "1999-01-01", None), ("郷田棋聖", "1999-01-01", "郷田真隆"),
    ("谷川棋聖", "2000-07-30", "谷川浩司"), ("羽生棋聖", "2000-07-31", "羽生善治"),
    ("郷田王位", "1992-09-08", None), ("郷田王位", "1992-09-09", "郷田真隆"),
    # two titles held at once, and a surname shared by two holders of one title
    ("羽生王位・王座", "2015-01-01", "羽生善治"), ("羽生王位・棋王", "2015-01-01", None),
    ("佐藤王将", "2002-06-01", "佐藤康光"), ("佐藤名人", "2017-01-01", "佐藤天彦"),
])
def test_the_title_holder_table_resolves_surnames_by_date(written, date, expected):
    found = canonical(written, date)
    if expected is None:
        assert found.ambiguous and found.name == written
    else:
        assert found == (expected, False, ())


def test_every_title_holder_row_is_a_term_in_order():
    """The table itself: per title, terms in date order that do not overlap (one holder at a
    time), each ending after it starts and the next one starting that day, every title
    covered from 1990 at the latest (叡王: from 2018) up to ``known_until``."""
    from kifudb.labels.players import rules as read

    table = read()
    by_title = {}
    for holder in table.holders:
        by_title.setdefault(holder.title, []).append(holder)
    assert {"竜王", "名人", "王位", "王座", "棋王", "王将", "棋聖", "叡王"} <= set(by_title)
    for title, terms in by_title.items():
        if title in ("七冠", "八冠"):
            continue
        assert terms == sorted(terms, key=lambda h: h.start), title
        for before, after in zip(terms, terms[1:]):
            assert before.end is not None and before.start < before.end, title
            assert before.end == after.start, (title, before, after)
        assert terms[-1].end is None or terms[-1].end > table.known_until, title
        if title != "叡王":
            assert terms[0].start.year <= 1990, title


def test_a_bad_rules_file_is_refused_with_its_place(tmp_path):
    text = (ROOT / "labels" / "players.toml").read_text(encoding="utf-8")
    bad = tmp_path / "players.toml"
    bad.write_text(text.replace('player = "島朗"', 'player = "島明"'), encoding="utf-8")
    with pytest.raises(RulesError, match="holder 1: '島明' is not a \\[\\[player\\]\\]"):
        rules(bad)
    bad.write_text(text.replace('surname = "羽生"', 'surname = "藤井"', 1), encoding="utf-8")
    with pytest.raises(RulesError, match="player 1: a name"):
        rules(bad)


def test_every_player_filter_matches_canonical_names_and_spellings(named):
    habu = {r["game"] for r in stats.games(named, limit=100,
                                           filters=GameFilter(player="羽生善治"))}
    assert len(habu) == 4
    for spelling in ("羽生 善治竜王", "羽生善治王位", "羽生五段", "羽生善治竜王"):
        assert {r["game"] for r in stats.games(named, limit=100, filters=GameFilter(
            player=spelling))} == habu
    assert len(stats.games(named, filters=GameFilter(player="藤井猛"))) == 1
    listed = {r["name"]: r for r in stats.players(named)}
    assert listed["羽生善治"]["spellings"] == ["羽生善治", "羽生 善治竜王", "羽生五段"]
    assert listed["羽生善治"]["games"] == 4 and listed["藤井猛"]["games"] == 1
    assert "藤井竜王" in listed and listed["藤井聡太"]["games"] == 2
    summary = stats.player_summary(named, "羽生 善治竜王")
    assert summary["player"] == "羽生善治" and summary["games"] == 4
    assert stats.head_to_head(named, "渡辺明", "木村一基七段")["games"]


def test_players_command_and_suggestions(named):
    runner = CliRunner()
    listed = runner.invoke(main, ["stats", "players", "--store", str(named), "--format", "json"])
    assert listed.exit_code == 0, listed.output
    first = json.loads(listed.output)[0]
    assert (first["name"], first["spellings"], first["games"]) == (
        "羽生善治", ["羽生善治", "羽生 善治竜王", "羽生五段"], 4)
    text = runner.invoke(main, ["players", "--store", str(named)])
    assert "羽生善治        4  羽生善治 / 羽生 善治竜王 / 羽生五段" in text.output
    suggested = runner.invoke(main, ["players", "--suggest", "--store", str(named),
                                     "--format", "json"])
    assert {s["written"]: s["candidates"] for s in json.loads(suggested.output)} == {
        k: list(v) for k, v in AMBIGUOUS.items() if k != "羽生王将"}
    assert suggested.exit_code == 0
    assert players.suggestions(named)[0]["reason"] == "surname with a title, undated"


def test_computed_ratings_follow_the_games_in_date_order(every_record):
    from kifudb.analytics.elo import K, START, player_rating, ratings

    connection = Store(every_record).connect()
    games = connection.execute(
        "SELECT game, date, black, white, winner FROM games WHERE date IS NOT NULL AND winner "
        "IN ('black', 'white', 'draw') AND black IS NOT NULL AND white IS NOT NULL "
        "ORDER BY date, game").fetchall()
    table, counted = {}, {}
    for game, date, black, white, winner in games:
        black, white = canonical(black, date).name, canonical(white, date).name
        if black == white:
            continue
        a, b = table.get(black, START), table.get(white, START)
        share = 1 / (1 + 10 ** ((b - a) / 400))
        points = {"black": 1.0, "white": 0.0, "draw": 0.5}[winner]
        table[black], table[white] = a + K * (points - share), b - K * (points - share)
        for name in (black, white):
            counted[name] = counted.get(name, 0) + 1
    found = ratings(every_record)
    assert len(found) == len(table) > 50
    for name, rating in table.items():
        assert found[name]["rating"] == round(rating, 1)
        assert found[name]["games"] == len(found[name]["history"]) == counted[name]
        assert found[name]["history"][-1]["rating"] == round(rating, 1)
    assert player_rating(every_record, "羽生 善治竜王") == found["羽生善治"]
    assert player_rating(every_record, "nobody at all") is None
    shown = CliRunner().invoke(main, ["stats", "player", "羽生善治", "--store", str(every_record),
                                      "--format", "json", "--rating"])
    assert json.loads(shown.output)["computed_rating"] == found["羽生善治"]


def test_the_player_page_shows_spellings_rating_and_history(named, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from kifudb.analytics.elo import ratings

    monkeypatch.setenv("KIFUDB_STORE", str(named))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.query_params.update({"name": "羽生 善治竜王"})  # ("player" is the games filter)
    at.run()
    at.switch_page("views/players.py")
    at.run()
    assert not at.exception
    assert [h.value for h in at.header][0] == "羽生善治"
    assert any("羽生 善治竜王" in str(c.value) and "羽生五段" in str(c.value) for c in at.caption)
    rating = next(m for m in at.metric if m.label.startswith("Computed rating"))
    assert rating.value == f"{ratings(named)['羽生善治']['rating']:.0f}"
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
