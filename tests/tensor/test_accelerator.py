"""``torch.accelerator`` against torch 2.13 on a CPU-only machine, and with learntorch's
logical CUDA devices standing in for a GPU (``device('cuda')``, indices, memory)."""
from __future__ import annotations

import pytest

import learntorch as lt
from learntorch import cuda

NEEDS_DEVICE = [
    lambda T: T.accelerator.current_device_index(),
    lambda T: T.accelerator.set_device_index(0),
    lambda T: T.accelerator.synchronize(),
    lambda T: T.accelerator.memory_allocated(),
    lambda T: T.accelerator.empty_cache(),
]


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.delenv("LEARNTORCH_FAKE_CUDA", raising=False)
    cuda.cupy_or_none.cache_clear()
    if cuda.cupy_or_none() is not None:
        pytest.skip("a real GPU is present")
    cuda.use_logical_devices(0)
    yield
    cuda.use_logical_devices(None)


def test_cpu_only_like_torch(torch_oracle, no_gpu):
    if torch_oracle.cuda.is_available():
        pytest.skip("torch sees a GPU here")
    for T in (torch_oracle, lt):
        assert T.accelerator.is_available() is False
        assert T.accelerator.current_accelerator() is None
        assert T.accelerator.current_accelerator(check_available=True) is None
        assert T.accelerator.device_count() == 0
        with T.accelerator.device_index(None):
            pass


@pytest.mark.parametrize("i", range(len(NEEDS_DEVICE)))
def test_cpu_only_errors_like_torch(torch_oracle, no_gpu, i):
    if torch_oracle.cuda.is_available():
        pytest.skip("torch sees a GPU here")
    from conftest import raises_both
    raises_both(NEEDS_DEVICE[i], torch_oracle, match="Cannot access accelerator device when none is available")


def test_device_idiom_falls_back_to_cpu(no_gpu):
    device = lt.accelerator.current_accelerator() or lt.device("cpu")
    assert lt.ones(2, device=device).device == lt.device("cpu")


def test_logical_devices_are_the_accelerator(no_gpu):
    cuda.use_logical_devices(2)
    acc = lt.accelerator
    assert acc.is_available() and acc.device_count() == 2
    assert acc.current_accelerator() == lt.device("cuda") and str(acc.current_accelerator()) == "cuda"
    assert acc.current_device_index() == 0
    acc.set_device_index(1)
    assert acc.current_device_index() == 1 == cuda.current_device()
    acc.set_device_index("cuda:0")
    with acc.device_index(1):
        assert acc.current_device_index() == 1
        x = lt.ones(256, device="cuda")
        assert x.device == lt.device("cuda", 1)
    assert acc.current_device_index() == 0
    assert acc.memory_allocated(1) == cuda.memory_allocated(1) > 0
    free, total = acc.get_memory_info(1)
    assert 0 < free <= total
    acc.synchronize()
    with pytest.raises(ValueError, match="doesn't match the current accelerator"):
        acc.set_device_index("cpu")
