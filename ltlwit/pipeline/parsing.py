"""Reading a run's inputs as formulas: one syntax for all, or `auto` with a guess per file."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Hashable

from ltlwit.logic.budget import HardLimit, defer_free
from ltlwit.logic.formula import Formula
from ltlwit.pipeline.inputs import InputItem

if TYPE_CHECKING:  # loads with the syntax layer, on the first parse
    from ltlwit.logic.syntax.detect import SyntaxGuess

#: Input texts up to this many characters have their parse remembered (`InputParser(remember=)`).
SHORT = 512

#: The state of a source's syntax guess: (some line was network Polish only, some line was
#: Spot only); see `ltlwit.logic.syntax.detect.SyntaxGuess`.
GuessState = tuple[bool, bool]


def parse(text: str, syntax: str = "auto") -> Formula:
    """One formula; ParseError (a ValueError, with a column and a caret rendering) when it is
    not one. The syntax layer loads on first use (`ltlwit --help` never loads it). A parse
    stopped by the enclosing `deadline_scope` raises its limit (`given_up`)."""
    from ltlwit.logic.syntax import parse_formula

    try:
        return parse_formula(text, syntax)
    except HardLimit as exc:
        raise given_up(exc) from None


def given_up(exc: HardLimit) -> HardLimit:
    """`exc` afresh, for a parse that a `deadline_scope`'s limit stopped: its traceback, and
    through the parse's frames the partial formula and tokens (gigabytes, for a line of tens of
    megabytes), go to `defer_free`, to be freed after the answer instead of before it. An
    exception given up already is passed on as it is (deferring its short traceback would free
    the remains deferred before it)."""
    if getattr(exc, "remains_deferred", False):
        return exc
    defer_free(exc.__traceback__)
    exc.__traceback__ = None
    fresh = type(exc)(*exc.args)
    fresh.remains_deferred = True  # type: ignore[attr-defined]  # a mark on this one instance, read above
    return fresh


def name_warnings(text: str, formula: Formula, syntax: str = "auto") -> tuple[str, ...]:
    """Warnings for the names of `text`, parsed as `formula`, that Spot's rules split into an
    operator and a name (`Grant` is `G rant`: see `split_names`), when `text` was read as
    infix (`spot`, or `auto` where the infix reading is the one taken), and one for the
    mathematical functions it applies, which ltlwit does not interpret (`math_warning`); ()
    for most texts."""
    try:
        return _name_warnings(text, formula, syntax) + math_warning(formula)
    except HardLimit as exc:
        raise given_up(exc) from None


#: Functions that requirements mean mathematically (`sqrt(x)`, `sin(theta)`), which ltlwit
#: reads as any other name applied to arguments: an uninterpreted function (by lower case).
MATH_FUNCTIONS = frozenset(
    "sqrt cbrt exp exp2 expm1 log ln log2 log10 log1p pow power hypot sin cos tan cot sec csc asin acos atan "
    "atan2 arcsin arccos arctan sinh cosh tanh asinh acosh atanh floor ceil ceiling round trunc truncate sign "
    "signum sgn fabs fmod rem".split()
)


def math_warning(formula: Formula) -> tuple[str, ...]:
    """A warning naming the mathematical functions `formula` applies (`MATH_FUNCTIONS`): a
    witness gives them any values (`sqrt(26) = 0.0`), so a user must know they mean nothing
    more to ltlwit; () when it applies none."""
    if not formula.data:
        return ()
    from ltlwit.logic.formula import postorder

    found = dict.fromkeys(
        node.symbol
        for atom in dict.fromkeys(f.term for f in postorder(formula) if f.term is not None)
        for node in atom.walk()
        if node.op in ("call", "pred") and node.symbol.lower() in MATH_FUNCTIONS
    )
    if not found:
        return ()
    names = ", ".join(found)
    what, them = ("an uninterpreted function", "it") if len(found) == 1 else ("uninterpreted functions", "them")
    return (
        f"{names}: {what}, not the mathematical {'one' if len(found) == 1 else 'ones'}: ltlwit gives {them} any "
        f"value for each argument (the same at every instant), so a witness's values of {them} are arbitrary",
    )


def _name_warnings(text: str, formula: Formula, syntax: str) -> tuple[str, ...]:
    if syntax not in ("auto", "spot"):
        return ()
    from ltlwit.logic.syntax.data_hints import wring_suffixes
    from ltlwit.logic.syntax.infix import parse_spot
    from ltlwit.logic.syntax.infix_lex import split_names, split_warning

    suffixes = (
        ()
        if formula.data
        else tuple(
            f"'{word}' is Spot's negation suffix ({'!' if word.endswith('0') else ''}{word[:-2]}); to compare "
            f"{word[:-2]} with {word[-1]}, write {word[:-2]} = {word[-1]}"
            for word in wring_suffixes(text)
        )
    )
    split = split_names(text)
    if not split:
        return suffixes
    if syntax == "auto":
        try:
            if parse_spot(text) is not formula:
                return suffixes
        except ValueError:
            return suffixes
    return suffixes + tuple(split_warning(word, reading) for word, reading in split)


class InputParser:
    """Parses a run's inputs with `syntax`. For `auto`, the inputs of one file (or stdin)
    share a `SyntaxGuess`, so that a DeepLTL data file's lines that Spot would also read
    (`Uab`) are read as Polish like the rest of the file; each command-line formula stands
    alone (read as Spot reads it where the two differ).

    `remember`: how many distinct short texts keep their parse (least recently used ones are
    forgotten). `evidence`, when set to a list, collects `(item, kind, reads_polish)` for each
    input that told its file's guess something (`SyntaxGuess.last`), in input order, so that
    processes sharing one file's lines can replay the guess in input order
    (`ltlwit.pipeline.parallel`); `state` and `set_state` read and put a file's guess."""

    def __init__(self, syntax: str, remember: int = 0) -> None:
        self.syntax = syntax
        self.remember = remember
        self.evidence: list[tuple[InputItem, str, bool]] | None = None
        self._guesses: dict[str, SyntaxGuess] = {}
        self._cache: OrderedDict[Hashable, tuple[Formula, str | None]] = OrderedDict()

    def _guess(self, item: InputItem) -> SyntaxGuess:
        guess = self._guesses.get(item.file)
        if guess is None:
            from ltlwit.logic.syntax.detect import SyntaxGuess

            guess = self._guesses[item.file] = SyntaxGuess()
        return guess

    def state(self, file: str) -> GuessState:
        guess = self._guesses.get(file)
        return (guess.polish_only, guess.spot_only) if guess is not None else (False, False)

    def set_state(self, file: str, state: GuessState) -> None:
        guess = self._guess(InputItem("", file, 0))
        guess.polish_only, guess.spot_only = state

    def parse(self, item: InputItem, polish_hint: bool = False) -> Formula:
        """`polish_hint`: the input comes with evidence of being DeepLTL's (`verify`'s witness
        in its `;{...}` framing), so it is read as Polish where Spot would read it otherwise.
        A parse stopped by the enclosing `deadline_scope` raises its limit (`given_up`)."""
        try:
            return self._parse(item, polish_hint)
        except HardLimit as exc:
            raise given_up(exc) from None

    def _parse(self, item: InputItem, polish_hint: bool) -> Formula:
        if polish_hint and self.syntax == "auto":
            from ltlwit.logic.syntax.detect import SyntaxGuess

            return SyntaxGuess(polish_source=True).parse(item.text)
        guess = self._guess(item) if self.syntax == "auto" else None
        reads_polish = guess is not None and guess.reads_polish
        key = (item.text, item.file, reads_polish) if guess is not None else item.text
        cached = self._cache.get(key) if self.remember and len(item.text) <= SHORT else None
        if cached is not None:
            self._cache.move_to_end(key)
            formula, kind = cached
            if guess is not None and kind == "polish":  # replayed: the guess may have been put back since (`set_state`)
                guess.polish_only = True
            elif guess is not None and kind == "spot":
                guess.spot_only = True
        elif guess is None:
            formula, kind = parse(item.text, self.syntax), None
        else:
            formula, kind = guess.parse(item.text), guess.last
        if cached is None and self.remember and len(item.text) <= SHORT:
            self._cache[key] = (formula, kind)
            if len(self._cache) > self.remember:
                self._cache.popitem(last=False)
        if kind is not None and self.evidence is not None:
            self.evidence.append((item, kind, reads_polish))
        if not formula.data:  # a Declare template reads as a predicate atom at first
            return formula
        from ltlwit.logic.declare import expanded

        return expanded(formula)
