"""python -m pyhalide.bench [OPTIONS]: the same as `pyhalide bench`."""
from .cli import main

main()
