"""``bench.walk``: the walk of one reply through process_batch, traced, and the drawing."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from bench import floors, walk


@pytest.fixture(scope="module")
def measured() -> dict[str, Any]:
    return walk.measure()


def test_the_reply_is_recorded_and_its_walk_starts_in_process_batch(
    measured: dict[str, Any],
) -> None:
    assert measured["outcome"] == "recorded"
    assert measured["calls_elsewhere"] == 0
    for depth in ("all", "shallow"):
        assert measured[depth]["first_room"] == "inbound/worker.py"
        assert measured[depth]["walk"][0] == "inbound/worker.py"


@pytest.mark.parametrize("depth", ["all", "shallow"])
def test_the_counts_agree_with_each_other_and_with_the_walk(
    measured: dict[str, Any], depth: str
) -> None:
    figure = measured[depth]
    stays, rooms, returns = figure["stays"], figure["rooms"], figure["returns"]
    assert stays >= rooms >= 1
    assert returns <= stays - rooms
    assert stays <= figure["moves"] + 1
    assert figure["climbs_back_up"] <= figure["moves"]
    assert figure["moves_through_library"] <= figure["moves"]
    path = figure["walk"]
    assert len(path) == stays and len(set(path)) == rooms
    assert all(a != b for a, b in pairwise(path))
    assert sum(n for _module, n in figure["most_entered"]) <= stays
    # The recording of the reply, and the raw bytes it is read from, are on the way.
    assert "inbound/record.py" in path and figure["record_entered"] >= 1
    assert "store/blobs.py" in path and figure["blobs_entered"] >= 1


def test_the_shallow_walk_is_a_part_of_the_whole(measured: dict[str, Any]) -> None:
    full, shallow = measured["all"], measured["shallow"]
    assert shallow["depth"] == f"<= {walk.DEPTH}" and full["depth"] == "all"
    assert shallow["moves"] <= full["moves"]
    assert shallow["climbs_back_up"] <= full["climbs_back_up"]
    assert set(shallow["walk"]) <= set(full["walk"])


def test_the_walk_of_the_reply_data_follows_it_from_the_worker_to_its_record(
    measured: dict[str, Any],
) -> None:
    """The reply's own path: each move hands the callee one of its values, so it starts in
    the worker, passes through the recording and never reads the raw bytes again."""
    data, full = measured["data"], measured["all"]
    assert data["walk"][0] == "inbound/worker.py"
    assert data["moves"] <= full["moves"] and set(data["walk"]) <= set(full["walk"])
    assert data["rooms"] <= data["stays"] and data["returns"] <= data["stays"] - data["rooms"]
    assert "inbound/record.py" in data["walk"] and "inbound/assurance.py" in data["walk"]
    assert data["blobs_entered"] == 0
    assert "its data" in walk.report(measured)


def test_the_report_names_both_depths(measured: dict[str, Any]) -> None:
    text = walk.report(measured)
    assert "all depths" in text and f"depth <= {walk.DEPTH}" in text
    assert "store/blobs.py entered" in text


def test_every_room_has_a_floor_and_the_table_is_kept() -> None:
    drawing = floors.draw()
    assert set(drawing.floors) == set(drawing.lines)
    assert drawing.floors["inbound/"] == 6 and drawing.floors["store/"] == 3
    assert drawing.floors["bench/"] == 11
    for (a, b), count in drawing.arrows.items():
        assert a != b and count >= 1
    assert {(a, b) for a, b, _n in drawing.up()} == {
        (a, b) for (a, b) in drawing.arrows if drawing.floors[b] > drawing.floors[a]
    }
