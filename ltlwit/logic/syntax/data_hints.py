"""Whether a text is a formula over data (`ltlwit.logic.syntax.data`), told without loading
that parser or the theory layer: a cold solve of a formula without data reads its text with
these few regular expressions only."""

from __future__ import annotations

import re

#: Whether a text holds a comparison or a term operator: then it is read here. `=` next to
#: `<`, `>`, `!` or `=` is part of an arrow or of another comparison, and `=0`/`=1` right
#: after a name is Wring's negation suffix (Spot reads `a=0` as `!a`); `<` and `>` inside the
#: arrows `-> => <-> <=> <>` are not comparisons.
_HINT = re.compile(
    r"!=|<=(?!>)|>=|(?<![-=<])>(?!=)|<(?![=>]|-{1,2}>)|(?<![<>!=])=(?![>=])(?!(?<=[A-Za-z0-9_.\"]=)[01](?![0-9.]))"
    r"|\b(?:w?next|w?prev|preReal|preInt|preBool|absReal|absInt)\s*\("
    r"|\b[OH]\s*\[(?!\s*\])|\b[FG]\s*\[\s*(?:[0-9]+\s*,|<|=)"
)  # nuXmv's and FRET's bounded operators
#: A name applied to arguments (a predicate), which Spot's reading rejects; a match is tried
#: at the start of a run of name characters only (digits before the name are skipped), never
#: again inside it: a name of 50,000 letters with no parenthesis after it was tried 50,000
#: times, each to its end.
_CALL = re.compile(r"(?<![A-Za-z0-9_])[0-9]*([A-Za-z_][A-Za-z0-9_]*)\s*\(")


#: A quoted name or a comment: what the hints do not look into (`"x < 3"` is a proposition).
_OPAQUE = re.compile(r'"(?:[^"\\]|\\.)*"?|/\*.*?(?:\*/|\Z)', re.S)


def _bare(text: str) -> str:
    return _OPAQUE.sub(" ", text) if '"' in text or "/*" in text else text


def data_hint(text: str) -> bool:
    """Whether `text` is a formula over data (module docstring), read by `parse_data`."""
    return _HINT.search(_bare(text)) is not None


#: Wring's negation suffix on a name: `x=0` (Spot's `!x`), `x=1` (`x`).
_WRING = re.compile(r"(?<![A-Za-z0-9_.\"])([A-Za-z_][A-Za-z0-9_.]*=[01])(?![0-9.])")


def wring_suffixes(text: str) -> list[str]:
    """The `name=0`/`name=1` of a text Spot reads as negation suffixes, each once: where a
    user may have meant a comparison (`x = 0`)."""
    return list(dict.fromkeys(_WRING.findall(_bare(text)))) if "=" in text else []


def call_hint(text: str) -> bool:
    """Whether `text` applies a name to arguments: a predicate, if Spot cannot read it."""
    return any(m.group(1) not in _NOT_CALLS for m in _CALL.finditer(_bare(text)))


#: Words before a parenthesis that are no call: the unary operators, and PSL's `first_match`,
#: which the Spot reading reports as unsupported.
_NOT_CALLS = frozenset({"X", "F", "G", "Y", "Z", "O", "H", "wX", "first_match"})
