"""A merge's or a compaction's batch written in a process of its own (``Store._rewrite``).

The rewrite is DuckDB's work (it reads the batches it replaces and writes one, sorting by
spilling to disk), and DuckDB keeps what it took until its process ends. Run in the writer's
process, it took the ingest's client from 220 MB (its catalogue, the Dask client and the
scheduler) to 750–800 MB at every large merge; run here, the client stays where it was, the
child holds ``MERGE_MEMORY`` and its buffers (431 MB resident for 24.6M positions), and gives
them all back as it exits. A child that the kernel kills (out of memory) fails the merge only:
the writer says so (``MergeFailed``) and its commits stand. The child makes the views of the
batches it replaces alone, and takes their files as verified where the writer verified them
(``store.folder.trust``): verifying the whole store again, a merge of two batches of 420k
positions in a store of 310M took 5.2 s, against 0.7 s.

The writer holds the store's lock throughout; the child writes only in the store's ``tmp/``
and ``batches/`` (the new batch, not yet committed: the writer commits it), and it dies with
the writer (``PR_SET_PDEATHSIG``), so that no orphan writes into a store another writer has
locked since. ``python -c "from kifudb.store.rewrite import main; main()"`` reads its job as
JSON on its standard input and writes the batch's name, or the error, as JSON on its standard
output.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys

import duckdb

from kifudb.store.manifest import StoreDamaged, StoreError

#: the errors the child says as they are (their class, by name) and the writer raises again
_ERRORS = {"StoreError": StoreError, "StoreDamaged": StoreDamaged}
_CHILD = "from kifudb.store.rewrite import main; main()"
#: ``prctl``'s option: the signal a process gets when its parent ends
_PR_SET_PDEATHSIG = 1


def in_child(store, manifest: dict, replaced: list, number: int, queries: dict, rows: dict,
             doing: str) -> str:
    """``store.rewrite_here(...)`` run in a child process: the new batch's name, or the
    child's error raised again (a ``StoreError`` that says so if the child was killed)."""
    from kifudb.store.folder import verified_in

    job = {"root": str(store.root), "partition_rows": store.partition_rows,
           "manifest": manifest, "replaced": list(replaced), "number": number,
           "queries": queries, "rows": rows, "doing": doing, "parent": os.getpid(),
           "verified": verified_in([store.batch_dir(b) for b in replaced])}
    done = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(job),
                          capture_output=True, text=True)
    answer = _answer(done.stdout)
    if done.returncode == 0 and "name" in answer:
        return answer["name"]
    if "error" in answer:
        raise _error(answer["error"], answer["message"])
    if done.returncode < 0:
        why = f"was killed by {signal.Signals(-done.returncode).name}"
        if -done.returncode == signal.SIGKILL:
            why += " (as the kernel ends a process that runs out of memory)"
    else:
        why = f"ended with status {done.returncode}"
    last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:]
    raise StoreError(f"{doing} batch b{number:06d}: its process {why}"
                     + (f": {last[0].strip()}" if last else ""))


def _answer(stdout: str) -> dict:
    """The child's answer: the last line of its standard output that is one (a library may
    have written other lines before it)."""
    for line in reversed(stdout.splitlines()):
        try:
            answer = json.loads(line)
        except ValueError:
            continue
        if isinstance(answer, dict) and ("name" in answer or "error" in answer):
            return answer
    return {}


def _error(kind: str, message: str) -> Exception:
    """The exception the child raised, by its class's name: ours, DuckDB's, or an OS error."""
    if kind in _ERRORS:
        return _ERRORS[kind](message)
    error = getattr(duckdb, kind, None)
    if isinstance(error, type) and issubclass(error, duckdb.Error):
        return error(message)
    return StoreError(message)


def _die_with(parent: int) -> None:
    """Be killed when the writer ends (Linux); if it has ended already, end now."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the writer's lock is all there is
        pass
    if os.getppid() != parent:
        sys.exit(f"the writer (process {parent}) has ended")


def main() -> None:
    """The child: read the job, write the batch, say its name (or the error)."""
    from kifudb.store.folder import Store, trust  # the folder module runs this one in its child

    job = json.loads(sys.stdin.read())
    _die_with(job["parent"])
    trust(job["verified"])  # the writer read these files' digests: not hashed again here
    store = Store(job["root"], partition_rows=job["partition_rows"])
    try:
        name = store.rewrite_here(job["manifest"], job["replaced"], job["number"],
                                  job["queries"], job["rows"], job["doing"])
    except (StoreError, duckdb.Error, OSError) as error:
        print(json.dumps({"error": type(error).__name__, "message": str(error)}))
        sys.exit(1)
    print(json.dumps({"name": name}))
