"""benchmarks/run.py runs: every case once (``--smoke``), with and without PyTorch, and ``--profile``.

Not a measurement -- the figures of a smoke run mean nothing -- but the script must
keep running as learntorch changes, and its checks (learntorch computes the same
numbers as PyTorch and as the hand-written NumPy) must keep passing.  Each test
starts a new interpreter, as ``make bench`` does (the script sets the thread
counts before NumPy loads and freezes the garbage collector).
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

RUN = Path(__file__).parents[2] / "benchmarks" / "run.py"
CASES = ["small-op", "small-op-nograd", "mlp-32", "mlp-256", "mlp-2048", "gru", "lstm", "transformer"]
HAS_TORCH = importlib.util.find_spec("torch") is not None

pytestmark = pytest.mark.slow  # a new interpreter imports NumPy, torch and learntorch: seconds


def run(*args: str) -> str:
    proc = subprocess.run([sys.executable, str(RUN), *args], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, f"run.py {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_list_names_every_case() -> None:
    listed = [line.split()[0] for line in run("--list", "--no-torch").splitlines()]
    assert listed == CASES


def test_smoke_every_case(tmp_path: Path) -> None:
    out = run("--smoke", "--json", str(tmp_path / "r.json"))
    header = next(line for line in out.splitlines() if line.startswith("work "))
    assert [cell.strip() for cell in header.split("|")] == ["work", "NumPy", "PyTorch", "learntorch", "lt÷torch",
                                                            "lt÷numpy", "target", "met?"]
    result = json.loads((tmp_path / "r.json").read_text())
    rows = {r["case"]: r for r in result["results"]}
    assert list(rows) == CASES
    assert result["info"]["threads"] == 1
    targets = {"small-op": ("torch", 1.5), "small-op-nograd": ("torch", 1.5), "mlp-32": ("numpy", 1.2),
               "mlp-256": ("numpy", 1.05), "mlp-2048": ("numpy", 1.05), "gru": ("torch", 1.3),
               "lstm": ("torch", 1.3), "transformer": ("torch", 1.5)}
    for name, r in rows.items():
        assert (r["target"]["vs"], r["target"]["max"]) == targets[name]
        assert r["learntorch"] > 0
        assert (r["numpy"] is not None) == (name.startswith(("small-op", "mlp")))
        assert (r["torch"] is not None) == HAS_TORCH
        assert f"lt÷{targets[name][0]} ≤ {targets[name][1]:g}" in out
        if HAS_TORCH:
            assert r["met"] in (True, False)
    # --compare reads the file just written
    out = run("--smoke", "--no-torch", "--case", "small-op", "--compare", str(tmp_path / "r.json"))
    assert "learntorch before" in out and "small-op" in out.split("learntorch before", 1)[1]


def test_smoke_without_torch() -> None:
    out = run("--smoke", "--no-torch", "--case", "small-op", "--case", "mlp-32", "--case", "gru")
    assert "torch absent (--no-torch)" in out
    rows = {line.split()[0] + " " + line.split()[1]: [cell.strip() for cell in line.split("|")]
            for line in out.splitlines() if "|" in line and not line.startswith("work ")}
    small, mlp, gru = rows["small op"], rows["MLP 784-512-256-10"], rows["GRU fwd+bwd,"]
    assert small[2] == "absent" and small[4] == "absent" and small[7] == "n/a (no torch)"
    assert mlp[2] == "absent" and mlp[7] in ("yes", "NO")  # its target is against NumPy: still judged
    assert gru[1] == "-" and gru[2] == "absent" and float(gru[3]) > 0 and gru[7] == "n/a (no torch)"


def test_profile_prints_the_top_lines() -> None:
    out = run("--smoke", "--profile", "small-op", "--profile-lines", "5")
    assert "cProfile of learntorch, case small-op" in out
    assert "Ordered by: internal time" in out and "tottime" in out
    assert "learntorch/" in out  # paths relative to the repository
