"""Long differential-fuzzing soak of the converters.

    python benchmarks/soak.py 10000 [--out fuzz-failures] [--seed 0] [--jobs 2]
                              [--timeout 60] [--no-reduce] [--decorator] [--other-dtypes]
                              [--rich]

Generates N programs with the strategies in ``tests/fuzz/generator.py`` (duplicates skipped),
converts each with ``autojit.convert_source(..., all_functions=True)`` and compares the eager
original with the jitted conversion (``tests/fuzz/oracle.py``), in ``--jobs`` worker processes.
A program that runs longer than ``--timeout`` seconds (a converted loop that never ends runs
inside XLA, where no Python signal reaches it) is a ``hang``: its worker is killed and restarted
after it. With ``--decorator``, each program converted and equal also runs through
``@autojit.convert`` (its module imported from a file), which must give the same values, text
and static arguments (twice the jit compilations: about twice the time). With
``--other-dtypes``, each program converted and equal also runs on int32, float16, bool, int8
and bfloat16 data against its original run eagerly on jax arrays
(``oracle.run_on_other_dtypes``): a silently different value, shape or dtype there is a
``wrong-other-dtype``. With ``--rich``, the programs also use the generator's rich constructs
(augmented and compound-mask item updates, slices, aliases and views, copies, nested defs,
reversed and dependent loops, loop ``else`` clauses; ``tests/fuzz/generator.py``).
Prints programs, converted, refused, wrong, crashes and the other bug kinds; writes
every failing program (the first few of each kind reduced to a minimal one) to ``--out``.
Exit status 1 when any bug was found.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("JAX_PLATFORMS", "cpu")

from tests.fuzz.kinds import BUGS as PROGRAM_BUGS  # noqa: E402

REDUCE_PER_KIND = 3  # reducing costs ~150 runs: the first few of each kind per worker
BUGS = (*PROGRAM_BUGS, "hang")


def generate(n: int, seed: int, rich: bool = False) -> tuple[list[Any], int]:
    """N generated programs (hypothesis, seeded; ``rich``: with the generator's rich
    constructs); returns the unique ones and the count."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from tests.fuzz.generator import cases

    programs: list[Any] = []
    seen: set[str] = set()
    generated = [0]

    @hseed(seed)
    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(cases(rich=rich))
    def one(program: Any) -> None:
        generated[0] += 1
        if program.source not in seen:
            seen.add(program.source)
            programs.append(program)

    one()
    return programs, generated[0]


def _write_failure(
    out_dir: str, program: Any, source: str, inputs: Any, outcome: Any, prefix: str = ""
) -> str:
    from tests.fuzz import oracle

    digest = hashlib.sha1(source.encode()).hexdigest()[:10]
    path = Path(out_dir) / f"{prefix}{outcome.kind}-{digest}.py"
    shown = "\n".join("# inputs: " + ", ".join(oracle._show(a) for a in args) for args in inputs)
    original = "".join("# | " + line + "\n" for line in program.source.splitlines())
    path.write_text(outcome.report() + shown + "\n# original (unreduced) program:\n" + original)
    return str(path)


def worker(
    batch_file: str,
    start: int,
    results: str,
    progress: str,
    out_dir: str,
    reduce: bool,
    decorator: bool = False,
    other_dtypes: bool = False,
) -> None:
    """Run the programs of ``batch_file`` from ``start``; one JSON line per program."""
    import numpy as np

    from tests.fuzz import oracle

    np.seterr(all="ignore")
    programs = pickle.loads(Path(batch_file).read_bytes())
    reduced: collections.Counter[str] = collections.Counter()
    with open(results, "a") as res:
        for i in range(start, len(programs)):
            program = programs[i]
            Path(progress).write_text(f"run {i}")
            outcome = oracle.run(
                program.source, program.inputs, decorator=decorator, other_dtypes=other_dtypes
            )
            path = ""
            if outcome.is_bug:
                path = _write_failure(out_dir, program, program.source, program.inputs, outcome)
            res.write(json.dumps({"i": i, "kind": outcome.kind, "path": path}) + "\n")
            res.flush()
            if outcome.is_bug and reduce:
                reduced[outcome.kind] += 1
                if reduced[outcome.kind] <= REDUCE_PER_KIND:
                    # a reduction that hangs is killed and skipped (the program is counted)
                    real_run, tries = oracle.run, [0]

                    def run_marked(
                        *args: Any,
                        _i: int = i,
                        _n: list[int] = tries,
                        _run: Any = real_run,
                        **kwargs: Any,
                    ) -> Any:
                        _n[0] += 1  # each try shows progress to the watchdog
                        Path(progress).write_text(f"reduce {_i} {_n[0]}")
                        return _run(*args, **kwargs)

                    oracle.run = run_marked  # type: ignore[assignment]
                    try:
                        source, inputs = oracle.reduce(
                            program.source, program.inputs, outcome.kind, max_tries=150
                        )
                    finally:
                        oracle.run = real_run  # type: ignore[assignment]
                    small = oracle.run(
                        source, inputs, decorator=decorator, other_dtypes=other_dtypes
                    )
                    _write_failure(out_dir, program, source, inputs, small, prefix="min-")


def _spawn(args: list[str], flags: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, __file__, "--worker", *args, *flags],
        stdout=subprocess.DEVNULL,
        stderr=None,
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("n", type=int, nargs="?", default=10000, help="programs to generate")
    p.add_argument("--out", default="fuzz-failures", help="directory for failing programs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per program")
    p.add_argument("--no-reduce", action="store_true", help="write failures as found")
    p.add_argument(
        "--decorator", action="store_true", help="also run each program via @autojit.convert"
    )
    p.add_argument(
        "--other-dtypes",
        action="store_true",
        help="also run each program on int32, float16, bool, int8 and bfloat16 data",
    )
    p.add_argument(
        "--rich",
        action="store_true",
        help="generate with the rich constructs too (tests/fuzz/generator.py)",
    )
    p.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        batch, start, results, progress, out_dir = a.worker
        worker(
            batch, int(start), results, progress, out_dir, not a.no_reduce, a.decorator,
            a.other_dtypes,
        )  # fmt: skip
        return 0
    flags = ["--decorator"] * a.decorator + ["--other-dtypes"] * a.other_dtypes

    Path(a.out).mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    programs, generated = generate(a.n, a.seed, a.rich)
    print(f"generated {generated} programs, {len(programs)} distinct", flush=True)
    tmp = tempfile.mkdtemp(prefix="autojit-soak-")
    print(f"per-program results: {tmp}/results*.jsonl", flush=True)
    jobs: list[dict[str, Any]] = []
    for w in range(a.jobs):
        batch = programs[w :: a.jobs]
        bfile = os.path.join(tmp, f"batch{w}.pkl")
        Path(bfile).write_bytes(pickle.dumps(batch))
        job = {
            "batch": batch,
            "file": bfile,
            "results": os.path.join(tmp, f"results{w}.jsonl"),
            "progress": os.path.join(tmp, f"progress{w}.txt"),
            "hangs": [],
        }
        Path(job["progress"]).write_text("")
        job["proc"] = _spawn([bfile, "0", job["results"], job["progress"], a.out], flags)
        job["since"] = (None, time.perf_counter())
        jobs.append(job)
    last_report = time.perf_counter()
    while any(j["proc"] is not None for j in jobs):
        time.sleep(1.0)
        for j in jobs:
            proc = j["proc"]
            if proc is None:
                continue
            if proc.poll() is not None:
                j["proc"] = None
                continue
            state = Path(j["progress"]).read_text()
            now = time.perf_counter()
            if state != j["since"][0]:
                j["since"] = (state, now)
            elif state and now - j["since"][1] > a.timeout:
                proc.kill()
                proc.wait()
                what, idx = state.split()[:2]
                i = int(idx)
                program = j["batch"][i]
                if what == "run":
                    from tests.fuzz.oracle import Outcome

                    outcome = Outcome("hang", program.source, detail=f"over {a.timeout:.0f} s")
                    path = _write_failure(a.out, program, program.source, program.inputs, outcome)
                    with open(j["results"], "a") as res:
                        res.write(json.dumps({"i": i, "kind": "hang", "path": path}) + "\n")
                j["proc"] = _spawn(
                    [j["file"], str(i + 1), j["results"], j["progress"], a.out], flags
                )
                j["since"] = (None, time.perf_counter())
        if time.perf_counter() - last_report > 60:
            last_report = time.perf_counter()
            done = sum(_count(j["results"]).total() for j in jobs)
            print(f"[{done}/{len(programs)} programs, {last_report - started:.0f} s]", flush=True)

    total: collections.Counter[str] = collections.Counter()
    failures: list[str] = []
    for j in jobs:
        total.update(_count(j["results"], failures))
    elapsed = time.perf_counter() - started
    print(f"programs:          {sum(total.values())} distinct, of {generated} generated")
    print(f"converted:         {total['converted']} (jitted and equal to the eager original)")
    print(f"refused:           {total['refused']} (jit fails where a rule code was reported)")
    print(f"wrong:             {total['wrong']}")
    print(f"crashes:           {total['crash']}")
    for kind in BUGS:
        if kind not in ("wrong", "crash"):
            print(f"{kind + ':':<19}{total[kind]}")
    print(f"invalid:           {total['invalid']} (eager original failed: generator bugs)")
    print(f"time:              {elapsed:.0f} s")
    if failures:
        print(f"failing programs written to {a.out}/ ({len(failures)})")
    return 1 if any(total[k] for k in BUGS) else 0


def _count(results: str, failures: list[str] | None = None) -> collections.Counter[str]:
    c: collections.Counter[str] = collections.Counter()
    if not os.path.exists(results):
        return c
    for line in Path(results).read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        c[r["kind"]] += 1
        if failures is not None and r["path"]:
            failures.append(r["path"])
    return c


if __name__ == "__main__":
    sys.exit(main())
