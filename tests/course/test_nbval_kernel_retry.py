"""The nbval steps' plugin (tests/nbval_plugin/kernel_start_retry.py): a kernel that dies while
starting is started again, what it printed is reported, and one that keeps dying still fails."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nbval", reason="nbval is not installed (make setup installs the test extra)")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "nbval_plugin"))
import kernel_start_retry  # noqa: E402


def fake_start(deaths: int) -> Any:
    calls = []

    def start(*args: Any, stdout: Any = None, stderr: Any = None, **kwargs: Any) -> Any:
        calls.append(kwargs)
        if len(calls) <= deaths:
            stderr.write(f"zmq.error.ZMQError: Address already in use (start {len(calls)})")
            stderr.flush()
            raise RuntimeError("Kernel died before replying to kernel_info")
        return "km", "kc"
    return start, calls


def test_a_kernel_that_dies_once_is_started_again_and_says_so(monkeypatch: Any, capsys: Any) -> None:
    start, calls = fake_start(deaths=1)
    monkeypatch.setattr(kernel_start_retry, "_start_new_kernel", start)
    # as nbval calls it: the kernel's stderr to os.devnull
    assert kernel_start_retry.start_new_kernel(kernel_name="k", stderr=open(os.devnull, "w")) == ("km", "kc")
    assert len(calls) == 2
    err = capsys.readouterr().err
    assert "try 1 of 3" in err and "Address already in use (start 1)" in err


def test_a_kernel_that_keeps_dying_fails_with_its_output(monkeypatch: Any) -> None:
    start, calls = fake_start(deaths=5)
    monkeypatch.setattr(kernel_start_retry, "_start_new_kernel", start)
    with pytest.raises(RuntimeError, match=r"(?s)Kernel died.*the kernel printed:.*\(start 3\)"):
        kernel_start_retry.start_new_kernel(kernel_name="k")
    assert len(calls) == 3
