"""Download the games a page lists — the games that reached a position, a player's games — as
one ZIP of KIF (KI2, JKF) files or one CSA or USI file of them all
(``analytics.export.games_archive``). The file is made when the button is clicked, not on
every run of the page; a game that cannot be written in the format is left out, and a ZIP's
``problems.txt`` says why."""

from __future__ import annotations

import streamlit as st

from kifudb.analytics import export
from kifudb.analytics.filters import GameFilter
from kifudb.core.writers import EXTENSIONS, MEDIA_TYPES, MULTI_GAME
from kifudb.dashboard.state import store_root

#: The choices of format, as the selector shows them.
CHOICES = {"kif": "KIF (ZIP)", "ki2": "KI2 (ZIP)", "jkf": "JKF (ZIP)", "csa": "CSA (one file)",
           "usi": "USI (one file)"}
#: The most games one download holds (the first by id).
MOST = 2000
#: The encodings a KIF, KI2 or CSA download may be written in (CSA and KIF declare it).
ENCODINGS = {"utf-8": "UTF-8", "cp932": "Shift_JIS (cp932, old Windows tools)"}
#: The formats whose files may be in another encoding than UTF-8 (JKF is JSON, USI ASCII).
ENCODED = ("kif", "ki2", "csa")


def file_name(name: str, fmt: str) -> str:
    """The download's file name: ``name`` and the extension of ``fmt``'s file, or ``.zip``.

    >>> file_name("kifudb-search", "kif"), file_name("kifudb-search", "csa")
    ('kifudb-search.zip', 'kifudb-search.csa')
    """
    return name + (EXTENSIONS[fmt] if fmt in MULTI_GAME else ".zip")


def cap_text(count: int | None) -> str:
    """What the page says of the cap on a download's games.

    >>> cap_text(5000), cap_text(12), cap_text(None)  # doctest: +NORMALIZE_WHITESPACE
    ('The download holds the first 2,000 of these 5,000 games (by id): a download holds at
    most 2,000.', 'A download holds at most 2,000 games (the first by id).', 'A download
    holds at most 2,000 games (the first by id).')
    """
    if count is not None and count > MOST:
        return (f"The download holds the first {MOST:,} of these {count:,} games (by id): a "
                f"download holds at most {MOST:,}.")
    return f"A download holds at most {MOST:,} games (the first by id)."


def encoding_choice(key: str, fmt: str, width: int = 200) -> str:
    """The encoding selector of a KIF, KI2 or CSA download (UTF-8, or Shift_JIS for old
    Windows tools); UTF-8 for the other formats."""
    if fmt not in ENCODED:
        return "utf-8"
    return st.selectbox("Encoding", list(ENCODINGS), format_func=ENCODINGS.get,
                        key=f"{key}-encoding", width=width,
                        help="UTF-8, or Shift_JIS (cp932) for old Windows tools (Kifu for "
                             "Windows, old ShogiGUI); the file declares it.")


def games_download(key: str, what: str, name: str, filters: GameFilter = GameFilter(),
                   sfen: str | None = None, count: int | None = None) -> None:
    """A format selector (and an encoding one for KIF, KI2 and CSA) and a button that
    downloads the games of ``filters`` that reached the position ``sfen`` (any position: None)
    — ``what`` says which they are on the button's help — as ``name`` with the format's
    extension; under them, the cap on the games said on the page (``count``: how many there
    are, when the page knows)."""
    root = str(store_root())
    with st.container(horizontal=True, vertical_alignment="bottom", key=f"{key}-downloads"):
        fmt = st.selectbox("Download as", list(CHOICES), format_func=CHOICES.get,
                           key=f"{key}-format", width=170)
        encoding = encoding_choice(key, fmt)

        def data() -> bytes:
            chosen = export.chosen_games(root, filters, position=sfen)[:MOST]
            return export.games_archive(root, chosen, fmt, name, encoding=encoding).data

        st.download_button("Download the games", data=data, file_name=file_name(name, fmt),
                           mime=MEDIA_TYPES[fmt] if fmt in MULTI_GAME else "application/zip",
                           key=f"{key}-download", on_click="ignore", icon=":material/download:",
                           help=f"{what}, at most {MOST:,} (the first by id). A game that "
                                f"cannot be written as {fmt.upper()} is left out"
                                + ("." if fmt in MULTI_GAME else
                                   ": the ZIP's problems.txt says why."))
    st.caption(cap_text(count))
