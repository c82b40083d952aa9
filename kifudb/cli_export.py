"""``kifudb convert`` and ``kifudb export``: records out, in KIF, KI2, CSA, JKF or USI
(``core.writers``), from record files or from the store; and engine training data (hcpe,
PackedSfenValue) from the store (``analytics.training``).

    kifudb convert records/ --to csa --output out/           # one file per game, folders mirrored
    kifudb convert old.kif --to kif --output out/ --encoding cp932
    kifudb export --store data/store --to kif --output out/ --player 羽生 --from 2000-01-01 \
        --until 2010-12-31
    kifudb export --store data/store --to csa --output games.csa --moves "7g7f 3c3d"  # one file
    kifudb export --store data/store --to hcpe --output train.hcpe --min-ply 16 --dedupe

Every file is written under the folder given, whole, never through a link, and never over a
file that exists unless ``--overwrite`` is given (``analytics.files``; the files replaced are
said); a name too long for the file system is cut (``analytics.files.fitted_name``; said by
``convert``, whose names are the source files').
A game that cannot be written (a move that could not be replayed when it was read: a record
holds legal moves only; a character the encoding lacks) gets a message on standard error and
the others go on; the exit status is then 1. What a format cannot hold of a game (CSA and USI:
the variations; KI2: the times …) is counted in the summary.
"""

from __future__ import annotations

import glob
import os
from collections import Counter
from pathlib import Path

import click

from kifudb.output import plural, printable, replaced_files
from kifudb.cli_store import (_guard, _open_store, _position, _position_options, _store_option,
                              game_filter, game_filter_options)

__all__ = ["convert", "export"]

#: the record formats, as ``core.writers.FORMATS`` lists them (kept here so that ``--help``
#: does not import the writers)
RECORD_FORMATS = ("kif", "ki2", "csa", "jkf", "usi")
TRAINING_FORMATS = ("hcpe", "psv")
ENCODINGS = ("utf-8", "cp932")


def _overwrite_option(command):
    return click.option("--overwrite", is_flag=True,
                        help="Replace the files that exist (else they are left as they are, "
                             "said, and the exit status is 1).")(command)


def _encoding_option(command):
    return click.option("--encoding", type=click.Choice(ENCODINGS), default="utf-8",
                        show_default=True,
                        help="The files' encoding: cp932 (Shift_JIS) for old Windows tools."
                        )(command)


def _written(kifu, fmt: str, encoding: str) -> bytes:
    """The bytes of ``kifu`` in ``fmt``; ``ValueError`` saying why it cannot be written (a
    character the encoding lacks, a line that breaks the rules, a bug of kifudb's: one game's
    failure never stops the others)."""
    from kifudb.core.writers import write

    try:
        return _encoded(write(kifu, fmt, encoding), encoding)
    except ValueError:
        raise
    except Exception as error:  # a safety net, as ingest has one
        raise ValueError(f"kifudb failed writing this game: {type(error).__name__}: {error} "
                         f"(please report this with the file)") from None


def _encoded(text: str, encoding: str) -> bytes:
    """``text`` in ``encoding``; ``ValueError`` naming the first character it lacks."""
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as error:
        character = error.object[error.start]
        line = error.object.count("\n", 0, error.start) + 1
        raise ValueError(f"{encoding} has no character {character!r} (U+{ord(character):04X}, "
                         f"line {line} of the text): write it in utf-8") from None


class _Tally:
    """What a run wrote, could not write, and left out; said in one summary."""

    def __init__(self) -> None:
        self.written = self.files = self.failed = self.cut = 0
        self.left_out: Counter = Counter()  # what -> games
        self.named: dict = {}  # what -> the header names or ending words left out
        self.analysis: Counter = Counter()  # moves, games that got the engine's analysis; kept

    def analysed(self, added: int, kept: int) -> None:
        """A game written with ``added`` moves of the engine's analysis in its comments
        (``kept``: moves that kept the record's own research lines)."""
        self.analysis.update(moves=added, games=1 if added else 0, kept=kept)

    def analysis_summary(self, counts=None) -> None:
        """The line that says how much of the engine's analysis went out (``counts``:
        ``{"moves", "games", "kept"}``, by default this run's)."""
        counts = self.analysis if counts is None else counts
        if counts and counts["moves"]:
            click.echo(f"the engine's analysis of {plural(counts['moves'], 'move')} of "
                       f"{plural(counts['games'], 'game')} in the comments (ShogiHome's "
                       f"#評価値= lines)" + (f"; {plural(counts['kept'], 'move')} kept the "
                                             f"record's own" if counts["kept"] else ""))

    def problem(self, where: str, why: str) -> None:
        self.failed += 1
        click.echo(f"{printable(where)}: not written: {printable(why)}", err=True)

    def wrote(self, kifu, fmt: str, dropped_variations: int = 0) -> None:
        from kifudb.core.writers import left_out

        self.written += 1
        said_out = left_out(kifu, fmt) + (["variations"] if dropped_variations else [])
        for said in said_out:
            what, details = said, ()
            if said.startswith("the headers "):
                what, details = "headers", said.removeprefix("the headers ").split(", ")
            elif said.startswith("the ending "):
                what, details = "endings", [said.removeprefix("the ending ")]
            elif said.endswith(("variation", "variations")):
                what = "variations"
            else:
                what = said.removeprefix("the ")
            self.left_out[what] += 1
            self.named.setdefault(what, Counter()).update(details)

    def refused(self, where: str, refusal) -> None:
        """A game not written because its file may not be (``analytics.files.OutputRefused``)."""
        self.problem(where, f"{refusal.path}: {refusal.why}")

    def cut_short(self, where: str, why: str) -> None:
        """A game written up to its illegal move (``ingest.cut_records``)."""
        self.cut += 1
        click.echo(f"{printable(where)}: {printable(why)}", err=True)

    def summary(self, fmt: str, output, replaced: list = ()) -> None:
        click.echo(f"{plural(self.written, 'game')} written as {fmt.upper()} to "
                   f"{printable(output)} ({plural(self.files, 'file')})"
                   + (f"; {plural(self.cut, 'game')} up to an illegal move, which ends "
                      f"{'it' if self.cut == 1 else 'them'} (its text in a comment)"
                      if self.cut else "")
                   + (f"; {plural(self.failed, 'game')} could not be written" if self.failed
                      else ""))
        if replaced:
            click.echo(replaced_files(replaced))
        if self.left_out:
            parts = []
            for what, games in sorted(self.left_out.items()):
                named = [name for name, _ in self.named[what].most_common(4)]
                more = len(self.named[what]) - len(named)
                listed = f": {', '.join(named)}{f' and {more} more' if more > 0 else ''}" \
                    if named else ""
                parts.append(f"the {what} of {plural(games, 'game')}{listed}")
            click.echo(printable(f"{fmt.upper()} cannot hold, so left out: " + "; ".join(parts)))


# ----- convert ---------------------------------------------------------------------------------


def _bases(arguments) -> list:
    """``(file, folder its output path is relative to)`` for the record files of ``arguments``:
    a folder given is mirrored, a file given goes to the output folder itself, a pattern's
    files keep their place below the pattern's first folder."""
    from kifudb.ingest.read import record_files

    out, seen = [], set()
    for argument in map(str, arguments):
        if os.path.isdir(argument):
            base = argument
        elif glob.has_magic(argument):
            fixed = []
            for part in Path(argument).parts:
                if glob.has_magic(part):
                    break
                fixed.append(part)
            base = str(Path(*fixed)) if fixed else "."
        else:
            base = os.path.dirname(argument) or "."
        for name in record_files([argument]):
            key = os.path.normpath(os.path.abspath(name))
            if key not in seen:
                seen.add(key)
                out.append((name, base))
    return out


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--to", "fmt", type=click.Choice(RECORD_FORMATS), required=True,
              help="The format to write.")
@click.option("--output", "-o", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The folder to write to (made if missing).")
@_encoding_option
@_overwrite_option
@click.option("--analysis-from", "analysis_store", metavar="STORE",
              type=click.Path(file_okay=False, path_type=Path),
              help="Write into the comments the engine's analysis that this store holds of "
                   "each position (kifudb analyse), as export does.")
def convert(paths, fmt: str, output: Path, encoding: str, overwrite: bool,
            analysis_store: Path = None) -> None:
    """Write every game of PATHS (files, folders, globs) in another format: one file per game,
    named after its source file (and its number in the file when it holds several), the
    folders given mirrored under OUTPUT. Files of one folder with the same name but for
    their extension (illegal.kif, illegal.ki2) keep it in theirs: illegal.kif.csa,
    illegal.ki2.csa. A game whose moves stop at an illegal one is written up to it and ends
    with the format's illegal-move ending (%ILLEGAL_MOVE, 反則負け), the move as written in a
    comment. With --analysis-from STORE, each move's comments get the store's engine analysis
    of the position after it (ShogiHome's #評価値= lines), whatever game of the store reached
    it."""
    from kifudb.ingest.cut_records import read_records
    from kifudb.analytics.files import OutputFolder, OutputRefused, fitted_name
    from kifudb.core.writers import EXTENSIONS
    from kifudb.cli_paths import given_files

    given_files(paths)  # a path that names nothing stops here
    judge = _analysis_source(analysis_store) if analysis_store is not None else None
    tally, names = _Tally(), set()
    out = OutputFolder(output, overwrite=overwrite)
    variations = fmt in ("kif", "ki2", "jkf")
    bases = _bases(paths)
    stems = Counter(_stem_key(source, base) for source, base in bases)
    for source, base in bases:
        read = read_records(source, variations=variations)
        for problem in read.problems:
            click.echo(f"{printable(source)}: {printable(problem)}", err=True)
        relative = Path(os.path.relpath(source, base))
        several = len(read.games) > 1
        # a.kif beside a.ki2: each keeps its extension in its name (a.kif.csa, a.ki2.csa)
        own = relative.name if stems[_stem_key(source, base)] > 1 else relative.stem
        for game in read.games:
            where = f"{source} game {game.index + 1}" if several else source
            if game.kifu is None:
                tally.problem(where, game.problem)
                continue
            if game.cut is not None:
                tally.cut_short(where, game.cut)
            stem = own + (f"-{game.index + 1}" if several else "")
            if relative.parent / (stem + EXTENSIONS[fmt]) in names:
                # a.kif and a.csa side by side: the second keeps its extension
                stem = f"{stem}-{relative.suffix.lstrip('.')}"
            name = fitted_name(stem, EXTENSIONS[fmt])
            target = output / relative.parent / name
            if target.exists() and target.resolve() == Path(source).resolve():
                tally.problem(where, f"{target} is the source file itself; choose another "
                                     f"--output")
                continue
            kifu = game.kifu
            if judge is not None and fmt != "usi":
                kifu, added, kept = judge(kifu)
            try:
                data = _written(kifu, fmt, encoding)
            except ValueError as error:
                tally.problem(where, str(error))
                continue
            try:
                out.write(relative.parent / name, data)
            except OutputRefused as refusal:
                tally.refused(where, refusal)
                continue
            if judge is not None and fmt != "usi":
                tally.analysed(added, kept)
            names.add(relative.parent / (stem + EXTENSIONS[fmt]))
            if name != stem + EXTENSIONS[fmt]:
                click.echo(f"{printable(where)}: written as {printable(name)} (the name "
                           f"{printable(stem + EXTENSIONS[fmt])} is too long)", err=True)
            tally.files += 1
            tally.wrote(game.kifu, fmt, game.dropped_variations)
    tally.summary(fmt, output, out.replaced)
    tally.analysis_summary()
    if judge is not None and not tally.analysis["moves"] and tally.written:
        click.echo(f"the engine's analysis: no position after a move of these games is "
                   f"analysed in {printable(analysis_store)}")
    if tally.failed:
        raise SystemExit(1)


def _analysis_source(folder: Path):
    """A function of a record's ``Kifu``: ``(kifu with the store's analysis in its comments,
    moves annotated, moves that kept their own)`` (``convert --analysis-from``)."""
    from kifudb.analytics.analysed_moves import kifu_analysis
    from kifudb.analytics.analysis_comments import annotated
    from kifudb.analytics.judgement import NoAnalysis, chosen_analysis

    store = _open_store(folder)
    try:
        choice = chosen_analysis(store)
    except NoAnalysis as error:
        raise click.ClickException(printable(str(error))) from None
    return lambda kifu: annotated(kifu, kifu_analysis(store, kifu, choice))


def _stem_key(source: str, base: str) -> tuple:
    """The output folder and stem of a source file (files that share it would share a
    name)."""
    relative = Path(os.path.relpath(source, base))
    return relative.parent, relative.stem.casefold()


# ----- export ----------------------------------------------------------------------------------


def _options(command):
    return _store_option(game_filter_options(taken=("--to",))(_position_options(command)))


@click.command()
@click.option("--to", "fmt", type=click.Choice(RECORD_FORMATS + TRAINING_FORMATS),
              required=True, help="A record format, or training data: hcpe (cshogi's 38-byte "
                                  "HuffmanCodedPosAndEval) or psv (YaneuraOu's PackedSfenValue).")
@click.option("--output", "-o", type=click.Path(path_type=Path), required=True,
              help="A folder (one file per game), or a file: one .csa or .usi file of every "
                   "game, or the training data.")
@_encoding_option
@_overwrite_option
@click.option("--min-ply", type=click.IntRange(min=0), default=0, show_default=True,
              help="hcpe/psv: leave out each game's first N positions.")
@click.option("--dedupe", is_flag=True,
              help="hcpe/psv: one record per position and move played.")
@click.option("--no-analysis", "no_analysis", is_flag=True,
              help="Leave out the engine's analysis (kifudb analyse): by default it goes into "
                   "the records' comments as ShogiHome's #評価値= lines, and gives hcpe/psv "
                   "their scores where the record has none.")
@_options
@_guard
def export(fmt: str, output: Path, encoding: str, overwrite: bool, min_ply: int, dedupe: bool,
           no_analysis: bool, sfen, moves, start, diagram, game_id, ply, store_dir,
           **filters) -> None:
    """Write the store's games chosen by the filters (those of explore and stats — a castle or
    opening --label among them —, the last date being --until; a position reached) as records,
    or as engine training data."""
    from kifudb.analytics.files import OutputRefused

    store = _open_store(store_dir)
    chosen = game_filter(filters)
    given = any(v is not None for v in (sfen, moves, diagram, game_id))
    position = _position(store, sfen, moves, start, diagram, game_id, ply) if given else None
    try:
        if fmt in TRAINING_FORMATS:
            _export_training(store, fmt, output, chosen, position, min_ply, dedupe, overwrite,
                             not no_analysis)
        else:
            if min_ply or dedupe:
                raise click.UsageError("--min-ply and --dedupe go with --to hcpe or psv")
            _export_records(store, fmt, output, encoding, chosen, position, overwrite,
                            not no_analysis)
    except OutputRefused as refusal:  # the output's, not the store's (a full disk there)
        raise click.ClickException(printable(refusal)) from None


def _export_training(store, fmt, output: Path, filters, position, min_ply, dedupe, overwrite,
                     with_analysis: bool = True):
    if position is not None:
        raise click.UsageError(f"--to {fmt} takes the game filters (--player, --from, --label "
                               f"…), not a position")
    if output.is_dir():
        raise click.UsageError(f"--to {fmt} writes one file: {output} is a folder")
    from kifudb.analytics.training import write_training

    done = write_training(store, output, fmt, filters=filters, min_ply=min_ply, dedupe=dedupe,
                          overwrite=overwrite, analysis=with_analysis)
    click.echo(f"{plural(done['records'], 'record')} ({done['bytes']:,} bytes) from "
               f"{plural(done['games'], 'game')} written to {printable(output)}; "
               f"{done['evaluated']} with an evaluation"
               + (f" ({done['from_analysis']} of them from the engine's analysis)"
                  if done["from_analysis"] else "")
               + f", {done['duplicates']} duplicates left "
               f"out; games left out: {done['without_result']} without a result, "
               f"{done['without_kings']} without both kings")
    if done["replaced"]:
        click.echo(replaced_files([output]))


def _export_records(store, fmt, output: Path, encoding, filters, position, overwrite,
                    with_analysis: bool = True):
    from kifudb.analytics.export import chosen_games, record_file_name, stored_kifus
    from kifudb.analytics.files import OutputFile, OutputFolder, OutputRefused
    from kifudb.core.writers import EXTENSIONS, MULTI_GAME, write_games

    one_file = output.suffix.lower() == EXTENSIONS[fmt] and not output.is_dir()
    if one_file and fmt not in MULTI_GAME:
        raise click.UsageError(f"a {fmt.upper()} file holds one game: give a folder as --output "
                               f"(or --to {' or '.join(MULTI_GAME)} for one file of every game)")
    if not one_file and output.exists() and not output.is_dir():
        raise click.UsageError(f"{output} is a file: give a folder (one file per game), or a "
                               f"{' or '.join(EXTENSIONS[f] for f in MULTI_GAME)} file")
    if one_file:  # refused before the work
        out = OutputFile(output, overwrite=overwrite)
        out.check()
    else:
        out = OutputFolder(output, overwrite=overwrite)
    chosen = chosen_games(store, filters, position=position)
    tally, kifus = _Tally(), []
    paths = {row["game"]: row["path"] for row in chosen}
    # the engine's analysis as comments (USI holds none)
    analysed = {} if with_analysis and fmt != "usi" else None
    for game, kifu, problem, dropped in stored_kifus(store, chosen,
                                                     variations=fmt in ("kif", "ki2", "jkf"),
                                                     analysis=analysed):
        if kifu is None:
            tally.problem(f"game {game}", problem)
        elif one_file:
            kifus.append(kifu)
            tally.wrote(kifu, fmt, dropped)
        else:
            try:
                data = _written(kifu, fmt, encoding)
            except ValueError as error:
                tally.problem(f"game {game}", str(error))
                continue
            try:
                out.write(record_file_name(game, paths.get(game), fmt), data)
            except OutputRefused as refusal:
                tally.refused(f"game {game}", refusal)
                continue
            tally.files += 1
            tally.wrote(kifu, fmt, dropped)
    if one_file:
        try:
            data = _encoded(write_games(kifus, fmt, encoding), encoding)
        except ValueError as error:
            raise click.ClickException(f"{output}: not written: {error}") from None
        with out.stream() as stream:
            stream.write(data)
        tally.files = 1
    if not chosen:
        click.echo("no game of the store fits the filters")
    tally.summary(fmt, output, out.replaced)
    tally.analysis_summary(analysed)
    if tally.failed:
        raise SystemExit(1)
