"""Array creation and assembly in NumPy-style code."""
from __future__ import annotations
