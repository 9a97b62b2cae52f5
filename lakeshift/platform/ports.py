"""Small socket helpers for servers lakeshift starts on loopback."""

from __future__ import annotations

import errno
import socket

LOOPBACK = "127.0.0.1"
#: The IPv4 wildcard: a server bound to it listens on every interface.
EVERY_INTERFACE = "0.0.0.0"


def reachable_host(bind_host: str) -> str:
    """The address a client on this machine dials for a server bound to ``bind_host``."""
    return LOOPBACK if bind_host == EVERY_INTERFACE else bind_host


def free_port(host: str = LOOPBACK) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int, host: str = EVERY_INTERFACE) -> bool:
    """True when a server could bind ``port`` on ``host`` (by default: on every interface).

    Raises:
        OSError: ``host`` is not an address of this machine (``EADDRNOTAVAIL``).
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRNOTAVAIL:
                raise
            return False
    return True


def port_answers(host: str, port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False
