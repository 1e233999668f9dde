"""dtlsim: what security costs on low-power wireless IoT networks.

The Rust core (`dtlsim._core`) holds the protocol code and the closed-form
models; this package loads platform and scenario files, runs experiments,
and writes tables, plots and the reproduction report.
"""

import os

# numpy's OpenBLAS starts spinning worker threads that the simulator's own
# worker threads then compete with for the cores; nothing here needs BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from dtlsim._core import __version__

__all__ = ["__version__"]
