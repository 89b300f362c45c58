"""bench/fuzz.py's worker for the Python API: reads a JSON list of calls on stdin, makes each in
this process and prints one JSON line per call as it ends (so that the fuzzer, which kills a
worker stuck on a call, knows which call that was, and starts another worker for the rest).

A call is {"fn": "parse"|"solve"|"verify"|"check"|"check_path"|"solve_many", "args", "kwargs"}
(`check_path` writes "file": [NAME, TEXT] into a scratch directory and checks that path). Its
line says how it ended: "ok" (with the answer's status), "ValueError" (the API's documented way
to refuse bad input, with the subclass), or "exception" (anything else, with the traceback), the
wall seconds, and whether any message said "internal error". Bad input must only ever raise a
ValueError subclass; `solve_many` must give one answer per input.

    echo '[{"fn": "parse", "args": ["a U"], "kwargs": {}}]' | python bench/fuzz_api.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import traceback


def call(spec: dict, scratch: str) -> dict:
    import ltlwit

    fn, args, kwargs = spec["fn"], spec.get("args", []), spec.get("kwargs", {})
    if fn == "parse":
        return {"status": "parsed", "text": ltlwit.parse(*args, **kwargs).to_str()}
    if fn == "solve":
        answer = ltlwit.solve(*args, **kwargs)
        return {"status": answer.status, "messages": [answer.message or ""]}
    if fn == "verify":
        return {"status": str(ltlwit.verify(*args, **kwargs))}
    if fn in ("check", "check_path"):
        if fn == "check_path":
            name, text = spec["file"]
            path = os.path.join(scratch, name)
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as out:
                out.write(text)
            args = [path]
        report = ltlwit.check(*args, **kwargs)
        messages = [str(getattr(r, "message", "") or "") for r in report]
        return {"status": "passed" if report.passed else "failed", "answers": len(report), "messages": messages}
    if fn == "solve_many":
        answers = list(ltlwit.Solver(**kwargs).solve_many(args[0]))
        lines = {a.item.line for a in answers}
        return {
            "status": "many",
            "answers": len(answers),
            "lost": sorted(set(range(1, len(args[0]) + 1)) - lines),
            "messages": [a.message or "" for a in answers],
        }
    raise SystemExit(f"unknown call {fn!r}")


def main() -> None:
    calls = json.load(sys.stdin)
    with tempfile.TemporaryDirectory(prefix="ltlwit-fuzz-api-") as scratch:
        for i, spec in enumerate(calls):
            start = time.perf_counter()
            try:
                result = {"outcome": "ok", **call(spec, scratch)}
            except ValueError as exc:
                result = {"outcome": "ValueError", "type": type(exc).__name__, "messages": [str(exc)]}
            except Exception as exc:  # what the fuzzer is looking for
                result = {
                    "outcome": "exception",
                    "type": type(exc).__name__,
                    "messages": [str(exc)],
                    "traceback": traceback.format_exc(),
                }
            result["wall"] = round(time.perf_counter() - start, 3)
            result["internal"] = any("internal error" in m.lower() for m in result.get("messages", ()))
            if result["outcome"] == "ok" and not result["internal"]:
                result.pop("messages", None)
            else:
                result["messages"] = [m[:300] for m in result.get("messages", ())]
            print(json.dumps({"i": i, **result}), flush=True)


if __name__ == "__main__":
    main()
