"""``F.ctc_loss`` / ``nn.CTCLoss`` against PyTorch 2.13: losses, gradients (through log_softmax
and straight into log_probs, PyTorch's formula), reductions, concatenated targets, impossible
alignments with and without ``zero_infinity``, unbatched input and PyTorch's errors."""
from __future__ import annotations

import pytest

import learntorch as lt
from conftest import assert_same, raises_both

TARGETS = [[1, 2, 2], [3, 1, 0], [4, 4, 1]]


def _loss(T, reduction="mean", zero_infinity=False, lengths=(3, 2, 2), through_softmax=True, dtype="float64"):
    T.manual_seed(0)
    x = T.randn(6, 3, 5, dtype=getattr(T, dtype), requires_grad=True)
    lp = x.log_softmax(2) if through_softmax else x
    loss = T.nn.functional.ctc_loss(lp, T.tensor(TARGETS), [6, 5, 3], list(lengths), reduction=reduction,
                                    zero_infinity=zero_infinity)
    loss.sum().backward()
    return loss, x.grad


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("through_softmax", [True, False], ids=["logits", "log_probs"])
def test_loss_and_gradient_like_torch(torch_oracle, reduction, through_softmax):
    for a, b in zip(_loss(lt, reduction, through_softmax=through_softmax),
                    _loss(torch_oracle, reduction, through_softmax=through_softmax)):
        assert_same(a, b, check_grad_fn=True)


def test_float32(torch_oracle):
    for a, b in zip(_loss(lt, dtype="float32"), _loss(torch_oracle, dtype="float32")):
        assert_same(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_impossible_alignment(torch_oracle, zero_infinity):
    # the third sample: 3 frames cannot hold "4 4 1" (the repeated 4 needs a blank between)
    for a, b in zip(_loss(lt, "none", zero_infinity, lengths=(3, 2, 3)),
                    _loss(torch_oracle, "none", zero_infinity, lengths=(3, 2, 3))):
        assert_same(a, b)  # (inf loss and NaN gradients without zero_infinity, as in PyTorch)


def test_concatenated_targets_unbatched_input_and_module(torch_oracle):
    def run(T):
        T.manual_seed(1)
        lp = T.randn(5, 2, 4, dtype=T.float64).log_softmax(2).requires_grad_()
        concat = T.nn.functional.ctc_loss(lp, T.tensor([1, 2, 3]), T.tensor([5, 4]), T.tensor([2, 1]))
        single = T.nn.functional.ctc_loss(lp[:, 0], T.tensor([1, 2]), T.tensor(5), T.tensor(2), reduction="none")
        module = T.nn.CTCLoss(blank=3, reduction="sum")(lp, T.tensor([[1, 2], [0, 0]]), [5, 4], [2, 1])
        (concat + single + module).backward()
        return concat, single, module, lp.grad, repr(T.nn.CTCLoss())
    for a, b in zip(run(lt), run(torch_oracle)):
        assert_same(a, b) if not isinstance(a, str) else None
        assert not isinstance(a, str) or a == b


@pytest.mark.parametrize("args, match", [
    (([6, 5], [2, 2]), "input_lengths to have value at most 5"),
    (([5, 5], [3, 2]), "Expected tensor to have size at least 3 at dimension 1"),
    (([5], [2, 2]), "input_lengths must be of size batch_size"),
], ids=["input_too_long", "target_too_long", "lengths_count"])
def test_errors_like_torch(torch_oracle, args, match):
    def call(T):
        lp = T.zeros(5, 2, 4).log_softmax(2)
        return T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), *args)
    raises_both(call, torch_oracle, match=match)


def test_blank_out_of_range_and_bad_reduction(torch_oracle):
    lp = lambda T: T.zeros(5, 2, 4).log_softmax(2)  # noqa: E731
    raises_both(lambda T: T.nn.functional.ctc_loss(lp(T), T.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2], blank=4),
                torch_oracle, match="blank must be in label range")
    raises_both(lambda T: T.nn.functional.ctc_loss(lp(T), T.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2],
                                                   reduction="foo"), torch_oracle, match="not a valid value")


def test_gradcheck_through_log_softmax():
    x = lt.randn(4, 2, 5, dtype=lt.float64, requires_grad=True)
    assert lt.autograd.gradcheck(
        lambda t: lt.nn.functional.ctc_loss(t.log_softmax(2), lt.tensor([[1, 2], [3, 3]]), [4, 4], [2, 2]), (x,))
