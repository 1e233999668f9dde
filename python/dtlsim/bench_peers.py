"""`dtlsim bench`'s optional peer cases: another simulator and dtlsim on the
same graph and work, both timed whole-process, side by side.

The project installs no peer. A case finds its peer through an environment
variable holding the command line that runs the peer on that work (split
as a POSIX shell would, run in a fresh temporary directory, timed from
start to exit): the user's own checkout, configuration and interpreter,
since only they know where these are. Without the variable the case says
"not run" and why, never a figure. The ratio is the peer's wall time over
ours: how many times faster dtlsim answered the same question.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dtlsim import keys


@dataclass(frozen=True)
class PeerCase:
    """A bench case against a peer: `ours` are `dtlsim` arguments (before
    `--out`) for the work `work` says, which the command in `env` makes the
    peer do."""

    case: str
    peer: str
    env: str
    ours: tuple[str, ...]
    work: str


_ONE = ("--replications", "1", "--workers", "1")
# The 100-node TSCH network of `scenarios/tsch-100.toml`: a random graph,
# periodic reports to the root for 1 010 s of virtual time.
_TSCH_100 = ("tsch-100", *_ONE)

CASES = (
    PeerCase(
        "peer-tsch-sim-100", "TSCH-Sim", "DTLSIM_PEER_TSCH_SIM_100", ("run", *_TSCH_100),
        "tsch-100: 100 nodes, tree schedule, a report per node per 60 s for 1 010 s",
    ),
    PeerCase(
        "peer-tsch-sim-1000", "TSCH-Sim", "DTLSIM_PEER_TSCH_SIM_1000",
        ("run", *_TSCH_100, "--set", f"{keys.TOPOLOGY_NODES}=1000"),
        "tsch-100 with 1 000 nodes",
    ),
    PeerCase(
        "peer-6tisch-sim-100", "the 6TiSCH simulator", "DTLSIM_PEER_6TISCH_SIM_100",
        ("run", *_TSCH_100, "--set", f"{keys.MAC_TSCH_SCHEDULE}=msf"),
        "tsch-100 with MSF (RFC 9033) scheduling",
    ),
    PeerCase(
        "peer-cooja-xmac", "Cooja", "DTLSIM_PEER_COOJA_XMAC",
        ("run", "cooja-xmac", "--set", f"{keys.TOPOLOGY_HOPS}=3",
         "--set", f"{keys.MAC_XMAC_CHECK_INTERVAL_MS}=125.0", *_ONE),
        "cooja-xmac: 200 handshakes back to back over a 3-hop X-MAC line at 125 ms",
    ),
)  # fmt: skip
BY_NAME = {c.case: c for c in CASES}

# A figure: (bench case, wall seconds or None where not run, what it is).
Figure = tuple[str, float | None, str]
Timer = Callable[[list[str], Path], float]


def peer_command(case: PeerCase, environ: dict[str, str] | os._Environ[str]) -> list[str] | None:
    """The command that runs the peer, or None where its variable is unset or empty."""
    text = environ.get(case.env, "").strip()
    return shlex.split(text) if text else None


def figures(case: PeerCase, ours: Callable[[list[str]], list[str]], timer: Timer,
            environ: dict[str, str] | os._Environ[str] | None = None) -> list[Figure]:  # fmt: skip
    """The case's figures: ours and the peer's wall seconds with the ratio,
    or one saying it was not run. `ours(args)` is the full command of a
    dtlsim run; `timer(cmd, cwd)` times a command from start to exit."""
    command = peer_command(case, os.environ if environ is None else environ)
    if command is None:
        return [
            (
                case.case, None,
                f"not run: {case.env} is not set (the command that runs {case.peer} on "
                f"{case.work}; see docs/performance.md)",
            )
        ]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        ours_s = timer(ours([*case.ours, "--out", str(Path(tmp) / "out")]), Path(tmp))
    with tempfile.TemporaryDirectory() as tmp:
        peer_s = timer(command, Path(tmp))
    return [
        (f"{case.case}-dtlsim", ours_s, f"`dtlsim {' '.join(case.ours)}`, start to exit"),
        (
            case.case, peer_s,
            f"{case.peer} on {case.work} (`{shlex.join(command)}`), start to exit: "
            f"{peer_s / ours_s:.1f}x dtlsim's time",
        ),
    ]  # fmt: skip
