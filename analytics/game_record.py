"""A stored game replayed, as the dashboard's game viewer and ``kifudb game`` show it: the
position after every main-line move, each move in KI2, each variation from its branch point
(off the main line or another variation), and the position at one ply.

    >>> line = replayed_positions(STARTING_SFEN, ["7g7f", "3c3d"])
    >>> [m["ki2"] for m in line["moves"]], len(line["sfens"])
    (['▲７六歩', '△３四歩'], 3)
    >>> rows = [{"line": 1, "parent": 0, "ply": 2, "usi": "8c8d"},
    ...         {"line": 2, "parent": 1, "ply": 3, "usi": "2g2f"}]
    >>> branch = variation_line(STARTING_SFEN, ["7g7f", "3c3d", "2g2f"], rows, 2)
    >>> branch["start_ply"], branch["sfens"][-1].split()[0]
    (3, 'lnsgkgsnl/1r5b1/p1ppppppp/1p7/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL')

A move is shown "as written" in its record's own notation; a JKF record's moves are JSON
objects, shown in KIF (the notation JKF is made from)::

    >>> shown_text('{"color":0,"from":{"x":7,"y":7},"piece":"FU","to":{"x":7,"y":6}}')
    '７六歩(77)'
    >>> shown_text('{"piece":"KA","to":{"x":5,"y":5}}'), shown_text("▲７六歩")
    ('５五角打', '▲７六歩')
"""

from __future__ import annotations

import json

from kifudb.analytics import queries
from kifudb.analytics.position_input import position_from_game
from kifudb.core.move import Move
from kifudb.core.notation import ki2_move, kif_move
from kifudb.core.pieces import CSA_TYPES, FILE_DIGITS_FULL, KANJI, RANK_KANJI
from kifudb.core.position import STARTING_SFEN, Position
from kifudb.store.schema import MATE


def replayed_positions(start_sfen: str, usi_moves: list) -> dict:
    """``usi_moves`` (legal, as stored) played from ``start_sfen``: ``{"sfens": [SFEN after 0,
    1, … moves], "moves": [{"usi", "ki2", "kif"}]}``."""
    position = Position.from_sfen(start_sfen)
    sfens, moves, previous = [position.sfen()], [], None
    for usi in usi_moves:
        move = Move.from_usi(usi)
        moves.append({"usi": usi, "ki2": ki2_move(position, move, previous),
                      "kif": kif_move(position, move, previous)})
        position.push(move)
        previous = move.to_square
        sfens.append(position.sfen())
    return {"sfens": sfens, "moves": moves}


def game_record(store, game: int, engine: str | None = None,
                limit: str | None = None) -> dict | None:
    """Everything the viewer shows of a game: ``info`` (``queries.game_info``: its sources
    with a KIF, KI2 or CSA file first), ``moves`` (main line: ``ply``, ``usi``, ``ki2``,
    ``text`` — as written, in the record's notation: KIF for a JKF record, see
    ``shown_text`` —, ``written`` (the text as stored), ``seconds``, ``comment``,
    ``evaluation`` (an engine's, or None: ``queries.game_moves``), ``analysis`` (the store's
    engine analysis of the move, ``move_analysis``, or None); moves after
    the first that could not be replayed keep only their text), ``sfens`` (after each replayed
    move), ``variations`` (``queries.game_variations`` rows, ``text`` shown the same way) and
    ``judgement`` (``analytics.judgement.game_judgement`` without its moves: the accuracy of
    each side, the turning ply …; None when the store holds no analysis). The analysis is of
    ``engine`` and ``limit`` when given (``NoAnalysis`` if the store has none of them), else
    the one with the most analysed positions (``judgement.chosen_analysis``).
    None for an unknown game."""
    info = queries.game_info(store, int(game))
    if info is None:
        return None
    judged = _judged(store, int(game), engine, limit)
    analysed = {r["ply"]: move_analysis(r) for r in judged["moves"]} if judged else {}
    rows = queries.game_moves(store, int(game))
    replayed = [r["usi"] for r in rows if r["usi"] is not None]
    line = replayed_positions(info["start_sfen"] or STARTING_SFEN, replayed)
    moves = []
    for i, row in enumerate(rows):
        played = line["moves"][i] if i < len(line["moves"]) else None
        text = row["text"]
        if _is_jkf(text):
            text = played["kif"] if played is not None else shown_text(text)
        moves.append({**row, "text": text, "written": row["text"],
                      "ki2": played["ki2"] if played is not None else None,
                      "analysis": analysed.get(row["ply"])})
    variations = [{**row, "text": shown_text(row["text"]), "written": row["text"]}
                  for row in queries.game_variations(store, int(game))]
    if judged:
        judged = {k: v for k, v in judged.items() if k != "moves"}
    return {"info": info, "moves": moves, "sfens": line["sfens"], "variations": variations,
            "judgement": judged}


def _judged(store, game: int, engine, limit):
    """``judgement.game_judgement`` of the game, or None when the store holds no analysis
    and none was asked for."""
    from kifudb.analytics.judgement import NoAnalysis, analyses, game_judgement

    if engine is None and limit is None and not analyses(store):
        return None
    try:
        return game_judgement(store, game, engine, limit)
    except NoAnalysis:
        if engine is not None or limit is not None:
            raise
        return None


#: what a move's ``analysis`` holds (``judgement.game_analysis``'s fields)
ANALYSIS_FIELDS = ("engine", "limit", "score_black", "mate_black", "win_black", "loss",
                   "accuracy", "judgement", "best")


def move_analysis(row: dict):
    """A move's ``analysis`` as the game's doors give it, from a ``judgement.game_analysis``
    row: ``engine``, ``limit``, ``score_black``, ``mate_black`` (of the position after the
    move), ``win_black`` (Black's chance after it, 0–100), ``loss``, ``accuracy``,
    ``judgement`` and ``best`` (the engine's move before it, when judged); None when the
    position after the move was not analysed.

    >>> move_analysis({"engine": None, "loss": None}) is None
    True
    """
    if row["engine"] is None:
        return None
    return {name: row[name] for name in ANALYSIS_FIELDS}


def judgement_mark(analysis) -> str:
    """The mark beside a judged move: ``?!`` (inaccuracy), ``?`` (mistake), ``??`` (blunder);
    empty otherwise.

    >>> judgement_mark({"judgement": "blunder"}), judgement_mark({"judgement": None}), judgement_mark(None)
    ('??', '', '')
    """
    from kifudb.analytics.judgement import MARKS

    return MARKS.get((analysis or {}).get("judgement"), "")


def score_text(evaluation) -> str:
    """A move's evaluation as the move list shows it: Black's point of view, a mate as
    ``+M7`` (Black mates in 7) or ``-M`` (White mates, distance unknown); empty without one.

    >>> score_text({"score_black": -120, "mate": None}), score_text({"score_black": 100000, "mate": 7})
    ('-120', '+M7')
    >>> score_text({"score_black": -100000, "mate": None}), score_text(None)
    ('-M', '')
    """
    if not evaluation or evaluation["score_black"] is None:
        return ""
    black = evaluation["score_black"]
    if abs(black) >= MATE:
        mate = evaluation["mate"]
        return ("+M" if black > 0 else "-M") + (str(abs(mate)) if mate else "")
    return f"{black:+d}" if black else "0"


def evaluation_shown(evaluation, sfen_after: str, played=None, pv_moves: int = 12):
    """A move's engine evaluation (``queries.game_moves``' ``evaluation``) as a reader wants it
    instead of the raw comment (``** 24 +8877GI -3122GI``): ``score`` (``score_text``:
    Black's point of view, ``+M7`` a mate), ``depth``, ``nodes``, ``engine``, ``pv`` (the
    principal variation in KI2, ``▲８八銀 △２二銀`` …, from the position after the move,
    ``sfen_after``, where ``played`` — the move's USI — makes a PV move to its square ``同``;
    at most ``pv_moves`` moves, ``…`` after them; it stops at a move that does not replay) and
    ``text``, all of it on one line. None without an evaluation.

    >>> after = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"
    >>> shown = evaluation_shown({"score_black": 24, "mate": None, "depth": 20, "nodes": None,
    ...                           "engine": None, "pv": "8h2b+ 3a2b B*4e"}, after)
    >>> shown["score"], shown["pv"]
    ('+24', '▲２二角成 △同銀 ▲４五角')
    >>> shown["text"]
    '+24 (depth 20) ▲２二角成 △同銀 ▲４五角'
    >>> taken = "lnsgkgsnl/1r5+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w B 4"
    >>> evaluation_shown({"score_black": -100000, "mate": -3, "pv": "3a2b B*4e"}, taken,
    ...                  played="8h2b+")["text"]
    '-M3 △同銀 ▲４五角'
    >>> evaluation_shown(None, after) is None
    True
    """
    if not evaluation:
        return None
    moves = [m.replace("同\u3000", "同") for m in  # on one line, 同銀 (KI2: 同　銀)
             pv_ki2(evaluation.get("pv"), sfen_after, played, pv_moves + 1)]
    more = len(moves) > pv_moves
    moves = moves[:pv_moves]
    pv = " ".join(moves) + (" …" if more else "")
    score = score_text(evaluation)
    said = [f"depth {evaluation['depth']}" if evaluation.get("depth") else "",
            f"{evaluation['nodes']:,} nodes" if evaluation.get("nodes") else "",
            evaluation.get("engine") or ""]
    details = ", ".join(d for d in said if d)
    text = " ".join(part for part in (score, f"({details})" if details else "", pv) if part)
    return {"score": score, "depth": evaluation.get("depth"), "nodes": evaluation.get("nodes"),
            "engine": evaluation.get("engine"), "pv": pv, "text": text}


def pv_ki2(pv, sfen_after: str, played=None, most=None) -> list:
    """The USI moves of ``pv`` (space-separated) in KI2 with ▲/△, replayed from ``sfen_after``
    (``played``: the move that led there, the square 同 refers to), at most ``most``; it stops
    at a move that does not replay.

    >>> pv_ki2("8h2b+ 3a2b", "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3")
    ['▲２二角成', '△同\u3000銀']
    """
    if not pv:
        return []
    position = Position.from_sfen(sfen_after)
    previous = Move.from_usi(played).to_square if played else None
    out = []
    for usi in pv.split()[:most]:
        try:
            move = Move.from_usi(usi)
        except ValueError:
            break
        if position.illegality(move) is not None:
            break
        out.append(ki2_move(position, move, previous))
        position.push(move)
        previous = move.to_square
    return out


def _is_jkf(text) -> bool:
    return isinstance(text, str) and text.startswith("{")


def shown_text(text):
    """A move's text as the viewer shows it "as written": as it is, but for a JKF move object
    (JSON), which becomes KIF text — ``７六歩(77)``, ``同　歩(77)``, ``２二角成(88)``,
    ``５五角打`` — read from the object alone (a move that was not replayed has no position);
    an object that names no piece or square stays as it is."""
    if not _is_jkf(text):
        return text
    try:
        move = json.loads(text)
    except ValueError:
        return text
    if isinstance(move, dict) and isinstance(move.get("move"), dict):
        move = move["move"]
    if not isinstance(move, dict):
        return text
    piece = CSA_TYPES.get(move.get("piece")) if isinstance(move.get("piece"), str) else None
    to, origin = _square(move.get("to")), _square(move.get("from"))
    if piece is None or (to is None and move.get("same") is not True):
        return text
    if move.get("same") is True:
        where = "同　"
    else:
        where = FILE_DIGITS_FULL[to[0]] + RANK_KANJI[to[1]]
    if move.get("from") is None:
        return f"{where}{KANJI[piece]}打"
    if origin is None:
        return text
    promoted = "成" if move.get("promote") is True else ""
    return f"{where}{KANJI[piece]}{promoted}({origin[0]}{origin[1]})"


def _square(value):
    """``(file, rank)`` of a JKF square ``{"x": 7, "y": 6}``, or None."""
    if not isinstance(value, dict):
        return None
    x, y = value.get("x"), value.get("y")
    if all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 9 for v in (x, y)):
        return x, y
    return None


def variation_lines(rows: list) -> dict:
    """``queries.game_variations`` rows by variation: ``{number: its rows}``, by number."""
    lines: dict = {}
    for row in rows:
        lines.setdefault(row["line"], []).append(row)
    return dict(sorted(lines.items()))


def variation_line(start_sfen: str, main_usi: list, rows: list, number: int) -> dict:
    """Variation ``number`` on the board, following its branch points (a variation may branch
    off another one): ``{"start_ply", "sfens"}``, the position before its first move and after
    each of its moves that replayed at ingest; ``sfens`` is empty when the line it branches
    from was not replayed that far. ``rows`` are ``queries.game_variations`` rows."""
    lines = variation_lines(rows)

    def moves_to(line: int, ply: int):
        """The USI moves from the start to the position after ``ply`` moves of ``line``."""
        if line == 0:
            return main_usi[:ply] if ply <= len(main_usi) else None
        own = lines[line]
        first = own[0]["ply"]
        if ply < first:
            return moves_to(own[0]["parent"] or 0, ply)
        prefix = moves_to(own[0]["parent"] or 0, first - 1)
        played = [r["usi"] for r in own[:ply - first + 1]]
        if prefix is None or None in played:
            return None
        return prefix + played

    own = lines[number]
    start_ply = own[0]["ply"]
    prefix = moves_to(own[0]["parent"] or 0, start_ply - 1)
    if prefix is None:
        return {"start_ply": start_ply, "sfens": []}
    position = Position.from_sfen(start_sfen)
    for usi in prefix:
        position.push(Move.from_usi(usi))
    sfens = [position.sfen()]
    for row in own:
        if row["usi"] is None:
            break
        position.push(Move.from_usi(row["usi"]))
        sfens.append(position.sfen())
    return {"start_ply": start_ply, "sfens": sfens}


def game_position(store, game: int, ply: int) -> dict:
    """The position of ``game`` after ``ply`` main-line moves as plain values (what the
    dashboard caches): ``{"sfen", "last_move"}`` (USI, None at ply 0); ``ValueError`` for an
    unknown game or a ply out of range (``position_input.position_from_game``)."""
    position = position_from_game(store, int(game), int(ply))
    last = position.last_move
    return {"sfen": position.sfen(), "last_move": last.usi() if last is not None else None}


def positions_at(store, wanted: dict) -> dict:
    """The positions of stored games at some plies: ``{(game, ply): Position}`` for ``wanted``,
    ``{game: plies}`` (the position after that many main-line moves), each game replayed once;
    a ply past a game's replayed moves is left out."""
    from kifudb.analytics.position_input import position_from_sfen

    found = {}
    for game, plies in wanted.items():
        info = queries.game_info(store, int(game))
        if info is None:
            continue
        position = position_from_sfen(info["start_sfen"] or STARTING_SFEN)
        wanted_plies, ply = set(plies), 0
        if ply in wanted_plies:
            found[(game, ply)] = position.copy()
        for row in queries.game_moves(store, int(game)):
            if row["usi"] is None or ply >= max(wanted_plies):
                break
            position.push(Move.from_usi(row["usi"]))
            ply += 1
            if ply in wanted_plies:
                found[(game, ply)] = position.copy()
    return found


def ki2_of(position, usi):
    """``usi`` (a move's USI text) in KI2 in ``position``, or None if it is not a legal move
    there (or None)."""
    if not usi:
        return None
    try:
        move = Move.from_usi(usi)
    except ValueError:
        return None
    if position.illegality(move) is not None:
        return None
    return ki2_move(position, move)
