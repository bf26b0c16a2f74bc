"""Run every @pipeline example at a small size (each checks itself against
NumPy and against its own plain Python loops).

    python examples/pipelines/run_all.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import blur  # noqa: E402
import conv5x5  # noqa: E402
import histogram_equalization  # noqa: E402
import paper_reductions  # noqa: E402


def main():
    paper_reductions.main(14)
    blur.main(260, 140)
    histogram_equalization.main(160, 120)
    conv5x5.main(150, 90)


if __name__ == "__main__":
    main()
