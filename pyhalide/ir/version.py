"""The pyhalide version (`pyhalide.__version__`). It lives in the bottom layer
because the compiled-object caches of lowering/ key on it."""

__version__ = "0.1.0"
