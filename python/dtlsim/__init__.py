"""dtlsim: what security costs on low-power wireless IoT networks.

The Rust core (`dtlsim._core`) holds the protocol code and the closed-form
models; this package loads platform and scenario files, runs experiments,
and writes tables, plots and the reproduction report.

From Python: `dtlsim.load_scenario`, `dtlsim.run` (a pandas DataFrame of
result rows), `dtlsim.run_with_nodes` (the rows and the per-node table),
`dtlsim.summarize`, `dtlsim.tidy` (one row per node and
quantity), `dtlsim.tune` (the retransmission timer that suits a network),
and the closed forms in `dtlsim.models`.
They are imported on first use, so `import dtlsim` stays fast.
"""

import os
from typing import TYPE_CHECKING, Any

# numpy's OpenBLAS starts spinning worker threads that the simulator's own
# worker threads then compete with for the cores; nothing here needs BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from dtlsim._core import __version__

if TYPE_CHECKING:
    from dtlsim import models
    from dtlsim.api import load_scenario, run, run_with_nodes, summarize, tidy, tune
    from dtlsim.scenario import Scenario

_API = {"load_scenario", "run", "run_with_nodes", "summarize", "tidy", "tune"}

__all__ = [
    "Scenario", "__version__", "load_scenario", "models", "run", "run_with_nodes", "summarize",
    "tidy", "tune",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _API:
        from dtlsim import api

        return getattr(api, name)
    if name == "Scenario":
        from dtlsim.scenario import Scenario

        return Scenario
    if name == "models":
        import importlib

        return importlib.import_module("dtlsim.models")
    raise AttributeError(f"module 'dtlsim' has no attribute {name!r}")
