"""A tensor in Python's own protocols and beside NumPy, as PyTorch's behaves: ``len``, iteration,
``in``, ``format``, ``round``, ``divmod``, ``copy``, ``pickle``, ``np.asarray``, NumPy scalars on
either side, comparisons with ``None`` and lists, indexing with lists, arrays and tensors,
``operator.index``, conversions and their Python types, promotion of mixed dtypes, integers beyond
64 bits (PyTorch's ValueError in ``torch.tensor``, RuntimeError in ``torch.full``), ``Size``
arithmetic.  Each expression gives the same value, or the same exception type, in both libraries.
"""
from __future__ import annotations

import copy
import math
import operator
import pickle
import warnings

import numpy as np
import pytest

import learntorch as lt

try:
    import torch
except ImportError:  # pragma: no cover - the differential test says why it skips
    torch = None

EXPRS = [
    'len(lib.ones(3,2))',
    'list(lib.arange(3))',
    '[type(v).__name__ for v in lib.arange(3)]',
    'bool(lib.tensor([0.]))',
    '2 in lib.arange(3)',
    'lib.tensor(3) in lib.arange(3)',
    "format(lib.tensor(2.5), '.2f')",
    "f'{lib.tensor(2.5):>8.3f}'",
    'round(lib.tensor(2.567), 1)',
    'round(lib.tensor(2.5))',
    'abs(lib.tensor(-2))',
    'divmod(lib.tensor(7), 2)',
    'copy.copy(lib.ones(2)).tolist()',
    'pickle.loads(pickle.dumps(lib.ones(2)))',
    'np.asarray(lib.ones(2)).dtype',
    'np.array(lib.ones(2), dtype=np.float64).dtype',
    'np.exp(lib.ones(2))',
    'np.float32(2) * lib.ones(2)',
    'type(np.float64(2.) * lib.ones(2)).__name__',
    'lib.ones(2) * np.float64(2.)',
    '(lib.ones(2) * np.float64(2.)).dtype',
    'lib.ones(2) == None',
    'lib.ones(2) != None',
    'lib.ones(2) == [1., 1.]',
    'lib.ones(3)[None, ..., 1].shape',
    'lib.ones(3)[[0, 2]]',
    'lib.ones(3)[[True, False, True]]',
    'lib.ones(3)[np.array([0, 1])]',
    'lib.ones(3)[lib.tensor(1)]',
    'lib.ones(3,3)[lib.tensor([0,1]), lib.tensor([1,2])]',
    'lib.ones(2,3)[:, np.int64(1)]',
    'operator.index(lib.tensor(3))',
    'list(range(lib.tensor(3)))',
    'int(lib.tensor(2.7))',
    'int(lib.tensor(-2.7))',
    'float(lib.tensor([1.5]))',
    'float(lib.ones(2))',
    'lib.tensor(5).item().__class__.__name__',
    'lib.tensor(5.).item().__class__.__name__',
    'lib.tensor(True).item().__class__.__name__',
    'lib.tensor([1, 2]).tolist()[0].__class__.__name__',
    'lib.tensor(2) ** 2',
    '2 ** lib.tensor(2)',
    '2 ** lib.tensor(-1)',
    'lib.tensor(2) ** -1',
    'lib.tensor([1,2]) / 2',
    'lib.tensor([1,2]) // 2',
    'lib.tensor([-3]) // 2',
    'lib.tensor([-3]) % 2',
    'lib.tensor([-3.]) % 2',
    '-lib.tensor([True])',
    '~lib.tensor([True, False])',
    'lib.tensor([1, 2]) & 1',
    'lib.tensor([1, 2]) << 1',
    'lib.tensor([1., 2.]) @ lib.tensor([1., 2.])',
    'lib.ones(2, 2).T.shape',
    'lib.ones(2).__array_priority__ > 0',
    'sum(lib.arange(4))',
    'max(lib.arange(4))',
    'sorted(lib.tensor([3, 1, 2]))',
    'min(lib.tensor([3., 1.]), key=float)',
    'repr(lib.tensor([1.5]).numpy())',
    'lib.ones(2, requires_grad=True).numpy()',
    'lib.ones(2, requires_grad=True).tolist()',
    'lib.tensor(np.float32(2)).dtype',
    'lib.tensor(np.array(2.)).dtype',
    'lib.tensor([np.float32(1), 2]).dtype',
    'lib.tensor([[1, 2], [3]])',
    "lib.tensor('a')",
    'lib.tensor([])',
    'lib.tensor([]).dtype',
    'lib.tensor([[], []]).shape',
    'lib.as_tensor([1, 2], dtype=lib.float16).dtype',
    'lib.tensor(2**63)',
    'lib.tensor(-2**63).dtype',
    'lib.tensor(1e40, dtype=lib.float32)',
    'lib.tensor([1, 2.5, True]).dtype',
    'lib.tensor([True, 2]).dtype',
    'lib.tensor(3, dtype=lib.bool)',
    'lib.zeros(2, dtype=lib.int8) + 200',
    'lib.tensor([250], dtype=lib.uint8) + 10',
    'lib.tensor([1], dtype=lib.int32) + lib.tensor([1])',
    'lib.tensor([1], dtype=lib.int32) + 1.5',
    '(lib.tensor([1], dtype=lib.float16) + lib.tensor(1.)).dtype',
    '(lib.tensor(1, dtype=lib.int64) * lib.tensor([1], dtype=lib.int8)).dtype',
    'lib.ones(2).__len__()',
    'lib.tensor(3).__len__()',
    'iter(lib.tensor(3))',
    'lib.ones(2,3).size(1)',
    'lib.ones(2,3).size(-1)',
    'lib.ones(2,3).shape[-1]',
    'lib.ones(2,3).shape == (2, 3)',
    'lib.ones(2,3).shape == [2, 3]',
    'lib.Size([2, 3]).numel()',
    'lib.Size([2,3]) + (4,)',
    'type(lib.Size([2,3]) + (4,)).__name__',
    'type(lib.ones(2,3).shape[1:]).__name__',
    'lib.ones(2,3).dim()',
    'lib.ones(2,3).nelement()',
    'lib.ones(3).unsqueeze(-1).expand(-1, 2).is_contiguous()',
    'lib.tensor([2**63])',
    'lib.tensor([[1, 2**64]])',
    'lib.tensor(2**63, dtype=lib.float32)',
    'lib.full((2,), 2**63)',
    'lib.full((2,), 300, dtype=lib.uint8)',
    'lib.full((2,), 2**63, dtype=lib.float64)',
]


def _run(lib, expr: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return repr(eval(expr, {"lib": lib, "np": np, **{m.__name__: m for m in (copy, math, operator, pickle)}}
                             )).replace("torch.", "")
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return type(e).__name__


@pytest.mark.skipif(torch is None, reason="differential test: PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("expr", EXPRS)
def test_python_protocols_as_pytorch_s(expr):
    assert _run(lt, expr) == _run(torch, expr)


def test_integers_beyond_64_bits_are_refused_with_a_way_out():
    with pytest.raises(ValueError, match="dtype=torch.float64"):
        lt.tensor([2**63])
    with pytest.raises(RuntimeError, match="without overflow"):
        lt.full((2,), 2**63)
    assert lt.tensor(2**63, dtype=lt.float64).item() == 2.0**63
