"""learntorch.distributed and nn.parallel.DistributedDataParallel (chapter 08).

The multi-process tests start real MPI jobs (``mpiexec`` from the mpich wheel, or
``python -m learntorch.distributed.run``) running ``tests/distributed/dist_scripts/ddp_worker.py``
once with 2 ranks and once with 3; each rank writes what it saw to a JSON file,
and the tests below check it: collective semantics, DDP against one process on
the full batch (learntorch and PyTorch), buckets, ``no_sync``, buffers, unused
parameters.  Other tests kill or stall a rank and check that the others stop
with a clear error within the timeout.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

import learntorch as lt
import learntorch.distributed as dist
from learntorch.distributed.run import find_mpiexec, launch_command
from learntorch.nn.parallel import DistributedDataParallel as DDP
from learntorch.nn.parallel.reducer import assign_buckets

SCRIPTS = Path(__file__).parent / "dist_scripts"
ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(SCRIPTS))
import ddp_problem as P  # noqa: E402

if importlib.util.find_spec("mpi4py") is None:
    pytest.skip("learntorch.distributed needs mpi4py (pip install -e '.[dist]')", allow_module_level=True)
try:
    MPIEXEC = find_mpiexec()
except FileNotFoundError:
    pytest.skip("no mpiexec next to Python or on PATH (pip install -e '.[dist]' brings the mpich wheel's)",
                allow_module_level=True)

JOB_TIMEOUT_S = 120  # a job that takes longer is a hang: fail instead of blocking the suite


def _run(command: list[str]) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=JOB_TIMEOUT_S, cwd=ROOT)
    return done, time.monotonic() - start


def _job(nprocs: int, script: str, *args: str, wrapper: bool = False) -> list[str]:
    target = [str(SCRIPTS / script), *args]
    if wrapper:
        return [sys.executable, "-m", "learntorch.distributed.run", "-n", str(nprocs), *target]
    return [MPIEXEC, "-n", str(nprocs), sys.executable, *target]


# ============================================================================ the 2- and 3-rank jobs
@pytest.fixture(scope="module", params=[2, 3], ids=["2-ranks-run-wrapper", "3-ranks-mpiexec"])
def ranks(request, tmp_path_factory) -> list[dict]:
    """Run the worker on N ranks (2: through learntorch.distributed.run; 3: plain mpiexec)."""
    n = request.param
    out = tmp_path_factory.mktemp(f"ddp{n}")
    done, _ = _run(_job(n, "ddp_worker.py", str(out), wrapper=n == 2))
    assert done.returncode == 0, f"the {n}-rank job failed:\n{done.stdout}\n{done.stderr}"
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]


def _close(a, b) -> None:
    for x, y in zip(a, b, strict=True):
        np.testing.assert_allclose(np.array(x), np.array(y), rtol=1e-5, atol=1e-6)


def _same_on_every_rank(ranks: list[dict], key: str) -> None:
    for seen in ranks[1:]:
        assert seen[key] == ranks[0][key], f"{key} differs between rank 0 and rank {seen['rank']}"


def test_ranks_know_who_they_are(ranks):
    n = len(ranks)
    assert [s["rank"] for s in ranks] == list(range(n))
    assert {s["world"] for s in ranks} == {n}
    assert {s["backend"] for s in ranks} == {"gloo"}  # an alias of mpi, reported by the name asked for


def test_launcher_sets_torchrun_variables(ranks):
    wrapped = len(ranks) == 2
    assert [s["env_rank"] for s in ranks] == ([str(r) for r in range(2)] if wrapped else [None] * 3)


def test_all_reduce_is_in_place_with_every_op(ranks):
    n = len(ranks)
    for s in ranks:
        assert s["sum"] == [n * (n + 1) / 2] * 3
        assert s["version_bumped"]
        assert s["MAX"] == [float(n), 0.0]
        assert s["MIN"] == [1.0, -float(n - 1)]
        assert s["PRODUCT"] == [float(np.prod(range(1, n + 1))), 0.0]
        assert s["AVG"] == pytest.approx([(n + 1) / 2, -(n - 1) / 2])
        assert s["int_sum"] == [n * (n + 1) // 2, 10 * n * (n - 1) // 2]
        # a transposed (non-contiguous) view: the result lands in the base tensor
        expect = (np.arange(6.).reshape(2, 3) * n + n * (n - 1) / 2).tolist()
        assert s["view_base"] == expect
        assert s["async_wait"] is True and s["async_done"] is True
        assert s["async_value"] == [n * (n + 1) / 2] * 2


def test_broadcast_and_barrier(ranks):
    n = len(ranks)
    for s in ranks:
        assert s["broadcast"] == [float(n - 1)] * 2
        assert s["barrier_returns"] is None
    for s in ranks[1:]:  # rank 0 slept 0.4 s before the barrier: the others waited for it
        assert s["barrier_wait"] > 0.3


def test_gather_family(ranks):
    n = len(ranks)
    for s in ranks:
        assert s["all_gather"] == [[float(r), float(r * r)] for r in range(n)]
        assert s["all_gather_into_tensor"] == [v for r in range(n) for v in (float(r), 1.0)]
        assert s["reduce"] == ([n * (n + 1) / 2] * 2 if s["rank"] == 0 else [s["rank"] + 1.0] * 2)
        assert s["gather"] == ([float(r) for r in range(n)] if s["rank"] == 1 else None)
        assert s["scatter"] == [float(s["rank"]), 7.0]


def test_point_to_point_ring(ranks):
    n = len(ranks)
    for s in ranks:
        assert s["recv_source"] == (s["rank"] - 1) % n
        assert s["recv_value"] == float((s["rank"] - 1) % n)


def test_object_collectives(ranks):
    n = len(ranks)
    for s in ranks:
        r = s["rank"]
        assert s["all_gather_object"] == [{"rank": k, "name": "r" * k} for k in range(n)]
        assert s["broadcast_object_list"] == [{"lr": 0.1}, "s" * n]
        assert s["gather_object"] == ([[k, "x" * k] for k in range(n)] if r == 1 else None)
        assert s["scatter_object_list"] == {"for": r, "pad": "p" * r}
        sender = (r - 1) % n
        assert s["recv_object_list_source"] == sender
        assert s["recv_object_list"] == [sender, "hi" * sender]


def test_reduce_scatter_and_all_to_all(ranks):
    n = len(ranks)
    for s in ranks:
        r = s["rank"]
        assert s["reduce_scatter_tensor"] == [n * (2 * r + j) + n * (n - 1) / 2 for j in range(2)]
        assert s["reduce_scatter"] == [10 * r + n - 1, n - 1]       # MAX over the ranks of [10r + k, k]
        assert s["all_to_all_single"] == [100. * k + r for k in range(n)]
        assert s["all_to_all_single_splits"] == [100. * k + r for k in range(n) for _ in range(r + 1)]
        assert s["all_to_all"] == [[10. * k + r] * (r + 1) for k in range(n)]
        assert s["batch_isend_irecv"] == float((r - 1) % n)
        assert s["future_value"] == [2. * n]  # then() on an all_reduce's Future


def test_new_group_and_rank_translation(ranks):
    n = len(ranks)
    for s in ranks:
        r = s["rank"]
        assert s["everyone_ranks"] == list(range(n))
        assert s["tail_is_member"] == (r > 0)
        assert s["tail_all_reduce_returns"] is None
        if r == 0:  # left out: -1, a warning, and the collective does nothing (PyTorch's behaviour)
            assert s["tail_rank_size"] == [-1, -1]
            assert s["tail_warned"] and s["tail_sum"] == 0.0
            continue
        assert s["tail_rank_size"] == [r - 1, n - 1]
        assert s["tail_sum"] == n * (n - 1) / 2 and not s["tail_warned"]
        assert s["tail_ranks"] == list(range(1, n))                 # sorted, as PyTorch sorts them
        assert s["tail_group_rank_of_me"] == r - 1 and s["tail_global_of_0"] == 1
        assert s["tail_broadcast"] == n - 1.0                       # src is a global rank
        assert s["tail_broadcast_group_src"] == 1.0                 # group_src 0 is global rank 1
        assert s["tail_all_gather_object"] == [f"rank{k}" for k in range(1, n)]
        assert s["tail_not_member_error"].startswith("Global rank 0 is not part of group")
        assert s["tail_bad_src_error"].startswith("Global rank 0 is not part of group")


def test_ddp_comm_hooks(ranks):
    for s in ranks:
        assert s["hook_log"] == [[0, False, 4, True], [1, True, 2, True]]  # GradBucket as the hook sees it
        assert s["hook_twice"] == "register_comm_hook or register_builtin_comm_hook can only be called once."
    _same_on_every_rank(ranks, "hook_weights")
    _close(ranks[0]["hook_weights"], ranks[0]["ddp_weights"])       # allreduce_hook = DDP's own average
    _same_on_every_rank(ranks, "fp16_hook_weights")
    for x, y in zip(ranks[0]["fp16_hook_weights"], ranks[0]["ddp_weights"], strict=True):
        np.testing.assert_allclose(np.array(x), np.array(y), rtol=0, atol=2e-3)  # float16 on the wire


def test_errors_inside_a_job(ranks):
    n = len(ranks)
    for s in ranks:
        assert f"invalid root rank: {n}" in s["bad_root"]
        assert s["init_twice"] == "trying to initialize the default process group twice!"
        errors = s["errors"]
        assert errors["no_grad_params"].startswith("DistributedDataParallel is not needed")
        assert "device_ids [0]" in errors["device_ids_cpu"]
        assert errors["unfinished"].startswith("Expected to have finished reduction in the prior iteration")
        assert "find_unused_parameters=True" in errors["unfinished"]


def test_ddp_broadcasts_rank0_weights_at_start(ranks):
    start = ranks[0]["before_broadcast"]
    assert all(s["after_broadcast"] == start for s in ranks)
    assert ranks[1]["before_broadcast"] != start  # each rank began from its own seed
    _close(start, P.weights(P.make_model(lt, seed=100)))


def test_ddp_state_dict_has_module_prefix(ranks):
    assert ranks[0]["state_dict_keys"] == ["module." + k for k in P.make_model(lt).state_dict()]


def test_ddp_equals_one_process_on_the_full_batch(ranks):
    _same_on_every_rank(ranks, "ddp_weights")
    _close(ranks[0]["ddp_weights"], P.reference_weights(lt))


def test_ddp_equals_pytorch_on_the_full_batch(ranks, torch_oracle):
    _close(ranks[0]["ddp_weights"], P.reference_weights(torch_oracle))


def test_buckets_are_filled_backwards_and_reduced_during_backward(ranks):
    numels = [p.numel() for p in P.make_model(lt).parameters()]
    for s in ranks:
        assert s["default_buckets"] == [[5, 4, 3, 2, 1, 0]]  # 25 MB holds the whole model
        assert s["small_buckets"] == [[5], [4], [3], [2], [1], [0]]
        calls = s["small_calls"]
        assert [c["numel"] for c in calls] == numels[::-1]     # last layer's gradients first
        assert all(c["in_backward"] for c in calls)             # launched by hooks, while backward runs
        assert s["small_launch_log"] == list(range(6))
        assert s["middle_buckets"] == [[5, 4, 3, 2], [1, 0]]    # 2+12+6+48 floats ≥ 150 bytes closes the first
    _same_on_every_rank(ranks, "small_weights")
    _close(ranks[0]["small_weights"], ranks[0]["ddp_weights"])
    _close(ranks[0]["middle_weights"], ranks[0]["ddp_weights"])


def test_no_sync_accumulates_locally_and_reduces_once(ranks):
    for s in ranks:
        assert s["no_sync_backward_calls"] == 0
        assert s["no_sync_calls"] == P.STEPS  # one bucket, one all-reduce per optimizer step
    assert ranks[0]["no_sync_local_grads"] != ranks[1]["no_sync_local_grads"]
    _same_on_every_rank(ranks, "no_sync_weights")
    _close(ranks[0]["no_sync_weights"], P.reference_weights(lt))


def test_buffers_follow_rank0(ranks):
    assert all(s["bn_running_mean"] == [5.0] * 3 for s in ranks)


def test_find_unused_parameters(ranks):
    for s in ranks:
        assert s["unused_grad_is_none"]
    _same_on_every_rank(ranks, "unused_body_weights")
    _same_on_every_rank(ranks, "unused_unused_weights")


# ============================================================================ dead and stuck ranks
def test_dead_rank_under_the_wrapper_stops_the_others_at_once():
    done, seconds = _run(_job(2, "dead_rank.py", "exit", "60", wrapper=True))
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert seconds < 30, f"took {seconds:.1f} s: rank 0 waited for its timeout instead of noticing"
    assert "DistBackendError" in output and "all_reduce on rank 0" in output
    assert "another rank has exited" in output
    assert "UNREACHABLE" not in output


def test_stuck_rank_makes_the_others_time_out():
    done, seconds = _run(_job(2, "dead_rank.py", "hang", "1.5"))
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert seconds < 60
    assert "DistBackendError: learntorch.distributed: all_reduce on rank 0 (world size 2" in output
    assert "did not complete within 0:00:01.500000" in output
    assert "timeout=timedelta" in output  # says what to do
    assert "UNREACHABLE" not in output


def test_ranks_that_finish_at_different_times_succeed_under_the_wrapper():
    """MPICH's launcher sends SIGUSR1 to a rank still finishing when another has ended;
    that must not kill it (learntorch ignores SIGUSR1 once the rank is exiting)."""
    done, _ = _run(_job(2, "dead_rank.py", "finish", "60", wrapper=True))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 0 finished" in done.stdout and "rank 1 finished" in done.stdout


def test_dead_rank_under_plain_mpiexec_ends_the_job():
    """MPICH's mpiexec kills the other ranks when one exits early; the job fails."""
    done, seconds = _run(_job(2, "dead_rank.py", "exit", "60"))
    assert done.returncode != 0
    assert seconds < 30
    assert "UNREACHABLE" not in done.stdout + done.stderr


# ============================================================================ in this process
def test_errors_before_init_match_pytorch(torch_oracle):
    tdist = torch_oracle.distributed
    calls = {
        "all_reduce": lambda d, m: d.all_reduce(m.ones(1)),
        "broadcast": lambda d, m: d.broadcast(m.ones(1), 0),
        "barrier": lambda d, m: d.barrier(),
        "get_rank": lambda d, m: d.get_rank(),
        "get_world_size": lambda d, m: d.get_world_size(),
        "DDP": lambda d, m: m.nn.parallel.DistributedDataParallel(m.nn.Linear(2, 2)),
    }
    assert not dist.is_initialized() and not tdist.is_initialized()
    for name, call in calls.items():
        with pytest.raises(Exception) as ours:
            call(dist, lt)
        with pytest.raises(Exception) as theirs:
            call(tdist, torch_oracle)
        assert type(ours.value) is type(theirs.value), name
        assert str(ours.value) == str(theirs.value), name
    with pytest.raises(AssertionError, match="Process group cannot be None"):
        dist.destroy_process_group()


def test_error_hierarchy_matches_pytorch(torch_oracle):
    assert issubclass(dist.DistBackendError, dist.DistError)
    assert issubclass(dist.DistError, RuntimeError)
    assert issubclass(torch_oracle.distributed.DistBackendError, torch_oracle.distributed.DistError)
    assert repr(dist.ReduceOp.SUM) == repr(torch_oracle.distributed.ReduceOp.SUM)


def test_init_arguments_are_checked():
    with pytest.raises(AssertionError, match="Unknown backend type foo"):
        dist.init_process_group("foo")
    with pytest.raises(TypeError, match="timedelta"):
        dist.init_process_group("mpi", timeout=5)
    with pytest.raises(ValueError, match="disagrees with MPI"):
        dist.init_process_group("mpi", world_size=4, rank=2)
    assert not dist.is_initialized()


def test_world_of_one_process():
    """Without a launcher, init_process_group makes a world of one: collectives change nothing,
    DDP trains as the plain model does."""
    assert dist.is_available()
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    try:
        assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
        t = lt.tensor([1.0, 2.0])
        dist.all_reduce(t)
        dist.broadcast(t, 0)
        assert t.tolist() == [1.0, 2.0]
        model = DDP(P.make_model(lt), bucket_cap_mb=1e-6)
        x, y = P.make_data(lt)
        P.train(lt, model, x, y)
        _close(P.weights(model.module), P.reference_weights(lt))
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()


def _outcome(call, d, m):
    try:
        return "ok", call(d, m)
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e).__name__, str(e).split(" <")[0]  # a group's repr differs: compare up to it


@pytest.mark.filterwarnings("ignore:`torch.distributed.reduce_scatter_tensor` is deprecated:FutureWarning")
def test_group_and_object_api_matches_pytorch_in_a_world_of_one(torch_oracle):
    """The newer names (objects, reduce_scatter, all_to_all, groups, queries) against PyTorch's
    gloo, each in a world of one process: results, error types and messages."""
    tdist = torch_oracle.distributed

    def filled(fill, make_out):
        def call(d, m):
            out = make_out(m)
            fill(d, m, out)
            return out.tolist() if hasattr(out, "tolist") else [o.tolist() if hasattr(o, "tolist") else o for o in out]
        return call
    calls = {
        "get_node_local_rank": lambda d, m: d.get_node_local_rank(),
        "get_node_local_rank_fallback": lambda d, m: d.get_node_local_rank(fallback_rank=3),
        "is_gloo_available": lambda d, m: (d.is_gloo_available(), d.is_backend_available("gloo"),
                                           d.is_backend_available("foo"), d.is_torchelastic_launched()),
        "P2POp_bad_op": lambda d, m: d.P2POp(d.all_reduce, m.zeros(1), 0),
        "batch_isend_irecv_bad": lambda d, m: d.batch_isend_irecv([1]),
        "all_gather_object": filled(lambda d, m, o: d.all_gather_object(o, {"a": [1.5], "b": "x"}), lambda m: [None]),
        "broadcast_object_list": filled(lambda d, m, o: d.broadcast_object_list(o), lambda m: [1, "two"]),
        "gather_object": filled(lambda d, m, o: d.gather_object((3, "c"), o, dst=0), lambda m: [None]),
        "gather_object_no_list": lambda d, m: d.gather_object(1, None, dst=0),
        "scatter_object_list": filled(lambda d, m, o: d.scatter_object_list(o, [{"k": 2}], src=0), lambda m: [None]),
        "scatter_object_list_empty": lambda d, m: d.scatter_object_list([], [1], src=0),
        "send_object_list_to_self": lambda d, m: d.send_object_list([1], dst=0),
        "broadcast_no_src": lambda d, m: d.broadcast(m.ones(1)),
        "broadcast_src_and_group_src": lambda d, m: d.broadcast(m.ones(1), src=0, group_src=0),
        "reduce_scatter_tensor": filled(lambda d, m, o: d.reduce_scatter_tensor(o, m.ones(2) * 3),
                                        lambda m: m.zeros(2)),
        "all_gather_single": filled(lambda d, m, o: d.all_gather_single(o, m.ones(2) * 3), lambda m: m.zeros(2)),
        "reduce_scatter_tensor_bad_size": lambda d, m: type(d.reduce_scatter_tensor(m.zeros(2), m.ones(3))),
        "reduce_scatter": filled(lambda d, m, o: d.reduce_scatter(o, [m.ones(2) * 3]), lambda m: m.zeros(2)),
        "all_to_all_single": filled(lambda d, m, o: d.all_to_all_single(o, m.arange(3.)), lambda m: m.zeros(3)),
        "all_to_all_single_splits": filled(lambda d, m, o: d.all_to_all_single(o, m.arange(3.), [3], [3]),
                                           lambda m: m.zeros(3)),
        "all_to_all_single_bad_splits": lambda d, m: d.all_to_all_single(m.zeros(3), m.arange(3.), [3], [2]),
        "all_to_all": filled(lambda d, m, o: d.all_to_all(o, [m.arange(3.)]), lambda m: [m.zeros(3)]),
        "monitored_barrier": lambda d, m: d.monitored_barrier(timeout=timedelta(seconds=30)),
        "future": lambda d, m: d.all_reduce(m.ones(2), async_op=True).get_future().wait()[0].tolist(),
        "new_group_ranks": lambda d, m: d.get_process_group_ranks(d.new_group([0])),
        "new_group_duplicates": lambda d, m: d.new_group([0, 0]),
        "new_group_too_big": lambda d, m: d.new_group([0, 5]),
        "new_group_out_of_range": lambda d, m: d.new_group([3]),
        "new_group_is_a_hashable_ProcessGroup": lambda d, m: (isinstance(d.new_group(), d.ProcessGroup),
                                                              len({d.new_group(): 1})),
        "get_group_rank_not_member": lambda d, m: d.get_group_rank(d.new_group([0]), 1),
        "get_group_rank_of_None": lambda d, m: d.get_group_rank(None, 0),
        "get_global_rank_not_member": lambda d, m: d.get_global_rank(d.new_group([0]), 2),
        "rank_outside_group": lambda d, m: (d.get_rank(d.GroupMember.NON_GROUP_MEMBER),
                                            d.get_world_size(d.GroupMember.NON_GROUP_MEMBER)),
    }
    tdist.init_process_group("gloo", store=tdist.HashStore(), rank=0, world_size=1)
    dist.init_process_group("gloo")
    try:
        for name, call in calls.items():
            ours, theirs = _outcome(call, dist, lt), _outcome(call, tdist, torch_oracle)
            if name == "reduce_scatter_tensor_bad_size":  # gloo's message is a C++ check; the type is what counts
                ours, theirs = ours[0], theirs[0]
            assert ours == theirs, name
        with pytest.warns(FutureWarning, match="all_gather_single"):  # the old names warn, as PyTorch 2.13's do
            dist.all_gather_into_tensor(lt.zeros(1), lt.ones(1))
    finally:
        dist.destroy_process_group()
        tdist.destroy_process_group()


def test_world_of_one_with_logical_devices():
    """``cuda`` tensors that are not CuPy's (the logical CPU devices) go over MPI through host
    memory, and DDP with ``device_ids`` moves the inputs to its device."""
    from learntorch import cuda
    if cuda.cupy_or_none() is not None:
        pytest.skip("a real GPU is present: logical devices are only used where there is none")
    cuda.use_logical_devices(2)
    dist.init_process_group("gloo")
    try:
        t = lt.arange(6.).reshape(2, 3).to("cuda:1").t()  # a non-contiguous view on a device
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        dist.broadcast(t, 0)
        assert str(t.device) == "cuda:1" and t.cpu().tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
        model = P.make_model(lt).to("cuda:0")
        ddp = DDP(model, device_ids=[0])
        x, y = P.make_data(lt)
        P.train(lt, ddp, x, y.to("cuda:0"))  # x stays on the CPU: DDP moves it
        _close([p.detach().cpu().numpy().tolist() for p in model.parameters()], P.reference_weights(lt))
    finally:
        dist.destroy_process_group()
        cuda.use_logical_devices(None)


def test_assign_buckets_by_size_dtype_and_order():
    params = [lt.nn.Parameter(lt.zeros(n)) for n in (10, 10, 10, 30)]
    assert assign_buckets(params, cap_bytes=80, first_cap_bytes=80) == [[3], [2, 1], [0]]
    assert assign_buckets(params, cap_bytes=10**9, first_cap_bytes=4) == [[3], [2, 1, 0]]
    mixed = params[:2] + [lt.nn.Parameter(lt.zeros(10, dtype=lt.float64))]
    assert assign_buckets(mixed, cap_bytes=10**9, first_cap_bytes=10**9) == [[2], [1, 0]]


def test_launch_command_uses_mpiexec_beside_python():
    command = launch_command(3, ["train.py", "--epochs", "2"])
    assert command[0] == MPIEXEC
    assert command[command.index("-n") + 1] == "3"
    assert command[-5:] == ["-m", "learntorch.distributed._rank_entry", "train.py", "--epochs", "2"]
    assert sys.executable in command
    if "HYDRA" in subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True).stdout:
        assert "-disable-auto-cleanup" in command


# ============================================================================ a real GPU: NCCL
@pytest.mark.gpu
def test_nccl_collectives_and_ddp_on_gpus(tmp_path):
    """NCCL through CuPy: one rank per GPU (up to 2), DDP with device_ids, weights as on one CPU process."""
    n = min(2, lt.cuda.device_count())
    done, _ = _run(_job(n, "gpu_worker.py", str(tmp_path), wrapper=True))
    assert done.returncode == 0, done.stdout + done.stderr
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(n)]
    for s in ranks:
        assert s["over_nccl"]
        assert s["sum"] == [n * (n + 1) / 2] * 4
        assert s["broadcast"] == [0.0] * 3
    _close(ranks[0]["ddp_weights"], P.reference_weights(lt))
