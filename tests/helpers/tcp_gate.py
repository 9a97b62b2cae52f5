"""A TCP forwarder on 127.0.0.1 that a test can shut and open again: a service going away
(a metastore restarting, an endpoint down for a while) as its clients see it, while the
service itself keeps running for every other client of the test session.

Hand-written: the fault proxies that do this (toxiproxy and the like) are not on PyPI, and
a forwarder is a few dozen lines of ``socket`` and ``selectors``.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from dataclasses import dataclass, field


@dataclass
class TcpGate:
    """Forward ``127.0.0.1:port`` to ``target_host:target_port`` while open.

    ``shut()`` drops every open connection and refuses new ones (connection refused, as a
    stopped server answers); ``open()`` accepts again on the same port. ``lose_answers(n)``
    cuts the connection instead of forwarding the service's next ``n`` answers: the service
    did the work, the client never hears of it (a socket timeout, a network cut mid-call).
    """

    target_host: str
    target_port: int
    port: int = 0
    _listener: socket.socket | None = field(default=None, repr=False)
    _pairs: list[tuple[socket.socket, socket.socket]] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _stopping: threading.Event = field(default_factory=threading.Event, repr=False)
    _acceptor: threading.Thread = field(default_factory=threading.Thread, repr=False)
    _to_lose: int = field(default=0, repr=False)
    lost: int = 0

    def lose_answers(self, count: int = 1) -> None:
        with self._lock:
            self._to_lose = count

    def _lose_answer(self) -> bool:
        with self._lock:
            if self._to_lose == 0:
                return False
            self._to_lose -= 1
            self.lost += 1
            return True

    def open(self) -> TcpGate:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        self._stopping = threading.Event()
        self._acceptor = threading.Thread(
            target=self._accept, args=(listener, self._stopping), daemon=True
        )
        self._acceptor.start()
        return self

    def shut(self) -> int:
        """Refuse from now on and cut the open connections; returns how many were cut."""
        self._stopping.set()
        if self._listener is not None:
            # close() alone does not wake a thread blocked in accept() on Linux (close(2));
            # shutdown() does, and the port stops listening at once.
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
            self._acceptor.join(timeout=10)
        with self._lock:
            pairs, self._pairs = self._pairs, []
        live = sum(1 for a, _ in pairs if a.fileno() != -1)  # (ended ones are closed)
        for a, b in pairs:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
        return live

    def _accept(self, listener: socket.socket, stopping: threading.Event) -> None:
        while not stopping.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return
            if stopping.is_set():  # accepted while shutting: refused after all
                client.close()
                return
            try:
                upstream = socket.create_connection((self.target_host, self.target_port), 10)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        selector = selectors.DefaultSelector()
        selector.register(a, selectors.EVENT_READ, b)
        selector.register(b, selectors.EVENT_READ, a)
        try:
            while True:
                for key, _ in selector.select():
                    source: socket.socket = key.fileobj  # type: ignore[assignment]
                    data = source.recv(65536)
                    if not data or (source is b and self._lose_answer()):
                        return
                    key.data.sendall(data)
        except OSError:
            return
        finally:
            selector.close()
            a.close()
            b.close()
