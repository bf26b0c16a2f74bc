"""Entry point of a benchmark worker process (see protocol.py)."""
from pyhalide.bench.protocol import worker_main

if __name__ == "__main__":
    worker_main()
