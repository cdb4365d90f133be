"""Spectral normalization (谱归一化, Miyato et al. 2018), the older hook-based form.

The weight ``W`` is divided by its largest singular value σ before every forward,
so the layer cannot stretch any input by more than a factor 1 (a Lipschitz bound,
which steadies GAN discriminators).  σ is estimated cheaply by *power iteration*:
two unit vectors ``u``, ``v`` are kept as buffers and refined by one step
(``v = normalize(Wᵀu)``, ``u = normalize(Wv)``) per training forward; then
``σ ≈ uᵀ W v``.

:func:`spectral_norm` moves the parameter to ``<name>_orig``, adds the buffers
``<name>_u`` and ``<name>_v``, and registers a forward pre hook that sets the plain
attribute ``<name>`` to ``<name>_orig / σ``.  PyTorch now recommends
:func:`learntorch.nn.utils.parametrizations.spectral_norm` (same numbers, stored
under ``parametrizations.<name>``), but this form is still common in GAN code.
"""
from __future__ import annotations

from typing import Any, Optional, TypeVar

from ...autograd.grad_mode import no_grad
from ...linalg import multi_dot
from ...tensor import Tensor
from ..functional import normalize
from ..modules.conv_variants import ConvTranspose1d, ConvTranspose2d
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre hook: ``module.<name> = <name>_orig / σ``, refining ``u``, ``v`` first
    when the module is training.  An object, so that :func:`remove_spectral_norm` can
    recognise it among the module's hooks."""

    _version: int = 1  # checkpoints before version 1 stored the normalized weight, not v
    name: str
    dim: int
    n_power_iterations: int
    eps: float

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """``dim`` first, the other dimensions flattened into columns."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        return weight_mat.reshape(weight_mat.size(0), -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        """``<name>_orig / σ``.  With ``do_power_iteration`` the buffers ``u``, ``v`` are first
        updated in place (without gradient) and then *copied*, so that the next update
        cannot change the values this forward's backward relies on."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(weight_mat.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(normalize(weight_mat.mv(v), dim=0, eps=self.eps))
                u = u.clone()
                v = v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Replace the hook's tensors by one Parameter ``<name>`` holding the normalized weight."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat: Tensor, u: Tensor, target_sigma: Tensor) -> Tensor:
        """A ``v`` with ``uᵀ W v = target_sigma`` (for loading a checkpoint of version 0, which kept
        the normalized weight instead of ``v``)."""
        v = multi_dot([weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(), u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / u.dot(weight_mat.mv(v)))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        for hook in (module._forward_pre_hooks or {}).values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            # random starting vectors, drawn u first as PyTorch does (same numbers after manual_seed)
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward recomputes it; PyTorch sets weight.data
        # here (not yet normalized), and so do we
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module.register_state_dict_post_hook(SpectralNormStateDictHook(fn))
        module.register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Loads checkpoints written before ``SpectralNorm._version`` 1, which stored the
    normalized ``<name>`` (and no ``v``): σ is read off as ``mean(orig / weight)`` and a
    matching ``v`` is solved for.  Current checkpoints pass through untouched.

    (Called as learntorch's public load pre hooks are, with the module first; PyTorch
    registers it through a private method without that argument.)"""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module: Module, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                 missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (version is None and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
                and weight_key not in state_dict):
            return  # a current checkpoint whose metadata was lost
        has_missing_keys = False
        for suffix in ("_orig", "", "_u"):
            if weight_key + suffix not in state_dict:
                has_missing_keys = True
                if strict:
                    missing_keys.append(weight_key + suffix)
        if has_missing_keys:
            return
        with no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Writes the format version into the state dict's metadata (``local_metadata``).
    learntorch does not store metadata in the dictionary it returns, so this only keeps
    PyTorch's hook table the same."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module: Module, state_dict: dict, prefix: str, local_metadata: dict) -> None:
        entries = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in entries:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        entries[key] = self.fn._version


T_module = TypeVar("T_module", bound=Module)


def spectral_norm(module: T_module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: Optional[int] = None) -> T_module:
    """Divide ``module.<name>`` by its spectral norm before every forward (hook-based form).

    Adds the parameter ``<name>_orig`` and the buffers ``<name>_u``, ``<name>_v``;
    ``dim`` is the output dimension (0, or 1 for ``ConvTranspose``).  Returns ``module``."""
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo :func:`spectral_norm`: ``<name>`` becomes a Parameter holding ``<name>_orig / σ``
    (with the current ``u``, ``v``), and the hooks are removed."""
    hooks = module._forward_pre_hooks or {}
    for key, hook in hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for table, kind in (("_state_dict_hooks", SpectralNormStateDictHook),
                        ("_load_state_dict_pre_hooks", SpectralNormLoadStateDictPreHook)):
        hooks = module.__dict__.get(table) or {}
        for key, hook in hooks.items():
            if isinstance(hook, kind) and hook.fn.name == name:
                del hooks[key]
                break
    return module
