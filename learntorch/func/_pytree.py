"""Nested Python containers of tensors ("pytrees"), taken apart and put back together.

The transforms of ``torch.func`` accept more than single tensors: ``grad`` of a
function of a dict of parameters returns a dict of gradients, ``vmap`` maps over
a tuple of lists of tensors.  Each transform therefore does the same three steps:

1. **flatten** the argument into a flat list of *leaves* (the tensors, and any
   other non-container values) plus a :class:`TreeSpec` that remembers the shape
   of the nesting;
2. work on the flat list (one gradient per leaf, one slice per leaf ...);
3. **unflatten**: pour a new flat list of the same length back into the same shape.

Containers are tuples, lists, dicts (an ``OrderedDict`` stays one) and named
tuples; everything else, ``None`` included, is a leaf, as in PyTorch's
``torch.utils._pytree``.  A dict's children are taken in insertion order.

This module is private: PyTorch's pytree utilities live in ``torch.utils._pytree``,
which learntorch does not reproduce.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

__all__ = ["TreeSpec", "tree_flatten", "tree_unflatten", "tree_map", "broadcast_prefix", "treespec_pprint"]


class TreeSpec:
    """The nesting of a pytree without its leaves.

    ``kind`` is the container's type (``tuple``, ``list``, a dict type, a named tuple
    class) or ``None`` for a leaf; ``keys`` are a dict's keys in order; ``children``
    the specs of the entries.  Two specs are equal when the nestings are the same,
    which is how a transform checks that, say, the cotangents have the structure of
    the outputs.  The ``repr`` follows PyTorch's (``*`` is a leaf).
    """

    __slots__ = ("kind", "keys", "children", "num_leaves")

    def __init__(self, kind: Optional[type], keys: Optional[tuple], children: tuple["TreeSpec", ...]) -> None:
        self.kind = kind
        self.keys = keys
        self.children = children
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in children)

    def is_leaf(self) -> bool:
        return self.kind is None

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TreeSpec) and self.kind is other.kind and self.keys == other.keys
                and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.kind, self.keys, self.children))

    def __repr__(self) -> str:
        if self.kind is None:
            return "*"
        if issubclass(self.kind, dict):
            context = list(self.keys)
        elif is_namedtuple_type(self.kind):
            context = self.kind.__name__
        else:
            context = None
        children = ",\n  ".join(repr(c) for c in self.children)
        return f"TreeSpec({self.kind.__name__}, {context}, [{children}])"


def treespec_pprint(spec: TreeSpec) -> str:
    """The structure written as the container itself, with ``*`` for each leaf
    (``(*, {'a': *})``): how PyTorch's messages about mismatched structures show it."""
    if spec.kind is None:
        return "*"
    parts = [treespec_pprint(c) for c in spec.children]
    if issubclass(spec.kind, dict):
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(spec.keys, parts)) + "}"
    if issubclass(spec.kind, list):
        return "[" + ", ".join(parts) + "]"
    if is_namedtuple_type(spec.kind):
        return f"{spec.kind.__name__}(" + ", ".join(f"{f}={p}" for f, p in zip(spec.kind._fields, parts)) + ")"
    return "(" + ", ".join(parts) + (",)" if len(parts) == 1 else ")")


def is_namedtuple_type(kind: type) -> bool:
    """A ``collections.namedtuple`` (or ``typing.NamedTuple``) class: a tuple with ``_fields``."""
    return issubclass(kind, tuple) and hasattr(kind, "_fields")


def _children(tree: Any) -> Optional[tuple[type, Optional[tuple], list]]:
    """``(kind, keys, entries)`` for a container, ``None`` for a leaf."""
    if isinstance(tree, dict):
        return type(tree), tuple(tree.keys()), list(tree.values())
    if isinstance(tree, (tuple, list)):
        return type(tree), None, list(tree)
    return None


def tree_flatten(tree: Any) -> tuple[list, TreeSpec]:
    """``(leaves, spec)``: the leaves from left to right (depth first) and the nesting."""
    leaves: list = []

    def visit(node: Any) -> TreeSpec:
        parts = _children(node)
        if parts is None:
            leaves.append(node)
            return TreeSpec(None, None, ())
        kind, keys, entries = parts
        return TreeSpec(kind, keys, tuple(visit(e) for e in entries))

    spec = visit(tree)
    return leaves, spec


def _rebuild(kind: type, keys: Optional[tuple], entries: list) -> Any:
    if keys is not None:
        return kind(zip(keys, entries))
    if is_namedtuple_type(kind):
        return kind(*entries)
    return kind(entries)


def tree_unflatten(leaves: list, spec: TreeSpec) -> Any:
    """The inverse of :func:`tree_flatten`: ``leaves`` poured into the nesting ``spec``."""
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"tree_unflatten: {len(leaves)} leaves given for a structure of {spec.num_leaves}")
    position = iter(leaves)

    def build(s: TreeSpec) -> Any:
        if s.kind is None:
            return next(position)
        return _rebuild(s.kind, s.keys, [build(c) for c in s.children])

    return build(spec)


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    """``tree`` with ``fn`` applied to every leaf, the nesting kept."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(leaf) for leaf in leaves], spec)


def broadcast_prefix(prefix: Any, spec: TreeSpec) -> Optional[list]:
    """One value per leaf of ``spec``, read from ``prefix``, a tree that is a *prefix* of it.

    ``vmap``'s ``in_dims=(0, None)`` for arguments ``(x, {"a": y, "b": z})`` says
    ``0`` for ``x`` and ``None`` for both leaves of the dict: a leaf of the prefix
    stands for the whole subtree below it.  ``None`` when the prefix does not fit
    (a tuple of the wrong length, other dict keys, a list where a tuple is): the
    caller raises its own error then.
    """
    out: list = []

    def visit(p: Any, s: TreeSpec) -> bool:
        parts = _children(p)
        if parts is None:  # a leaf of the prefix covers everything below
            out.extend([p] * s.num_leaves)
            return True
        kind, keys, entries = parts
        if s.kind is None or kind is not s.kind or len(entries) != len(s.children):
            return False
        if keys is not None:
            if set(keys) != set(s.keys):
                return False
            by_key = dict(zip(keys, entries))
            entries = [by_key[k] for k in s.keys]
        return all(visit(e, c) for e, c in zip(entries, s.children))

    return out if visit(prefix, spec) else None
