"""Long differential-fuzzing soak of the converters.

    python benchmarks/soak.py 10000 [--out fuzz-failures] [--seed 0] [--jobs 2] [--no-reduce]

Generates N programs with the strategies in ``tests/fuzz/generator.py``, converts each with
``autojit.convert_source(..., all_functions=True)``, and compares the eager original with the
jitted conversion (``tests/fuzz/oracle.py``). Prints programs, converted, refused, wrong,
crashes (and the other bug kinds); writes every failing program, reduced to a minimal one, to
``--out`` (one file per failure, named by kind). Exit status 1 when any bug was found.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path
from typing import Any

REDUCE_PER_KIND = 3  # reducing costs ~150 runs: the first few of each kind per worker
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("JAX_PLATFORMS", "cpu")


def _work(args: tuple[int, int, int, str, bool]) -> dict[str, Any]:
    worker, count, seed, out_dir, do_reduce = args
    import numpy as np
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from tests.fuzz import oracle
    from tests.fuzz.generator import cases

    counts: collections.Counter[str] = collections.Counter()
    seen: set[str] = set()
    failures: list[str] = []
    reduced: collections.Counter[str] = collections.Counter()
    started = time.perf_counter()

    @hseed(seed * 1000 + worker)
    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(cases())
    def one(program: Any) -> None:
        key = program.source
        counts["generated"] += 1
        if key in seen:
            return
        seen.add(key)
        outcome = oracle.run(program.source, program.inputs)
        counts["programs"] += 1
        counts[outcome.kind] += 1
        if outcome.is_bug:
            source, inputs = program.source, program.inputs
            reduced[outcome.kind] += 1
            if do_reduce and reduced[outcome.kind] <= REDUCE_PER_KIND:
                source, inputs = oracle.reduce(source, inputs, outcome.kind, max_tries=150)
                outcome = oracle.run(source, inputs)
            digest = hashlib.sha1(source.encode()).hexdigest()[:10]
            path = Path(out_dir) / f"{outcome.kind}-{digest}.py"
            shown = "\n".join(
                "# inputs: " + ", ".join(oracle._show(a) for a in args) for args in inputs
            )
            original = "".join("# | " + line + "\n" for line in program.source.splitlines())
            path.write_text(
                outcome.report() + shown + "\n# original (unreduced) program:\n" + original
            )
            failures.append(str(path))
        if counts["programs"] % 200 == 0:
            rate = counts["programs"] / (time.perf_counter() - started)
            print(f"[worker {worker}] {dict(counts)} ({rate:.1f} programs/s)", flush=True)

    np.seterr(all="ignore")
    one()
    return {"counts": dict(counts), "failures": failures}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("n", type=int, nargs="?", default=10000, help="programs to generate")
    p.add_argument("--out", default="fuzz-failures", help="directory for failing programs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--no-reduce", action="store_true", help="write failures as found")
    a = p.parse_args(argv)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    per = [a.n // a.jobs + (1 if w < a.n % a.jobs else 0) for w in range(a.jobs)]
    jobs = [(w, per[w], a.seed, a.out, not a.no_reduce) for w in range(a.jobs)]
    if a.jobs == 1:
        results = [_work(jobs[0])]
    else:
        with mp.get_context("spawn").Pool(a.jobs) as pool:
            results = pool.map(_work, jobs)
    total: collections.Counter[str] = collections.Counter()
    failures: list[str] = []
    for r in results:
        total.update(r["counts"])
        failures += r["failures"]
    from tests.fuzz.oracle import BUGS

    elapsed = time.perf_counter() - started
    print(
        f"programs:        {total['programs']} (of {total['generated']} generated; duplicates skipped)"
    )
    print(f"converted:       {total['converted']} (jitted and equal to the eager original)")
    print(f"refused:         {total['refused']} (jit fails where a rule code was reported)")
    print(f"wrong:           {total['wrong']}")
    print(f"crashes:         {total['crash']}")
    for kind in BUGS:
        if kind not in ("wrong", "crash"):
            print(f"{kind + ':':<17}{total[kind]}")
    print(f"invalid:         {total['invalid']} (eager original failed: generator bugs)")
    print(f"time:            {elapsed:.0f} s")
    if failures:
        print(f"failing programs written to {a.out}/:")
        for f in sorted(failures):
            print("  " + f)
    return 1 if any(total[k] for k in BUGS) else 0


if __name__ == "__main__":
    sys.exit(main())
