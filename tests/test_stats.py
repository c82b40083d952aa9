"""The statistics (``analytics.stats``), ``kifudb stats`` and ``kifudb relabel``, on a store built
from the real records of ``tests/fixtures/records`` and ``data/samples/games.usi``.

Every figure is checked against a brute force in Python: the games' rows are read once with
plain DuckDB, every stored main line is labelled again with ``labels.classify`` from the
``moves`` table, and the counts are made with loops and ``collections.Counter``.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from kifudb.analytics import stats
from kifudb.analytics.filters import FilterError, GameFilter
from kifudb.analytics.results import Results
from kifudb.labels.classify import classify_game
from kifudb.labels.players import canonical as player_name
from kifudb.store.relabel import relabel
from kifudb.store.folder import Store
from kifudb.store.writer import ingest_paths
from kifudb.cli import main

SOURCES = ["tests/fixtures/records", "data/samples/games.usi"]
FILTERS = [{}, {"handicap": "平手"}, {"player": "a"}, {"date_from": "2000-01-01"},
           {"date_from": "2010-01-01", "date_to": "2019-12-31"}, {"event": "wcsc"}]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stats") / "store"
    ingest_paths(SOURCES, folder)
    return folder


@pytest.fixture(scope="module")
def games(store):
    """Every game the store shows, as a dict, with its labels recomputed from its moves."""
    connection = Store(store).connect()
    cursor = connection.execute("SELECT * FROM games ORDER BY game")
    names = [d[0] for d in cursor.description]
    rows = {r[0]: dict(zip(names, r)) for r in cursor.fetchall()}
    lines = defaultdict(list)
    for game, usi in connection.execute("SELECT game, usi FROM moves WHERE line = 0 AND usi IS "
                                        "NOT NULL ORDER BY game, ply").fetchall():
        lines[game].append(usi)
    for game, row in rows.items():
        row["labels"] = classify_game(row["start_sfen"], lines[game]).rows()
    return list(rows.values())


def _in_scope(game: dict, player=None, date_from=None, date_to=None, event=None,
              handicap=None) -> bool:
    if player is not None and not any(player.lower() in (n or "").lower()
                                      for n in (game["black"], game["white"])):
        return False
    if event is not None and event.lower() not in (game["event"] or "").lower():
        return False
    if handicap is not None and game["handicap"] != handicap:
        return False
    if date_from is not None and (game["date"] is None or game["date"].isoformat() < date_from):
        return False
    if date_to is not None and (game["date"] is None or game["date"].isoformat() > date_to):
        return False
    return True


def _tally(winners) -> tuple:
    counts = Counter(winners)
    return counts["black"], counts["white"], counts["draw"]


def test_the_store_has_labels_for_the_brute_force_to_check(games):
    labelled = [g for g in games if g["labels"]]
    assert len(labelled) > 50
    kinds = Counter(kind for g in games for _, kind, *_ in g["labels"])
    assert kinds["castle"] > 20 and kinds["opening"] > 20


@pytest.mark.parametrize("filters", FILTERS)
def test_results_match_brute_force(store, games, filters):
    chosen = GameFilter(**filters)
    scope = [g for g in games if _in_scope(g, **filters)]
    total = stats.results(store, filters=chosen)
    black, white, draws = _tally(g["winner"] for g in scope)
    assert (total["games"], total["black_wins"], total["white_wins"], total["draws"]) == \
        (len(scope), black, white, draws)
    assert total["other"] == len(scope) - black - white - draws
    if black + white + draws:
        assert total["black_score"] == round((black + draws / 2) / (black + white + draws), 4)
        assert total["ci_low"] <= total["black_score"] <= total["ci_high"]

    by_year = defaultdict(list)
    for g in scope:
        if g["date"] is not None:
            by_year[g["date"].year].append(g["winner"])
    assert [(r["year"], r["games"], r["black_wins"], r["white_wins"], r["draws"])
            for r in stats.results_by_year(store, filters=chosen)] == \
        [(y, len(w), *_tally(w)) for y, w in sorted(by_year.items())]

    by_reason = defaultdict(list)
    for g in scope:
        by_reason[g["reason"]].append(g["winner"])
    assert {r["reason"]: (r["games"], r["black_wins"], r["white_wins"], r["draws"])
            for r in stats.results_by_reason(store, filters=chosen)} == \
        {reason: (len(w), *_tally(w)) for reason, w in by_reason.items()}

    lengths = Counter(g["moves"] // 25 * 25 for g in scope)
    assert [(r["moves_from"], r["moves_to"], r["games"])
            for r in stats.game_lengths(store, bucket=25, filters=chosen)] == \
        [(start, start + 24, n) for start, n in sorted(lengths.items())]


@pytest.mark.parametrize("filters", FILTERS[:4])
@pytest.mark.parametrize("kind", ["castle", "opening"])
def test_label_frequencies_and_win_rates_match_brute_force(store, games, kind, filters):
    chosen = GameFilter(**filters)
    scope = [g for g in games if _in_scope(g, **filters)]
    reached = defaultdict(list)
    yearly = defaultdict(set)
    for g in scope:
        for side, label_kind, label, ply, primary in g["labels"]:
            if label_kind == kind:
                reached[side, label].append(g)
                if g["date"] is not None:
                    yearly[g["date"].year, side, label].add(g["game"])
    frequencies = {(r["side"], r["label"]): r
                   for r in stats.label_frequencies(store, kind, filters=chosen)}
    assert {k: r["games"] for k, r in frequencies.items()} == {k: len(v) for k, v in reached.items()}
    for key, row in frequencies.items():
        assert row["share"] == round(len(reached[key]) / len(scope), 4)

    dated = Counter(g["date"].year for g in scope if g["date"] is not None)
    by_year = stats.label_frequencies(store, kind, by_year=True, filters=chosen)
    assert {(r["year"], r["side"], r["label"]): r["games"] for r in by_year} == \
        {k: len(v) for k, v in yearly.items()}
    assert all(r["share"] == round(r["games"] / dated[r["year"]], 4) for r in by_year)

    for row in stats.win_rates(store, kind, filters=chosen):
        played = reached[row["side"], row["label"]]
        other = "white" if row["side"] == "black" else "black"
        winners = Counter(g["winner"] for g in played)
        assert (row["games"], row["wins"], row["losses"], row["draws"]) == \
            (len(played), winners[row["side"]], winners[other], winners["draw"])

    assert stats.win_rates(store, kind, min_games=3, filters=chosen) == \
        [r for r in stats.win_rates(store, kind, filters=chosen) if r["games"] >= 3]


@pytest.mark.parametrize("kind, against", [("castle", "castle"), ("castle", "opening"),
                                           ("opening", "opening")])
def test_pairings_match_brute_force(store, games, kind, against):
    expected = defaultdict(list)
    for g in games:
        black = [label for side, k, label, _, primary in g["labels"]
                 if side == "black" and k == kind and primary]
        white = [label for side, k, label, _, primary in g["labels"]
                 if side == "white" and k == against and primary]
        for b in black:
            for w in white:
                expected[b, w].append(g["winner"])
    found = stats.pairings(store, kind, against)
    assert {(r["black_label"], r["white_label"]): (r["games"], r["black_wins"], r["white_wins"],
                                                  r["draws"]) for r in found} == \
        {k: (len(w), *_tally(w)) for k, w in expected.items()}
    assert [r["games"] for r in found] == sorted((r["games"] for r in found), reverse=True)


@pytest.mark.parametrize("filters", FILTERS[:3])
def test_games_lists_the_games_in_scope_newest_first(store, games, filters):
    chosen = GameFilter(**filters)
    scope = [g for g in games if _in_scope(g, **filters)]
    newest = sorted(scope, key=lambda g: (g["date"] is None, -(g["date"].toordinal()
                                                                if g["date"] else 0), -g["game"]))
    listed = stats.games(store, limit=10 ** 6, filters=chosen)
    assert [g["game"] for g in listed] == [g["game"] for g in newest]
    assert stats.games(store, limit=5, offset=3, filters=chosen) == listed[3:8]
    resigned = stats.games(store, limit=10 ** 6,
                           filters=GameFilter(reason="resign", winner="black", **filters))
    assert {g["game"] for g in resigned} == {g["game"] for g in scope if g["reason"] == "resign"
                                             and g["winner"] == "black"}
    short = stats.games(store, limit=10 ** 6,
                        filters=GameFilter(moves_from=10, moves_to=40, **filters))
    assert {g["game"] for g in short} == {g["game"] for g in scope if 10 <= g["moves"] <= 40}


def test_label_games_and_game_labels(store, games):
    by_game = {g["game"]: g for g in games}
    some = next(g for g in games if len(g["labels"]) >= 3)
    found = stats.game_labels(store, some["game"])
    assert sorted((r["side"], r["kind"], r["label"], r["ply"], r["primary"]) for r in found) == \
        sorted(some["labels"])
    assert [r["ply"] for r in found] == sorted(r["ply"] for r in found)
    side, _, label, ply, _ = some["labels"][0]
    examples = stats.label_games(store, label, side=side, limit=1000)
    assert {e["game"] for e in examples} == {g["game"] for g in games
                                             if any(l[0] == side and l[2] == label
                                                    for l in g["labels"])}
    for example in examples:
        assert (side, label, example["ply"]) in {(l[0], l[2], l[3])
                                                 for l in by_game[example["game"]]["labels"]}
    # the limit counts games (a game both sides reached the label in is one, with two rows)
    assert len({e["game"] for e in stats.label_games(store, label, limit=1)}) == 1
    with pytest.raises(ValueError, match="unknown castle, opening, technique or note 'no such castle': did "
                                         "you mean"):  # issue 29: it answered "no games"
        stats.label_games(store, "no such castle")
    assert stats.game_labels(store, 10 ** 6) == []


def test_players_and_player_summary_match_brute_force(store, games):
    seats = defaultdict(list)  # by canonical name (labels.players), on the game's date
    for g in games:
        for side in ("black", "white"):
            if g[side] is not None:
                seats[player_name(g[side], g["date"]).name].append((side, g))
    found = stats.players(store)
    assert {r["player"]: r["games"] for r in found} == {p: len(s) for p, s in seats.items()}
    assert [r["games"] for r in found] == sorted((r["games"] for r in found), reverse=True)
    assert len(stats.players(store, limit=3)) == 3
    assert all(r["games"] >= 2 for r in stats.players(store, min_games=2))

    name = found[0]["player"]
    summary = stats.player_summary(store, name)
    mine = seats[name]
    assert summary["games"] == len(mine)
    for side in ("black", "white"):
        other = "white" if side == "black" else "black"
        winners = Counter(g["winner"] for s, g in mine if s == side)
        row = summary[f"as_{side}"]
        assert (row["games"], row["wins"], row["losses"], row["draws"]) == \
            (sum(winners.values()), winners[side], winners[other], winners["draw"])
    opponents = Counter(player_name(g[o], g["date"]).name for s, g in mine
                        if (o := "white" if s == "black" else "black") and g[o] is not None)
    assert {r["opponent"]: r["games"] for r in summary["opponents"]} == dict(opponents)
    for kind in ("castle", "opening"):
        labels = Counter(label for s, g in mine for side, k, label, _, primary in g["labels"]
                         if side == s and k == kind and primary)
        assert {r["label"]: r["games"] for r in summary[f"{kind}s"]} == dict(labels)
    assert len(summary["recent_games"]) == min(20, len(mine))

    rival = summary["opponents"][0]["opponent"]
    duel = stats.head_to_head(store, name, rival)
    assert len(duel["games"]) == summary["opponents"][0]["games"]
    assert (duel["wins"], duel["losses"], duel["draws"]) == tuple(
        summary["opponents"][0][k] for k in ("wins", "losses", "draws"))
    assert stats.player_summary(store, "nobody at all") is None


def test_findings_match_the_findings_table(store):
    connection = Store(store).connect()
    rows = connection.execute("SELECT code, severity, path FROM findings").fetchall()
    assert {(r["code"], r["severity"]): r["count"] for r in stats.finding_counts(store)} == \
        dict(Counter((code, severity) for code, severity, _ in rows))
    assert {r["path"]: r["count"] for r in stats.finding_counts(store, by="path",
                                                                 severity="error")} == \
        dict(Counter(path for _, severity, path in rows if severity == "error"))
    everything = stats.findings(store, limit=10 ** 6)
    assert len(everything) == len(rows)
    assert stats.findings(store, limit=5, offset=5) == everything[5:10]
    illegal = stats.findings(store, code="bad_geometry")
    assert illegal and all(f["code"] == "bad_geometry" and f["text"] for f in illegal)
    assert all("illegal_move" in f["path"] for f in stats.findings(store, path="illegal_move"))


def test_overview(store, games):
    view = stats.overview(store)
    names = {g[side] for g in games for side in ("black", "white")} - {None}
    assert view["games"] == len(games)
    assert view["players"] == len(names)
    assert view["valid_games"] == sum(g["valid"] for g in games)
    assert view["results"] == {w: sum(g["winner"] == w for g in games)
                               for w in ("black", "white", "draw", "none")}
    assert view["date_from"] == min(g["date"] for g in games if g["date"]).isoformat()
    assert view["positions"] == Store(store).connect().execute(
        "SELECT count(*) FROM positions").fetchone()[0]
    assert view["labels_current"] is True


@pytest.mark.parametrize("call", [
    lambda s: stats.label_frequencies(s, "fortress"),
    lambda s: stats.win_rates(s, "castle", min_games=0),
    lambda s: stats.pairings(s, "castle", against="side"),
    lambda s: stats.results(s, filters=GameFilter(date_from="last year")),
    lambda s: stats.game_lengths(s, bucket=0),
    lambda s: stats.label_games(s, "美濃囲い", side="left"),
    lambda s: stats.findings(s, severity="fatal"),
    lambda s: stats.player_summary(s, "  "),
    lambda s: stats.games(s, filters=GameFilter(winner="nobody")),
    lambda s: stats.games(s, offset=-1),
])
def test_bad_arguments_say_what_is_wrong(store, call):
    with pytest.raises(ValueError, match="must be|not a date"):
        call(store)


def test_filter_values_are_never_sql(store):
    hostile = "x' OR 1=1; DROP TABLE games; --"
    assert stats.results(store, filters=GameFilter(player=hostile))["games"] == 0
    assert stats.label_frequencies(store, "castle", filters=GameFilter(event=hostile)) == []
    assert stats.player_summary(store, hostile) is None
    assert stats.findings(store, path=hostile) == []
    assert stats.results(store)["games"] > 0


def test_wilson_interval_is_the_textbook_one():
    # Wilson (1927): 8 successes of 10 at 95% gives 0.4902 to 0.9433
    assert stats.wilson(8, 10) == (0.4902, 0.9433)
    low, high = stats.wilson(50, 100)
    assert math.isclose(low + high, 1.0)


def test_results_score_each_side_and_give_the_dicts_of_the_statistics():
    results = Results(black=8, white=2, draws=0, other=3)
    assert (results.games, results.decided) == (13, 10)
    assert (results.score(), results.wilson()) == (0.8, stats.wilson(8, 10))
    assert (results.score("white"), results.wilson("white")) == (0.2, stats.wilson(2, 10))
    assert Results.for_side("white", wins=2, losses=8, draws=0, other=3) == results
    assert results.side_dict("white") == {"games": 13, "wins": 2, "losses": 8, "draws": 0,
                                          "decided": 10, "score": 0.2, "ci_low": 0.0567,
                                          "ci_high": 0.5098}
    assert list(results.as_dict(other=False)) == ["games", "black_wins", "white_wins", "draws",
                                                 "decided", "black_score", "ci_low", "ci_high"]
    assert Results(draws=2).score() == 0.5 and Results(other=4).score() is None
    with pytest.raises(ValueError, match="side must be one of black, white"):
        results.score("draw")


def test_a_game_filter_is_checked_once_and_is_a_cache_key():
    chosen = GameFilter(player="羽生", date_from="2000-01-01", handicap="平手")
    assert chosen == GameFilter(player="羽生", date_from=datetime.date(2000, 1, 1),
                                handicap="平手")
    assert hash(chosen) == hash(GameFilter(player="羽生", date_from="2000-01-01 ",
                                           handicap="平手"))
    assert {chosen: 1}[chosen.replace(event=None)] == 1
    assert chosen.chosen() == {"player": "羽生", "date_from": datetime.date(2000, 1, 1),
                               "handicap": "平手"}
    assert len(chosen.where()) == 3 and GameFilter().where() == [] and not GameFilter()
    with pytest.raises(dataclasses.FrozenInstanceError):
        chosen.player = "森内"
    for values, message in [({"date_from": "2000-13-01"}, "date_from: not a date"),
                            ({"player": 3}, "player must be text, not int"),
                            ({"reason": " "}, "reason must be a non-empty name"),
                            ({"winner": "black's"}, "winner must be one of"),
                            ({"moves_to": -1}, "moves_to must be an integer of at least 0")]:
        with pytest.raises(FilterError, match=message) as raised:
            GameFilter(**values)
        assert raised.value.field == next(iter(values))


def test_player_summary_takes_a_player_filter_besides_the_player(store, games):
    """The player's exact name and the ``player`` filter (a part of either name) are two
    things: asking for both used to fail with "got multiple values for argument 'player'"."""
    name = stats.players(store, limit=1)[0]["player"]
    part = name[1:-1] if len(name) > 2 else name
    mine = [g for g in games if name in (g["black"], g["white"])]
    summary = stats.player_summary(store, name, filters=GameFilter(player=part))
    assert summary["games"] == len(mine)  # every game of the player has the part in a name
    assert summary == stats.player_summary(store, name)
    rival = summary["opponents"][0]["opponent"]
    assert stats.head_to_head(store, name, rival, filters=GameFilter(player=part)) == \
        stats.head_to_head(store, name, rival)
    elsewhere = GameFilter(player=rival) if part.lower() not in rival.lower() else None
    if elsewhere is not None:  # the filter still narrows: only the games against the rival
        narrowed = stats.player_summary(store, name, filters=elsewhere)
        assert narrowed["games"] == sum(rival in (g["black"], g["white"]) for g in mine)
    runner = CliRunner()
    result = runner.invoke(main, ["stats", "player", name, "--player", part, "--store",
                                  str(store), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == json.loads(json.dumps(summary))


def test_relabel_gives_the_same_labels_and_moves_the_labels_batch(tmp_path, store):
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    before = sorted(Store(copy).connect().execute(
        'SELECT game, side, kind, label, ply, "primary" FROM labels').fetchall())
    report = relabel(copy)
    state = Store(copy).labels_state()
    assert state["from_batch"] == int(report.batch[1:])
    after = Store(copy).connect()
    assert sorted(after.execute('SELECT game, side, kind, label, ply, "primary" FROM labels')
                  .fetchall()) == before
    # only the new batch's labels count: the old ones are still on disk, not counted twice
    assert after.execute("SELECT count(*) FROM labels_all").fetchone()[0] == 2 * len(before)
    with Store(copy).writing() as writer:
        writer.compact()
    assert sorted(Store(copy).connect().execute(
        'SELECT game, side, kind, label, ply, "primary" FROM labels').fetchall()) == before


def test_relabel_writes_its_labels_a_chunk_of_games_at_a_time(tmp_path, store, monkeypatch):
    """What relabel holds does not grow with the store: each chunk of games' labels is written
    as a row group of the batch's file as soon as it is made (a chunk of 4 games here), and a
    failure halfway (the labeller raising at the third chunk) commits nothing and leaves no
    folder behind."""
    import pyarrow.parquet as pq

    from kifudb.store import relabel as relabelling

    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    before = Store(copy).manifest()
    chunks = -(-before["next_game"] // 4)
    monkeypatch.setattr(relabelling, "_CHUNK", 4)
    real, calls = relabelling.classify_game, []

    def failing(*arguments):
        calls.append(1)
        if len(calls) > 8:
            raise RuntimeError("the labeller failed")
        return real(*arguments)

    monkeypatch.setattr(relabelling, "classify_game", failing)
    with pytest.raises(RuntimeError, match="the labeller failed"):
        relabel(copy)
    assert Store(copy).manifest() == before
    assert not any((copy / "tmp").iterdir()) and len(list((copy / "batches").iterdir())) == len(
        before["batches"])
    monkeypatch.setattr(relabelling, "classify_game", real)
    report = relabel(copy)
    written = pq.ParquetFile(copy / "batches" / report.batch / "labels.parquet")
    assert written.metadata.num_row_groups == chunks > 1
    assert written.metadata.num_rows == report.labels


def test_changed_definitions_are_reported_until_relabelled(tmp_path, store):
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["labels"]["version"] = "older"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert stats.overview(copy)["labels_current"] is False
    runner = CliRunner()
    result = runner.invoke(main, ["ingest", "data/samples/records", "--store", str(copy)])
    assert result.exit_code == 0, result.output
    assert "run 'kifudb relabel" in result.output
    result = runner.invoke(main, ["relabel", "--store", str(copy), "--no-progress"])
    assert result.exit_code == 0 and "games relabelled" in result.output
    assert stats.overview(copy)["labels_current"] is True


@pytest.mark.parametrize("arguments", [
    ["overview"], ["results"], ["results", "--by", "year"], ["results", "--by", "reason"],
    ["results", "--by", "length", "--bucket", "20"], ["labels", "--kind", "opening"],
    ["labels", "--by-year", "--primary"], ["winrates", "--kind", "castle", "--handicap", "平手"],
    ["pairings", "--against", "opening"], ["players", "--limit", "5"],
])
def test_stats_command_text_and_json(store, arguments):
    runner = CliRunner()
    text = runner.invoke(main, ["stats", *arguments, "--store", str(store)])
    assert text.exit_code == 0, text.output
    assert text.output.strip()
    data = runner.invoke(main, ["stats", *arguments, "--store", str(store), "--format", "json"])
    assert data.exit_code == 0, data.output
    json.loads(data.output)


def test_stats_player_command(store):
    runner = CliRunner()
    name = stats.players(store, limit=1)[0]["player"]
    result = runner.invoke(main, ["stats", "player", name, "--store", str(store)])
    assert result.exit_code == 0 and f"{name}: " in result.output and "as" in result.output
    summary = json.loads(runner.invoke(main, ["stats", "player", name, "--store", str(store),
                                              "--format", "json"]).output)
    assert summary == json.loads(json.dumps(stats.player_summary(store, name)))
    rival = summary["opponents"][0]["opponent"]
    duel = runner.invoke(main, ["stats", "player", name, "--against", rival, "--store", str(store)])
    assert duel.exit_code == 0 and f"{name} against {rival}" in duel.output
    missing = runner.invoke(main, ["stats", "player", "nobody at all", "--store", str(store)])
    assert missing.exit_code == 1 and "no game in scope" in missing.output
    bad = runner.invoke(main, ["stats", "results", "--from", "yesterday", "--store", str(store)])
    # a bad filter value is a usage error in every command (exit status 2), said in one line
    assert bad.exit_code == 2 and "not a date" in bad.output and "Traceback" not in bad.output
    assert bad.output.strip().splitlines() == ["Error: --since: not a date: 'yesterday' "
                                               "(expected YYYY-MM-DD)"]
    none = runner.invoke(main, ["stats", "overview", "--store", str(store) + "-missing"])
    assert none.exit_code == 1 and "no store at" in none.output


# ----- noise: decided games, a minimum length, the decided count beside every score (issue 19) --


@pytest.mark.parametrize("filters", [{}, {"handicap": "平手"}, {"date_from": "2000-01-01"}])
@pytest.mark.parametrize("extra", [{"decided": True}, {"decided": False}, {"moves_from": 40},
                                   {"decided": True, "moves_from": 80}])
def test_decided_and_minimum_length_filters_match_brute_force(store, games, filters, extra):
    chosen = GameFilter(**filters, **extra)
    decided = extra.get("decided")
    scope = [g for g in games if _in_scope(g, **filters)
             and (decided is None or (g["winner"] != "none") == decided)
             and g["moves"] >= extra.get("moves_from", 0)]
    assert scope and len(scope) < len([g for g in games if _in_scope(g, **filters)])
    total = stats.results(store, filters=chosen)
    black, white, draws = _tally(g["winner"] for g in scope)
    assert (total["games"], total["decided"]) == (len(scope), black + white + draws)
    assert total["other"] == (0 if decided else total["games"] - total["decided"])
    by_year = Counter(g["date"].year for g in scope if g["date"] is not None
                      and g["winner"] != "none")
    assert {r["year"]: r["decided"] for r in stats.results_by_year(store, filters=chosen)
            if r["decided"]} == dict(by_year)
    assert sum(r["games"] for r in stats.game_lengths(store, filters=chosen)) == len(scope)


def test_every_score_carries_the_number_of_decided_games(store):
    for row in (stats.win_rates(store, "opening") + stats.players(store)
                + [stats.results(store)] + stats.pairings(store, "castle")
                + stats.results_by_year(store)):
        assert row["decided"] == row.get("wins", row.get("black_wins")) + \
            row.get("losses", row.get("white_wins")) + row["draws"]
    by_year = stats.label_frequencies(store, "castle", by_year=True)
    assert all(r["share"] == round(r["games"] / r["scope_games"], 4) for r in by_year)


def test_stats_commands_filter_decided_and_long_games_and_show_the_decided_count(store):
    runner = CliRunner()
    args = ["--decided", "--min-moves", "60", "--store", str(store)]
    data = json.loads(runner.invoke(main, ["stats", "results", *args, "--format",
                                           "json"]).output)
    assert data == stats.results(store, filters=GameFilter(decided=True, moves_from=60))
    assert data["other"] == 0 and 0 < data["games"] < stats.results(store)["games"]
    text = runner.invoke(main, ["stats", "results", "--store", str(store)]).output
    everything = stats.results(store)
    header, _, line = text.splitlines()
    assert "no result" in header and "of decided" in header
    assert line.split()[4:7] == [str(everything["other"]),
                                 f"{everything['black_score']:.1%}", str(everything["decided"])]
    for command in (["winrates"], ["pairings"], ["players"], ["results", "--by", "year"]):
        shown = runner.invoke(main, ["stats", *command, *args])
        assert shown.exit_code == 0 and "of decided" in shown.output.splitlines()[0], shown.output


# ----- the statistics pages of the dashboard ------------------------------------------------------

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


def _page(monkeypatch, dashboard_store, name: str):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("KIFUDB_STORE", str(dashboard_store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(f"views/{name}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metric(at, label: str):
    return next(m for m in at.metric if m.label.startswith(label))


def test_results_page_says_how_many_games_are_decided_and_filters_the_noise(
        monkeypatch, dashboard_store):
    connection = Store(dashboard_store).connect()
    games, decided, long = connection.execute(
        "SELECT count(*), count(*) FILTER (winner <> 'none'), count(*) FILTER (moves >= 50) "
        "FROM games").fetchone()
    assert decided < games
    at = _page(monkeypatch, dashboard_store, "results")
    score = _metric(at, "▲先手's score")
    assert score.delta.startswith(f"of {decided:,} decided · 95%")
    assert _metric(at, "No result").value == f"{games - decided:,}"
    at.sidebar.checkbox(key="f_decided").check().run()
    assert not at.exception
    assert _metric(at, "Games").value == f"{decided:,}"
    assert _metric(at, "No result").value == "0"
    at.sidebar.checkbox(key="f_decided").uncheck().run()
    at.sidebar.number_input(key="f_min_moves").set_value(50).run()
    assert _metric(at, "Games").value == f"{long:,}"


def test_overview_gives_the_decided_count_beside_the_score(monkeypatch, dashboard_store):
    decided = Store(dashboard_store).connect().execute(
        "SELECT count(*) FROM games WHERE winner <> 'none'").fetchone()[0]
    at = _page(monkeypatch, dashboard_store, "overview")
    assert any(f"over {decided:,} decided games" in c.value for c in at.caption)


def test_per_year_charts_show_how_many_games_each_point_stands_on():
    from kifudb.dashboard import charts, display

    rows = [{"year": 2001, "games": 1, "black_wins": 1, "white_wins": 0, "draws": 0,
             "decided": 1, "black_score": 1.0, "ci_low": 0.2065, "ci_high": 1.0},
            {"year": 2002, "games": 40, "black_wins": 20, "white_wins": 15, "draws": 1,
             "decided": 36, "black_score": 0.5694, "ci_low": 0.41, "ci_high": 0.71}]
    spec = json.dumps(charts.score_by_year(rows).to_dict())
    assert '"text": {"field": "decided"' in spec and '"size": {"field": "decided"' in spec
    shares = [{"year": 2001, "side": "black", "label": "矢倉", "games": 1, "share": 1.0,
               "scope_games": 1}]
    assert '"size": {"field": "scope_games"' in json.dumps(
        charts.share_over_time(shares, ["矢倉"], "black").to_dict())
    # no result is not a shade of the draws' grey, and is said beside the decided games' bar
    assert display.OTHER_COLOUR != display.DRAW_COLOUR
    red, green, blue = (int(display.OTHER_COLOUR[i:i + 2], 16) for i in (1, 3, 5))
    assert blue - red > 20  # a colour of its own
    bar = display.result_bar(1, 0, 0, 99)
    assert "99 no result" in bar and "100.0%" in bar
