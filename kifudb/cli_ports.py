"""Whether a server (``kifudb dashboard``, ``kifudb serve``) can listen where it is asked to,
said before it prints an address.

    >>> import socket
    >>> with socket.socket() as taken:
    ...     taken.bind(("127.0.0.1", 0)); taken.listen()
    ...     port_problem("127.0.0.1", taken.getsockname()[1])
    'the port is in use'
"""

from __future__ import annotations

import errno
import socket
from typing import Optional

__all__ = ["port_problem"]


def port_problem(address: str, port: int) -> Optional[str]:
    """Why the server could not listen on ``address:port`` (the port is taken, the address
    is not this machine's), or None: checked before the address is printed, so that a busy
    port is said plainly instead of after a line that promises a dashboard."""
    try:
        infos = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)
    except OSError as error:
        return f"unknown address ({error.strerror or error})"
    for family, kind, protocol, _, where in infos:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Tornado does
            try:
                probe.bind(where)
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    return "the port is in use"
                if error.errno == errno.EADDRNOTAVAIL:
                    continue  # an IPv6 address of localhost without IPv6: the next one
                return error.strerror or str(error)
    return None
