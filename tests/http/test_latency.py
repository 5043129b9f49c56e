"""The HTTP API answers without waiting on the client's delayed ACK.

A response goes out in two writes (head, then body). Without TCP_NODELAY
on the accepted socket, Nagle holds the body until the client acknowledges
the head, which a client delays by ~40 ms: every call would take 40 ms.
The test checks the cause, not a time (the time itself: ``hfa bench``):
the connections accepted on the listener's socket have TCP_NODELAY set.
"""

from __future__ import annotations

import asyncio
import socket

from gateway.app import bind_socket


async def test_accepted_connections_send_without_nagles_delay() -> None:
    listener = bind_socket("127.0.0.1", 0)
    nodelay: list[int] = []

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        nodelay.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(accepted, sock=listener)
    try:
        port = listener.getsockname()[1]
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(100):
            if nodelay:
                break
            await asyncio.sleep(0.01)
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
    assert nodelay == [1]
