"""The input reader on its own: skipping, line numbers, encodings, limits, laziness."""

from __future__ import annotations

import io

import pytest

from ltlwit.pipeline.inputs import InputItem, read_inputs, read_stream


def items(data: bytes) -> list[tuple[str, int, str | None]]:
    return [(i.text, i.line, i.error) for i in read_stream(io.BufferedReader(io.BytesIO(data)), "f")]


def test_blank_lines_and_comments_are_skipped_but_counted() -> None:
    assert items(b"# c\n\n  a & b  \n\t\n  # indented comment\nc\n") == [("a & b", 3, None), ("c", 6, None)]


def test_crlf_bom_and_a_missing_final_newline() -> None:
    assert items(b"\xef\xbb\xbfa\r\nb") == [("a", 1, None), ("b", 2, None)]


LIMIT = 1 << 16  # LTLWIT_MAX_LINE_MIB=0.0625 in these tests


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LTLWIT_MAX_LINE_MIB", "0.0625")


def test_limits_and_encodings(small_limit) -> None:
    got = items(b"a\n" + b"x" * (LIMIT + 1) + b"\n\xff\nb\n")
    assert [(text, line) for text, line, _ in got] == [("a", 1), ("", 2), ("", 3), ("b", 4)]
    assert "UTF-8" in got[2][2]
    assert got[1][2] == (
        "line longer than 0.0625 MiB; skipped (set LTLWIT_MAX_LINE_MIB to a larger number of MiB to read it)"
    )


def test_a_line_of_exactly_the_limit_is_fine(small_limit) -> None:
    assert items(b"y" * LIMIT + b"\n") == [("y" * LIMIT, 1, None)]


def test_lines_of_megabytes_are_read_by_default() -> None:
    line = b" & ".join(b"G(p%d -> F q%d)" % (i, i) for i in range(200_000))
    assert len(line) > 3 << 20
    assert items(line + b"\n") == [(line.decode(), 1, None)]


def test_binary_stream_is_one_error() -> None:
    assert items(b"a\n\x00\x01\x02\nb\n") == [("", 0, "binary data (NUL bytes), not a formula file; skipped")]


def test_a_file_is_sniffed_for_nul_bytes_in_its_first_8_kib(tmp_path) -> None:
    """As a pipe's first read may be; a file opened with the file system's 4 KiB buffer let a
    NUL byte at 5,000 through to its line, which then skipped the rest of the file."""
    from ltlwit.pipeline.inputs import read_lines

    path = tmp_path / "late-nul.txt"
    path.write_bytes(b"a\n" * 2500 + b"b\x00\n" + b"c\n" * 10)
    assert [(i.text, i.line, i.error) for i in read_lines(str(path))] == [
        ("", 0, "binary data (NUL bytes), not a formula file; skipped")
    ]


def test_where() -> None:
    assert InputItem("a", "f.txt", 3).where == "f.txt:3"
    assert InputItem("", "f.txt", 0, error="x").where == "f.txt"
    assert InputItem("a", "<arg 2>", 1, from_argument=True).where == "<arg 2>"


class CountingStream(io.RawIOBase):
    """An endless stream of formula lines that counts how many were read."""

    def __init__(self) -> None:
        self.lines_read = 0

    def readable(self) -> bool:
        return True

    def readline(self, size: int = -1) -> bytes:
        self.lines_read += 1
        return b"a\n"


def test_reading_is_lazy_and_constant_memory() -> None:
    stream = CountingStream()
    stream_items = read_inputs([], ["-"], stream, stdin_isatty=True)  # type: ignore[arg-type]
    first = [next(stream_items) for _ in range(3)]
    assert [i.line for i in first] == [1, 2, 3]
    assert stream.lines_read == 3


def test_order_arguments_then_files(tmp_path) -> None:
    path = tmp_path / "f"
    path.write_text("b\n")
    got = read_inputs(["a"], [str(path), "-"], io.BytesIO(b"c\n"), stdin_isatty=False)
    assert [(i.text, i.file) for i in got] == [("a", "<arg 1>"), ("b", str(path)), ("c", "<stdin>")]


def test_stdin_read_alone_only_when_not_a_terminal() -> None:
    assert [i.text for i in read_inputs([], [], io.BytesIO(b"x\n"), stdin_isatty=False)] == ["x"]
    assert list(read_inputs([], [], io.BytesIO(b"x\n"), stdin_isatty=True)) == []
