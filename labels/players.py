"""One name per player: the canonical name of a player as a record writes it, from the rules and
data of ``players.toml`` (titles, ranks, honorifics, known players, aliases, title holders by
period).

``canonical(written, date)`` normalises the spaces and the width of the characters (NFKC; a
space between two Japanese characters goes, ``羽生 善治`` is ``羽生善治``), then strips from the
end every title (with its 永世/名誉/前 prefix), crown count (七冠), rank and honorific, and
looks at what is left::

    >>> [canonical(n).name for n in ("羽生 善治竜王", "羽生善治王位", "深浦康市 九段", "藤井聡太棋王")]
    ['羽生善治', '羽生善治', '深浦康市', '藤井聡太']
    >>> canonical("渡辺\u3000明竜王").name, canonical("伊奈祐介六段").name, canonical("名人コブラ").name
    ('渡辺明', '伊奈祐介', '名人コブラ')

A surname with a title alone names whoever held that title on the game's date (the
``[[holder]]`` table); without a date, or with none holding it, the name stays as written
(spaces normalised) and is flagged ambiguous, with the players it may be::

    >>> canonical("藤井竜王", "1999-06-01").name, canonical("藤井竜王", "2022-01-10").name
    ('藤井猛', '藤井聡太')
    >>> canonical("佐藤名人", "1999-05-01").name, canonical("佐藤名人", "2017-05-01").name
    ('佐藤康光', '佐藤天彦')
    >>> undated = canonical("藤井竜王")
    >>> undated.name, undated.ambiguous, undated.candidates
    ('藤井竜王', True, ('藤井猛', '藤井聡太'))

Different people stay apart, and a surname that only one professional has (``sole_surname``)
names that player with a rank or alone::

    >>> canonical("藤井猛").name, canonical("木村一基七段").name, canonical("佐藤康光").name
    ('藤井猛', '木村一基', '佐藤康光')
    >>> canonical("羽生五段").name, canonical("藤井五段").ambiguous
    ('羽生善治', True)

Why at query time, not stored: the store keeps the names as written; ``store.engine`` asks this
module, when it builds a store's query engine (once per commit and process), for the canonical
name of each distinct spelling (and of each (spelling, date) for the few spellings that depend
on the date) and adds ``black_player``/``white_player`` to its in-memory ``game_summary``. A
store holds a few thousand spellings, so that costs milliseconds, and an edit of
``players.toml`` counts from the next process on, with no ``relabel`` of the store and no new
store format.
"""

from __future__ import annotations

import datetime
import hashlib
import re
import tomllib
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple, Optional

__all__ = ["canonical", "canonical_name", "Canonical", "rules", "normalise", "depends_on_date",
           "PLAYERS_PATH", "RulesError"]

PLAYERS_PATH = Path(__file__).with_name("players.toml")


class RulesError(ValueError):
    """A players file that does not follow the vocabulary described at the top of
    ``players.toml``."""


class Canonical(NamedTuple):
    """A player's canonical ``name``; ``ambiguous`` when the name could not be resolved (it is
    then the name as written, spaces normalised) and ``candidates``, the known players it may
    be (for ``kifudb players --suggest``)."""

    name: str
    ambiguous: bool = False
    candidates: tuple = ()


class Holder(NamedTuple):
    title: str
    player: str
    start: datetime.date
    end: Optional[datetime.date]


class Rules(NamedTuple):
    """``players.toml`` as read: the suffix words by kind, the known players by name and by
    surname, the aliases, the title holders and a ``version`` (a hash of the file)."""

    titles: tuple
    title_prefixes: tuple
    crowns: tuple
    ranks: tuple
    rank_prefixes: tuple
    honorifics: tuple
    separators: tuple
    players: dict       # canonical name -> surname
    surnames: dict      # surname -> (canonical names, in file order)
    sole_surnames: frozenset
    aliases: dict
    holders: tuple
    known_until: datetime.date
    version: str


@lru_cache(maxsize=4)
def rules(path: Path = PLAYERS_PATH) -> Rules:
    """The rules of ``path`` (``players.toml`` by default), checked: ``RulesError`` says where
    a file goes wrong."""
    data = path.read_bytes()
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise RulesError(f"{path}: {error}") from None

    def words(key: str) -> tuple:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise RulesError(f"{path}: {key} must be a list of words, not {value!r}")
        return tuple(sorted(value, key=len, reverse=True))  # the longest word first

    players, surnames = {}, {}
    for number, entry in enumerate(table.get("player", []), 1):
        name, surname = entry.get("name"), entry.get("surname")
        if not (isinstance(name, str) and isinstance(surname, str) and name.startswith(surname)
                and len(name) > len(surname) and normalise(name) == name):
            raise RulesError(f"{path}: player {number}: a name (no space) that begins with its "
                             f"surname is needed, not {entry!r}")
        players[name] = surname
        surnames.setdefault(surname, []).append(name)
    aliases = table.get("aliases", {})
    if not all(isinstance(k, str) and v in players for k, v in aliases.items()):
        raise RulesError(f"{path}: every alias must name a [[player]]: {aliases!r}")
    holders = []
    for number, entry in enumerate(table.get("holder", []), 1):
        try:
            end = entry.get("to")
            holders.append(Holder(entry["title"], entry["player"],
                                  datetime.date.fromisoformat(entry["from"]),
                                  None if end is None else datetime.date.fromisoformat(end)))
        except (KeyError, TypeError, ValueError) as error:
            raise RulesError(f"{path}: holder {number}: {error!r} in {entry!r}") from None
        if holders[-1].player not in players:
            raise RulesError(f"{path}: holder {number}: {holders[-1].player!r} is not a "
                             f"[[player]]")
    sole = words("sole_surname")
    unknown = [s for s in sole if s not in surnames]
    if unknown:
        raise RulesError(f"{path}: sole_surname {unknown!r}: no [[player]] has it")
    return Rules(words("titles"), words("title_prefixes"), words("crowns"), words("ranks"),
                 words("rank_prefixes"), words("honorifics"), words("separators"), players,
                 {k: tuple(v) for k, v in surnames.items()}, frozenset(sole),
                 {normalise(k): v for k, v in aliases.items()}, tuple(holders),
                 datetime.date.fromisoformat(table["known_until"]),
                 hashlib.blake2b(data, digest_size=6).hexdigest())


_JAPANESE = r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff々〆ヵヶ]"  # kana, kanji and their marks
_SPACE_IN_JAPANESE = re.compile(rf"(?<={_JAPANESE}) (?={_JAPANESE})")
_KANJI = re.compile(r"[\u3400-\u9fff\uf900-\ufaff々]")


def normalise(written: str) -> str:
    """``written`` in NFKC (full-width letters and spaces become ASCII ones), with runs of
    spaces made one, and none between two Japanese characters or at either end.

    >>> normalise("羽生\u3000善治 竜王"), normalise("  Ｔanuki   sse4.2 "), normalise("西尾 明 五段")
    ('羽生善治竜王', 'Tanuki sse4.2', '西尾明五段')
    """
    text = " ".join(unicodedata.normalize("NFKC", written).split())
    return _SPACE_IN_JAPANESE.sub("", text)


def _strip(name: str, r: Rules) -> tuple:
    """``name`` without its suffixes: ``(rest, titles, others)``, the titles (and crowns) it
    ended with, and whether anything else (a rank, an honorific, a former title) went too.
    A suffix goes only after a kanji (or a separator or bracket after one), and never takes the
    whole name."""
    titles, other = [], False
    rest = name
    while True:
        bracket = re.fullmatch(r"(.+?)[(（]([^()（）]+)[)）]", rest)
        if bracket and _KANJI.search(bracket.group(1)[-1]):
            inner, inner_titles, inner_other = _strip("一" + bracket.group(2), r)
            if inner == "一":  # the bracket holds only titles, ranks or honorifics
                rest, other = bracket.group(1), other or inner_other
                titles.extend(inner_titles)
                continue
        for separator in r.separators:
            if rest.endswith(separator) and len(rest) > len(separator):
                rest = rest[:-len(separator)]
                break
        found = _suffix(rest, r)
        if found is None:
            return rest, titles, other
        word, kind = found
        rest = rest[:-len(word)]
        if kind == "title":
            titles.append(word)
        else:
            other = True


def _suffix(name: str, r: Rules):
    """The suffix word ``name`` ends with and its kind (``title``, ``former`` or ``other``),
    or None."""
    for words, kind in ((r.crowns, "title"), (r.titles, "title"), (r.ranks, "other"),
                        (r.honorifics, "other")):
        for word in words:
            if not name.endswith(word) or len(name) <= len(word):
                continue
            before = name[:-len(word)]
            prefixes = r.title_prefixes if kind == "title" else r.rank_prefixes
            for prefix in prefixes:
                if before.endswith(prefix) and len(before) > len(prefix):
                    before, word = before[:-len(prefix)], prefix + word
                    kind = "former" if kind == "title" else kind
                    break
            kept = before.rstrip("".join(r.separators))  # 王位・棋聖: 棋聖 goes, then 王位
            if kept and _KANJI.match(kept[-1]):
                return word, kind
    return None


def _date(value) -> Optional[datetime.date]:
    if value is None or isinstance(value, datetime.date):
        return value
    return datetime.date.fromisoformat(str(value)[:10])


def canonical(written: str, date=None, path: Path = PLAYERS_PATH) -> Canonical:
    """The canonical name of a player written ``written`` in a game of ``date`` (a
    ``datetime.date``, ISO text, or None: undated). See the module's docstring."""
    r = rules(path)
    name = normalise(written)
    if name in r.aliases:
        return Canonical(r.aliases[name])
    rest, titles, other = _strip(name, r)
    rest = r.aliases.get(rest, rest)
    if rest in r.players:
        return Canonical(rest)
    if rest in r.surnames:
        if titles:
            return _by_title(name, rest, titles, _date(date), r)
        if rest in r.sole_surnames:
            return Canonical(r.surnames[rest][0])
        return Canonical(name, True, r.surnames[rest])
    if rest == name:
        return Canonical(name)
    if (titles or other) and len(rest) <= 2:  # a surname alone that no listed player has
        return Canonical(name, True)
    return Canonical(rest)


def _by_title(name: str, surname: str, titles: list, date, r: Rules) -> Canonical:
    """A surname with titles: the one listed player of that surname who held every one of
    them on ``date``; else ``name``, ambiguous, with the players of that surname who ever held
    one of them (or every player of that surname)."""
    ever = [h for h in r.holders if h.title in titles and r.players[h.player] == surname]
    candidates = tuple(dict.fromkeys(h.player for h in ever)) or r.surnames[surname]
    if date is not None and date <= r.known_until:
        holding = {h.player for h in ever if h.start <= date and (h.end is None or date < h.end)
                   and all(any(o.player == h.player and o.title == t and o.start <= date
                               and (o.end is None or date < o.end) for o in ever)
                           for t in titles)}
        if len(holding) == 1:
            return Canonical(holding.pop())
    return Canonical(name, True, candidates)


def depends_on_date(written: str, path: Path = PLAYERS_PATH) -> bool:
    """True when the canonical name of ``written`` may change with the game's date (a
    surname with a title).

    >>> depends_on_date("藤井竜王"), depends_on_date("藤井聡太竜王"), depends_on_date("羽生五段")
    (True, False, False)
    """
    r = rules(path)
    name = normalise(written)
    if name in r.aliases:
        return False
    rest, titles, _ = _strip(name, r)
    return bool(titles) and r.aliases.get(rest, rest) not in r.players and rest in r.surnames


def canonical_name(written: str, date=None, path: Path = PLAYERS_PATH) -> str:
    """``canonical(written, date).name``, remembered by spelling (and by date only for the
    spellings whose name depends on it): what ``store.writer`` tells two players apart by,
    called for both players of every game read and stored. A name that only begins another
    is another player; a title, rank or honorific makes no difference::

        >>> canonical_name("a1") == canonical_name("a10")
        False
        >>> canonical_name("羽生善治") == canonical_name("羽生 善治竜王") == canonical_name("羽生九段")
        True
        >>> canonical_name("藤井竜王", "2022-01-10"), canonical_name("藤井竜王")
        ('藤井聡太', '藤井竜王')
    """
    name, dated = _undated(written, path)
    return _dated(written, _date(date), path) if dated and date is not None else name


@lru_cache(maxsize=1 << 16)
def _undated(written: str, path: Path) -> tuple:
    """``(canonical name without a date, whether a date may change it)`` of a spelling."""
    return canonical(written, None, path).name, depends_on_date(written, path)


@lru_cache(maxsize=1 << 16)
def _dated(written: str, date: datetime.date, path: Path) -> str:
    return canonical(written, date, path).name
