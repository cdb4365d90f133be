"""Several devices: learntorch's logical CUDA devices on the CPU, copies between them, and their memory.

The logical devices (``learntorch.cuda.use_logical_devices(n)`` or
``LEARNTORCH_FAKE_CUDA=n``) are a learntorch extension for teaching chapter 08
on a machine without a GPU; they are used only where there is none.  What they
must show as PyTorch does: tensors remember their device, operations refuse to
mix devices with PyTorch's error, ``.to`` / ``.cuda(i)`` / ``.cpu()`` copy with
``ToCopyBackward0``, and the memory functions give figures that behave like a
caching allocator's (allocated, reserved, peak, ``empty_cache``, out of memory).
"""
from __future__ import annotations

import re
import threading

import numpy as np
import pytest

import learntorch as lt
from learntorch import cuda, device_memory

MiB = 2**20


def host(x):
    return np.asarray(x.detach().cpu().numpy())


# ============================================================================ devices
def test_switching_logical_devices_on_and_off(logical):
    assert cuda.device_count() == 0 and not cuda.is_available()
    logical(3)
    assert cuda.is_available() and cuda.device_count() == 3
    t = lt.ones(2, device="cuda:2")
    assert t.device == lt.device("cuda", 2) and t.get_device() == 2 and t.is_cuda
    assert repr(t) == "tensor([1., 1.], device='cuda:2')"
    assert "logical device" in cuda.get_device_name(2)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        lt.ones(2, device="cuda:3")
    logical(0)
    assert cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="use_logical_devices"):  # the error says what to do
        lt.ones(2, device="cuda")


def test_environment_variable_gives_any_number_of_devices(monkeypatch, logical):
    cuda.use_logical_devices(None)  # follow the environment
    monkeypatch.setenv("LEARNTORCH_FAKE_CUDA", "4")
    assert cuda.device_count() == 4
    assert str(lt.zeros(1, device="cuda:3").device) == "cuda:3"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,0")  # renumbered from 0, as CUDA does
    assert cuda.device_count() == 2


def test_visible_devices_apply_to_logical_devices(monkeypatch, logical):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1,2")
    logical(3)
    assert cuda.device_count() == 2


@pytest.mark.parametrize("a, b, first, second", [(0, 1, "cuda:0", "cuda:1"), (1, 0, "cuda:1", "cuda:0"),
                                                 ("cpu", 1, "cuda:1", "cpu"), (2, "cpu", "cuda:2", "cpu")])
def test_mixing_devices_is_pytorchs_error(logical, a, b, first, second):
    """TensorIterator's rule: the first operand not on the CPU names the common device."""
    logical(3)
    dev = lambda d: "cpu" if d == "cpu" else f"cuda:{d}"  # noqa: E731
    x, y = lt.ones(2, 3, device=dev(a)), lt.ones(2, 3, device=dev(b))
    message = f"Expected all tensors to be on the same device, but found at least two devices, {first} and {second}!"
    for op in (lambda: x + y, lambda: x * y, lambda: lt.cat([x, y]), lambda: lt.maximum(x, y)):
        with pytest.raises(RuntimeError) as info:
            op()
        assert str(info.value) == message


@pytest.mark.parametrize("other", [1, 2])  # cuda:1, and cuda:2 (which shares array-api-strict's device with cuda:0)
def test_layers_and_losses_refuse_mixed_devices(logical, other):
    logical(3)
    F = lt.nn.functional
    a, b = lt.randn(4, 3, device="cuda:0"), lt.randn(4, 3, device=f"cuda:{other}")
    t = lt.tensor([0, 1, 2, 0], device=f"cuda:{other}")
    ops = [lambda: F.cross_entropy(a, t), lambda: F.nll_loss(a, t), lambda: F.mse_loss(a, b),
           lambda: F.layer_norm(a, (3,), b[0], b[1]), lambda: F.batch_norm(a, b[0], b[1], training=True),
           lambda: F.linear(a, b), lambda: F.embedding(t, a), lambda: a.t().mm(b), lambda: lt.where(a > 0, a, b),
           lambda: lt.stack([a, b])]
    for op in ops:
        with pytest.raises(RuntimeError, match="^Expected all tensors to be on the same device"):
            op()


def test_parameters_and_inputs_on_different_devices(logical):
    logical(2)
    layer = lt.nn.Linear(3, 2).to("cuda:0")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        layer(lt.ones(4, 3, device="cuda:1"))
    assert layer(lt.ones(4, 3, device="cuda:0")).device == lt.device("cuda:0")


def test_copies_between_devices_carry_gradients(logical):
    logical(3)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = lt.tensor(a, requires_grad=True)
    y = x.to("cuda:1")
    z = y.cuda(2)
    w = z.cuda()  # the current device: cuda:0
    assert [t.device for t in (y, z, w)] == [lt.device("cuda:1"), lt.device("cuda:2"), lt.device("cuda:0")]
    assert y.grad_fn.name() == z.grad_fn.name() == "ToCopyBackward0"
    assert y.to("cuda:1") is y                      # no copy when nothing changes
    y2 = lt.tensor(a, device="cuda:1")
    y2.add_(1)
    np.testing.assert_array_equal(host(y), a)       # a copy, not shared memory
    (w * w).sum().cpu().backward()
    assert x.grad.device == lt.device("cpu")
    np.testing.assert_allclose(x.grad.numpy(), 2 * a)


def test_current_device_is_per_thread_and_a_context(logical):
    logical(3)
    seen = {}

    def worker():
        seen["start"] = cuda.current_device()
        with cuda.device(2):
            seen["inside"] = str(lt.zeros(1, device="cuda").device)

    cuda.set_device(1)
    try:
        assert str(lt.zeros(1, device="cuda").device) == "cuda:1"
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert seen == {"start": 0, "inside": "cuda:2"}  # a new thread starts on device 0, as in CUDA
        assert cuda.current_device() == 1
        with cuda.device("cuda:0"):
            assert cuda.current_device() == 0
        assert cuda.current_device() == 1
    finally:
        cuda.set_device(0)


def test_model_moves_between_devices(logical):
    logical(2)
    model = lt.nn.Sequential(lt.nn.Linear(3, 4), lt.nn.BatchNorm1d(4))
    weight = model[0].weight
    model.cuda(1)
    assert model[0].weight is weight and weight.device == lt.device("cuda:1")
    assert {str(b.device) for b in model.buffers()} == {"cuda:1"}
    model.to(lt.device("cuda", 0))
    assert {str(p.device) for p in model.parameters()} == {"cuda:0"}


# ============================================================================ memory
def test_no_gpu_memory_functions_return_zero(logical):
    assert cuda.memory_allocated() == cuda.max_memory_allocated() == cuda.memory_reserved() == 0
    cuda.empty_cache()
    cuda.reset_peak_memory_stats()


def test_memory_matches_pytorch_with_no_gpu(torch_oracle, logical):
    for name in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"):
        assert getattr(cuda, name)() == getattr(torch_oracle.cuda, name)() == 0


def test_allocated_counts_storages_rounded_to_512_bytes(logical):
    logical(2)
    assert cuda.memory_allocated(0) == 0
    x = lt.zeros(1000, device="cuda:0")             # 4000 bytes -> 4096
    assert cuda.memory_allocated(0) == 4096 and cuda.memory_allocated(1) == 0
    assert cuda.memory_allocated("cuda:0") == cuda.memory_allocated(lt.device("cuda:0")) == 4096
    view = x.view(10, 100)[2:5]                     # views share the storage: nothing new
    assert cuda.memory_allocated(0) == 4096
    y = lt.ones(3, device="cuda:0", dtype=lt.int64)  # 24 bytes -> 512
    assert cuda.memory_allocated(0) == 4096 + 512
    del x
    assert cuda.memory_allocated(0) == 4096 + 512   # the view still holds the storage
    del view
    assert cuda.memory_allocated(0) == 512
    del y
    assert cuda.memory_allocated(0) == 0


def test_freed_blocks_stay_reserved_until_empty_cache(logical):
    logical(1)
    x = lt.zeros(MiB // 4, device="cuda")           # 1 MiB
    assert cuda.memory_allocated() == cuda.memory_reserved() == MiB
    del x
    assert cuda.memory_allocated() == 0 and cuda.memory_reserved() == MiB
    assert cuda.max_memory_allocated() == MiB
    x = lt.ones(MiB // 4, device="cuda")            # the same size: the cached block is reused
    assert cuda.memory_reserved() == MiB
    del x
    cuda.empty_cache()
    assert cuda.memory_reserved() == 0
    cuda.reset_peak_memory_stats()
    assert cuda.max_memory_allocated() == 0


def test_training_step_memory_plateaus(logical):
    """A loop that asks for the same sizes each step stops growing after the first step."""
    logical(1)
    model = lt.nn.Sequential(lt.nn.Linear(64, 64), lt.nn.ReLU(), lt.nn.Linear(64, 1)).cuda()
    opt = lt.optim.SGD(model.parameters(), lr=0.01)
    x, y = lt.randn(32, 64, device="cuda"), lt.randn(32, 1, device="cuda")
    reserved = []
    for _ in range(4):
        opt.zero_grad()
        lt.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        reserved.append(cuda.memory_reserved())
    assert reserved[1] == reserved[2] == reserved[3] > 0
    params = sum(p.numel() * 4 for p in model.parameters())
    assert cuda.memory_allocated() >= params + 2 * 32 * 64  # weights, .grad, inputs at least


def test_del_loop_variable_frees_nothing(logical):
    """The notes' mistake: ``for x in batch: del x`` deletes the loop's name, not the tensors."""
    logical(1)
    batch = {"a": lt.zeros(MiB // 4, device="cuda"), "b": lt.zeros(MiB // 4, device="cuda")}
    held = cuda.memory_allocated()
    for x in batch.values():
        del x
    cuda.empty_cache()
    assert cuda.memory_allocated() == held == 2 * MiB
    batch.clear()                                   # the last references go
    assert cuda.memory_allocated() == 0 and cuda.memory_reserved() == 2 * MiB
    cuda.empty_cache()
    assert cuda.memory_reserved() == 0


def test_out_of_memory_is_pytorchs_error(torch_oracle, logical):
    logical(1, total_memory=4 * MiB)
    keep = lt.zeros(MiB // 4 * 3, device="cuda")    # 3 MiB
    with pytest.raises(lt.cuda.OutOfMemoryError) as info:
        lt.zeros(MiB // 2, device="cuda")           # 2 MiB more do not fit
    error = info.value
    assert isinstance(error, RuntimeError) and lt.OutOfMemoryError is lt.cuda.OutOfMemoryError
    assert issubclass(torch_oracle.cuda.OutOfMemoryError, RuntimeError)
    assert str(error).startswith("CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of "
                                 "4.00 MiB of which 1024.00 KiB is free. Including non-PyTorch memory, this "
                                 "process has 3.00 MiB memory in use. Of the allocated memory 3.00 MiB is "
                                 "allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.")
    assert "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" in str(error)
    assert cuda.memory_allocated() == 3 * MiB       # the refused tensor was never made
    del keep
    assert lt.zeros(MiB // 2, device="cuda").numel() == MiB // 2  # now it fits


def test_a_request_that_cannot_fit_is_refused_before_host_memory_is_filled(logical, monkeypatch):
    logical(1, total_memory=MiB)
    filled = []
    real_full = np.full
    monkeypatch.setattr(np, "full", lambda *a, **k: filled.append(a) or real_full(*a, **k))
    for make in (lambda: lt.ones(2**30, device="cuda"),           # 4 GiB: refused before np.full runs
                 lambda: lt.randn(MiB).to("cuda")):               # the copy to the device is refused
        with pytest.raises(lt.OutOfMemoryError, match="Tried to allocate"):
            make()
    assert filled == [] and cuda.memory_reserved() == 0
    lt.ones(4, device="cuda")                                     # a request that fits does fill
    assert len(filled) == 1


def test_cached_blocks_are_freed_before_giving_up(logical):
    logical(1, total_memory=4 * MiB)
    x = lt.zeros(MiB // 4 * 3, device="cuda")
    del x                                           # 3 MiB cached
    y = lt.zeros(MiB // 2, device="cuda")           # 2 MiB: fits only after emptying the cache
    assert cuda.memory_allocated() == cuda.memory_reserved() == 2 * MiB
    del y


def test_memory_fraction_and_mem_get_info(logical):
    logical(2, total_memory=8 * MiB)
    assert cuda.mem_get_info(1) == (8 * MiB, 8 * MiB)
    assert cuda.get_device_properties(1).total_memory == 8 * MiB
    cuda.set_per_process_memory_fraction(0.25, 1)
    with pytest.raises(lt.OutOfMemoryError, match=re.escape("2.00 MiB allowed; Of the allocated memory")):
        lt.zeros(MiB, device="cuda:1")              # 4 MiB > 2 MiB allowed
    x = lt.zeros(MiB // 4, device="cuda:1")
    assert cuda.mem_get_info(1) == (7 * MiB, 8 * MiB)
    assert lt.zeros(MiB, device="cuda:0").numel() == MiB  # the other device has no such limit
    del x
    with pytest.raises(ValueError, match="Invalid fraction value"):
        cuda.set_per_process_memory_fraction(1.5)


def test_memory_of_gradients_and_threads(logical):
    """Storages made in other threads and by gradient accumulation are counted too."""
    logical(2)
    w = lt.zeros(256, device="cuda:1", requires_grad=True)
    (w * 2).sum().backward()
    (w * 2).sum().backward()                         # accumulates into .grad
    assert cuda.memory_allocated(1) == 2 * 1024      # w and w.grad
    made = []
    threads = [threading.Thread(target=lambda: made.append(lt.ones(128, device="cuda:0"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cuda.memory_allocated(0) == 4 * 512
    made.clear()
    assert cuda.memory_allocated(0) == 0


def test_format_size_as_pytorch():
    f = device_memory.format_size
    assert [f(512), f(1024), f(1536), f(MiB), f(20 * MiB), f(8 * 2**30)] == \
        ["512 bytes", "1024 bytes", "1.50 KiB", "1024.00 KiB", "20.00 MiB", "8.00 GiB"]


# ============================================================================ a real GPU (make test-gpu)
@pytest.mark.gpu
def test_real_gpu_memory_counters_read_cupys_pool():
    cuda.empty_cache()
    before = cuda.memory_allocated()
    x = lt.zeros(MiB, device="cuda")                # 4 MiB
    assert cuda.memory_allocated() >= before + 4 * MiB
    assert cuda.max_memory_allocated() >= cuda.memory_allocated()
    assert cuda.memory_reserved() >= cuda.memory_allocated()
    del x
    assert cuda.memory_allocated() == before
    cuda.empty_cache()
    free, total = cuda.mem_get_info()
    assert 0 < free <= total and cuda.get_device_properties(0).total_memory > 0


@pytest.mark.gpu
def test_real_gpus_mixing_devices_raises():
    if cuda.device_count() < 2:
        pytest.skip("needs two GPUs: only one is visible")
    with pytest.raises(RuntimeError, match="cuda:0 and cuda:1!"):
        lt.ones(2, device="cuda:0") + lt.ones(2, device="cuda:1")
