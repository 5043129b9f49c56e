"""A TCP proxy that holds every chunk for a while each way: a database a few hops away.

``python -m bench.latency_proxy --listen PORT --target HOST:PORT --delay-ms 0.5``
forwards each connection to the target and delays every chunk read from either
side by ``delay`` before writing it on, keeping the order of each direction. With
0.5 ms each way a round trip gains 1 ms, as to a database on another host of the
same data centre.

Built on asyncio protocols and timers, one timer per chunk and no task switch:
at thousands of round trips a second a proxy on streams spent more CPU than
the latency it adds, and capped what went through it. It runs in a process of
its own so that its work competes with nobody's interpreter lock.
"""

from __future__ import annotations

import argparse
import asyncio
import selectors
import socket


class _Half(asyncio.Protocol):
    """One side of a proxied connection; what it reads goes to ``peer`` after ``delay``."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.transport: asyncio.Transport | None = None
        self.peer: _Half | None = None
        self._pending: list[bytes] = []  # read before the peer was connected
        self._last_due = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            # Each chunk goes out when it is due: without this, Nagle's algorithm held
            # small writes for the peer's delayed ACK (tens of milliseconds).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        peer = self.peer
        if peer is None or peer.transport is None:
            self._pending.append(data)
            return
        loop = asyncio.get_running_loop()
        # Strictly increasing due times keep the chunks of one direction in order.
        due = max(loop.time() + self.delay, self._last_due + 1e-9)
        self._last_due = due
        loop.call_at(due, peer.send, data)

    def send(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def flush_pending(self) -> None:
        pending, self._pending = self._pending, []
        for data in pending:
            self.data_received(data)

    def eof_received(self) -> bool | None:
        self._close_peer_later()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._close_peer_later()

    def _close_peer_later(self) -> None:
        peer = self.peer
        if peer is not None and peer.transport is not None:
            # After the last delayed chunk has gone.
            loop = asyncio.get_running_loop()
            loop.call_at(max(loop.time() + self.delay, self._last_due) + 1e-6, peer.transport.close)


async def serve(listen: int, host: str, port: int, delay: float) -> None:
    loop = asyncio.get_running_loop()

    class Client(_Half):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            assert self.transport is not None
            self.transport.pause_reading()
            self.connecting = loop.create_task(self._connect())

        async def _connect(self) -> None:
            try:
                _t, server = await loop.create_connection(lambda: _Half(delay), host, port)
            except OSError:
                if self.transport is not None:
                    self.transport.close()
                return
            self.peer, server.peer = server, self
            if self.transport is not None:
                self.transport.resume_reading()
            self.flush_pending()

    server = await loop.create_server(lambda: Client(delay), "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--target", default="127.0.0.1:5432")
    parser.add_argument("--delay-ms", type=float, default=0.5)
    args = parser.parse_args()
    host, _, port = args.target.rpartition(":")
    # select() waits with microsecond timeouts; epoll's and poll's are rounded up to a
    # whole millisecond, which would double a 0.5 ms delay.
    loop = asyncio.SelectorEventLoop(selectors.SelectSelector())
    try:
        loop.run_until_complete(serve(args.listen, host, int(port), args.delay_ms / 1000))
    finally:
        loop.close()


if __name__ == "__main__":
    main()
