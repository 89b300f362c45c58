"""Parse errors that know where they happened, rendered the way Spot renders them.

Every parser in this package raises `ParseError` (a `ValueError`) and nothing else, so the
CLI can print one caret-marked message per bad line and carry on with the next line.
"""

from __future__ import annotations


class ParseError(ValueError):
    """A syntax error at a 0-based character `column` of `text`.

    `str(e)` is one line that counts columns from 1, as compilers and Spot do
    (`column 9: syntax error, unexpected closing parenthesis` for `(a U b U) U c`);
    `render()` is Spot's three-line form with a caret under the offending token. Neither
    mentions a file or line number: callers that read files prefix those themselves
    (see `located`).
    """

    def __init__(self, text: str, column: int, reason: str, length: int = 1) -> None:
        self.text = text
        self.column = max(0, min(column, len(text)))
        self.reason = reason
        # How many characters the caret line underlines (the width of the bad token).
        self.length = max(1, length)
        super().__init__(f"column {self.column + 1}: {reason}")

    def __reduce__(self) -> tuple:
        return (ParseError, (self.text, self.column, self.reason, self.length))

    def render(self) -> str:
        """Spot's form: `>>> text`, a caret line under the column, then the reason."""
        line = self.text.replace("\n", " ").replace("\r", " ")
        # Keep tabs in the caret line so the caret stays aligned under tab-indented text.
        pad = "".join("\t" if ch == "\t" else " " for ch in line[: self.column])
        width = min(self.length, max(1, len(line) - self.column))
        return f">>> {line}\n    {pad}{'^' * width}\n{self.reason}"

    def located(self, where: str) -> str:
        """One line prefixed with a location such as `FILE:LINE`, e.g. for `ltlwit: ...`."""
        return f"{where}: {self}"

    def shifted(self, text: str, offset: int) -> "ParseError":
        """The same error re-anchored inside a larger `text` that holds ours at `offset`
        (used when a trace step or a sub-block was parsed on its own)."""
        return ParseError(text, self.column + offset, self.reason, self.length)
