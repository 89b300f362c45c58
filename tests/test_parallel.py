"""The worker-process machinery behind `--jobs` (ltlwit.pipeline.parallel, .worker): outputs
in input order, a bounded window between reading and handing on, workers that die, the syntax
guess replayed across workers, and what travels between processes."""

from __future__ import annotations

import itertools
import os
import pickle
import signal

import pytest

from ltlwit.logic.formula import And, ap
from ltlwit.pipeline import parallel
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.parallel import Lost, Pool, RemoteError, WorkerError
from ltlwit.pipeline.parsing import InputParser


class Upper:
    """A task that answers each input with its text in capitals, and dies (as if killed by the
    kernel) on the input `die`."""

    parser = None
    model_failed = False

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self.notices: list = []

    def answers(self, chunk) -> list:
        out = []
        for item in chunk.items:
            if item.text == "die":
                os.kill(os.getpid(), signal.SIGKILL)
            if item.text == "bug":
                raise RuntimeError("a bug in the task")
            out.append(self.prefix + item.text.upper())
        return out

    def pid(self, chunk) -> list:
        return [os.getpid() for _ in chunk.items]


class Parse:
    """A task that parses each input with `syntax` and prints it back in Spot syntax."""

    model_failed = False

    def __init__(self, syntax: str) -> None:
        self.parser = InputParser(syntax, remember=64)
        self.notices: list = []

    def answers(self, chunk) -> list:
        return [self.parser.parse(item).to_str("spot") for item in chunk.items]


def items(texts, file: str = "input.txt") -> list[InputItem]:
    return [InputItem(text, file, line) for line, text in enumerate(texts, 1)]


def flat(outputs) -> list:
    return [x for chunk in outputs for x in (chunk if isinstance(chunk, list) else [chunk])]


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_outputs_come_in_input_order(jobs: int) -> None:
    texts = [f"f{i}" for i in range(3000)]
    with Pool(jobs, Upper, (">",)) as pool:
        assert flat(pool.imap("answers", items(texts))) == [">" + t.upper() for t in texts]
        assert flat(pool.imap("answers", items(["again"]))) == [">AGAIN"]  # a pool serves several streams


@pytest.mark.parametrize("read", [1, 5, 3000])
def test_a_stream_left_before_its_end_leaves_nothing_to_the_next(read: int) -> None:
    """A consumer that stops reading once it has what it wanted (`check` takes exactly one
    answer per spec, with the chunk's last message still to come; a 'KeyError' in the next
    file's run): the next stream of the pool gets its own answers, all of them."""
    texts = [f"f{i}" for i in range(3000)]
    with Pool(2, Upper) as pool:
        for _ in range(3):
            stream = itertools.chain.from_iterable(pool.imap("answers", items(texts)))
            assert list(itertools.islice(stream, read)) == [t.upper() for t in texts[:read]]
            stream = None  # dropped, as a finished generator's frame drops it
            assert flat(pool.imap("answers", items(["again", "more"]))) == ["AGAIN", "MORE"]


def test_every_worker_takes_part() -> None:
    with Pool(2, Upper) as pool:
        pids = set(flat(pool.imap("pid", items(f"f{i}" for i in range(2000)))))
    assert len(pids) == 2 and os.getpid() not in pids


def test_reading_stays_a_bounded_window_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "WINDOW_ITEMS", 20)
    monkeypatch.setattr(parallel, "READ_AHEAD", 10)
    monkeypatch.setattr(parallel, "CHUNK_MOST", 4)
    pulled = [0]

    def endless():
        for i in itertools.count():
            pulled[0] += 1
            yield InputItem(f"f{i}", "endless", i + 1)

    with Pool(2, Upper) as pool:
        stream = pool.imap("answers", endless())
        handed = 0
        for outputs in stream:
            handed += len(outputs)
            assert pulled[0] - handed <= 20 + 10 + 1  # out with workers, read ahead, in the reader's hand
            if handed >= 500:
                break
        stream.close()


def test_an_input_that_kills_its_worker_costs_only_itself() -> None:
    texts = [f"f{i}" for i in range(300)]
    texts[7] = texts[250] = "die"
    with Pool(2, Upper) as pool:
        out = flat(pool.imap("answers", items(texts)))
        assert [o for o in out if not isinstance(o, Lost)] == [t.upper() for t in texts if t != "die"]
        lost = [(i, o) for i, o in enumerate(out) if isinstance(o, Lost)]
        assert [(i, o.item.line) for i, o in lost] == [(7, 8), (250, 251)]
        assert all("killed by signal 9" in o.message for _, o in lost)
        assert flat(pool.imap("answers", items(["still", "here"]))) == ["STILL", "HERE"]  # replaced workers


def test_a_bug_in_a_task_ends_the_run_with_its_message() -> None:
    with Pool(2, Upper) as pool, pytest.raises(WorkerError, match="RuntimeError: a bug in the task"):
        list(pool.imap("answers", items(["a", "b", "bug", "c"])))


def test_workers_are_gone_after_the_pool() -> None:
    with Pool(2, Upper) as pool:
        stream = pool.imap("answers", items(f"f{i}" for i in range(100_000)))
        next(stream)
        processes = [w.process for w in pool._workers]
        stream.close()
    assert all(not p.is_alive() for p in processes)


AMBIGUOUS = [f"U{x}{y}" for x in "abcde" for y in "abcde"]  # an AP for Spot, `x U y` in Polish


def test_the_syntax_guess_is_replayed_in_input_order() -> None:
    """Ambiguous lines are read as one process reads them whichever worker gets them: as Spot
    before the file's first Polish-only line, as Polish after it, as Spot again once a
    Spot-only line came (a mixed file)."""
    texts = (AMBIGUOUS * 4 + ["&ab"] + AMBIGUOUS * 8 + ["a & b"] + AMBIGUOUS * 4) * 3
    sequential = InputParser("auto")
    expected = [sequential.parse(item).to_str("spot") for item in items(texts)]
    assert len(set(expected)) > len(set(AMBIGUOUS)) + 2  # both readings occur
    for jobs in (2, 3):
        with Pool(jobs, Parse, ("auto",)) as pool:
            assert flat(pool.imap("answers", items(texts), syntax=True)) == expected


def test_a_polish_file_reads_its_ambiguous_lines_as_polish_in_every_chunk() -> None:
    texts = ["&ab"] + AMBIGUOUS * 100
    with Pool(2, Parse, ("auto",)) as pool:
        out = flat(pool.imap("answers", items(texts), syntax=True))
    assert all(" U " in text for text in out[1:])


def test_formulas_travel_between_processes_however_deep() -> None:
    wide = And(*[ap(f"p{i}") for i in range(20_000)])
    assert pickle.loads(pickle.dumps(wide)) is wide
    assert pickle.loads(pickle.dumps([wide, wide.children[1]]))[1] is wide.children[1]


def test_exceptions_travel_with_their_traceback() -> None:
    try:
        raise KeyError("slot")
    except KeyError as exc:
        carried = pickle.loads(pickle.dumps(RemoteError.of(exc)))
    assert (carried.name, str(carried)) == ("KeyError", "'slot'")
    assert 'raise KeyError("slot")' in carried.traceback_text


class Timed:
    """`solve`'s pipeline as a worker runs it (`SolveWork`, without the printer), with a stub
    engine: a formula over the AP `slow` takes `seconds` of it, within its budget (as the engine
    keeps to the deadline: Unknown once it passes). Each output: (the input's text, its chunk's
    key, status, time_ms, message, whether the engine was asked)."""

    parser = None
    model_failed = False

    def __init__(self, timeout: float, seconds: float) -> None:
        import time

        from ltlwit.logic.result import Unknown
        from ltlwit.pipeline import run as pipeline_run
        from ltlwit.pipeline.options import SolveOptions
        from ltlwit.pipeline.run import Pipeline

        real = pipeline_run.engine_answer
        self.asked = 0

        def engine(formula, logic, options, started=None):
            self.asked += 1
            if "slow" not in formula.aps():
                return real(formula, logic, options, started)
            left = started + options.timeout - time.perf_counter()
            time.sleep(max(0.0, min(seconds, left)))
            if left <= seconds:
                return Unknown("time budget exhausted"), "engine"
            return real(formula, logic, options, started)

        pipeline_run.engine_answer = engine  # in the worker process only
        self.pipeline = Pipeline(SolveOptions(timeout=timeout, model="none"))
        self.notices: list = []

    def answers(self, chunk):
        for (solution,) in self.pipeline.answers(chunk.items, ramp=False, read=chunk.read_at):
            asked, self.asked = self.asked, 0
            yield (solution.item.text, chunk.key, solution.status, solution.time_ms, solution.message, asked > 0)


def test_a_timeout_counts_from_when_the_main_process_read_the_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inputs queued in a worker's chunk (chunks made large here, and never handed back) spend
    their budget waiting: each answer comes within the timeout of its input's reading, and an
    input whose budget ran out before the worker began it is UNKNOWN at once."""
    monkeypatch.setattr(parallel, "CHUNK_SECONDS", 60.0)  # chunks ramp 1, 2, 4, 8 regardless of the time per input
    monkeypatch.setattr(parallel, "QUEUE_SHARE", 30.0)
    timeout, seconds = 1.0, 0.3
    texts = [f"slow & p{i}" for i in range(15)]  # distinct: a formula met again is answered from memory
    with Pool(1, Timed, (timeout, seconds)) as pool:
        out = flat(pool.imap("answers", items(texts), timeout=timeout))
    assert [text for text, *_ in out] == texts
    chunks = [key for _, key, *_ in out]
    assert len(set(chunks)) == 4 and chunks.count((3, 0)) == 8
    for text, _, status, ms, message, _ in out:
        assert ms <= timeout * 1000 + 500, (text, ms)
        if status == "unknown":  # its budget ran out: the clock counted the wait
            assert message == "time budget exhausted" and ms >= timeout * 1000 - 1, (text, ms)
        else:
            assert status == "sat" and ms >= seconds * 1000, (text, ms)
    firsts = {key: status for _, key, status, *_ in reversed(out)}  # the first input of each chunk waited for none
    assert set(firsts.values()) == {"sat"}
    unknown = [(ms, asked) for _, _, status, ms, _, asked in out if status == "unknown"]
    assert len(unknown) >= 3  # 8 inputs of 0.3 s queued in one chunk: 1 s holds 3 (and a part)
    assert any(not asked for _, asked in unknown)  # begun after its budget: no engine for it


def test_a_slow_formula_hands_back_the_inputs_queued_behind_it() -> None:
    """With a timeout, a worker busy with a slow formula hands the inputs of its chunk that it
    has not begun back to the main process, which gives them to the other worker: they are
    answered, in a fraction of their budget, instead of running out of it in the queue."""
    timeout = 2.0
    texts = [f"p{i}" for i in range(200)]
    texts[70] = "slow & q"  # in the 7th chunk, 63 ... 126 (chunks ramp 1, 2, 4, ... 32, then hold 64)
    with Pool(2, Timed, (timeout, 10.0)) as pool:
        out = flat(pool.imap("answers", items(texts), timeout=timeout, least=64))
    assert [text for text, *_ in out] == texts
    by_text = {text: (key, status, ms) for text, key, status, ms, *_ in out}
    assert by_text["slow & q"][:2] == ((6, 0), "unknown") and by_text["slow & q"][2] <= timeout * 1000 + 500
    assert by_text["p71"][0][0] == 6 and by_text["p71"][0][1] > 7  # handed back, answered as a part of its own
    cheap = [(text, status, ms) for text, key, status, ms, *_ in out if text != "slow & q"]
    assert all(status == "sat" and ms < timeout * 1000 / 2 for _, status, ms in cheap), cheap


def test_inputs_handed_back_start_their_clocks_again() -> None:
    """Both workers on a slow formula that takes its whole budget: the inputs they hand back wait
    for one of them to be free, and their clocks start when they are handed out again (as they
    would in one process, which reads them only then), so they are answered, not expired."""
    timeout = 1.0
    texts = [f"p{i}" for i in range(260)]
    texts[70], texts[140] = "slow & q", "slow & r"  # in the 7th and 8th chunks (63-126, 127-190)
    with Pool(2, Timed, (timeout, 10.0)) as pool:
        out = flat(pool.imap("answers", items(texts), timeout=timeout, least=64))
    assert [text for text, *_ in out] == texts
    slow = [status for text, _, status, *_ in out if text.startswith("slow")]
    assert slow == ["unknown", "unknown"]
    cheap = [(text, status, ms) for text, _, status, ms, *_ in out if not text.startswith("slow")]
    assert all(status == "sat" and ms < timeout * 1000 / 2 for _, status, ms in cheap), [
        c for c in cheap if c[1] != "sat" or c[2] >= timeout * 500
    ]
