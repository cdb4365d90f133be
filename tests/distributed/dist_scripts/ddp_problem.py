"""The training problem shared by the DDP worker and the single-process reference.

``lib`` is ``learntorch`` or ``torch``: the same code runs on both.  A batch of
12 splits evenly over 1, 2, 3 or 4 ranks, so the mean loss over the full batch
equals the average of the ranks' mean losses, and DDP must reach the weights
of one process that sees the whole batch.
"""
from __future__ import annotations

BATCH, STEPS, LR, MOMENTUM = 12, 4, 0.1, 0.9


def make_model(lib, seed: int = 100):
    lib.manual_seed(seed)
    return lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.Tanh(), lib.nn.Linear(8, 6), lib.nn.Tanh(),
                             lib.nn.Linear(6, 2))


def make_data(lib):
    lib.manual_seed(0)
    return lib.randn(BATCH, 5), lib.randn(BATCH, 2)


def train(lib, model, x, y, micro_batches: int = 1, no_sync=None) -> None:
    """STEPS steps of SGD with momentum on (x, y); ``micro_batches`` > 1 accumulates
    gradients (梯度累加), the first ones inside ``no_sync()`` when it is given."""
    import contextlib
    opt = lib.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    size = x.shape[0] // micro_batches
    for _ in range(STEPS):
        opt.zero_grad()
        for k in range(micro_batches):
            last = k == micro_batches - 1
            context = no_sync() if (no_sync is not None and not last) else contextlib.nullcontext()
            with context:
                out = model(x[k * size:(k + 1) * size])
                loss = lib.nn.functional.mse_loss(out, y[k * size:(k + 1) * size]) / micro_batches
                loss.backward()
        opt.step()


def weights(model) -> list:
    return [p.detach().numpy().tolist() for p in model.parameters()]


def reference_weights(lib) -> list:
    """One process, the full batch."""
    model = make_model(lib)
    x, y = make_data(lib)
    train(lib, model, x, y)
    return weights(model)
