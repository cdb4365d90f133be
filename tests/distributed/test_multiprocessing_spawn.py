"""``torch.multiprocessing.spawn`` over MPI: PyTorch's DDP-tutorial pattern, unchanged.

Each test writes a small script to ``tmp_path`` and runs it as a subprocess, once
with ``import learntorch as torch`` and, for the differential tests, once with real
PyTorch; the printed lines must be the same.  The spawned children are MPI ranks
started by ``learntorch.distributed.run``'s launcher (``mpiexec``).
"""
from __future__ import annotations

import importlib.util
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import learntorch as lt
import learntorch.multiprocessing as lmp
from learntorch.distributed.run import find_mpiexec

from conftest import TORCH_REASON

if importlib.util.find_spec("mpi4py") is None:
    pytest.skip("learntorch.distributed needs mpi4py (pip install -e '.[dist]')", allow_module_level=True)
try:
    find_mpiexec()
except FileNotFoundError:
    pytest.skip("no mpiexec next to Python or on PATH (pip install -e '.[dist]' brings the mpich wheel's)",
                allow_module_level=True)

JOB_TIMEOUT_S = 120  # longer is a hang: fail instead of blocking the suite

HEADERS = {
    "torch": "import torch\nimport torch.distributed as dist\nimport torch.multiprocessing as mp\n",
    # the two spellings of the module: an attribute of the package, and the import
    "learntorch": "import learntorch as torch\nimport learntorch.distributed as dist\nmp = torch.multiprocessing\n",
    "learntorch-import": "import learntorch as torch\nimport learntorch.distributed as dist\n"
                         "import learntorch.multiprocessing as mp\n",
}


def _torch_or_skip() -> None:
    pytest.importorskip("torch", reason=TORCH_REASON)


def _folder(tmp_path: Path, flavour: str) -> Path:
    return tmp_path / f"with_{flavour.replace('-', '_')}"


def _run(tmp_path: Path, body: str, flavour: str, *args: str, name: str = "script.py") -> subprocess.CompletedProcess:
    script = _folder(tmp_path, flavour) / name
    script.parent.mkdir(exist_ok=True)
    script.write_text(HEADERS[flavour] + textwrap.dedent(body))
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          timeout=JOB_TIMEOUT_S, cwd=script.parent)


def _ok(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, f"exit status {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _oracle_ok(tmp_path: Path, body: str, *args: str) -> str:
    """The same script under real torch, with one retry where torch's gloo aborted: its
    ``destroy_process_group`` now and then ends a rank with SIGABRT ("terminate called without an
    active exception") after all its work is done, a race in torch's teardown that is no fault of the
    program.  learntorch's own runs get no retry."""
    done = _run(tmp_path, body, "torch", *args)
    if done.returncode != 0 and "SIGABRT" in done.stderr:
        done = _run(tmp_path, body, "torch", *args)
    return _ok(done)


# The tutorial: MASTER_ADDR/PORT, init_process_group with rank and world size, DDP, a few steps.
TUTORIAL = """
import os

def run(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12355"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(100 + rank)   # every rank its own data
    for step in range(3):
        x, y = torch.randn(8, 4, generator=g), torch.randn(8, 2, generator=g)
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        t = torch.tensor([loss.item()])
        dist.all_reduce(t)
        if rank == 0:
            print(f"step {step} mean loss {t.item() / world_size:.5f}")
    weights = [torch.zeros(8) for _ in range(world_size)]
    dist.all_gather(weights, model.weight.detach().flatten().contiguous())
    if rank == 0:
        print("same weights on every rank:", all(torch.equal(w, weights[0]) for w in weights))
        print("weight", [round(v, 5) for v in model.weight.flatten().tolist()])
    dist.destroy_process_group()

if __name__ == "__main__":
    print("parent starts")
    mp.spawn(run, args=(2,), nprocs=2, join=True)
    print("parent done")
"""


def test_ddp_tutorial_gives_pytorchs_numbers(tmp_path):
    _torch_or_skip()
    ours = _ok(_run(tmp_path, TUTORIAL, "learntorch"))
    theirs = _oracle_ok(tmp_path, TUTORIAL)
    assert ours == theirs
    assert ours.startswith("parent starts\nstep 0 mean loss") and ours.endswith("parent done\n")
    assert "same weights on every rank: True" in ours


COLLECTIVES = """
def run(rank, world_size, scale):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    assert (dist.get_rank(), dist.get_world_size()) == (rank, world_size)
    t = torch.arange(3.0) + rank * scale
    dist.all_reduce(t)
    b = torch.full((2,), float(rank))
    dist.broadcast(b, src=world_size - 1)
    seen = [torch.zeros(2) for _ in range(world_size)]
    dist.all_gather(seen, torch.cat([t[:1], b[:1]]))
    if rank == 0:
        print("all_reduce", t.tolist())
        print("gathered", [s.tolist() for s in seen])
    dist.destroy_process_group()

if __name__ == "__main__":
    mp.spawn(run, args=(3, 10.0), nprocs=3)
"""


def test_collectives_in_three_spawned_ranks(tmp_path):
    out = _ok(_run(tmp_path, COLLECTIVES, "learntorch-import"))
    assert out.splitlines() == ["all_reduce [30.0, 33.0, 36.0]", "gathered [[30.0, 2.0], [30.0, 2.0], [30.0, 2.0]]"]


FAILURES = """
import os, signal, sys, time

MODE = sys.argv[1]

def run(rank, world_size, marker):
    if MODE == "collective":   # rank 0 waits in all_reduce while rank 1 fails
        dist.init_process_group("gloo", rank=rank, world_size=world_size)
        t = torch.ones(2)
        if rank == 1:
            raise ValueError(f"boom on rank {rank}")
        dist.all_reduce(t)
    if rank == 1:
        while not os.path.exists(marker):   # fail only once rank 0 is done (else it is stopped, at random)
            time.sleep(0.01)
        if MODE == "raise":
            raise ValueError(f"boom on rank {rank}")
        if MODE == "exit":
            sys.exit(3)
        if MODE == "os_exit":
            os._exit(4)
        if MODE == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
    if MODE != "collective":
        print(f"rank {rank} finished", flush=True)
        open(marker, "w").close()

if __name__ == "__main__":
    try:
        mp.spawn(run, args=(2, os.path.abspath("rank0.done")), nprocs=2)
    except Exception as e:
        lines = str(e).strip().splitlines()
        print(type(e).__name__, "index", e.error_index, "exit_code", getattr(e, "exit_code", None))
        print("first:", lines[0])
        print("last:", lines[-1])
        print("pid is an int:", isinstance(e.error_pid, int))
"""


def test_a_failing_child_raises_process_raised_exception_as_pytorch(tmp_path):
    _torch_or_skip()
    ours = _ok(_run(tmp_path, FAILURES, "learntorch", "raise"))
    theirs = _oracle_ok(tmp_path, FAILURES, "raise")
    assert ours == theirs
    assert ours.splitlines() == ["rank 0 finished", "ProcessRaisedException index 1 exit_code None",
                                 "first: -- Process 1 terminated with the following error:",
                                 "last: ValueError: boom on rank 1", "pid is an int: True"]


def test_a_child_failing_while_the_other_waits_in_a_collective(tmp_path):
    done = _run(tmp_path, FAILURES, "learntorch", "collective")
    lines = _ok(done).splitlines()
    # rank 0's all_reduce stopped too (DistBackendError), but the first failure is reported
    start = lines.index("ProcessRaisedException index 1 exit_code None")
    assert lines[start:start + 3] == ["ProcessRaisedException index 1 exit_code None",
                         "first: -- Process 1 terminated with the following error:",
                         "last: ValueError: boom on rank 1"]


@pytest.mark.parametrize("mode, code", [("exit", 3), ("os_exit", 4)])
def test_a_child_that_exits_raises_process_exited_exception(tmp_path, mode, code):
    # the same lines as PyTorch 2.13 prints for this script
    lines = _ok(_run(tmp_path, FAILURES, "learntorch", mode)).splitlines()
    assert lines == ["rank 0 finished", f"ProcessExitedException index 1 exit_code {code}",
                     f"first: process 1 terminated with exit code {code}",
                     f"last: process 1 terminated with exit code {code}", "pid is an int: True"]


def test_a_child_killed_by_a_signal_raises_process_exited_exception(tmp_path):
    # MPI's launcher then ends the whole job (and prints a notice): only the parent's lines are checked
    lines = _ok(_run(tmp_path, FAILURES, "learntorch", "kill")).splitlines()
    start = lines.index("ProcessExitedException index 1 exit_code -9")
    assert lines[start:] == ["ProcessExitedException index 1 exit_code -9",
                             "first: process 1 terminated with signal SIGKILL",
                             "last: process 1 terminated with signal SIGKILL", "pid is an int: True"]


NO_JOIN = """
import time

def slow(rank, seconds):
    time.sleep(seconds)
    print("rank", rank, "slept", flush=True)

if __name__ == "__main__":
    context = mp.spawn(slow, args=(1.0,), nprocs=2, join=False)
    print(type(context).__name__)
    pids = context.pids()
    print("pids", len(pids), all(isinstance(p, int) and p > 0 for p in pids), len(set(pids)))
    print("join(timeout=0.05)", context.join(timeout=0.05))
    while not context.join():
        pass
    print("joined again", context.join(), context.pids() == pids)
"""


def test_join_false_gives_a_process_context(tmp_path):
    lines = _ok(_run(tmp_path, NO_JOIN, "learntorch")).splitlines()
    parent = [line for line in lines if not line.startswith("rank")]
    assert parent == ["ProcessContext", "pids 2 True 2", "join(timeout=0.05) False", "joined again True True"]
    assert sorted(line for line in lines if line.startswith("rank")) == ["rank 0 slept", "rank 1 slept"]


NOT_FOUND = """
import sys

if __name__ == "__main__":
    if sys.argv[1] == "lambda":
        mp.spawn(lambda rank: None, nprocs=2)
    def in_main_block(rank):
        pass
    try:
        mp.spawn(in_main_block, nprocs=1)
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_a_lambda_is_refused_with_pythons_pickling_error(tmp_path):
    done = _run(tmp_path, NOT_FOUND, "learntorch", "lambda")
    assert done.returncode == 1
    assert "_pickle.PicklingError: Can't pickle <function <lambda>" in done.stderr


def test_a_function_in_the_main_block_is_not_found_in_the_child(tmp_path):
    # as with PyTorch: the child cannot unpickle it (Python's AttributeError, printed), exit code 1
    done = _run(tmp_path, NOT_FOUND, "learntorch", "main-block")
    assert _ok(done) == "ProcessExitedException process 0 terminated with exit code 1\n"
    assert "AttributeError: Can't get attribute 'in_main_block' on <module '__mp_main__'" in done.stderr
    assert 'not inside `if __name__ == "__main__":`' in done.stderr


IMPORTED = """
from helpers import Box, work

if __name__ == "__main__":
    mp.spawn(work, args=(torch.tensor([1.5, 2.0]), Box(7)), nprocs=1)
"""


def test_fn_from_an_importable_module_and_pickled_args(tmp_path):
    _folder(tmp_path, "learntorch").mkdir()
    (_folder(tmp_path, "learntorch") / "helpers.py").write_text(textwrap.dedent("""
        class Box:
            def __init__(self, value):
                self.value = value

        def work(rank, t, box):
            print("rank", rank, "got", (t * 2).tolist(), box.value, type(t).__module__.split(".")[0])
        """))
    assert _ok(_run(tmp_path, IMPORTED, "learntorch")) == "rank 0 got [3.0, 4.0] 7 learntorch\n"


# ------------------------------------------------------------------ in this process: the module's names
def test_pythons_multiprocessing_names_are_there():
    import multiprocessing
    for name in multiprocessing.__all__:
        assert hasattr(lmp, name), name
    assert lt.multiprocessing is lmp
    assert lmp.get_context("spawn").Process is multiprocessing.get_context("spawn").Process
    assert lmp.cpu_count() == multiprocessing.cpu_count()
    for name in ("spawn", "start_processes", "ProcessContext", "ProcessRaisedException", "ProcessExitedException",
                 "SpawnContext", "set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"):
        assert name in lmp.__all__, name


def test_the_names_match_pytorchs():
    pytest.importorskip("torch", reason=TORCH_REASON)
    import torch.multiprocessing as tmp
    public = {n for n in dir(tmp) if not n.startswith("_")} - {"torch", "init_reductions", "reductions",
                                                                "multiprocessing", "sys"}
    assert public <= set(dir(lmp))
    assert set(tmp.__all__) <= set(lmp.__all__)
    assert lmp.get_all_sharing_strategies() == tmp.get_all_sharing_strategies()
    assert lmp.get_sharing_strategy() == tmp.get_sharing_strategy()


def test_exceptions_as_pytorchs():
    from learntorch.multiprocessing.spawn import ProcessException
    assert issubclass(lmp.ProcessRaisedException, ProcessException)
    assert issubclass(lmp.ProcessExitedException, ProcessException)
    assert issubclass(ProcessException, Exception)
    e = lmp.ProcessExitedException("process 1 terminated with signal SIGKILL", 1, 42, -9, "SIGKILL")
    back = pickle.loads(pickle.dumps(e))
    assert (back.msg, back.error_index, back.error_pid, back.exit_code, back.signal_name) == \
        ("process 1 terminated with signal SIGKILL", 1, 42, -9, "SIGKILL")


def test_sharing_strategy_stand_ins():
    before = lmp.get_sharing_strategy()
    try:
        lmp.set_sharing_strategy("file_system")
        assert lmp.get_sharing_strategy() == "file_system"
        with pytest.raises(AssertionError, match="invalid sharing strategy 'nope'"):
            lmp.set_sharing_strategy("nope")
    finally:
        lmp.set_sharing_strategy(before)


def test_other_start_methods_warn_as_pytorch():
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        with pytest.raises(Exception):  # a lambda: the pickling error, before any process starts
            lmp.spawn(lambda rank: None, nprocs=1, start_method="fork")
