"""learntorch's version (pyproject.toml has the same), written into every saved file.

``torch.version.cuda`` is the CUDA version PyTorch was built with (None for a CPU build).
learntorch is built against none: on a GPU it computes through CuPy, and
``torch.cuda.is_available()`` says whether one is there."""

__version__ = "0.1.0"
cuda = None
