"""learntorch's version (pyproject.toml has the same), written into every saved file."""

__version__ = "0.1.0"
