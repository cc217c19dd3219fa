"""autojit bench: spec language, timing protocol, equivalence check, CLI and Python API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from autojit.bench import BenchOptions, compare_outputs, parse_spec, parse_specs
from autojit.bench.cli import bench_command, split_specs
from autojit.bench.load import Target, load_target
from autojit.bench.runner import DeviceError, resolve_device, run_inputs
from autojit.bench.spec import (
    SpecError,
    bind,
    call_factory,
    make_inputs,
    split_factory_result,
    substitute_size,
)
from autojit.bench.timing import compile_stages, dynamic_arguments, measure

EXAMPLE = textwrap.dedent(
    """\
    import jax.numpy as jnp
    import numpy as np


    def update(x, i, y):
        x[i] = y
        return jnp.sin(x) * 2


    def zeros_plus(x, n):
        return jnp.zeros(n) + x[:n].sum()


    def chatty(x):
        print("total:", x.sum())
        return x * 2


    def boom(x):
        raise ValueError("boom on purpose")


    def update_reference(x, i, y):
        return jnp.sin(x.at[i].set(y)) * 2


    def make_closure():
        scale = 3.0

        def inner(x, i):
            x[i] = scale
            return jnp.cumsum(x)

        return inner


    def make_inputs(n=8, seed=0):
        rng = np.random.default_rng(seed)
        return (rng.standard_normal(n).astype(np.float32), 1, 3.0), {}
    """
)


@pytest.fixture
def example(tmp_path):
    path = tmp_path / "bench_example_mod.py"
    path.write_text(EXAMPLE)
    return str(path)


# ---------------------------------------------------------------- spec language


def test_parse_array_specs():
    s = parse_spec("x=f32[1000000]")
    assert (s.name, s.kind, s.dtype, s.shape) == ("x", "array", "float32", (1000000,))
    s = parse_spec("mask=bool[100, 100]")
    assert (s.name, s.dtype, s.shape) == ("mask", "bool", (100, 100))
    s = parse_spec("i=i32[]")
    assert (s.dtype, s.shape) == ("int32", ())
    s = parse_spec("idx=i32[5](0,100)")
    assert (s.low, s.high, s.shape) == (0.0, 100.0, (5,))
    s = parse_spec("f32[3]")
    assert s.name is None and s.shape == (3,)
    assert parse_spec("x=float32[2]").dtype == "float32"


@settings(max_examples=60, deadline=None)
@given(
    name=st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True),
    dtype=st.sampled_from(["f16", "f32", "i8", "i32", "u8", "u32", "bool", "c64"]),
    shape=st.lists(st.integers(0, 5), max_size=3),
    seed=st.integers(0, 2**16),
)
def test_spec_roundtrip(name, dtype, shape, seed):
    text = f"{name}={dtype}[{','.join(map(str, shape))}]"
    spec = parse_spec(text)
    assert spec.name == name and spec.shape == tuple(shape) and str(spec) == text
    _, kwargs = make_inputs([spec], seed=seed)
    value = kwargs[name]
    assert value.shape == tuple(shape) and value.dtype == np.dtype(spec.dtype)


def test_parse_literals_and_prng():
    assert parse_spec("n=5").value == 5 and parse_spec("n=5").kind == "literal"
    assert parse_spec("s=1.5").value == 1.5
    assert parse_spec("flag=True").value is True
    assert parse_spec("shape=(3, 4)").value == (3, 4)
    assert parse_spec("mode='sum'").value == "sum"
    assert parse_spec("key=prng").kind == "prng"
    assert parse_spec("7").name is None and parse_spec("7").value == 7


@pytest.mark.parametrize(
    "bad", ["x=q32[3]", "x=f32[a]", "x=", "x=f32[3](5,1)", "x=nonsense(", "x=f32[-1]"]
)
def test_parse_errors(bad):
    with pytest.raises(SpecError):
        parse_spec(bad)


def test_spec_list_rules():
    with pytest.raises(SpecError, match="twice"):
        parse_specs(["x=1", "x=2"])
    with pytest.raises(SpecError, match="positional"):
        parse_specs(["x=1", "f32[3]"])
    assert substitute_size("x=f32[{n}]", 10) == "x=f32[10]"
    with pytest.raises(SpecError, match="--sizes"):
        substitute_size("x=f32[{n}]", None)
    assert [s.shape for s in parse_specs(["x=f32[{n},2]"], size=4)] == [(4, 2)]


def test_split_specs_keeps_brackets_and_quotes():
    assert split_specs("x=f32[10, 3] n=5 shape=(3, 4) s='a b'") == [
        "x=f32[10, 3]",
        "n=5",
        "shape=(3, 4)",
        "s='a b'",
    ]


def test_make_inputs_is_seeded_and_typed():
    specs = parse_specs(["x=f32[4,3]", "m=bool[5]", "i=i32[]", "j=i32[6](2,4)", "n=5", "k=prng"])
    args, kwargs = make_inputs(specs, seed=3)
    assert args == ()
    x, m, i, j = kwargs["x"], kwargs["m"], kwargs["i"], kwargs["j"]
    assert isinstance(x, np.ndarray) and x.dtype == np.float32 and x.shape == (4, 3)
    assert m.dtype == np.bool_ and m.shape == (5,)
    assert i.dtype == np.int32 and i.shape == ()
    assert j.dtype == np.int32 and ((j >= 2) & (j < 4)).all()
    assert kwargs["n"] == 5 and kwargs["k"].shape == (2,)
    again, _ = make_inputs(specs, seed=3)[1], None
    np.testing.assert_array_equal(again["x"], x)
    other = make_inputs(specs, seed=4)[1]
    assert not np.array_equal(other["x"], x)


def test_bind_positional_and_keyword():
    def f(x, n, *, scale=1.0):
        return x

    args, kwargs = make_inputs(parse_specs(["f32[3]", "n=2", "scale=2.0"]), fn=f)
    assert len(args) == 2 and args[1] == 2 and kwargs == {"scale": 2.0}
    with pytest.raises(SpecError, match="do not fit"):
        bind(f, (), {"y": 1})


def test_factory_results():
    assert split_factory_result(((1, 2), {"a": 3})) == ((1, 2), {"a": 3})
    assert split_factory_result((1, 2)) == ((1, 2), {})
    assert split_factory_result({"a": 1}) == ((), {"a": 1})
    with pytest.raises(SpecError):
        split_factory_result(5)

    def fac(n=3, seed=0):
        return (np.full(n, seed, np.float32),), {}

    (x,), _ = call_factory(fac, size=4, seed=7)
    assert x.shape == (4,) and x[0] == 7


# ---------------------------------------------------------------- timing protocol


class FakeClock:
    def __init__(self):
        self.t = 0.0
        self.reads = 0

    def __call__(self):
        self.reads += 1
        self.t += 1.0
        return self.t


def test_measure_excludes_warmup_and_syncs_every_call():
    calls, synced, prepared = [], [], []
    clock = FakeClock()

    def fn(v):
        calls.append(v)
        return v

    def prepare():
        prepared.append(1)
        return (len(prepared),), {}

    t = measure(fn, repeat=3, warmup=2, prepare=prepare, sync=synced.append, clock=clock)
    assert calls == [1, 2, 3, 4, 5]  # 2 warm-up + 3 timed calls, fresh inputs for each
    assert synced == [1, 2, 3, 4, 5]  # every output waited for
    assert t.n == 3 and t.warmup == 2
    assert clock.reads == 6  # the clock is read only around timed calls
    assert t.samples == [1.0, 1.0, 1.0] and t.median == 1.0


def test_measure_time_budget_stops_early():
    clock = FakeClock()
    t = measure(lambda: None, repeat=100, warmup=0, sync=lambda o: o, clock=clock, max_seconds=2.5)
    assert t.n == 3


class FakeStage:
    def __init__(self, log, name, nxt=None, fail=False):
        self.log, self.name, self.nxt, self.fail = log, name, nxt, fail

    def __call__(self, *a, **k):
        self.log.append(self.name)
        if self.fail:
            raise RuntimeError(f"{self.name} failed")
        return self.nxt


class FakeJitted:
    def __init__(self, log, fail_at=None):
        executable = object()
        lowered = type(
            "L", (), {"compile": FakeStage(log, "compile", executable, fail_at == "compile")}
        )()
        traced = type("T", (), {"lower": FakeStage(log, "lower", lowered, fail_at == "lower")})()
        self.trace = FakeStage(log, "trace", traced, fail_at == "trace")
        self.executable = executable


def test_compile_stages_are_timed_apart():
    log: list[str] = []
    jitted = FakeJitted(log)
    out = compile_stages(jitted, (1,), {}, clock=FakeClock())
    assert log == ["trace", "lower", "compile"]
    assert (out.times.trace, out.times.lower, out.times.compile) == (1.0, 1.0, 1.0)
    assert out.times.total == 3.0 and out.executable is jitted.executable and out.error is None


def test_compile_stages_report_the_failing_stage():
    log: list[str] = []
    out = compile_stages(FakeJitted(log, fail_at="lower"), (), {}, clock=FakeClock())
    assert out.failed_stage == "lower" and isinstance(out.error, RuntimeError)
    assert out.times.trace == 1.0 and out.times.lower is None and out.times.total is None


def test_dynamic_arguments_drop_statics():
    def f(x, n, y=0, *, k=1):
        pass

    assert dynamic_arguments(f, (1, 2, 3), {"k": 4}, ("n", "k")) == ((1, 3), {})


def test_steady_state_never_retraces():
    """Warm-up and timed calls go to the compiled executable: the converted function's Python
    body runs once (the trace), however many calls are timed; the eager original runs on
    fresh copies every call."""
    import jax.numpy as jnp

    traces, eager_calls = [], []

    def original(x):
        eager_calls.append(1)
        x[0] = 5.0  # in place: each eager call must get its own copy
        return jnp.sin(x)

    def converted(x):
        traces.append(1)
        return jnp.sin(x.at[0].set(5.0))

    target = Target("f", original, converted, None)
    opts = BenchOptions(repeat=4, warmup=2, plain_jit=False)
    x = np.zeros(6, np.float32)
    run = run_inputs(target, ((x,), {}), opts, resolve_device(None))
    assert run.status == "ok", run.to_json()
    assert traces == [1]
    assert len(eager_calls) == 1 + 1 + 4  # reference call (first warm-up), 1 more warm-up, 4 timed
    assert x[0] == 0.0  # the caller's array was not touched
    assert run.converted.timing.n == 4 and run.converted.timing.warmup == 2
    assert run.original.eager.n == 4
    st = run.converted.stages
    assert st.trace is not None and st.lower is not None and st.compile is not None


# ---------------------------------------------------------------- equivalence check


def test_wrong_converted_function_is_caught():
    import jax.numpy as jnp

    def original(x):
        return jnp.cumsum(x)

    def wrong(x):
        return jnp.cumsum(x) + 1e-3

    run = run_inputs(
        Target("f", original, wrong, None),
        ((np.ones(8, np.float32),), {}),
        BenchOptions(repeat=1, warmup=0, plain_jit=False),
        resolve_device(None),
    )
    assert run.status == "MISMATCH" and not run.ok
    assert run.equivalence is not None
    assert run.equivalence.max_abs_error == pytest.approx(1e-3, rel=1e-2)


def test_compare_outputs_checks_shapes_dtypes_structure():
    a = np.arange(4, dtype=np.float32)
    assert compare_outputs(a, a.copy()).ok
    assert not compare_outputs(a, a[:3]).ok
    assert "dtype" in " ".join(compare_outputs(a, a.astype(np.int32)).all_problems())
    assert not compare_outputs((a, a), [a, a]).ok
    assert "structure" in compare_outputs((a, a), (a,)).all_problems()[0]
    nan = np.array([np.nan, 1.0], np.float32)
    assert compare_outputs(nan, nan.copy()).ok
    assert not compare_outputs(nan, np.array([0.0, 1.0], np.float32)).ok
    # integers compare exactly; tolerances apply to floats
    assert not compare_outputs(np.int32(3), np.int32(4)).ok
    assert compare_outputs(np.float32(1.0), np.float32(1.0 + 1e-7)).ok
    # Python scalars and NumPy float64 compare as jit's canonical dtypes (x64 off)
    assert compare_outputs(3, np.int32(3)).ok
    assert compare_outputs(np.zeros(2), np.zeros(2, np.float32)).ok
    eq = compare_outputs({"a": a, "b": 2.0}, {"a": a + 1, "b": 2.0})
    assert not eq.ok and eq.max_abs_error == 1.0 and eq.leaves[0].path == "['a']"


# ---------------------------------------------------------------- Python API and loading


def test_load_target_converts_and_infers_statics(example):
    t = load_target(example, "zeros_plus")
    assert t.converted is not None and t.conversion is not None
    assert t.conversion.static_argnames == ("n",)
    t = load_target(example, "update")
    assert t.conversion is not None and t.conversion.changes


def test_benchmark_api(example):
    sys.path.insert(0, os.path.dirname(example))
    try:
        import bench_example_mod as mod
    finally:
        sys.path.remove(os.path.dirname(example))
    import autojit

    res = autojit.benchmark(
        mod.zeros_plus,
        np.arange(6, dtype=np.float32),
        n=3,
        bench_options=BenchOptions(repeat=2, warmup=1),
    )
    assert res.ok, res.to_json()
    assert res.static_argnames == ["n"]
    assert res.run.original.jit_error is not None  # plain jit: n is traced
    assert res.run.converted.timing is not None and res.run.speedup is not None
    res = autojit.benchmark(
        mod.update, np.zeros(5, np.float32), 2, 7.0, bench_options=BenchOptions(repeat=1)
    )
    assert res.ok and res.run.original.jit_error.type == "TypeError"
    # a closure: converted from its own source, compiled with its free variables
    res = autojit.benchmark(mod.make_closure(), np.zeros(4, np.float32), 1)
    assert res.ok, res.to_json()
    line = EXAMPLE.splitlines().index("        x[i] = scale") + 1
    assert any(f"bench_example_mod.py:{line}:" in c for c in res.changes), res.changes


# ---------------------------------------------------------------- CLI


def _cli(args):
    return CliRunner().invoke(bench_command, args)


def test_cli_json_shape(example):
    r = _cli([f"{example}::update", "x=f32[50]", "i=3", "y=1.5", "--repeat", "2", "--json"])
    assert r.exit_code == 0, r.output + r.stderr
    data = json.loads(r.stdout)
    assert data["ok"] is True and data["function"] == "update"
    assert {"backend", "device", "device_kind", "jax_version", "static_argnames", "changes"} <= set(
        data
    )
    (run,) = data["runs"]
    assert run["status"] == "ok" and run["inputs"] == ["f32[50]", "3", "1.5"]
    assert run["original"]["eager"]["n"] == 2
    assert run["original"]["jit"]["ok"] is False
    assert run["original"]["jit"]["error"]["type"] == "TypeError"
    conv = run["converted"]
    assert set(conv["compile"]) == {"trace_s", "lower_s", "compile_s", "total_s"}
    assert conv["timing"]["n"] == 2 and conv["timing"]["median_s"] > 0
    assert conv["cost_analysis"] is None or "flops" in conv["cost_analysis"]
    assert run["equivalence"]["ok"] is True and run["equivalence"]["max_abs_error"] == 0.0
    assert run["speedup"] > 0
    assert "eager original" in r.stderr  # the table goes to stderr


def test_cli_sizes_and_factory(example):
    r = _cli(
        [
            f"{example}::zeros_plus",
            "-e",
            "x=f32[{n}] n=2",
            "--sizes",
            "4,16",
            "--repeat",
            "1",
            "--json",
        ]
    )
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert [run["size"] for run in data["runs"]] == [4, 16]
    assert data["runs"][1]["inputs"] == ["f32[16]", "2"]
    r = _cli(
        [f"{example}::update", "--inputs", "make_inputs", "--sizes", "5", "--repeat", "1", "--json"]
    )
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["runs"][0]["inputs"] == ["f32[5]", "1", "3.0"]


def test_cli_mismatch_exits_1(example, monkeypatch):
    import jax.numpy as jnp

    import autojit.bench.load as load

    real = load.load_target

    def wrong_target(path, func, **kw):
        t = real(path, func, **kw)
        t.converted = lambda x, i, y: jnp.sin(x) * 2  # forgets the update
        return t

    monkeypatch.setattr(load, "load_target", wrong_target)
    r = _cli([f"{example}::update", "x=f32[8]", "i=1", "y=9.0", "--repeat", "1"])
    assert r.exit_code == 1
    assert "MISMATCH" in r.stderr


def test_cli_function_that_raises_is_reported(example):
    r = _cli([f"{example}::boom", "x=f32[3]", "--repeat", "1", "--json"])
    assert r.exit_code == 1
    assert r.exception is None or isinstance(r.exception, SystemExit)
    run = json.loads(r.stdout)["runs"][0]
    assert run["original"]["eager_error"]["type"] == "ValueError"
    assert "boom on purpose" in run["original"]["eager_error"]["message"]
    assert "ValueError" in r.stderr


def test_cli_missing_device(example):
    r = _cli([f"{example}::update", "x=f32[8]", "i=1", "y=9.0", "--device", "tpu"])
    assert r.exit_code == 2
    assert "no tpu device" in r.stderr and "cpu" in r.stderr
    with pytest.raises(DeviceError, match="Devices present"):
        resolve_device("tpu")


def test_cli_usage_errors(example):
    assert _cli([f"{example}::update"]).exit_code == 2  # inputs needed
    r = _cli([f"{example}::nope", "x=1"])
    assert r.exit_code == 2 and "update" in r.stderr
    r = _cli([f"{example}::update", "x=q8[3]"])
    assert r.exit_code == 2 and "unknown dtype" in r.stderr
    assert _cli([f"{example}::update", "x=f32[3]", "--sizes", "3"]).exit_code == 2


def test_cli_plot_without_matplotlib(example, tmp_path):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        r = _cli(
            [f"{example}::update", "x=f32[3]", "i=0", "y=1.0", "--plot", str(tmp_path / "p.png")]
        )
        assert r.exit_code == 2 and "matplotlib" in r.stderr
    else:
        r = _cli(
            [
                f"{example}::update",
                "x=f32[3]",
                "i=0",
                "y=1.0",
                "--repeat",
                "1",
                "--plot",
                str(tmp_path / "p.png"),
            ]
        )
        assert r.exit_code == 0 and (tmp_path / "p.png").exists()


def test_python_m_autojit_bench(example):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "autojit.bench",
            f"{example}::zeros_plus",
            "x=f32[10]",
            "n=4",
            "--repeat",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["static_argnames"] == ["n"] and data["runs"][0]["status"] == "ok"


def test_cli_module_does_not_import_jax():
    code = "import sys, autojit.bench.cli; print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_readme_table_script(tmp_path):
    (tmp_path / "item_assignment.py").write_text(
        textwrap.dedent(
            """\
            import jax.numpy as jnp
            import numpy as np


            def fill(x, i, v):
                x[i] = v
                return jnp.cumsum(x)


            def fill_reference(x, i, v):
                return jnp.cumsum(x.at[i].set(v))


            BENCH = {"fill": ["x=f32[64]", "i=3", "v=2.0"]}


            # bench: head x=f32[32] n=4
            def head(x, n):
                return jnp.zeros(n) + x[:n]


            def masked(x, m):
                x[m] = 0.0
                return jnp.asarray(x) * 2


            def masked_inputs(seed=0):
                rng = np.random.default_rng(seed)
                return (rng.standard_normal(16).astype(np.float32), rng.random(16) < 0.5), {}
            """
        )
    )
    (tmp_path / "nothing.py").write_text("def f(x):\n    return x\n")
    script = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "README_table.py")
    out = subprocess.run(
        [sys.executable, script, "--examples", str(tmp_path), "--repeat", "1", "--warmup", "1"],
        capture_output=True,
        text=True,
        env=dict(os.environ, JAX_PLATFORMS="cpu"),
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("|")]
    assert "converted / reference" in lines[0] and "plain `jax.jit` of original" in lines[0]
    body = "\n".join(lines[2:])
    assert len(lines) == 5, out.stdout
    for name in ("fill", "head", "masked"):
        assert f"item_assignment.py::{name}`" in body
    fill_row = next(ln for ln in lines if "::fill`" in ln).split("|")
    assert fill_row[3].strip() == "`TypeError`" and fill_row[-2].strip() == "ok"
    assert fill_row[7].strip().endswith("x")  # converted / reference ratio
    assert "skipped" in out.stderr and "nothing.py" in out.stderr


def test_decorated_functions_are_benched_as_written(tmp_path):
    path = tmp_path / "bench_decorated_mod.py"
    path.write_text(
        textwrap.dedent(
            """\
            import jax
            import jax.numpy as jnp

            import autojit


            @autojit.convert
            def put(x, i, y):
                x[i] = y
                return jnp.sin(x)


            @jax.jit
            def double(x):
                return x * 2
            """
        )
    )
    r = _cli([f"{path}::put", "x=f32[10]", "i=2", "y=1.0", "--repeat", "1", "--json"])
    assert r.exit_code == 0, r.stderr
    run = json.loads(r.stdout)["runs"][0]
    # the eager original is the undecorated function: plain jit of it fails as it would
    assert run["original"]["jit"]["error"]["type"] == "TypeError" and run["status"] == "ok"
    r = _cli([f"{path}::double", "x=f32[10]", "--repeat", "1", "--json"])
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["runs"][0]["original"]["jit"]["ok"] is True


def test_eager_original_falls_back_to_jax_arrays():
    def original(x, i):
        return x.at[i].set(0.0) * 2  # needs a JAX array

    x = np.ones(4, np.float32)
    dev = resolve_device(None)
    run = run_inputs(
        Target("f", original, original, None), ((x, 1), {}), BenchOptions(repeat=1), dev
    )
    assert run.ok and run.original.eager_inputs == "jax"
    run = run_inputs(
        Target("f", original, original, None),
        ((x, 1), {}),
        BenchOptions(repeat=1, eager_inputs="numpy"),
        dev,
    )
    assert run.status == "original raised"
    assert run.original.eager_error.type == "AttributeError"


def test_cli_reference_ratio(example):
    r = _cli(
        [f"{example}::update", "x=f32[64]", "i=3", "y=1.5", "--reference", "update_reference"]
        + ["--repeat", "2", "--json"]
    )
    assert r.exit_code == 0, r.stderr
    run = json.loads(r.stdout)["runs"][0]
    assert run["reference"]["ok"] is True and run["reference_equivalence"]["ok"] is True
    assert run["converted_over_reference"] > 0
    assert "converted / reference" in r.stderr
    assert (
        _cli([f"{example}::update", "x=f32[4]", "i=0", "y=1.0", "--reference", "nope"]).exit_code
        == 2
    )


def test_cli_donate_keeps_inputs_for_the_reference(example):
    r = _cli(
        [f"{example}::update", "x=f32[64]", "i=3", "y=1.5", "--donate", "--reference"]
        + ["update_reference", "--repeat", "3", "--json"]
    )
    assert r.exit_code == 0, r.stderr
    run = json.loads(r.stdout)["runs"][0]
    assert run["converted"]["donated"] == ["x"]
    assert run["converted"]["timing"]["n"] == 3 and run["reference"]["ok"] is True


def test_cli_json_survives_user_prints(example):
    r = _cli([f"{example}::chatty", "x=f32[4]", "--repeat", "1", "--json"])
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["runs"][0]["status"] == "ok"
    assert "total:" in r.stderr
