"""The built-in operations, each an ``autograd.Function`` (see chapter 03).

* ``pointwise``  element-wise arithmetic, maths, comparisons, casts
* ``reduction``  sum, mean, max … over all elements or a ``dim``
* ``shape``      views and joins: reshape, transpose, squeeze, cat, split …
* ``indexing``   ``x[i]``, ``x[i] = v``, gather, masked_fill
* ``linalg``     matmul, mm, bmm, dot, and products built on them (tensordot, kron, cdist)
* ``linalg_decomp`` inv, det, solve, cholesky, eigh, svd, qr, pinv (``learntorch.linalg`` is the namespace)
* ``sorting``    sort, argsort, topk

Floating-point arithmetic follows IEEE 754 silently, as PyTorch does:
``tensor([1.]) / 0`` is ``inf`` without a warning.  NumPy would warn
("divide by zero encountered"), so its RuntimeWarnings are ignored when they
come from these modules, and only from these.
"""
import warnings

warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"learntorch\.ops\.")
