"""How atomic-proposition names are written in each syntax: when a name may stand bare and
how it is double-quoted otherwise. Shared by the printers and the word/assignment syntaxes
so that what a printer leaves bare is exactly what the matching parser reads back as one AP.
The operators' letters and words, which a name may not be spelled as, come from the operator
table (`operators`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ltlwit.logic.syntax.operators import ARITY, FROM_LBT, spellings

#: Letters that are a unary operator in Spot's infix syntax unless a digit follows (then they
#: start a name).
UNARY_LETTERS = "".join(s for s in spellings("spot", 1) if len(s) == 1 and s.isalpha())

#: A bare identifier of the Spot infix syntax read in "expecting an operand" position
#: (Spot's lexer: an AP cannot start with F, G or X unless a digit follows; nor, here, with
#: the past operators' letters Y, Z, O, H, by the same rule).
SPOT_BARE = re.compile(rf"(?:(?![{UNARY_LETTERS}])[a-zA-Z_.][a-zA-Z0-9_.]*|[{UNARY_LETTERS}][0-9][a-zA-Z0-9_.]*)\Z")
#: Words that the infix lexer reads as operators although they look like names: the binary
#: operators' words, and PSL's `first_match` (which it refuses).
SPOT_KEYWORDS = frozenset(s for s in spellings("spot", 2) if s.isalpha()) | {"first_match"}
#: Names the infix lexer reads as starting with the weak next `wX`: `wX` itself and `wX`
#: followed by a unary operator's letter (`wXFa` is `wX F a`); `wXa`, `wX1` stay names.
SPOT_WEAK_NEXT = re.compile(rf"wX(?:[{UNARY_LETTERS}]|\Z)")
#: What `ltlwit solve` prints in place of a witness: a name spelled so is quoted, so that no
#: witness reads as one (`verify` takes `UNSAT` for solve's claim, `ERROR` marks a bad input).
STATUS_WORDS = frozenset({"UNSAT", "UNKNOWN", "ERROR"})
#: Identifier tokens of the prefix syntaxes (spaced Polish, LBT, assignments).
IDENT = re.compile(r"[A-Za-z_.][A-Za-z0-9_.]*\Z")
#: Identifiers that LBT reads as its constants (`t`, `f`) or operators (`i`, `e`, `V`, besides
#: the letters it shares with the other syntaxes): a name spelled so is quoted in spaced Polish,
#: which auto-detection could otherwise read as LBT.
LBT_WORDS = frozenset(s for s in FROM_LBT if s.isalpha() and s not in ARITY)


def quote(name: str) -> str:
    """Double-quote a name, escaping `"` and `\\` with a backslash (Spot's convention)."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def unquote_at(text: str, start: int) -> tuple[str, int] | None:
    """Read a double-quoted name whose opening quote is at `start`: the name and the index
    after the closing quote, or None when the quote is never closed."""
    out: list[str] = []
    i = start + 1
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            return "".join(out), i + 1
        if ch == "\\" and i + 1 < n:
            i += 1
            ch = text[i]
        out.append(ch)
        i += 1
    return None


@lru_cache(maxsize=4096)
def spot_ap(name: str) -> str:
    """A name as Spot's infix syntax needs it: bare when the lexer reads it back as this very
    AP, quoted otherwise (`aUb`, `p0`, `F1`, `H1`, `Sa`, `wXa`, `Req`, `Uab`, `F0` stay bare;
    `X`, `U`, `T`, `Once`, `wX`, `wXFa`, `true`, `x < 3` are quoted), so a user's names come
    back as they were typed; solve's status words (`STATUS_WORDS`) are quoted too.
    Auto-detection reads the printed text back the same, since a string that is both Spot and
    network Polish is Spot's (`Req`, not `e R q`) except in a source that has been Polish only
    so far (a DeepLTL data set), where `--syntax spot` or quotes settle it."""
    if (
        SPOT_BARE.match(name)
        and name not in SPOT_KEYWORDS
        and not SPOT_WEAK_NEXT.match(name)
        and name.lower() not in ("true", "false")
        and name not in STATUS_WORDS
    ):
        return name
    return quote(name)


#: The tokens of network Polish: the multi-character operators, else one character each.
NETWORK_TOKEN = re.compile(r"<->|->|xor|.", re.S)
