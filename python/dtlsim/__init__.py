"""dtlsim: what security costs on low-power wireless IoT networks.

The Rust core (`dtlsim._core`) holds the protocol code and the closed-form
models; this package loads platform and scenario files, runs experiments,
and writes tables, plots and the reproduction report.
"""

from dtlsim._core import __version__

__all__ = ["__version__"]
