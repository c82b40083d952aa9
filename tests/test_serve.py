"""The HTTP JSON API (``kifudb.http``) on a store of the real records: FastAPI's test client for
each endpoint, its errors and limits, and one end-to-end run of ``kifudb serve`` as a process
queried over HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient

from kifudb.analytics import queries
from kifudb.analytics import stats as analytics_stats
from kifudb.analytics.filters import GameFilter
from kifudb.core.position import Position
from kifudb.http import MAX_LIMIT, app

ROOT = Path(__file__).resolve().parent.parent
KIFUDB = Path(sys.executable).with_name("kifudb")


@pytest.fixture(scope="module")
def client(dashboard_store) -> TestClient:
    return TestClient(app(dashboard_store))


def _error(response, status: int, code: str) -> str:
    """The message of an error answer, after checking its status, shape and code."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body
    assert "Traceback" not in response.text
    return body["error"]["message"]


def test_health(client, dashboard_store):
    answer = client.get("/health").json()
    assert answer["status"] == "ok"
    assert answer["games"] == analytics_stats.overview(dashboard_store)["games"] > 100


def test_explore_the_start(client, dashboard_store):
    answer = client.get("/explore").json()
    expected = queries.explore(dashboard_store, Position())
    assert [m["usi"] for m in answer["moves"]] == [m["move"] for m in expected]
    assert [m["games"] for m in answer["moves"]] == [m["count"] for m in expected]
    first = answer["moves"][0]
    assert set(first) == {"usi", "kif", "ki2", "games", "black_wins", "white_wins", "draws",
                          "other", "decided", "black_score", "ci_low", "ci_high",
                          "average_rating", "performance", "latest_date"}
    assert first["games"] == (first["black_wins"] + first["white_wins"] + first["draws"]
                              + first["other"])
    assert answer["black_wins"] == sum(m["black_wins"] for m in answer["moves"])
    assert answer["other"] == sum(m["other"] for m in answer["moves"])
    assert answer["position"]["sfen"] == Position().sfen()
    assert len(answer["top_games"]) == len(answer["recent_games"]) == 4
    dates = [g["date"] for g in answer["recent_games"]]
    assert dates == sorted(dates, reverse=True)
    assert all(g["ply"] == 0 for g in answer["recent_games"])


def test_explore_after_moves_with_filters(client, dashboard_store):
    params = {"moves": "7g7f,3c3d", "player": "羽生", "since": "2000-01-01",
              "top_games": 2, "recent_games": 10}
    answer = client.get("/explore", params=params).json()
    expected = queries.explore(dashboard_store, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/"
                                                "1B5R1/LNSGKGSNL b - 3",
                               filters=GameFilter(player="羽生", date_from="2000-01-01"))
    assert [(m["usi"], m["games"]) for m in answer["moves"]] == \
        [(m["move"], m["count"]) for m in expected]
    assert answer["moves"][0]["ki2"] == "▲２六歩"
    assert len(answer["top_games"]) == 2
    for shown in answer["recent_games"]:
        assert "羽生" in f"{shown['black']} {shown['white']}" and shown["date"] >= "2000-01-01"
        assert shown["ply"] == 2
    same = client.get("/explore", params={**params, "moves": "▲７六歩 △３四歩"}).json()
    assert same == answer


def test_explore_a_handicap_game_from_its_start(client):
    lance = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
    answer = client.get("/explore", params={"sfen": lance}).json()
    assert answer["moves"] and all(g["handicap"] == "香落ち" for g in answer["recent_games"])
    after = client.get("/explore", params={"start": lance, "moves": answer["moves"][0]["usi"]})
    assert after.status_code == 200


def test_bad_positions_are_400s(client):
    message = _error(client.get("/explore", params={"moves": "7g7f,3c3d,7g7e"}), 400,
                     "bad_moves")
    assert message.startswith("move 3 (7g7e): illegal")
    _error(client.get("/search", params={"sfen": "lnsgkgsnl/9 b - 1"}), 400, "bad_sfen")
    _error(client.get("/explore", params={"moves": "7g7f", "start": "nonsense"}), 400,
           "bad_sfen")
    message = _error(client.get("/search", params={"sfen": "startpos", "moves": "7g7f"}), 400,
                     "bad_request")
    assert "not both" in message
    _error(client.get("/search"), 400, "bad_request")
    _error(client.get("/explore", params={"start": "startpos"}), 400, "bad_request")


def test_bad_filters_and_limits(client):
    assert "since: not a date" in _error(client.get("/explore", params={"since": "yesterday"}),
                                         400, "bad_filter")
    _error(client.get("/explore", params={"min_moves": -1}), 422, "bad_parameter")
    _error(client.get("/explore", params={"top_games": 51}), 422, "bad_parameter")
    message = _error(client.get("/search", params={"sfen": "startpos",
                                                   "limit": MAX_LIMIT + 1}), 422,
                     "bad_parameter")
    assert message.startswith("limit:")
    _error(client.get("/search", params={"sfen": "startpos", "offset": -1}), 422,
           "bad_parameter")
    _error(client.get("/search", params={"sfen": "startpos", "mirror": "perhaps"}), 422,
           "bad_parameter")
    _error(client.get("/explore", params={"decided": "maybe"}), 422, "bad_parameter")
    _error(client.get("/explore", params={"result": "nobody"}), 422, "bad_parameter")
    assert "label_side: needs a label" in _error(
        client.get("/explore", params={"label_side": "black"}), 400, "bad_filter")


def test_every_filter_of_the_command_line_is_a_query_parameter(client):
    """One table (``analytics.filters.OPTIONS``) makes both: --min-moves is min_moves …"""
    from kifudb.analytics.filters import OPTIONS

    parameters = {p["name"] for p in client.get("/openapi.json").json()["paths"]["/explore"]
                  ["get"]["parameters"]}
    assert {option.name for option in OPTIONS} <= parameters
    decided = client.get("/stats/results", params={"decided": "true"}).json()
    undecided = client.get("/stats/results", params={"decided": "false"}).json()
    everyone = client.get("/stats/results").json()
    assert decided["games"] + undecided["games"] == everyone["games"] > decided["games"] > 0
    _error(client.get("/stats/labels", params={"kind": "tower"}), 422, "bad_parameter")


def test_search_pages(client, dashboard_store):
    first = client.get("/search", params={"sfen": "startpos", "limit": 20}).json()
    total = queries.occurrences(dashboard_store, Position())
    assert first["occurrences"] == total["occurrences"] and first["games"] == total["games"]
    assert len(first["hits"]) == 20
    second = client.get("/search", params={"sfen": "startpos", "limit": 10,
                                           "offset": 10}).json()
    assert second["hits"] == first["hits"][10:]
    hit = first["hits"][0]
    assert set(hit) == {"game", "ply", "black", "white", "date", "event", "winner", "reason",
                        "handicap", "path", "next_move", "mirrored"}
    assert "/" not in hit["path"]  # a file name, never the server's path
    mirrored = client.get("/search", params={"moves": "2g2f", "mirror": True}).json()
    position = Position.from_sfen(mirrored["position"]["sfen"])
    assert mirrored["mirror"] is True
    assert mirrored["occurrences"] == queries.occurrences(dashboard_store, position)[
        "occurrences"] + queries.occurrences(dashboard_store, position.mirror())["occurrences"]


def test_a_game(client, dashboard_store):
    branched = analytics_stats.games(dashboard_store, limit=1)[0]["game"]
    answer = client.get(f"/game/{branched}").json()
    assert answer["game"] == branched
    assert len(answer["sfens"]) == sum(m["usi"] is not None for m in answer["moves"]) + 1
    assert all("/" not in s["path"] for s in answer["sources"])
    assert answer["labels"] == analytics_stats.game_labels(dashboard_store, branched)
    _error(client.get("/game/987654"), 404, "not_found")
    _error(client.get("/game/seven"), 422, "bad_parameter")
    _error(client.get("/game/-1"), 422, "bad_parameter")
    _error(client.get("/game/99999999999999999999"), 422, "bad_parameter")


def test_every_game_answers(client, dashboard_store):
    """Every stored game of the real records — damaged ones too — is JSON."""
    count = analytics_stats.overview(dashboard_store)["games"]
    for game in analytics_stats.games(dashboard_store, limit=count):
        assert client.get(f"/game/{game['game']}").status_code == 200


@pytest.mark.parametrize("path, params, function, arguments", [
    ("/stats/results", {}, "results", {}),
    ("/stats/results", {"by": "year"}, "results_by_year", {}),
    ("/stats/results", {"by": "reason", "decided": "true"}, "results_by_reason",
     {"filters": GameFilter(decided=True)}),
    ("/stats/results", {"by": "length", "bucket": 25}, "game_lengths", {"bucket": 25}),
    ("/stats/labels", {"kind": "opening", "by_year": "true"}, "label_frequencies",
     {"kind": "opening", "by_year": True}),
    ("/stats/winrates", {"min_games": 3}, "win_rates", {"min_games": 3}),
    ("/stats/pairings", {"against": "opening"}, "pairings", {"against": "opening"}),
    ("/stats/players", {"limit": 5}, "players", {"limit": 5}),
])
def test_statistics_are_the_analytics_answers(client, dashboard_store, path, params, function,
                                              arguments):
    answer = client.get(path, params=params)
    assert answer.status_code == 200, answer.text
    expected = getattr(analytics_stats, function)(dashboard_store, **arguments)
    assert answer.json() == expected and expected


def test_statistics_of_one_player(client, dashboard_store):
    top = client.get("/stats/players", params={"limit": 1}).json()[0]
    summary = client.get(f"/stats/player/{top['player']}").json()
    assert summary["games"] == top["games"]
    opponent = summary["opponents"][0]["opponent"]
    record = client.get(f"/stats/player/{top['player']}", params={"against": opponent}).json()
    assert record["games"] and record["opponent"] == opponent
    _error(client.get("/stats/player/nobody at all"), 404, "not_found")


def test_overview_and_findings(client, dashboard_store):
    assert client.get("/stats/overview").json() == analytics_stats.overview(dashboard_store)
    answer = client.get("/stats/findings", params={"severity": "warning", "limit": 5}).json()
    assert len(answer["findings"]) == 5 and answer["by_code"]
    assert all(f["severity"] == "warning" and "/" not in f["path"] for f in answer["findings"])


def test_unknown_endpoints_and_methods(client):
    _error(client.get("/nowhere"), 404, "not_found")
    _error(client.post("/explore"), 405, "method_not_allowed")


def test_documentation(client):
    schema = client.get("/openapi.json").json()
    assert {"/explore", "/search", "/game/{game_id}", "/health", "/stats/results"} \
        <= set(schema["paths"])
    assert client.get("/docs").status_code == 200


@pytest.mark.parametrize("path, params", [
    ("/explore", {"moves": "\x00\x1b[2J"}), ("/explore", {"sfen": "x" * 600}),
    ("/explore", {"moves": "7g7f " * 2000}), ("/explore", {"player": "'; DROP TABLE games; --"}),
    ("/explore", {"handicap": "\u202e"}), ("/search", {"sfen": "9/9/9/9/9/9/9/9/9 b - 1"}),
    ("/search", {"moves": "P*5e"}), ("/explore", {"until": "2024-02-30"}),
    ("/explore", {"min_moves": "1e9"}), ("/stats/findings", {"code": "x" * 1000}),
    ("/stats/player/%00", {}), ("/game/0", {}), ("/search", {"sfen": "startpos", "limit": 0}),
])
def test_hostile_requests_are_never_500s(client, path, params):
    response = client.get(path, params=params)
    assert 200 <= response.status_code < 500, response.text
    assert "Traceback" not in response.text
    if response.status_code >= 400:
        assert set(response.json()["error"]) == {"code", "message"}


def test_a_slow_question_is_a_503(dashboard_store):
    slow = TestClient(app(dashboard_store, timeout=1e-6))
    message = _error(slow.get("/explore"), 503, "timeout")
    assert "took more than" in message


def test_an_empty_folder_is_a_503(tmp_path):
    message = _error(TestClient(app(tmp_path)).get("/health"), 503, "store_unavailable")
    assert "kifudb ingest" in message


def test_a_commit_made_while_serving_is_seen(tmp_path):
    from kifudb.store.writer import ingest_paths

    folder = tmp_path / "store"
    ingest_paths([str(ROOT / "data" / "samples" / "records")], folder)
    served = TestClient(app(folder))
    before = served.get("/health").json()["games"]
    ingest_paths([str(ROOT / "tests" / "fixtures" / "records" / "kifu-for-js")], folder)
    assert served.get("/health").json()["games"] > before


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_kifudb_serve_over_http(dashboard_store):
    """``kifudb serve`` as a process, queried over HTTP with httpx2, stopped with SIGINT."""
    port = _free_port()
    server = subprocess.Popen([str(KIFUDB), "serve", "--store", str(dashboard_store),
                               "--port", str(port)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx2.get(f"{base}/health", timeout=5)
                break
            except httpx2.TransportError:
                assert server.poll() is None, server.communicate()
                assert time.monotonic() < deadline, "kifudb serve did not answer in 60 s"
                time.sleep(0.2)
        assert health.status_code == 200 and health.json()["games"] > 100
        with httpx2.Client(base_url=base, timeout=10) as http:
            explored = http.get("/explore", params={"moves": "7g7f,3c3d"})
            assert explored.status_code == 200
            assert explored.json()["moves"][0]["usi"] == "2g2f"
            searched = http.get("/search", params={"moves": "7g7f,3c3d", "limit": 3})
            assert len(searched.json()["hits"]) == 3
            bad = http.get("/explore", params={"moves": "7g7f,7g7e"})
            assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_moves"
            assert http.get("/openapi.json").json()["info"]["title"] == "kifudb"
        busy = subprocess.run([str(KIFUDB), "serve", "--store", str(dashboard_store), "--port",
                               str(port)], capture_output=True, text=True, timeout=60)
        assert busy.returncode == 1 and "the port is in use" in busy.stderr
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}/" in out
    assert "Traceback" not in err


def test_serve_without_a_store(tmp_path):
    done = subprocess.run([str(KIFUDB), "serve", "--store", str(tmp_path / "none")],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 1 and "no store at" in done.stderr


def test_ratings_and_evaluations(client, dashboard_store):
    rated = client.get("/explore", params={"min_rating": 3000}).json()
    assert rated["moves"] and all(m["average_rating"] >= 3000 for m in rated["moves"])
    assert all(min(g["black_rating"], g["white_rating"]) >= 3000 for g in rated["top_games"])
    top = client.get("/explore", params={"top_games": 3}).json()["top_games"]
    ratings = [(g["black_rating"] + g["white_rating"]) / 2 for g in top
               if g["black_rating"] is not None and g["white_rating"] is not None]
    assert ratings and ratings == sorted(ratings, reverse=True)  # the rated games first
    _error(client.get("/explore", params={"min_rating": -5}), 422, "bad_parameter")
    game = top[0]["game"]
    moves = client.get(f"/game/{game}").json()["moves"]
    assert any(m["evaluation"] and m["evaluation"]["score_black"] is not None for m in moves)


@pytest.mark.parametrize("fmt, media, first", [
    ("kif", "text/plain; charset=utf-8", "#KIF"), ("ki2", "text/plain; charset=utf-8", ""),
    ("csa", "text/plain; charset=utf-8", "'CSA"), ("jkf", "application/json", "{"),
    ("usi", "text/plain; charset=utf-8", "#"),
])
def test_a_game_as_a_record(client, dashboard_store, fmt, media, first):
    from kifudb.analytics.export import stored_kifu
    from kifudb.core.writers import write

    game = analytics_stats.games(dashboard_store, limit=1, filters=GameFilter(decided=True))[0]
    answer = client.get(f"/game/{game['game']}", params={"format": fmt})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == media
    assert answer.headers["content-disposition"] == \
        f'inline; filename="kifudb-{game["game"]}.{fmt}"'
    assert answer.text == write(stored_kifu(dashboard_store, game["game"]), fmt)
    assert answer.text.startswith(first)


def test_records_read_back(client, dashboard_store):
    """A KIF answer read by kifudb's own reader gives the stored game's moves again."""
    from kifudb.ingest.read import read_bytes

    game = analytics_stats.games(dashboard_store, limit=1, filters=GameFilter(decided=True))[0]
    text = client.get(f"/game/{game['game']}", params={"format": "kif"}).content
    stored = [m["usi"] for m in client.get(f"/game/{game['game']}").json()["moves"]]
    read = read_bytes(text, "answer.kif")
    assert len(read.records) == 1 and len(read.records[0].moves) == len(stored)


def test_an_unwritable_game_and_unknown_formats(client, dashboard_store):
    broken = next(g["game"] for g in analytics_stats.games(dashboard_store, limit=500)
                  if client.get(f"/game/{g['game']}").json()["unwritable"])
    message = _error(client.get(f"/game/{broken}", params={"format": "kif"}), 422, "unwritable")
    assert "could not be played" in message
    _error(client.get(f"/game/{broken}", params={"format": "pgn"}), 422, "bad_parameter")
    _error(client.get("/game/987654", params={"format": "kif"}), 404, "not_found")


def test_a_handicap_filter_starts_from_its_position(client):
    """As ``kifudb explore --handicap``: the handicap's start, and moves played from it."""
    lance = client.get("/explore", params={"handicap": "香落ち"}).json()
    assert lance["position"]["sfen"].startswith("lnsgkgsn1/")
    assert lance["moves"] and lance["moves"][0]["ki2"].startswith("△")
    first = lance["moves"][0]["usi"]
    after = client.get("/explore", params={"handicap": "KY", "moves": first}).json()
    assert after["position"]["sfen"].startswith("lnsgkgsn1/") and after["moves"]


# ----- issue 26: every part of an answer obeys its filters; no redirect to the Host's site; a
# cache bounded by bytes; questions given up stop; a desk that is full says so at once --------


def test_finding_counts_obey_the_filters(client, dashboard_store):
    """``by_code`` counts the findings the filters choose, as the page lists them."""
    nothing = client.get("/stats/findings", params={"path": "/etc/passwd"}).json()
    assert nothing["findings"] == [] and nothing["by_code"] == []
    every = analytics_stats.findings(dashboard_store, limit=10 ** 6)
    folder = Path(every[0]["path"]).parent.name  # a folder of the fixtures holding findings
    chosen = [f for f in every if folder in f["path"]]
    assert 0 < len(chosen) < len(every)
    answer = client.get("/stats/findings", params={"path": folder, "limit": MAX_LIMIT}).json()
    assert len(answer["findings"]) == len(chosen) <= MAX_LIMIT
    assert sum(c["count"] for c in answer["by_code"]) == len(chosen)
    code = chosen[0]["code"]
    both = client.get("/stats/findings", params={"path": folder, "code": code}).json()
    assert both["by_code"] == [{"code": code, "severity": chosen[0]["severity"],
                                "count": sum(f["code"] == code for f in chosen)}]


def test_a_trailing_slash_is_redirected_within_the_server(client):
    """``/explore/`` goes to ``/explore``, never to a site the ``Host`` header names."""
    moved = client.get("/explore/", params={"moves": "7g7f"}, follow_redirects=False,
                       headers={"Host": "evil.example"})
    assert moved.status_code == 307
    assert moved.headers["location"] == "/explore?moves=7g7f"
    assert client.get("/explore/", params={"moves": "7g7f"}).json() == \
        client.get("/explore", params={"moves": "7g7f"}).json()
    for nowhere in ("/nowhere/", "//evil.example/", "/stats/"):
        _error(client.get(nowhere, follow_redirects=False, headers={"Host": "evil.example"}),
               404, "not_found")


def test_answers_are_kept_by_their_bytes(dashboard_store):
    from kifudb.http import ENTRY_BYTES, Answers

    kept = Answers(size=10_000)
    kept.put("commit 1", "large", b"x" * 9000, 9000)
    for small in range(3):  # three small answers: the large one goes, not the oldest small one
        kept.put("commit 1", small, b"y" * 100, 100)
    assert kept.get("commit 1", "large") is None
    assert [kept.get("commit 1", small) for small in range(3)] == [b"y" * 100] * 3
    assert kept.held == 3 * (100 + ENTRY_BYTES) <= kept.size
    kept.put("commit 1", "too large", b"z" * 10_000, 10_000)  # larger than the whole
    assert kept.get("commit 1", "too large") is None and kept.held <= kept.size
    # the server's own: the ten longest games, each more than a fifth of the bytes allowed
    served = app(dashboard_store, cache_bytes=100_000)
    asked = TestClient(served)
    longest = sorted(analytics_stats.games(dashboard_store, limit=10 ** 6),
                     key=lambda game: -game["moves"])[:10]
    sizes = [len(asked.get(f"/game/{game['game']}").content) for game in longest]
    assert min(sizes) > 20_000
    answers = served.state.answers
    assert answers.held <= 100_000 and 0 < len(answers.kept) < len(sizes)
    assert answers.held == sum(cost for _, cost in answers.kept.values())


def test_a_question_given_up_stops_its_query(dashboard_store):
    """A question whose time runs out is a 503 at once, and its DuckDB query is interrupted:
    its worker is free again (an endless count would hold it for hours)."""
    import asyncio

    import duckdb
    import sqlalchemy as sa

    from kifudb.http import ApiError, Desk, _follow_queries
    from kifudb.store.engine import fetch

    _follow_queries()
    desk, stopped = Desk("endless", 1, 0), []
    endless = sa.text("SELECT count(*) AS n FROM range(1000000000000) t(i) WHERE i % 7 = 3")

    def question():
        try:
            return fetch(dashboard_store, endless)
        except Exception as error:
            stopped.append(error)
            raise

    with pytest.raises(ApiError) as refused:
        asyncio.run(desk.run(question, 0.5))
    assert (refused.value.status, refused.value.code) == (503, "timeout")
    assert desk.pool.submit(lambda: "free").result(timeout=120) == "free"
    assert len(stopped) == 1  # SQLAlchemy's error, around DuckDB's
    assert isinstance(getattr(stopped[0], "orig", stopped[0]), duckdb.InterruptException)
    assert desk.taken == 0 and not desk.tickets


def test_a_full_desk_is_a_503_busy_at_once():
    """One question more than a desk's workers and waiting places is refused at once, with
    Retry-After; the desk takes questions again once one is answered."""
    import asyncio
    import threading

    from kifudb.http import ApiError, Desk

    desk, release = Desk("test", 1, 1), threading.Event()

    async def three():
        held = [asyncio.ensure_future(desk.run(lambda: release.wait(60) and "held", 60))
                for _ in range(2)]
        await asyncio.sleep(0)  # both taken: one running, one waiting
        with pytest.raises(ApiError) as refused:
            await desk.run(lambda: "refused", 60)
        release.set()
        return refused.value, await asyncio.gather(*held), await desk.run(lambda: "again", 60)

    refused, held, again = asyncio.run(three())
    assert (refused.status, refused.code, refused.headers) == (503, "busy",
                                                               {"Retry-After": "2"})
    assert held == ["held", "held"] and again == "again" and desk.taken == 0
