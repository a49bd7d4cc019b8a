"""agents.files: a file is written whole or not at all, whatever interrupts the writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.files import write_text_whole, write_whole


def test_written_whole_with_the_suffix_the_writer_reads(tmp_path):
    seen = []

    def writer(tmp: str) -> None:
        seen.append(Path(tmp).suffix)
        Path(tmp).write_text("all of it")

    out = write_whole(tmp_path / "report.png", writer)
    assert out.read_text() == "all of it" and seen == [".png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.png"]


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, OSError])
def test_an_interrupted_write_leaves_the_old_file_and_no_part(tmp_path, interrupt):
    target = tmp_path / "report.json"
    write_text_whole(target, "old")

    def half(tmp: str) -> None:
        Path(tmp).write_text("half of the new")
        raise interrupt("stopped while writing")

    with pytest.raises(interrupt):
        write_whole(target, half)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
