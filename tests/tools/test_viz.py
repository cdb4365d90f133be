"""learntorch.viz: pictures of the forward and backward graphs.

The pictures are checked through their DOT source (``graph.source``), which
needs only the Python package; rendering to SVG needs Graphviz's ``dot``
program and is skipped where it is missing.
"""
from __future__ import annotations

import inspect
import re
import shutil
import sys

import pytest

import learntorch as torch
from learntorch import viz
from learntorch.autograd import Function
from learntorch.autograd.node import Node

HAS_DOT = shutil.which("dot") is not None


def node_labels(source: str) -> list[str]:
    """The labels of the node statements of a DOT source, in order."""
    return re.findall(r'^\s*\w+ \[label=("(?:[^"\\]|\\.)*"|\S+)', source, flags=re.M)


def hook_graph():
    """The hook example of the course notes (000): c = a*b, e = c*d, hooks on c, d, e."""
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    c = a * b
    d = torch.tensor(4.0, requires_grad=True)
    e = c * d

    def c_hook(grad):
        return grad + 2

    def c_print(grad):
        return None

    c.register_hook(c_hook)
    c.register_hook(c_print)
    c.retain_grad()

    def d_hook(grad):
        return grad + 100

    d.register_hook(d_hook)
    e.retain_grad()

    def e_hook(grad):
        return grad * 2

    e.register_hook(e_hook)
    return dict(a=a, b=b, c=c, d=d, e=e)


def test_hook_graph_before_backward():
    t = hook_graph()
    src = viz.draw_backward(t["e"], params=t).source
    labels = node_labels(src)
    assert sum(label.strip('"').startswith("MulBackward0") for label in labels) == 2
    for name in "abd":
        assert any("AccumulateGrad" in label and f"leaf {name}" in label for label in labels), name
    assert "before backward" in src and "after backward" not in src
    # hooks in registration order; retain_grad always last
    c_box = next(label for label in labels if "tensor hooks on c" in label)
    assert c_box.index("1. c_hook") < c_box.index("2. c_print") < c_box.index("retain_grad")
    assert any("tensor hooks on d" in label and "1. d_hook" in label for label in labels)
    assert any("tensor hooks on e" in label and "1. e_hook" in label for label in labels)
    # saved tensors, named through params
    assert any("saved for backward" in label and "d: [] float32" in label and "c: [] float32" in label
               for label in labels)
    assert "freed" not in src
    assert ".grad = tensor(" not in src


def test_hook_graph_after_backward():
    t = hook_graph()
    t["e"].backward()
    src = viz.draw_backward(t["e"], params=t).source
    assert "after backward: gradients shown" in src and "before backward" not in src
    # e.grad = 2 (e_hook doubles 1), c.grad = 2*4 + 2, d.grad = 2*6 + 100, a.grad = 10*3, b.grad = 10*2
    for expected in ("a.grad = tensor(30.)", "b.grad = tensor(20.)", "d.grad = tensor(112.)",
                     "c.grad = tensor(10.)", "e.grad = tensor(2.)"):
        assert expected in src, expected
    assert src.count("saved tensors: freed") == 2


def test_retain_graph_keeps_saved_tensors():
    t = hook_graph()
    t["e"].backward(retain_graph=True)
    src = viz.draw_backward(t["e"], params=t).source
    assert "after backward" in src and "freed" not in src and "retain_graph=True" in src


def test_options_and_node_hooks():
    x = torch.ones(3, requires_grad=True)
    y = (x * 2).sum()

    def before(grad_outputs):
        return None

    def after(grad_inputs, grad_outputs):
        return None

    y.grad_fn.register_prehook(before)
    y.grad_fn.register_hook(after)
    src = viz.draw_backward(y, title="my title").source
    assert "my title" in src and "node pre-hooks" in src and "1. before" in src and "1. after" in src
    bare = viz.draw_backward(y, show_saved=False, show_hooks=False).source
    assert "hooks" not in bare and "saved" not in bare
    assert "leaf (unnamed)" in bare


def test_in_place_change_of_a_saved_tensor_is_flagged():
    x = torch.ones(2, requires_grad=True)
    u = x * 1
    v = u.sin()
    u.add_(1)
    assert "CHANGED IN PLACE" in viz.draw_backward(v).source


def test_deep_chain_is_walked_iteratively_and_respects_max_nodes():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for _ in range(5000):
        y = y * 1.0001
    depth = len(inspect.stack(0))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 150)  # far below 5000: a recursive walk would fail
    try:
        src = viz.draw_backward(y, params={"x": x}).source
        fwd = viz.draw_forward(y, max_nodes=40).source
    finally:
        sys.setrecursionlimit(limit)
    labels = node_labels(src)
    assert sum("MulBackward0" in label for label in labels) == 300
    assert "4701 more nodes" in src  # 5000 MulBackward0 + 1 AccumulateGrad - 300
    assert sum(label == "mul" for label in node_labels(fwd)) == 40 and "4960 more operations" in fwd
    full = viz.draw_backward(y, params={"x": x}, max_nodes=10_000).source
    assert sum("MulBackward0" in label for label in node_labels(full)) == 5000
    assert "leaf x" in full and "more nodes" not in full


def test_forward_graph_of_the_two_layer_net():
    torch.manual_seed(0)
    x = torch.randn(8, 5)
    w1 = torch.randn(5, 4, requires_grad=True)
    w2 = torch.randn(4, 3, requires_grad=True)
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    src = viz.draw_forward(y_pred, params={"x": x, "w1": w1, "w2": w2, "y_pred": y_pred}).source
    labels = [label.strip('"') for label in node_labels(src)]
    ops = [label for label in labels if "\\n" not in label]
    assert sorted(ops) == ["clamp", "mm", "mm"]
    assert any(label.startswith("w1\\n[5, 4] float32\\nleaf, requires_grad=True") for label in labels)
    assert any(label.startswith("w2\\n[4, 3] float32") for label in labels)
    assert any(label.startswith("x\\n[8, 5] float32\\nrequires_grad=False") for label in labels)  # constant
    assert any(label.startswith("y_pred\\n[8, 3] float32") and "grad_fn=<MmBackward0>" in label
               for label in labels)
    assert "[8, 4] float32" in src  # the hidden layer
    # arrows go forward: from w1 into an op, from the op to its result
    ids = {name: ident for ident, name in re.findall(r'^\s*(\w+) \[label="(w1|y_pred)\\n', src, flags=re.M)}
    assert re.search(rf"^\s*{ids['w1']} -> op\d+", src, flags=re.M)
    assert re.search(rf"^\s*op\d+ -> {ids['y_pred']}", src, flags=re.M)


def test_forward_graph_without_grad_says_so():
    src = viz.draw_forward(torch.ones(2)).source
    assert "requires_grad=False: no history recorded" in src


def test_op_names():
    x = torch.ones(2, 2, requires_grad=True)
    assert viz.op_name((x * 2).grad_fn) == "mul"
    assert viz.op_name(x.mm(x).grad_fn) == "mm"
    assert viz.op_name(x.clamp(min=0).grad_fn) == "clamp"

    class LogSoftmaxBackward0(Node):
        _name = "LogSoftmaxBackward0"

    assert viz.op_name(LogSoftmaxBackward0()) == "log_softmax"

    class MyReLU(Function):  # a learner's own Function keeps the name they gave it
        @staticmethod
        def forward(ctx, x):
            return x.clamp(min=0)

        @staticmethod
        def backward(ctx, grad):
            return grad

    assert viz.op_name(MyReLU.apply(x).grad_fn) == "MyReLU"


def test_missing_dot_raises_install_help(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` on this PATH
    x = torch.ones(2, requires_grad=True)
    g = viz.draw_backward((x * 2).sum())  # building a graph needs no dot
    assert "MulBackward0" in g.source and "MulBackward0" in viz.draw_forward(x * 2).source
    assert not viz.dot_available()
    for render in (lambda: viz.to_svg(g), g._repr_svg_, lambda: g.pipe(format="png"),
                   lambda: g.render(tmp_path / "never-written", format="png"), g._repr_mimebundle_):
        with pytest.raises(viz.GraphvizNotInstalled) as info:
            render()
        assert isinstance(info.value, RuntimeError)
        message = str(info.value)
        assert "sudo apt-get install graphviz" in message and "brew install graphviz" in message
        assert "conda install -c conda-forge graphviz" in message and "make setup" in message
        assert info.value.__suppress_context__ or info.value.__context__ is None  # no chained traceback
    # Jupyter asks _repr_mimebundle_ and then _repr_svg_ for one display: the error is reported once
    assert g._repr_svg_() is None
    with pytest.raises(viz.GraphvizNotInstalled):
        g._repr_svg_()


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz's `dot` program is not installed (make setup installs it)")
def test_to_svg_renders():
    t = hook_graph()
    t["e"].backward()
    svg = viz.to_svg(viz.draw_backward(t["e"], params=t))
    assert "<svg" in svg and "MulBackward0" in svg
    bundle = viz.draw_forward(t["e"], params=t)._repr_mimebundle_()
    assert "<svg" in bundle["image/svg+xml"]


def test_show_source():
    shown = viz.show_source(viz.to_svg)
    text = getattr(shown, "data", shown)
    assert "def to_svg" in text


def test_graph_text_repr_has_no_address():
    """Jupyter stores a picture's text form beside its SVG: it must be the same on every run."""
    x = torch.ones(2, requires_grad=True)
    g = viz.draw_backward((x * 2).sum())
    text = repr(g)
    assert "0x" not in text
    assert text == "<learntorch.viz.Graph: 4 nodes>"  # result, SumBackward0, MulBackward0, AccumulateGrad


def test_saved_results_and_hook_held_tensors_are_drawn():
    """A node's own saved result is kept without the tensor (autograd/node.py, forget_output):
    the drawing still names it, and flags an in-place change of it; a tensor that a
    saved-tensors hook holds is drawn as such."""
    x = torch.ones(3, requires_grad=True)
    y = x.tanh()
    src = viz.draw_backward(y.sum(), params={"x": x}).source
    assert "its own result" in src and "CHANGED" not in src
    y.mul_(2)
    assert "CHANGED IN PLACE" in viz.draw_backward(y, params={"x": x}).source
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        z = x.exp()
    assert "held by a saved-tensors hook" in viz.draw_backward(z, params={"x": x}).source
