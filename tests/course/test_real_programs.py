"""Three real PyTorch programs, end to end, with real torch and with learntorch.

Each program is written once, as a function of the module it is given as ``torch``
(the way a learner's file reads after ``import torch``), and run twice: with real
PyTorch 2.13 (the oracle) and with learntorch.  What it returns (losses over the
iterations, accuracies, final weights, predictions) must agree to the tolerances
``torch.testing.assert_close`` uses for float32.  Sizes are tiny and the data is
synthetic (generated here with NumPy), so the programs run in seconds on a CPU:

* (a) "What is torch.nn really?" (the official tutorial, MNIST replaced by random
  28x28 digits): the hand-written model and training loop, then each refactoring
  step (F.cross_entropy, nn.Module, nn.Linear, optim, TensorDataset, DataLoader,
  validation, a CNN, nn.Sequential with a Lambda, AdaptiveAvgPool2d, torch.device);
* (b) today's Quickstart (FashionMNIST replaced by synthetic images): NeuralNetwork,
  train/test loops, save/load of the state_dict, predictions;
* (c) nanoGPT's model.py and train.py, in our own words, at a tiny configuration on
  the CPU (both attention paths, weight tying, the special init, AdamW param groups,
  the cosine schedule, gradient accumulation, GradScaler, clipping, checkpointing,
  generate with top-k).
"""
from __future__ import annotations

import inspect
import math
import os
from contextlib import nullcontext
from typing import Any

import numpy as np
import pytest

import learntorch

RTOL, ATOL = 1.3e-6, 1e-5  # torch.testing.assert_close's float32 defaults


def _numpy(x: Any) -> Any:
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    if isinstance(x, dict):
        return {k: _numpy(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_numpy(v) for v in x]
    return x


def _compare(actual: Any, expected: Any, path: str = "result", rtol: float = RTOL, atol: float = ATOL) -> None:
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected), f"{path}: keys {sorted(actual)} != {sorted(expected)}"
        for k in expected:
            _compare(actual[k], expected[k], f"{path}[{k!r}]", rtol, atol)
    elif isinstance(expected, list):
        assert len(actual) == len(expected), f"{path}: length {len(actual)} != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{path}[{i}]", rtol, atol)
    elif isinstance(expected, np.ndarray):
        assert actual.shape == expected.shape and actual.dtype == expected.dtype, \
            f"{path}: {actual.shape} {actual.dtype} != torch's {expected.shape} {expected.dtype}"
        if np.issubdtype(expected.dtype, np.floating):
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=path)
        else:
            np.testing.assert_array_equal(actual, expected, err_msg=path)
    elif isinstance(expected, float):
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=path)
    else:
        assert actual == expected, f"{path}: {actual!r} != torch's {expected!r}"


def run_both(program: Any, torch_oracle: Any, *args: Any, rtol: float = RTOL, atol: float = ATOL) -> None:
    expected = _numpy(program(torch_oracle, *args))
    actual = _numpy(program(learntorch, *args))
    _compare(actual, expected, rtol=rtol, atol=atol)


def _digits(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """MNIST's shape: flattened 28x28 float32 images in [0, 1) and int64 labels 0..9, with the
    label written into the image (a brighter band per class) so that training learns something."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 10, n).astype(np.int64)
    x = rng.random((n, 28, 28), dtype=np.float32) * 0.5
    for i, label in enumerate(y):
        x[i, 2 * label:2 * label + 3, :] += 0.5
    return x.reshape(n, 784), y


# ----------------------------------------------------------------------------- (a) What is torch.nn really?
def nn_really(torch: Any) -> dict:
    from functools import partial  # noqa: F401  (the tutorial's imports, kept)
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    TensorDataset, DataLoader = torch.utils.data.TensorDataset, torch.utils.data.DataLoader
    out: dict = {}

    x_train, y_train = _digits(64, 0)
    x_valid, y_valid = _digits(32, 1)
    x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train, y_train, x_valid, y_valid))
    n, c = x_train.shape
    out["stats"] = (n, c, y_train.min().item(), y_train.max().item())

    # neural net from scratch
    torch.manual_seed(0)
    weights = torch.randn(784, 10) / math.sqrt(784)
    weights.requires_grad_()
    bias = torch.zeros(10, requires_grad=True)

    def log_softmax(x):
        return x - x.exp().sum(-1).log().unsqueeze(-1)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    bs = 16
    xb = x_train[0:bs]
    preds = model(xb)
    out["preds0"] = preds[0]

    def nll(input, target):
        return -input[range(target.shape[0]), target].mean()

    loss_func = nll
    yb = y_train[0:bs]
    out["loss0"] = loss_func(preds, yb)

    def accuracy(out, yb):
        preds = torch.argmax(out, dim=1)
        return (preds == yb).float().mean()

    out["acc0"] = accuracy(preds, yb)
    lr, epochs = 0.5, 2
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
    out["scratch"] = (loss_func(model(xb), yb), accuracy(model(xb), yb), weights.clone())

    # torch.nn.functional
    loss_func = F.cross_entropy

    def model(xb):  # noqa: F811
        return xb @ weights + bias
    out["functional"] = (loss_func(model(xb), yb), accuracy(model(xb), yb))

    # nn.Module
    class Mnist_Logistic(nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = nn.Parameter(torch.randn(784, 10) / math.sqrt(784))
            self.bias = nn.Parameter(torch.zeros(10))

        def forward(self, xb):
            return xb @ self.weights + self.bias

    model = Mnist_Logistic()
    out["module0"] = loss_func(model(xb), yb)

    def fit():
        for epoch in range(epochs):
            for i in range((n - 1) // bs + 1):
                start_i = i * bs
                end_i = start_i + bs
                xb = x_train[start_i:end_i]
                yb = y_train[start_i:end_i]
                pred = model(xb)
                loss = loss_func(pred, yb)
                loss.backward()
                with torch.no_grad():
                    for p in model.parameters():
                        p -= p.grad * lr
                    model.zero_grad()
    fit()
    out["module"] = loss_func(model(xb), yb)

    # nn.Linear
    class Mnist_Logistic(nn.Module):  # noqa: F811
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(784, 10)

        def forward(self, xb):
            return self.lin(xb)

    model = Mnist_Logistic()
    fit()
    out["linear"] = (loss_func(model(xb), yb), model.lin.weight)

    # optim
    def get_model():
        model = Mnist_Logistic()
        return model, optim.SGD(model.parameters(), lr=lr)

    model, opt = get_model()
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            xb, yb = x_train[i * bs:i * bs + bs], y_train[i * bs:i * bs + bs]
            loss = loss_func(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
    out["optim"] = loss_func(model(xb), yb)

    # Dataset, DataLoader, validation
    train_ds = TensorDataset(x_train, y_train)
    train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)
    valid_ds = TensorDataset(x_valid, y_valid)
    valid_dl = DataLoader(valid_ds, batch_size=bs * 2)
    model, opt = get_model()
    valid_losses = []
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss = loss_func(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        model.eval()
        with torch.no_grad():
            valid_loss = sum(loss_func(model(xb), yb) for xb, yb in valid_dl)
        valid_losses.append(valid_loss / len(valid_dl))
    out["dataloader"] = valid_losses

    # fit() and get_data()
    def loss_batch(model, loss_func, xb, yb, opt=None):
        loss = loss_func(model(xb), yb)
        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad()
        return loss.item(), len(xb)

    def fit(epochs, model, loss_func, opt, train_dl, valid_dl):  # noqa: F811
        history = []
        for epoch in range(epochs):
            model.train()
            for xb, yb in train_dl:
                loss_batch(model, loss_func, xb, yb, opt)
            model.eval()
            with torch.no_grad():
                losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
            history.append(np.sum(np.multiply(losses, nums)) / np.sum(nums))
        return history

    def get_data(train_ds, valid_ds, bs):
        return (DataLoader(train_ds, batch_size=bs, shuffle=True), DataLoader(valid_ds, batch_size=bs * 2))

    train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
    model, opt = get_model()
    out["fit"] = [float(v) for v in fit(epochs, model, loss_func, opt, train_dl, valid_dl)]

    # a CNN
    class Mnist_CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1)
            self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1)
            self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1)

        def forward(self, xb):
            xb = xb.view(-1, 1, 28, 28)
            xb = F.relu(self.conv1(xb))
            xb = F.relu(self.conv2(xb))
            xb = F.relu(self.conv3(xb))
            xb = F.avg_pool2d(xb, 4)
            return xb.view(-1, xb.size(1))

    lr = 0.1
    model = Mnist_CNN()
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    out["cnn"] = [float(v) for v in fit(epochs, model, loss_func, opt, train_dl, valid_dl)]

    # nn.Sequential with a Lambda, then AdaptiveAvgPool2d and a device
    class Lambda(nn.Module):
        def __init__(self, func):
            super().__init__()
            self.func = func

        def forward(self, x):
            return self.func(x)

    def preprocess(x):
        return x.view(-1, 1, 28, 28)

    model = nn.Sequential(
        Lambda(preprocess),
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AvgPool2d(4),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    out["sequential"] = [float(v) for v in fit(epochs, model, loss_func, opt, train_dl, valid_dl)]

    dev = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    dev = torch.device("cpu")  # the comparison runs on the CPU in both libraries

    def preprocess(x, y):  # noqa: F811
        return x.view(-1, 1, 28, 28).to(dev), y.to(dev)

    class WrappedDataLoader:
        def __init__(self, dl, func):
            self.dl = dl
            self.func = func

        def __len__(self):
            return len(self.dl)

        def __iter__(self):
            for b in self.dl:
                yield self.func(*b)

    train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
    train_dl = WrappedDataLoader(train_dl, preprocess)
    valid_dl = WrappedDataLoader(valid_dl, preprocess)
    model = nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )
    model.to(dev)
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    out["adaptive"] = [float(v) for v in fit(epochs, model, loss_func, opt, train_dl, valid_dl)]
    out["adaptive_weights"] = {k: v for k, v in model.state_dict().items()}
    return out


def test_what_is_torch_nn_really(torch_oracle):
    run_both(nn_really, torch_oracle)


# ----------------------------------------------------------------------------- (b) Quickstart
def quickstart(torch: Any, tmp_path: Any) -> dict:
    nn = torch.nn
    DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset
    out: dict = {}
    torch.manual_seed(0)

    def fashion(n, seed):
        x, y = _digits(n, seed)
        return TensorDataset(torch.from_numpy(x.reshape(n, 1, 28, 28)), torch.from_numpy(y))

    training_data, test_data = fashion(96, 2), fashion(32, 3)
    batch_size = 16
    train_dataloader = DataLoader(training_data, batch_size=batch_size)
    test_dataloader = DataLoader(test_data, batch_size=batch_size)
    for X, y in test_dataloader:
        out["first_batch"] = (tuple(X.shape), str(y.dtype), tuple(y.shape))
        break

    device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
    device = "cpu"  # the comparison runs on the CPU in both libraries

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(28 * 28, 64), nn.ReLU(),
                nn.Linear(64, 64), nn.ReLU(),
                nn.Linear(64, 10),
            )

        def forward(self, x):
            x = self.flatten(x)
            logits = self.linear_relu_stack(x)
            return logits

    model = NeuralNetwork().to(device)
    out["repr"] = repr(model)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    train_losses, test_results = [], []

    def train(dataloader, model, loss_fn, optimizer):
        size = len(dataloader.dataset)
        model.train()
        for batch, (X, y) in enumerate(dataloader):
            X, y = X.to(device), y.to(device)
            pred = model(X)
            loss = loss_fn(pred, y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            if batch % 2 == 0:
                loss, current = loss.item(), (batch + 1) * len(X)
                train_losses.append((loss, current, size))

    def test(dataloader, model, loss_fn):
        size = len(dataloader.dataset)
        num_batches = len(dataloader)
        model.eval()
        test_loss, correct = 0, 0
        with torch.no_grad():
            for X, y in dataloader:
                X, y = X.to(device), y.to(device)
                pred = model(X)
                test_loss += loss_fn(pred, y).item()
                correct += (pred.argmax(1) == y).type(torch.float).sum().item()
        test_loss /= num_batches
        correct /= size
        test_results.append((correct, test_loss))

    for t in range(3):
        train(train_dataloader, model, loss_fn, optimizer)
        test(test_dataloader, model, loss_fn)
    out["train"], out["test"] = train_losses, test_results

    path = os.path.join(tmp_path, f"model_{torch.__name__}.pth")
    torch.save(model.state_dict(), path)
    model = NeuralNetwork().to(device)
    model.load_state_dict(torch.load(path, weights_only=True))

    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]
    model.eval()
    x, y = test_data[0][0], test_data[0][1]
    with torch.no_grad():
        x = x.to(device)
        pred = model(x)
        predicted, actual = classes[pred[0].argmax(0)], classes[y]
    out["prediction"] = (predicted, actual, pred)
    out["state"] = dict(model.state_dict())
    return out


def test_quickstart(torch_oracle, tmp_path):
    run_both(quickstart, torch_oracle, tmp_path)


# ----------------------------------------------------------------------------- (c) nanoGPT
def nanogpt(torch: Any, tmp_path: Any, flash: bool) -> dict:
    """nanoGPT's model.py and train.py, in our own words, at a tiny size on the CPU."""
    from dataclasses import dataclass
    nn, F = torch.nn, torch.nn.functional
    out: dict = {}

    class LayerNorm(nn.Module):
        """LayerNorm with an optional bias (F.layer_norm takes bias=None)."""
        def __init__(self, ndim, bias):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(ndim))
            self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

        def forward(self, input):
            return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

    class CausalSelfAttention(nn.Module):
        def __init__(self, config):
            super().__init__()
            assert config.n_embd % config.n_head == 0
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
            self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
            self.attn_dropout = nn.Dropout(config.dropout)
            self.resid_dropout = nn.Dropout(config.dropout)
            self.n_head, self.n_embd, self.dropout = config.n_head, config.n_embd, config.dropout
            self.flash = flash and hasattr(torch.nn.functional, "scaled_dot_product_attention")
            if not self.flash:
                self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                     .view(1, 1, config.block_size, config.block_size))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            if self.flash:
                y = torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
                att = F.softmax(att, dim=-1)
                att = self.attn_dropout(att)
                y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.resid_dropout(self.c_proj(y))

    class MLP(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
            self.dropout = nn.Dropout(config.dropout)

        def forward(self, x):
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class Block(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
            self.mlp = MLP(config)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    @dataclass
    class GPTConfig:
        block_size: int = 16
        vocab_size: int = 65
        n_layer: int = 2
        n_head: int = 2
        n_embd: int = 32
        dropout: float = 0.0
        bias: bool = False

    class GPT(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.config = config
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.dropout),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=LayerNorm(config.n_embd, bias=config.bias),
            ))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith("c_proj.weight"):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

        def get_num_params(self, non_embedding=True):
            n_params = sum(p.numel() for p in self.parameters())
            if non_embedding:
                n_params -= self.transformer.wpe.weight.numel()
            return n_params

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            assert t <= self.config.block_size
            pos = torch.arange(0, t, dtype=torch.long, device=device)
            tok_emb = self.transformer.wte(idx)
            pos_emb = self.transformer.wpe(pos)
            x = self.transformer.drop(tok_emb + pos_emb)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            if targets is not None:
                logits = self.lm_head(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            else:
                logits = self.lm_head(x[:, [-1], :])
                loss = None
            return logits, loss

        def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
            param_dict = {pn: p for pn, p in self.named_parameters()}
            param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
            decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
            nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
            optim_groups = [
                {"params": decay_params, "weight_decay": weight_decay},
                {"params": nodecay_params, "weight_decay": 0.0},
            ]
            num_decay = sum(p.numel() for p in decay_params)
            num_nodecay = sum(p.numel() for p in nodecay_params)
            fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
            use_fused = fused_available and device_type == "cuda"
            extra_args = dict(fused=True) if use_fused else dict()
            optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)
            return optimizer, (len(decay_params), num_decay, len(nodecay_params), num_nodecay, fused_available)

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            for _ in range(max_new_tokens):
                idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
                logits, _ = self(idx_cond)
                logits = logits[:, -1, :] / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float("Inf")
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    # ---- train.py
    batch_size, block_size, gradient_accumulation_steps = 4, 16, 2
    learning_rate, max_iters, weight_decay, beta1, beta2, grad_clip = 1e-3, 6, 1e-1, 0.9, 0.95, 1.0
    decay_lr, warmup_iters, lr_decay_iters, min_lr = True, 2, 6, 1e-4
    eval_interval, eval_iters = 3, 2
    device, dtype = "cpu", "float32"
    torch.manual_seed(1337)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    device_type = "cuda" if "cuda" in device else "cpu"
    ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
    ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type, dtype=ptdtype)

    data_rng = np.random.default_rng(7)
    train_data = data_rng.integers(0, 65, 2000).astype(np.uint16)
    val_data = data_rng.integers(0, 65, 500).astype(np.uint16)

    def get_batch(split):
        data = train_data if split == "train" else val_data
        ix = torch.randint(len(data) - block_size, (batch_size,))
        x = torch.stack([torch.from_numpy((data[i:i + block_size]).astype(np.int64)) for i in ix])
        y = torch.stack([torch.from_numpy((data[i + 1:i + 1 + block_size]).astype(np.int64)) for i in ix])
        return x.to(device), y.to(device)

    model_args = dict(n_layer=2, n_head=2, n_embd=32, block_size=block_size, bias=False, vocab_size=65,
                      dropout=0.0)
    gptconf = GPTConfig(**model_args)
    model = GPT(gptconf)
    model.to(device)
    out["num_params"] = model.get_num_params()
    out["init"] = {k: v.clone() for k, v in model.state_dict().items()}
    scaler = torch.amp.GradScaler(enabled=(dtype == "float16"))
    optimizer, groups = model.configure_optimizers(weight_decay, learning_rate, (beta1, beta2), device_type)
    out["groups"] = groups

    @torch.no_grad()
    def estimate_loss():
        result = {}
        model.eval()
        for split in ["train", "val"]:
            losses = torch.zeros(eval_iters)
            for k in range(eval_iters):
                X, Y = get_batch(split)
                with ctx:
                    logits, loss = model(X, Y)
                losses[k] = loss.item()
            result[split] = losses.mean()
        model.train()
        return result

    def get_lr(it):
        if it < warmup_iters:
            return learning_rate * (it + 1) / (warmup_iters + 1)
        if it > lr_decay_iters:
            return min_lr
        decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
        assert 0 <= decay_ratio <= 1
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
        return min_lr + coeff * (learning_rate - min_lr)

    X, Y = get_batch("train")
    iter_num, best_val_loss = 0, 1e9
    losses, evals, norms = [], [], []
    ckpt_path = os.path.join(tmp_path, f"ckpt_{torch.__name__}.pt")
    while True:
        lr = get_lr(iter_num) if decay_lr else learning_rate
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        if iter_num % eval_interval == 0:
            ev = estimate_loss()
            evals.append((ev["train"], ev["val"]))
            if ev["val"] < best_val_loss or iter_num == 0:
                best_val_loss = ev["val"]
                checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                              "model_args": model_args, "iter_num": iter_num, "best_val_loss": best_val_loss,
                              "config": {"learning_rate": learning_rate, "batch_size": batch_size}}
                torch.save(checkpoint, ckpt_path)
        for micro_step in range(gradient_accumulation_steps):
            with ctx:
                logits, loss = model(X, Y)
                loss = loss / gradient_accumulation_steps
            X, Y = get_batch("train")
            scaler.scale(loss).backward()
        if grad_clip != 0.0:
            scaler.unscale_(optimizer)
            norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip))
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item() * gradient_accumulation_steps)
        iter_num += 1
        if iter_num > max_iters:
            break
    out["losses"], out["evals"], out["norms"] = losses, evals, norms
    out["final"] = {k: v.clone() for k, v in model.state_dict().items()}
    out["tied"] = model.transformer.wte.weight is model.lm_head.weight

    # resume from the checkpoint
    checkpoint = torch.load(ckpt_path, map_location=device)
    model = GPT(GPTConfig(**checkpoint["model_args"]))
    state_dict = checkpoint["model"]
    unwanted_prefix = "_orig_mod."
    for k in list(state_dict.keys()):
        if k.startswith(unwanted_prefix):
            state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
    model.load_state_dict(state_dict)
    optimizer, _ = model.configure_optimizers(weight_decay, learning_rate, (beta1, beta2), device_type)
    optimizer.load_state_dict(checkpoint["optimizer"])
    out["resumed"] = (checkpoint["iter_num"], checkpoint["best_val_loss"], checkpoint["config"])

    # sample.py
    model.eval()
    torch.manual_seed(42)
    start = torch.zeros((1, 1), dtype=torch.long, device=device)
    with torch.no_grad():
        with ctx:
            out["sample"] = model.generate(start, 20, temperature=0.8, top_k=10)
    return out


@pytest.mark.parametrize("flash", [True, False], ids=["sdpa", "manual_attention"])
def test_nanogpt(torch_oracle, tmp_path, flash):
    run_both(nanogpt, torch_oracle, tmp_path, flash)
