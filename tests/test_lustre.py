"""FRET's Internal variables' Lustre assignments in nuXmv's syntax (`syntax.lustre`)."""

from __future__ import annotations

import pytest

from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.syntax.lustre import lustre_to_nuxmv

SORTS = {"standby": "bool", "hdg": "bool", "FC": "int", "x": "real", "n": "int"}


@pytest.mark.parametrize(
    ("lustre", "nuxmv", "kind"),
    [
        ("(not standby) and supported", "((!standby) & supported)", "bool"),
        ("0.0 -> (x - pre x) * 100.0", "(case !(Y TRUE) : 0.0; TRUE : ((x - preReal(0.0, x)) * 100.0); esac)", "real"),
        ("if x >= 0.0 then 1.0 else - 1.0", "(case (x >= 0.0) : 1.0; TRUE : (-1.0); esac)", "real"),
        ("FC = 0 or hdg <> standby", "((FC = 0) | (!(hdg <-> standby)))", "bool"),
        ("standby => pre hdg", "(standby -> (Y hdg))", "bool"),
        ("n <> pre n + 1", "(n != (preInt(0, n) + 1))", "bool"),
        ("a -> b -> c", "(case !(Y TRUE) : a; TRUE : (case !(Y TRUE) : b; TRUE : c; esac); esac)", "any"),
    ],
)
def test_lustre_reads_as_nuxmv(lustre: str, nuxmv: str, kind: str) -> None:
    assert lustre_to_nuxmv(lustre, SORTS) == (nuxmv, kind)
    text = nuxmv if kind == "bool" else f"{nuxmv} = x"
    assert parse_formula(text, "nuxmv").data or kind == "bool"  # the data parser reads it


@pytest.mark.parametrize(
    ("lustre", "why"),
    [
        ("x div 2", "unexpected"),
        ("f(x) > 0.0", "a call of f"),
        ("standby + 1.0", "a Boolean where a number is wanted"),
        ("if standby then 1.0 else hdg", "a Boolean and a number"),
        ("(x > 1.0", "expected )"),
        ("x @ 2", "cannot read"),
        ("0.0 -> pre(" * 400 + "1.0" + ")" * 400, "nested too deeply"),
    ],
)
def test_what_is_not_read_is_an_error(lustre: str, why: str) -> None:
    with pytest.raises(ValueError, match=why.replace("(", r"\(").replace(")", r"\)")):
        lustre_to_nuxmv(lustre, SORTS)
