"""The process that runs analysts' queries for ``store.sql.run_sql``, where the operating system's
limits hold: its address space is capped (``RLIMIT_AS``: the memory limit plus a margin for
DuckDB itself), it is killed at the deadline (by its parent, and by its own ``SIGALRM`` should
the parent be gone), and it sees the store only as ``STORE/``, a link in its private working
folder, so that no answer, file name or view definition holds the store's absolute path.

``python -c "from kifudb.store.sql_child import main; main()" [ADDRESS]`` reads requests from
its standard input and writes answers to its standard output, one query at a time, as frames
(an 8-byte length, then a pickle): for each request an empty frame as the query starts (its
deadline runs from there), then the answer. It imports DuckDB and the standard library only.
"""

from __future__ import annotations

import os
import pickle
import resource
import signal
import struct
import sys

import duckdb

#: bytes of address space DuckDB needs beyond its memory limit: its thread-local data, its
#: allocator's arenas, Python's own allocations for the rows, and a stack per thread. Measured
#: with two threads: a count over the views maps 65 MB more than the process had at its start
#: with glibc's arenas bounded (``ENVIRONMENT``), 185 MB and now and then more without (each
#: arena reserves 64 MB); 64 MB aborts at start
MARGIN = 256 * 10 ** 6
#: what the child's environment adds: two malloc arenas, so that the address space measures
#: the memory used rather than the threads
ENVIRONMENT = {"MALLOC_ARENA_MAX": "2"}
STACK_PER_THREAD = 16 * 10 ** 6
#: DuckDB's threads in the child (each thread's stack counts in the address space)
THREADS = max(1, min(os.cpu_count() or 1, 8))
#: seconds past its deadline a query's process kills itself (its parent kills it at the deadline)
GRACE = 2

_FRAME = struct.Struct(">Q")


def address_space(memory: int) -> int:
    """The address space a process with a memory limit of ``memory`` bytes may add to what it
    has mapped at its start (Python and DuckDB loaded)."""
    return memory + MARGIN + THREADS * STACK_PER_THREAD


def _mapped() -> int:
    """Bytes of address space this process has now (``VmSize``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # not Linux (where RLIMIT_AS may not hold anyway)
        pass
    return 0


def write_frame(stream, payload: bytes) -> None:
    stream.write(_FRAME.pack(len(payload)) + payload)
    stream.flush()


def read_frame(stream, limit=None):
    """The next frame's bytes; None at the end of the stream; ``OverflowError`` when it is longer
    than ``limit`` bytes (not read)."""
    head = stream.read(_FRAME.size)
    if len(head) < _FRAME.size:
        return None
    size, = _FRAME.unpack(head)
    if limit is not None and size > limit:
        raise OverflowError(size)
    payload = stream.read(size)
    return payload if len(payload) == size else None


def main() -> None:
    """Serve requests (``answer``) from standard input until it closes."""
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but the answers goes into their pipe
    if len(sys.argv) > 1 and sys.argv[1]:
        cap = _mapped() + int(sys.argv[1])
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the alarm kills, whatever DuckDB is doing
    state: dict = {}
    while True:
        request = read_frame(requests)
        if request is None:
            return
        request = pickle.loads(request)

        def starting():
            if request["timeout"] is not None:
                signal.setitimer(signal.ITIMER_REAL, request["timeout"] + GRACE)
            write_frame(answers, b"")
        try:
            result = answer(request, state, starting)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            payload = pickle.dumps(("memory", "the rows do not fit in the memory limit"))
        write_frame(answers, payload)


def _database(request: dict):
    """The store's views in a database that may read only its Parquet files, with DuckDB's
    memory limit, writing no file, its configuration locked."""
    database = duckdb.connect(config={"autoinstall_known_extensions": False,
                                      "autoload_known_extensions": False,
                                      "threads": THREADS})
    if request["memory"] is not None:
        database.execute(f"SET memory_limit = '{int(request['memory'])}B'")
    database.execute("SET temp_directory = ''")  # nothing spills to disk
    for statement in request["statements"]:
        database.execute(statement)
    database.execute("SET allowed_paths = $1", [request["files"]])
    database.execute("SET enable_external_access = false")
    database.execute("SET lock_configuration = true")
    return database


def answer(request: dict, state: dict, starting=lambda: None) -> tuple:
    """``request["query"]`` run on the store's views: ``("rows", columns, rows)`` (at most
    ``limit`` + 1 rows), ``("memory", why)`` or ``("error", message)``. ``state`` keeps the
    database for the next request with the same ``key`` (the same store and commit);
    ``starting()`` is called as the query starts.

    ``request``: ``key``, ``statements`` (the views, reading ``STORE/…``), ``files`` (the
    Parquet files the query may read), ``memory`` (DuckDB's limit, bytes or None), ``query``,
    ``limit`` (None: every row), ``timeout`` (seconds or None)."""
    try:
        if state.get("key") != request["key"]:
            if state.get("database") is not None:
                state.pop("database").close()
            state.clear()
            state["database"] = _database(request)
            state["key"] = request["key"]
        starting()
        with state["database"].cursor() as cursor:
            cursor.execute(request["query"])
            columns = [d[0] for d in cursor.description or ()]
            limit = request["limit"]
            rows = cursor.fetchall() if limit is None else cursor.fetchmany(limit + 1)
        return "rows", columns, rows
    except duckdb.OutOfMemoryException as error:
        return "memory", (str(error).splitlines() or ["out of memory"])[0]
    except MemoryError:
        return "memory", "out of memory"
    except duckdb.Error as error:
        text = str(error)
        if "bad_alloc" in text or "Failed to allocate" in text:
            return "memory", text.splitlines()[0]
        return "error", text
