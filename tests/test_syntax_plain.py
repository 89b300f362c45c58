"""The infix parser's fast path (`infix._plain`) against the tokenizer it stands in for: it feeds
the same engine the same tokens (without columns), so on any text it gives the very formula the
full path gives, or steps aside (None) and leaves the text, and its error, to it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ltlwit.logic.syntax import infix
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.infix_lex import tokenize

#: Pieces that meet in every way the tokenizer has a rule for: names that operator letters
#: start (`GFa`, `Ub`, `wXa`), digits after letters (`F1`, `X0y`), the common symbols, the ones
#: only the full tokenizer reads (`()`, `|->`, `=0`, `[]`, `X[!]`, `F[1..2]`, quotes, comments,
#: other blanks), keywords and constants in any case.
PIECES = [
    "a",
    "b",
    "p1",
    "GFa",
    "Ub",
    "aUb",
    "Grant",
    "Once",
    "wX",
    "wXa",
    "wXFa",
    "F1",
    "X0y",
    "xor",
    "true",
    "FALSE",
    "True",
    "U",
    "R",
    "V",
    "W",
    "M",
    "S",
    "T",
    "X",
    "F",
    "G",
    "Y",
    "Z",
    "O",
    "H",
    "first_match",
    "_x",
    ".y",
    "(",
    ")",
    "!",
    "&",
    "&&",
    "|",
    "||",
    "->",
    "<->",
    "1",
    "0",
    "10",
    "()",
    "|->",
    "=0",
    "[]",
    "X[!]",
    "F[1..2]",
    '"q r"',
    "/* c */",
    "<>",
    "-->",
    "2",
    "\u00a0",
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(["", " ", "\t", "\n"])), max_size=14))
def test_the_fast_path_reads_what_the_parser_reads(pieces: list[tuple[str, str]]) -> None:
    text = "".join(p + gap for p, gap in pieces)
    fast = infix._plain(text)
    try:
        slow = infix._spot(text)  # the full tokenizer: never the fast path
    except ParseError:
        assert fast is None
        return
    assert fast is None or fast is slow
    if all(p in ("a", "b", "p1", "(", ")", "!", "&", "|", "->", "<->", "Ub", "GFa") for p, _ in pieces):
        assert fast is slow  # nothing unusual: the fast path reads it


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(["", " ", "\t", "\n"])), max_size=14))
def test_the_fast_tokens_are_the_tokenizers_without_columns(pieces: list[tuple[str, str]]) -> None:
    text = "".join(p + gap for p, gap in pieces)
    fast = infix._plain_toks(text)
    if fast is None or "()" in text:  # `()`: Spot's next, two parentheses there (an empty block)
        return
    assert [t._replace(column=0) for t in tokenize(text)] == fast


def test_specifications_take_the_fast_path() -> None:
    text = " & ".join(f"(F req{i} -> G(grant{i} | !busy)) && GFa{i} U Xb{i}" for i in range(200))
    fast = infix._plain(text)
    assert fast is not None and fast is infix._spot(text)
