"""A TCP proxy that holds every chunk for a while each way: a database a few hops away.

``python -m bench.latency_proxy --listen PORT --target HOST:PORT --delay-ms 0.5``
forwards each connection to the target and delays every chunk read from either
side by ``delay`` before writing it on, keeping the order of each direction. With
0.5 ms each way a round trip gains 1 ms, as to a database on another host of the
same data centre. (The event loop's timers have about a millisecond's
granularity, so a chunk is held at least ``delay``, and a run reports the round
trip it measured through the proxy.) It runs in a process of its own so that
its work competes with nobody's interpreter lock.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time

CHUNK = 65536


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    """Read chunks as they come; write each one ``delay`` after it arrived, in order."""
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def send() -> None:
        while True:
            due, chunk = await queue.get()
            if not chunk:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(chunk)
            await writer.drain()
        with contextlib.suppress(OSError):
            writer.write_eof()

    sender = asyncio.create_task(send())
    try:
        while True:
            chunk = await reader.read(CHUNK)
            queue.put_nowait((time.monotonic() + delay, chunk))
            if not chunk:
                break
    except OSError:
        queue.put_nowait((0.0, b""))
    with contextlib.suppress(OSError):
        await sender


async def serve(listen: int, host: str, port: int, delay: float) -> None:
    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(host, port)
        except OSError:
            client_w.close()
            return
        await asyncio.gather(
            _pump(client_r, server_w, delay),
            _pump(server_r, client_w, delay),
            return_exceptions=True,
        )
        for w in (client_w, server_w):
            w.close()

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--target", default="127.0.0.1:5432")
    parser.add_argument("--delay-ms", type=float, default=0.5)
    args = parser.parse_args()
    host, _, port = args.target.rpartition(":")
    asyncio.run(serve(args.listen, host, int(port), args.delay_ms / 1000))


if __name__ == "__main__":
    main()
