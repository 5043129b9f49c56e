"""``bench.roles.rebindable_port``: a port a server can stop on and start on again."""

from __future__ import annotations

import socket
from pathlib import Path

from bench.roles import rebindable_port


def test_a_rebindable_port_is_free_and_below_the_range_of_outgoing_ports() -> None:
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    port = rebindable_port()
    # No client's outgoing connection is given a port below that range.
    assert 1024 <= port < low
    with socket.socket() as server:
        server.bind(("127.0.0.1", port))
        server.listen()
