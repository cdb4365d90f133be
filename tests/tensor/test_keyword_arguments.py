"""Arguments given by keyword, as PyTorch's parser takes them: the sizes of a factory or of a
shape method (``torch.zeros(size=(2, 3))``, ``x.view(size=...)``, ``x.reshape(shape=...)``,
``x.permute(dims=...)``, ``x.expand(size=...)``, ``x.repeat(repeats=...)``, ``x.new_zeros(size=...)``),
``torch.arange(end=4)``, ``torch.randint(5, size=(3,))``, ``x.split(split_size=1)``, and the keyword
forms of everyday calls; PyTorch's own parameter names (``torch.split(tensor=...)``,
``torch.swapaxes(x, axis0=, axis1=)``) and its optional ones (``gather(..., sparse_grad=False)``,
``repeat_interleave(..., output_size=)``, ``x.type(dtype, non_blocking)``, ``x.sum_to_size(size=)``),
found by comparing every function's parameter names with PyTorch's.  Python's ``*sizes`` has no keyword, so each of these was a TypeError in
learntorch while PyTorch runs it (found by calling ~75 everyday methods and factories by keyword).
"""
from __future__ import annotations

import warnings

import pytest

import learntorch as lt

try:
    import torch
except ImportError:  # pragma: no cover - the differential tests say why they skip
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="differential test: PyTorch (the oracle) is not installed")

EXPRS = [
    'lib.zeros(size=(2,3)).shape',
    'lib.ones(size=(2,)).shape',
    'lib.empty(size=(2,)).shape',
    'lib.rand(size=(2,)).shape',
    'lib.randn(size=(2,)).shape',
    'lib.full(size=(2,), fill_value=1.).shape',
    'lib.randint(0, 5, size=(3,)).shape',
    'lib.randint(5, size=(3,)).shape',
    'lib.randperm(n=4).shape',
    'lib.arange(end=4)',
    'lib.arange(start=1, end=4)',
    'lib.linspace(start=0, end=1, steps=3)',
    'lib.eye(n=2)',
    'lib.zeros((2,), dtype=float).dtype',
    'lib.ones(2).view(size=(2,1)).shape',
    'lib.ones(2).reshape(shape=(2,1)).shape',
    'lib.ones(2,3).permute(dims=(1,0)).shape',
    'lib.ones(2).expand(size=(3,2)).shape',
    'lib.ones(2).repeat(repeats=(2,)).shape',
    'lib.ones(2,1).squeeze(dim=1).shape',
    'lib.ones(2).unsqueeze(dim=0).shape',
    'lib.ones(2,3).sum(dim=1, keepdim=True).shape',
    'lib.ones(2,3).transpose(dim0=0, dim1=1).shape',
    'lib.ones(2,3).flatten(start_dim=0).shape',
    'lib.ones(2,3).split(split_size=1, dim=0)[0].shape',
    'lib.ones(2,3).chunk(chunks=2, dim=1)[0].shape',
    'lib.cat(tensors=[lib.ones(2)], dim=0).shape',
    'lib.stack(tensors=[lib.ones(2)]).shape',
    'lib.ones(2,3).max(dim=1).values.shape',
    'lib.ones(2,3).softmax(dim=1).shape',
    'lib.ones(3).new_zeros(size=(2,)).shape',
    'lib.zeros_like(input=lib.ones(2)).shape',
    'lib.ones(2).to(dtype=lib.float64).dtype',
    'lib.ones(2).type(dtype=lib.float64).dtype',
    'lib.ones(2,3).mean(dim=(0,1))',
    'lib.ones(2,3).std(dim=1, unbiased=False).shape',
    'lib.ones(2,3).var(dim=1, correction=0).shape',
    'lib.ones(4).index_select(dim=0, index=lib.tensor([0])).shape',
    'lib.ones(2,3).gather(dim=1, index=lib.zeros(2,1, dtype=lib.long)).shape',
    'lib.ones(2,3).topk(k=1, dim=1).values.shape',
    'lib.ones(2,3).argmax(dim=1)',
    'lib.ones(2,3).clamp(min=0, max=1).shape',
    'lib.ones(2,3).masked_fill(mask=lib.ones(2,3, dtype=lib.bool), value=0.).sum()',
    'lib.where(condition=lib.ones(2, dtype=lib.bool), input=lib.ones(2), other=lib.zeros(2))',
    'lib.ones(2).add(other=lib.ones(2), alpha=2)',
    'lib.ones(2).mul(other=2)',
    'lib.matmul(input=lib.ones(2,2), other=lib.ones(2,2)).shape',
    'lib.ones(2,3).norm(p=2, dim=1).shape',
    'lib.ones(2,3).narrow(dim=1, start=0, length=2).shape',
    'lib.ones(2,3).unflatten(dim=1, sizes=(3,1)).shape',
    'lib.ones(2,3).roll(shifts=1, dims=1).shape',
    'lib.ones(2,3).flip(dims=(0,)).shape',
    'lib.ones(6).view(-1, 3).shape',
    'lib.ones(2,3).cumsum(dim=1).shape',
    'lib.ones(2,3).prod(dim=1)',
    'lib.ones(2,3).all(dim=1)',
    'lib.ones(2,3).any(dim=1)',
    'lib.ones(2,3).amax(dim=1)',
    'lib.ones(2,3).logsumexp(dim=1).shape',
    'lib.ones(2,3).log_softmax(dim=1).shape',
    'lib.ones(2,3).tril(diagonal=0).shape',
    'lib.ones(2,3).index_fill(dim=1, index=lib.tensor([0]), value=2.).sum()',
    'lib.ones(2,3).scatter(dim=1, index=lib.zeros(2,1,dtype=lib.long), value=2.).sum()',
    'lib.ones(2,3).repeat_interleave(repeats=2, dim=0).shape',
    'lib.ones(2,3).expand_as(other=lib.ones(2,3)).shape',
    'lib.ones(2,3).view_as(other=lib.ones(3,2)).shape',
    'lib.ones(2,3).new_full(size=(1,), fill_value=2.)',
    'lib.ones(2,3).unbind(dim=1)[0].shape',
    'lib.ones(2,3).movedim(source=0, destination=1).shape',
    'lib.ones(2,3).sort(dim=1, descending=True).values.shape',
    'lib.ones(2,3).argsort(dim=1, descending=True).shape',
    'lib.ones(3).dot(tensor=lib.ones(3))',
    'lib.ones(2,3).mm(mat2=lib.ones(3,2)).shape',
    'lib.ones(2,3).bmm(mat2=lib.ones(3,2)).shape',
    "lib.gather(lib.ones(2, 3), 1, lib.zeros(2, 1, dtype=lib.long), sparse_grad=False).shape",
    "lib.swapaxes(lib.ones(2, 3), axis0=0, axis1=1).shape", "lib.ones(2, 3).swapaxes(axis0=0, axis1=1).shape",
    "lib.ones(2, 3).swapaxes_(axis0=0, axis1=1).shape", "lib.swapdims(lib.ones(2, 3), dim0=0, dim1=1).shape",
    "lib.repeat_interleave(lib.ones(2), 2, output_size=4).shape", "lib.ones(2).repeat_interleave(2, output_size=4).shape",
    "lib.ones(2).repeat_interleave(2, output_size=3)", "lib.ones(2, 2).repeat_interleave(2, dim=1, output_size=4).shape",
    "lib.split(tensor=lib.ones(4), split_size_or_sections=2)[0].shape", "lib.ones(2).type(lib.float64, False).dtype",
    "lib.ones(2).type(dtype=lib.float64, non_blocking=False).dtype", "lib.ones(2, 3).sum_to_size(size=(1, 3)).shape",
    "lib.ones(2, 3).sum_to_size((1, 3)).shape", "lib.ones(2, 3).sum_to_size(1, 3).shape",
]

BOTH_WAYS = [
    "lib.zeros(2, size=(3,))", "lib.ones(2).view(2, size=(2,))", "lib.ones(2).reshape(2, shape=(2,))",
    "lib.arange()", "lib.ones(2, 3).permute(1, 0, dims=(1, 0))", "lib.ones(2).new_zeros(2, size=(2,))",
    "lib.randint(size=(2,))", "lib.ones(2).expand(2, size=(2,))", "lib.ones(2).repeat(2, repeats=(2,))",
    "lib.ones(4).split(2, split_size=2)",
]


def _run(lib, expr: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return repr(eval(expr, {"lib": lib})).replace("torch.", "")
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return type(e).__name__


@needs_torch
@pytest.mark.parametrize("expr", EXPRS)
def test_keyword_form_gives_pytorch_s_result(expr):
    assert _run(lt, expr) == _run(torch, expr)


@needs_torch
@pytest.mark.parametrize("expr", BOTH_WAYS)
def test_sizes_given_both_ways_or_not_at_all_are_pytorch_s_type_error(expr):
    assert _run(torch, expr) == "TypeError"
    assert _run(lt, expr) == "TypeError"


def test_keyword_sizes_without_the_oracle():
    x = lt.arange(6.0)
    assert lt.zeros(size=(2, 3)).shape == (2, 3)
    assert x.view(size=(2, 3)).shape == x.reshape(shape=[3, 2]).shape[::-1]
    assert x.view(2, 3).permute(dims=(1, 0)).shape == (3, 2)
    assert lt.arange(end=3).tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        lt.zeros(2, size=(3,))
