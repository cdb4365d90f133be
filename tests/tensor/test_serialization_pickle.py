"""``torch.save(model)`` of a whole Module: pickled (tensors still as .npy files); loading
it needs ``weights_only=False`` on purpose, and the default refuses with PyTorch's
``pickle.UnpicklingError``."""
from __future__ import annotations

import io
import json
import pickle
import zipfile

import numpy as np
import pytest

import learntorch as lt
from learntorch import nn


class TwoLayer(nn.Module):
    """Defined at module level, so pickle can find the class again."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)
        self.register_buffer("scale", lt.tensor(2.0))

    def forward(self, x):
        return self.fc2(self.fc1(x).relu()) * self.scale


def _saved(obj) -> io.BytesIO:
    buf = io.BytesIO()
    lt.save(obj, buf)
    buf.seek(0)
    return buf


def test_whole_model_roundtrip_with_weights_only_false(tmp_path):
    lt.manual_seed(0)
    model = TwoLayer()
    path = tmp_path / "model.pt"
    lt.save(model, path)
    loaded = lt.load(path, weights_only=False)
    assert type(loaded) is TwoLayer and loaded is not model
    x = lt.randn(5, 3)
    assert np.array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())
    assert isinstance(loaded.fc1.weight, nn.Parameter) and loaded.fc1.weight.requires_grad
    assert list(dict(loaded.named_parameters())) == list(dict(model.named_parameters()))
    loaded(x).sum().backward()  # a working model: it trains
    assert loaded.fc1.weight.grad is not None


def test_default_weights_only_refuses_like_torch(torch_oracle):
    buf = _saved(TwoLayer())
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as info:
        lt.load(buf)
    assert "weights_only=False" in str(info.value) and "state_dict" in str(info.value)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        lt.load(_saved(TwoLayer()), weights_only=True)
    t_buf = io.BytesIO()
    torch_oracle.save(torch_oracle.nn.Linear(2, 3), t_buf)
    t_buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):  # the same type in torch
        torch_oracle.load(t_buf)


def test_checkpoint_dict_holding_a_model_and_shared_tensors():
    model = TwoLayer()
    opt = lt.optim.SGD(model.parameters(), lr=0.1)
    ckpt = {"model": model, "epoch": 3, "opt": opt.state_dict(), "w": model.fc1.weight}
    out = lt.load(_saved(ckpt), weights_only=False)
    assert out["epoch"] == 3 and out["w"] is out["model"].fc1.weight  # one tensor, reached twice


def test_tensors_are_npy_files_and_the_manifest_says_pickle():
    buf = _saved(TwoLayer())
    with zipfile.ZipFile(buf) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        assert manifest["pickle"] == "data.pkl" and manifest["version"] == 2
        assert sorted(n for n in zf.namelist() if n.startswith("tensors/")) == \
            [f"tensors/{i}.npy" for i in range(5)]
        assert b"numpy" not in zf.read("data.pkl")  # no array is pickled


def test_data_only_objects_still_load_by_default():
    sd = TwoLayer().state_dict()
    out = lt.load(_saved(sd))
    assert list(out) == list(sd)
    assert lt.load(_saved(sd), weights_only=False).keys() == sd.keys()


def test_map_location_applies_to_a_pickled_model():
    loaded = lt.load(_saved(TwoLayer()), map_location="cpu", weights_only=False)
    assert loaded.fc1.weight.device == lt.device("cpu")


def test_unpicklable_member_is_a_pickle_error():
    model = TwoLayer()
    model.hook = lambda x: x  # a lambda cannot be pickled, as in PyTorch
    with pytest.raises((pickle.PicklingError, AttributeError)):
        _saved(model)
