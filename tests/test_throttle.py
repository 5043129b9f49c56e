"""The connection guard's admission rules, counted without sockets."""

from __future__ import annotations

from gateway.throttle import ConnectionGuard


def fill(guard: ConnectionGuard, clients: list[str], tries: int) -> None:
    for _round in range(2):
        for client in clients:
            for _ in range(tries):
                guard.admit(client)


def test_one_client_gets_its_whole_share_while_the_pool_is_quiet() -> None:
    guard = ConnectionGuard(100, 20, fair=True)
    assert sum(guard.admit("postfix") for _ in range(25)) == 20


def test_greedy_addresses_leave_room_for_a_newcomer() -> None:
    guard = ConnectionGuard(100, 20, fair=True)
    fill(guard, [f"attacker{n}" for n in range(10)], 30)
    assert guard.open < 90
    assert [guard.admit("mta") for _ in range(3)] == [True, True, False]


def test_without_fairness_each_client_gets_its_cap_until_the_pool_is_full() -> None:
    guard = ConnectionGuard(1000, 100)  # the HTTP listener: agents, not strangers
    fill(guard, [f"agent{n}" for n in range(10)], 95)
    assert [guard.held_by(f"agent{n}") for n in range(10)] == [100] * 10
    assert not guard.admit("another")


def test_the_relay_reserve_is_the_relays_alone() -> None:
    guard = ConnectionGuard(10, 10, trusted=lambda c: c == "relay", reserved=5)
    fill(guard, ["a", "b", "c", "d", "e", "f"], 10)
    assert guard.open == 10
    assert sum(guard.admit("relay") for _ in range(5)) == 5
    assert guard.open_reserved == 5
    assert not guard.admit("relay")  # the reserve is used, the shared slots are full


def test_release_gives_back_the_shared_slot_first_and_forgets_the_client() -> None:
    guard = ConnectionGuard(10, 5, trusted=lambda c: c == "relay", reserved=1)
    assert guard.admit("relay") and guard.admit("relay")
    assert (guard.open, guard.open_reserved) == (1, 1)
    guard.release("relay")
    assert (guard.open, guard.open_reserved) == (0, 1)
    guard.release("relay")
    assert (guard.open, guard.open_reserved, guard.held_by("relay")) == (0, 0, 0)


def test_a_repeated_error_is_let_through_once_per_interval_with_a_count() -> None:
    import logging

    from gateway.throttle import RepeatFilter

    now = [0.0]
    repeat = RepeatFilter(10.0, clock=lambda: now[0])

    def record(msg: str, level: int = logging.ERROR) -> logging.LogRecord:
        return logging.LogRecord("asyncio", level, "loop.py", 7, msg, (), None)

    passed = [repeat.filter(record("accept failed")) for _ in range(1000)]
    assert passed.count(True) == 1
    assert repeat.filter(record("another failure"))  # a different error is not held back
    assert repeat.filter(record("accept failed", logging.INFO))  # info is never held back
    now[0] = 10.0
    again = record("accept failed")
    assert repeat.filter(again)
    assert again.getMessage() == "accept failed [999 more like this in the last interval]"
