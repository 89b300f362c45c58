"""Reading a run's inputs as formulas: one syntax for all, or `auto` with a guess per file."""

from __future__ import annotations

from typing import Any, Hashable

from ltlwit.logic.formula import Formula
from ltlwit.pipeline.inputs import InputItem


def parse(text: str, syntax: str = "auto") -> Formula:
    """One formula; ParseError (a ValueError, with a column and a caret rendering) when it is
    not one. The syntax layer loads on first use (`ltlwit --help` never loads it)."""
    from ltlwit.logic.syntax import parse_formula

    return parse_formula(text, syntax)


class InputParser:
    """Parses a run's inputs with `syntax`. For `auto`, the inputs of one file (or stdin)
    share a `SyntaxGuess`, so that a DeepLTL data file's lines that Spot would also read
    (`Uab`) are read as Polish like the rest of the file; each command-line formula stands
    alone (read as Spot reads it where the two differ)."""

    def __init__(self, syntax: str) -> None:
        self.syntax = syntax
        self._guesses: dict[str, Any] = {}

    def _guess(self, item: InputItem) -> Any:
        from ltlwit.logic.syntax.detect import SyntaxGuess

        guess = self._guesses.get(item.file)
        if guess is None:
            guess = self._guesses[item.file] = SyntaxGuess()
        return guess

    def key(self, item: InputItem) -> Hashable:
        """What a parse depends on besides the text: cache parses under it."""
        if self.syntax != "auto":
            return item.text
        return item.text, item.file, self._guess(item).reads_polish

    def parse(self, item: InputItem, polish_hint: bool = False) -> Formula:
        """`polish_hint`: the input comes with evidence of being DeepLTL's (`verify`'s witness
        in its `;{...}` framing), so it is read as Polish where Spot would read it otherwise."""
        if self.syntax != "auto":
            return parse(item.text, self.syntax)
        if polish_hint:
            from ltlwit.logic.syntax.detect import SyntaxGuess

            return SyntaxGuess(polish_source=True).parse(item.text)
        return self._guess(item).parse(item.text)
