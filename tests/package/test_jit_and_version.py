"""``torch.jit``'s names and ``torch.version.cuda``, as model code written for PyTorch uses them."""
from __future__ import annotations

from typing import Any

import pytest

import learntorch as lt


def _gelu(x: lt.Tensor) -> lt.Tensor:  # (decorated with torch.jit.script in model code: see the test)
    return x * 0.5 * (1.0 + lt.erf(x / 1.41421356237))


class _Block(lt.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = lt.nn.Linear(3, 3)

    @lt.jit.ignore
    def debug(self) -> str:
        return "eager"

    def forward(self, x: lt.Tensor) -> lt.Tensor:
        if not lt.jit.is_scripting():  # the eager branch: learntorch never scripts
            x = _gelu(x)
        return self.fc(x)


def test_script_trace_and_the_decorators_leave_the_code_as_it_is(torch_oracle: Any) -> None:
    block = _Block()
    with pytest.warns(DeprecationWarning, match="torch.jit.script"):
        assert lt.jit.script(block) is block and lt.jit.script(_gelu) is _gelu
    assert lt.jit.trace(block, lt.ones(1, 3)) is block
    assert block.debug() == "eager" and not lt.jit.is_tracing() and lt.jit.annotate(int, 3) == 3
    assert lt.jit.ignore(drop=True)(len) is len and lt.jit.unused(len) is len and lt.jit.export(len) is len
    expected = torch_oracle.nn.functional.gelu(torch_oracle.linspace(-2, 2, 5))
    assert abs(_gelu(lt.linspace(-2.0, 2.0, 5)) - lt.tensor(expected.numpy())).max().item() < 1e-6
    assert lt.jit.is_scripting() is torch_oracle.jit.is_scripting() is False


def _double(x):  # (no annotation: TorchScript takes an unannotated argument for a Tensor, and refuses Any)
    return x * 2


def test_script_is_deprecated_in_both_and_the_warning_is_hidden_by_default(torch_oracle: Any) -> None:
    for lib in (lt, torch_oracle):
        with pytest.warns(DeprecationWarning, match="`torch.jit.script` is deprecated") as caught:
            lib.jit.script(_double)
        assert all("test_jit_and_version" not in w.filename for w in caught), "located in the library, as PyTorch's"


def test_what_needs_a_compiled_program_says_what_to_do_instead(tmp_path: Any) -> None:
    with pytest.raises(RuntimeError, match=r"torch.save\(model.state_dict\(\), path\)"):
        lt.jit.save(_Block(), tmp_path / "m.pt")
    with pytest.raises(RuntimeError, match="TorchScript"):
        lt.jit.load(tmp_path / "m.pt")


def test_version_cuda_is_none_as_in_a_cpu_build(torch_oracle: Any) -> None:
    assert lt.version.cuda is None and torch_oracle.version.cuda is None
