"""nuXmv's text around a formula: `LTLSPEC [NAME n :=] φ;` (and `INVARSPEC`, an invariant:
`G φ`), and `--` comments to the end of a line, read with regular expressions only, so that
the spec-file reader (`ltlwit.specs.files`) can name a spec without loading the data parser.

A `--` starts a comment where it is not part of Spot's arrows `-->` and `<-->`, outside
double-quoted names and `/* */` comments, as nuXmv's lexer reads it (so `x--1` is `x` and a
comment there, never `x - -1`). The formula ends before a trailing `;`; a `;` anywhere else is
the parser's business (it separates a `case`'s branches).
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: What starts a `--` comment, a quoted name or a `/* */` comment: the scan's stops.
_STOP = re.compile(r'--(?!>)|"|/\*')
_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"?')
_KEYWORD = re.compile(r"[ \t\n\r]*(LTLSPEC|INVARSPEC)(?![A-Za-z0-9_.$#])")
#: nuXmv's `NAME n :=` after the keyword; a name as spec files spell one (`ltlwit.specs.files`).
_NAME = re.compile(r"[ \t\n\r]*NAME[ \t\n\r]+([A-Za-z_][A-Za-z0-9_.\-]*)[ \t\n\r]*:=")
#: What makes a text nuXmv's rather than Spot's, where Spot's reading fails: the keyword, a
#: `--` comment, a trailing `;`, or `case` and `esac`.
_HINT = re.compile(r"\A[ \t\n\r]*(?:LTLSPEC|INVARSPEC)\b|--(?!>)|;[ \t\n\r]*\Z")
_CASE = re.compile(r"\bcase\b")
_ESAC = re.compile(r"\besac\b")


class Statement(NamedTuple):
    """Where the formula of a text is: `text[start:end]`, after the keyword (`LTLSPEC`,
    `INVARSPEC`, or None) and its `NAME n :=` (`name`), before a trailing `;`."""

    keyword: str | None
    name: str | None
    start: int
    end: int


def blank_comments(text: str) -> str:
    """`text` with each `--` comment (module docstring) turned into spaces: columns stay."""
    if "--" not in text:
        return text
    out: list[str] = []
    i = 0
    while True:
        m = _STOP.search(text, i)
        if m is None:
            out.append(text[i:])
            return "".join(out)
        start = m.start()
        if m.group() == '"':
            quoted = _QUOTED.match(text, start)
            assert quoted is not None  # its closing quote is optional: it matches at any '"'
            end = quoted.end()
        elif m.group() == "/*":
            close = text.find("*/", start + 2)
            end = len(text) if close < 0 else close + 2
        else:
            newline = text.find("\n", start)
            end = len(text) if newline < 0 else newline
            out.append(text[i:start] + " " * (end - start))
            i = end
            continue
        out.append(text[i:end])
        i = end


def statement(text: str) -> Statement:
    """The statement `text` (its `--` comments blanked: `blank_comments`) holds."""
    keyword = name = None
    start, end = 0, len(text.rstrip())
    found = _KEYWORD.match(text)
    if found is not None:
        keyword, start = found.group(1), found.end()
        named = _NAME.match(text, start)
        if named is not None:
            name, start = named.group(1), named.end()
    if end > start and text[end - 1] == ";":
        end -= 1
    return Statement(keyword, name, start, max(start, end))


def statement_hint(text: str) -> bool:
    """Whether `text` may be nuXmv's text rather than Spot's (`_HINT`): where Spot's reading
    fails, the data parser's reading (or its error) is the one to give."""
    return _HINT.search(text) is not None or (_CASE.search(text) is not None and _ESAC.search(text) is not None)
