"""Formula text for bench/fuzz.py: grammar-based generation in every syntax ltlwit reads, and the
mutations that break readers and deadlines (byte flips, truncation, a piece repeated thousands of
times: long names, deep nesting, long sums `x + x + ...`, stacked operators; invalid UTF-8, bare
CR, NUL bytes).

Everything here is a function of a `random.Random` and nothing else (no ltlwit import): the same
seed gives the same text whatever version of ltlwit is fuzzed. A formula is first a tree, a
tuple `(op, child...)` or `("ap", name)` / `("const", value)`, then printed in a syntax.
"""

from __future__ import annotations

import random

#: Proposition names: plain, operator-like (`Fail` is `F ail` in Spot's infix), quoted, odd.
NAMES = (
    "a", "b", "c", "d", "req", "grant", "ack", "p0", "p1", "x_1", "busy.flag",
    "Fail", "Grant", "Once", "Xen", "H1", "t", "f", "i", "e", "xor",
    '"a b"', '"Grant"', '"x#y:z"', '"t"', '"\\"q\\""', "ünïcode", "Ω",
)  # fmt: skip
#: Single letters that are no operator in DeepLTL's network Polish.
POLISH_APS = "abcdeijklmnpq"
#: Data variables and the values of an enumeration.
VARS = ("x", "y", "z", "n", "speed", "limit", "mode", "Psi", "Cmd", "kgs", "T", "X1")
ENUM = ("off", "on", "idle", "thrust_borne")
#: Declare templates (README's table), with names one letter off and other spellings.
DECLARE = (
    ("existence", 1), ("existence2", 1), ("absence", 1), ("absence3", 1), ("exactly1", 1),
    ("init", 1), ("last", 1), ("responded_existence", 2), ("co_existence", 2),
    ("response", 2), ("precedence", 2), ("succession", 2), ("alternate_response", 2),
    ("alternate_precedence", 2), ("alternate_succession", 2), ("chain_response", 2),
    ("chain_precedence", 2), ("chain_succession", 2), ("choice", 2), ("exclusive_choice", 2),
    ("not_co_existence", 2), ("not_responded_existence", 2), ("not_succession", 2),
    ("not_chain_succession", 2), ("ChainResponse", 2), ("respnse", 2), ("Existence", 1),
)  # fmt: skip

FUTURE_UNARY = ("!", "X", "F", "G")
PAST_UNARY = ("Y", "Z", "O", "H")
FUTURE_BINARY = ("&", "|", "->", "<->", "xor", "U", "R", "W", "M")
PAST_BINARY = ("S", "T")
#: Spot's other spellings of the same operators, for infix text.
SPELLINGS = {
    "&": ("&", "&&", "/\\", "∧"),
    "|": ("|", "||", "\\/", "∨"),
    "->": ("->", "=>", "→"),
    "<->": ("<->", "<=>", "↔"),
    "xor": ("xor", "^", "⊕"),
    "R": ("R", "V"),
    "!": ("!", "~", "¬"),
    "G": ("G", "[]", "□"),
    "F": ("F", "<>", "◇"),
    "X": ("X", "X[!]", "○"),
}
LBT = {"!": "!", "&": "&", "|": "|", "->": "i", "<->": "e", "xor": "^", "R": "V"}
CONSTANTS = ("true", "false", "1", "0", "True", "FALSE")


def _ap(rng: random.Random) -> tuple:
    return ("ap", rng.choice(NAMES) if rng.random() < 0.5 else rng.choice("abcdpq"))


def tree(rng: random.Random, depth: int, past: bool = False, aps=_ap) -> tuple:
    """A random LTL formula tree of at most `depth` levels (with `past`: Y Z O H S T too)."""
    if depth <= 0 or rng.random() < 0.2:
        return ("const", rng.choice("10")) if rng.random() < 0.06 else aps(rng)
    unary = FUTURE_UNARY + (PAST_UNARY if past else ()) + ("wX",)
    binary = FUTURE_BINARY + (PAST_BINARY if past else ())
    if rng.random() < 0.4:
        return (rng.choice(unary), tree(rng, depth - 1, past, aps))
    return (rng.choice(binary), tree(rng, depth - 1, past, aps), tree(rng, depth - 1, past, aps))


def infix(t: tuple, rng: random.Random) -> str:
    """Spot's infix (with BLACK's past letters, `wX`, bounded `X[n]`, `F[a..b]`, `G[a..b]`),
    fully parenthesised but for random spacing and spellings."""
    op = t[0]
    if op == "ap":
        return t[1]
    if op == "const":
        return rng.choice(("1", "true", "True")) if t[1] == "1" else rng.choice(("0", "false", "FALSE"))
    sp = rng.choice(("", " ", "  "))
    word = rng.choice(SPELLINGS.get(op, (op,))) if rng.random() < 0.2 else op
    if len(t) == 2:
        if op in ("F", "G") and rng.random() < 0.1:
            lo = rng.randrange(4)
            word = f"{op}[{lo}..{lo + rng.randrange(4)}]"
        elif op == "X" and rng.random() < 0.1:
            word = f"X[{rng.randrange(1, 5)}]"
        gap = " " if word[-1].isalnum() or op == "wX" else sp
        return f"{word}{gap}({infix(t[1], rng)})"
    return f"({infix(t[1], rng)}){sp}{word}{sp}({infix(t[2], rng)})"


def polish(t: tuple, spaced: bool) -> str:
    """DeepLTL's network Polish (`&Uab!Xc`, future only, one-letter APs) or the spaced form
    (any operator and name: `& U req b ! X c`)."""
    out: list[str] = []
    stack = [t]
    while stack:
        node = stack.pop()
        if node[0] == "ap":
            out.append(node[1])
        elif node[0] == "const":
            out.append(node[1])
        else:
            out.append(node[0])
            stack.extend(reversed(node[1:]))
    return (" " if spaced else "").join(out)


def lbt(t: tuple) -> str:
    """LBT prefix: `G i "req" F "grant"`, constants `t`/`f`, every name quoted."""
    out: list[str] = []
    stack = [t]
    while stack:
        node = stack.pop()
        if node[0] == "ap":
            out.append(node[1] if node[1].startswith('"') else f'"{node[1]}"')
        elif node[0] == "const":
            out.append("t" if node[1] == "1" else "f")
        else:
            out.append(LBT.get(node[0], node[0]))
            stack.extend(reversed(node[1:]))
    return " ".join(out)


def numeral(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.5:
        return str(rng.randrange(-3, 11))
    if roll < 0.8:
        return f"{rng.randrange(0, 100)}.{rng.randrange(0, 100)}"
    if roll < 0.9:
        return "1" + "0" * rng.randrange(10, 400)  # huge
    return "0." + "0" * rng.randrange(5, 60) + "1"  # tiny


def term(rng: random.Random, depth: int) -> str:
    """A data term: variables, numerals, `+ - * / mod`, unary minus, BLACK's next/wnext/prev/
    wprev, FRET's built-ins and uninterpreted functions."""
    if depth <= 0 or rng.random() < 0.35:
        return rng.choice(VARS) if rng.random() < 0.6 else numeral(rng)
    roll = rng.random()
    if roll < 0.4:
        op = rng.choice(("+", "-", "*", "/", "mod"))
        return f"({term(rng, depth - 1)} {op} {term(rng, depth - 1)})"
    if roll < 0.6:
        return f"{rng.choice(('next', 'wnext', 'prev', 'wprev'))}({term(rng, depth - 1)})"
    if roll < 0.7:
        return f"-{term(rng, depth - 1)}"
    if roll < 0.85:
        name = rng.choice(("absReal", "absInt", "min", "max", "preReal", "preInt"))
        one = name.startswith("abs")
        args = [term(rng, depth - 1) for _ in range(1 if one else 2)]
        return f"{name}({', '.join(args)})"
    return f"{rng.choice(('f', 'g', 'det_3x3'))}({', '.join(term(rng, depth - 1) for _ in range(rng.randrange(1, 4)))})"


def _comparison(rng: random.Random) -> tuple:
    if rng.random() < 0.2:
        return ("ap", f"{rng.choice(('mode', 'm2'))} {rng.choice(('=', '!='))} {rng.choice(ENUM)}")
    if rng.random() < 0.1:
        return ("ap", rng.choice(("TRUE", "FALSE", "p", "q", "preBool(FALSE, p)", "f(x)")))
    left, right = term(rng, 2), term(rng, 2)
    return ("ap", f"{left} {rng.choice(('=', '!=', '<', '<=', '>', '>='))} {right}")


def data_formula(rng: random.Random, depth: int) -> str:
    """nuXmv's and BLACK's syntax: operators as words, comparisons as atoms, `xnor`, `V`, and the
    bounded `F[2,5]`, `G[0,3]`, `O[<=3]`, `H[1,2]`."""
    t = tree(rng, depth, past=rng.random() < 0.5, aps=_comparison)
    return _words(t, rng)


def _words(t: tuple, rng: random.Random) -> str:
    op = t[0]
    if op == "ap":
        return f"({t[1]})" if rng.random() < 0.5 else t[1]
    if op == "const":
        return "TRUE" if t[1] == "1" else "FALSE"
    if len(t) == 2:
        word = {"!": "!", "wX": "wX"}.get(op, op)
        if op in ("F", "G", "O", "H") and rng.random() < 0.4:
            lo = rng.randrange(4)
            word += rng.choice((f"[{lo},{lo + rng.randrange(4)}]", f"[<={lo}]", f"[<{lo + 1}]", f"[={lo}]"))
        return f"{word} ({_words(t[1], rng)})"
    word = {"<->": rng.choice(("<->", "xnor")), "R": rng.choice(("R", "V"))}.get(op, op)
    return f"({_words(t[1], rng)}) {word} ({_words(t[2], rng)})"


def declare(rng: random.Random) -> str:
    """Declare templates applied to activities, combined with the Boolean connectives; a wrong
    number of activities now and then."""
    parts = []
    for _ in range(rng.randrange(1, 4)):
        name, arity = rng.choice(DECLARE)
        if rng.random() < 0.05:
            arity += rng.choice((-1, 1))
        acts = [rng.choice(("request", "approve", "pay", "reject", "a", "b")) for _ in range(max(arity, 0))]
        parts.append(("!" if rng.random() < 0.15 else "") + f"{name}({', '.join(acts)})")
    return rng.choice((" & ", " | ", " -> ")).join(parts)


#: The syntaxes a formula line may be written in, and how often.
SYNTAXES = (("infix", 30), ("past", 12), ("polish", 8), ("polish-spaced", 6), ("lbt", 8), ("data", 24), ("declare", 8))


def formula(rng: random.Random, syntax: str | None = None, depth: int | None = None) -> str:
    """One formula in `syntax` (one of SYNTAXES' names; default: drawn by their weights)."""
    syntax = syntax or rng.choices([s for s, _ in SYNTAXES], [w for _, w in SYNTAXES])[0]
    depth = rng.randrange(1, 6) if depth is None else depth
    if syntax == "infix":
        return infix(tree(rng, depth), rng)
    if syntax == "past":
        return infix(tree(rng, depth, past=True), rng)
    if syntax == "polish":
        one_letter = lambda r: ("ap", r.choice(POLISH_APS))  # noqa: E731
        return polish(tree(rng, depth, aps=one_letter), spaced=False)
    if syntax == "polish-spaced":
        return polish(tree(rng, depth, past=rng.random() < 0.3, aps=lambda r: ("ap", r.choice("abcd"))), spaced=True)
    if syntax == "lbt":
        return lbt(tree(rng, depth, past=rng.random() < 0.3))
    if syntax == "data":
        return data_formula(rng, min(depth, 3))
    return declare(rng)


def witness(rng: random.Random, finite: bool = False) -> str:
    """A witness as solve prints them or near it: a lasso or finite trace, an assignment in one
    of its spellings, or a claim (`UNSAT`, `UNKNOWN`, `UNSAT core: ...`)."""
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(("UNSAT", "UNKNOWN", "UNSAT core: a & !a", "unsat"))
    if roll < 0.25:
        names = rng.sample("abcdpq", rng.randrange(1, 4))
        style = rng.randrange(3)
        if style == 0:
            return "".join(f"{n}{rng.choice('01')}" for n in names)
        if style == 1:
            return "{" + ", ".join(f'"{n}": {rng.choice(("true", "false", "1", "null"))}' for n in names) + "}"
        return " & ".join(("!" if rng.random() < 0.4 else "") + n for n in names)
    if roll < 0.4:
        steps = [
            " & ".join(f"{v} = {numeral(rng)}" for v in rng.sample(VARS[:4], 2)) for _ in range(rng.randrange(1, 4))
        ]
    else:
        steps = [infix(tree(rng, 1), rng) for _ in range(rng.randrange(1, 4))]
    if finite or rng.random() < 0.3:
        return "; ".join(steps)
    loop = steps.pop()
    return "; ".join([*steps, f"cycle{{{loop}}}"]) if rng.random() < 0.8 else ";".join([*steps, f"{{{loop}}}"])


# -- mutations ------------------------------------------------------------------------------

#: Bytes a mutation inserts: invalid UTF-8 (a lone continuation, a truncated sequence, an
#: encoded surrogate, an overlong slash, past U+10FFFF), bare CR, NUL, odd whitespace and
#: look-alike operators.
ODD = (
    b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80",
    b"\r", b"\r\r", b"\0", b"\t", b"\x0b", b"\x0c", b"\x1c", "\u00a0".encode(), "\u2028".encode(),
    "\u200b".encode(), "\ufeff".encode(), "\u202e".encode(), "\u0301".encode(), "＆".encode(),
    b'"', b"(", b")", b"[", b"]", b"{", b"}", b"\\", b"#", b",", b";", b":", b"/*", b"*/", b"%",
)  # fmt: skip
#: Operators and words a mutation inserts or stacks.
TOKENS = (
    "!", "X ", "F ", "G ", "Y ", "O ", "H ", "wX ", "X[!] ", "G[0..3] ", "F[2,5] ", "O[<=3] ", " U ",
    " R ", " S ", " & ", " | ", " -> ", " <-> ", " xor ", " mod ", " + ", " * ", " / 0", "next(",
    "prev(", "wprev(", "absReal(", "f(", " = ", " < ", ">=", "1", "0", "2.5", "-", "TRUE", "x",
    "cycle{", "; ",
)  # fmt: skip
#: Largest text a mutation grows a line to (bytes).
MAX_GROWTH = 1 << 20


def repeat_count(rng: random.Random, piece: int, limit: int) -> int:
    """How many times to repeat a piece of `piece` bytes: log-uniform from 2 to `limit`, and
    the result at most MAX_GROWTH bytes."""
    n = int(2 ** rng.uniform(1, max(1.0, limit.bit_length())))
    return max(2, min(n, limit, MAX_GROWTH // max(piece, 1)))


def mutate(data: bytes, rng: random.Random, limit: int = 20000) -> bytes:
    """One mutation of `data` (`limit`: most repetitions of a repeated piece)."""
    n = len(data)
    pos = rng.randrange(n + 1)
    kind = rng.randrange(12)
    if kind == 0 and n:  # byte flip
        return data[: pos % n] + bytes([rng.randrange(256)]) + data[pos % n + 1 :]
    if kind == 1:  # truncation
        return data[:pos]
    if kind == 2 and n:  # a slice deleted
        return data[:pos] + data[pos + rng.randrange(1, 8) :]
    if kind == 3:  # odd bytes
        return data[:pos] + rng.choice(ODD) + data[pos:]
    if kind == 4:  # a token inserted
        return data[:pos] + rng.choice(TOKENS).encode() + data[pos:]
    if kind == 5 and n:  # a substring duplicated many times
        start = rng.randrange(n)
        piece = data[start : start + rng.randrange(1, 12)]
        return data[:start] + piece * repeat_count(rng, len(piece), limit) + data[start:]
    if kind == 6:  # deep nesting
        k = repeat_count(rng, 2, limit)
        return b"(" * k + data + b")" * k
    if kind == 7:  # stacked unary operators
        op = rng.choice(("!", "X ", "F", "G ", "X[!]", "Y ", "H ", "wX ", "O[<=3] ", "G F ", "-", "next("))
        k = repeat_count(rng, len(op), limit)
        closing = b")" * k if op.endswith("(") else b""
        return op.encode() * k + data + closing
    if kind == 8:  # a long sum or chain
        k = repeat_count(rng, 4, limit)
        return rng.choice((b"x + ", b"x * ", b"a U ", b"a & ", b"a -> ", b"1 - ", b"f(")) * k + data
    if kind == 9:  # a long name
        k = repeat_count(rng, 1, limit)
        return data[:pos] + rng.choice((b"a", b"Fa", b"x_", b"\xc3\xa9")) * k + data[pos:]
    if kind == 10:  # a wide conjunction of copies
        k = repeat_count(rng, n + 5, limit // 10 or 2)
        return b" & ".join([b"(" + data + b")"] * k)
    return data + rng.choice((b"", b" ", b"\r", b" #", b" )", b" & "))  # a tail


def mutated_formula(rng: random.Random, limit: int = 20000) -> bytes:
    """A formula with one to three mutations."""
    data = formula(rng).encode()
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        data = mutate(data, rng, limit)
    return data
