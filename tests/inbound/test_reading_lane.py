"""The reading process itself: started with the word tables loaded, before the first reply."""

from __future__ import annotations

from gateway.inbound import reading_lane
from gateway.replies import DecisionKind
from tests.inbound.readkit import decided, reply


async def test_a_reading_process_is_ready_with_its_word_tables_loaded() -> None:
    """Its hello comes after the tables are loaded: the first reply waits for no loading."""
    lane = reading_lane.ReadingLane(idle=False)
    try:
        assert lane.wait_ready(reading_lane.START_SECONDS)
        assert lane.process is not None
        spent = reading_lane.cpu_seconds(lane.process.pid)
        read = lane.read(reply("Rejected: not as drafted.", padding=10))
        assert decided(read) is DecisionKind.REJECTION
        after = reading_lane.cpu_seconds(lane.process.pid)
        assert spent is not None and after is not None
        # Loading the tables costs about a third of a second of CPU; a read, milliseconds.
        assert after - spent < 0.15, f"the first read took {after - spent:.2f} s of CPU"
    finally:
        lane.close()
