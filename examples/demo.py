"""The quick-start demo: a blur, a histogram equalization and the paper's six
reductions, compiled with pyhalide and checked against NumPy."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import blur  # noqa: E402
import histogram_equalization  # noqa: E402
import paper_reductions  # noqa: E402

if __name__ == "__main__":
    blur.main()
    histogram_equalization.main()
    paper_reductions.main(20)
