"""A bundle unzipped into a folder is read within the zip's bounds: no link is followed, no size past the bounds is read."""

from __future__ import annotations

from pathlib import Path

from gateway.evidence import verifier
from gateway.evidence.verifier.layout import MAX_MEMBERS


def test_a_link_in_the_folder_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").symlink_to("/etc/hostname")
    verdict = verifier.verify_folder(str(tmp_path))
    assert not verdict.ok
    assert "manifest.json: a link or special file" in verdict.problems[0].what


def test_a_folder_past_the_bounds_is_refused_before_a_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "a.bin").write_bytes(b"\0" * 4096)
    (tmp_path / "b.bin").write_bytes(b"\0" * 4096)
    verdict = verifier.verify_folder(str(tmp_path), max_bytes=6000)
    assert not verdict.ok and "add up to more than" in verdict.problems[0].what
    crowded = tmp_path / "crowded"
    crowded.mkdir()
    for number in range(MAX_MEMBERS + 1):
        (crowded / f"{number}.txt").touch()
    verdict = verifier.verify_folder(str(crowded))
    assert not verdict.ok and "more than a bundle holds" in verdict.problems[0].what
