"""Learn the state machine of our DTLS 1.2 server by active automata
learning (AALpy's L*, Mealy machines), over real UDP on loopback, and check
the learned model for paths RFC 6347 does not allow.

The system under learning is `crates/state-mapper`: a Rust mapper that
starts a fresh server (our `dtls_udp` echo server) for every query, turns
each abstract input into the record our own client makes for it, and the
server's records back into names. A development tool: it needs the `dev`
extra (AALpy) and a Rust toolchain.

    python -m dtlsim.statelearn --out docs/state-machine/dtls12-server.dot
    python -m dtlsim.statelearn --dtls13 --out docs/state-machine/dtls13-server.dot

Checked on the model (every path of it, not only the ones learned from):

- the server sends application data (its echo) only after its own
  Finished: nothing a client sends before the handshake completes is
  accepted as application data;
- the server sends its Finished only once the client has sent
  ClientKeyExchange, then ChangeCipherSpec, and its Finished (a Finished
  of the next epoch that arrives before ChangeCipherSpec may be buffered
  and read after it, RFC 6347 §4.1), in a handshake that began with the
  cookie exchange (a HelloVerifyRequest, then a ServerHello).

For DTLS 1.3 (RFC 9147), on the 1.3 inputs (`INPUTS13`):

- the server sends application data only after the client's Finished
  answered its encrypted flight (RFC 8446 §4.4.4, RFC 9147 §5.1 with §6);
- no unauthenticated input (`FORGEABLE13`) ends a session that echoes.

Application data the client protected in epoch 3 after its Finished but
that reaches the server before it is kept (a bounded number of records)
and echoed once the Finished is verified, as 1.2 keeps its next epoch.
"""

from __future__ import annotations

import argparse
import subprocess
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aalpy.automata import MealyMachine, MealyState
from aalpy.base import SUL
from aalpy.learning_algs import run_Lstar
from aalpy.oracles import ProvidedSequencesOracleWrapper, StatePrefixEqOracle


def mealy_machine(transitions: dict[str, dict[str, tuple[str, str]]]) -> MealyMachine:
    """A Mealy machine from a table {state: {input: (output, next state)}},
    starting in "s0": a hand-made model to show the checks find what they
    look for."""
    states = {name: MealyState(name) for name in transitions}
    for name, moves in transitions.items():
        for i, (out, to) in moves.items():
            states[name].transitions[i] = states[to]
            states[name].output_fun[i] = out
    return MealyMachine(states["s0"], list(states.values()))


ROOT = Path(__file__).resolve().parents[2]

# The abstract inputs (the mapper's names): the client's messages of a PSK
# handshake, application data and a fatal alert.
INPUTS = (
    "ClientHello",
    "ClientHelloCookie",
    "ClientKeyExchange",
    "ChangeCipherSpec",
    "Finished",
    "ApplicationData",
    "Alert",
)


# The DTLS 1.3 inputs: the client's flights of a PSK handshake with the
# cookie exchange (RFC 9147 §5.1), an ACK (§7), application data and a
# fatal alert; and the unauthenticated handshake records anyone at the
# client's address can send: a plaintext ServerHello, a ClientHello
# fragment over the 8 KB reassembly bound, two ClientHello fragments that
# disagree on its length.
INPUTS13 = (
    "ClientHello",
    "ClientHelloCookie",
    "Finished",
    "Ack",
    "ApplicationData",
    "Alert",
    "ServerHello",
    "OversizeHelloFragment",
    "InconsistentHelloFragments",
)

# The inputs anyone who can spoof the client's address could send: none of
# them may end an established session (RFC 9147 §4.5.2: invalid records are
# discarded; after the handshake only protected records count).
FORGEABLE13 = ("Alert", "ServerHello", "OversizeHelloFragment", "InconsistentHelloFragments")


class MapperSUL(SUL):
    """The mapper process as AALpy's system under learning: one `reset`
    (a fresh server and client) before each query, one line per input."""

    def __init__(self, dtls13: bool = False) -> None:
        super().__init__()
        self.proc = subprocess.Popen(
            ["cargo", "run", "-q", "-p", "dtlsim-state-mapper", "--"]
            + (["--dtls13"] if dtls13 else []),
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def _ask(self, line: str) -> str:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        if line == "quit":
            return ""
        answer = self.proc.stdout.readline().strip()
        if not answer or answer.startswith("error"):
            raise RuntimeError(f"state mapper: {line!r} → {answer or 'no answer'}")
        return answer

    def pre(self) -> None:
        self._ask("reset")

    def post(self) -> None:
        pass

    def step(self, letter: str | None) -> str:
        return self._ask(letter) if letter is not None else "TIMEOUT"

    def close(self) -> None:
        if self.proc.poll() is None:
            self._ask("quit")
            self.proc.wait(timeout=30)


# The handshake of RFC 6347 §4.2.4 (Figure 1) and its variations that the
# properties are about, tried as counterexamples before the random walks:
# random walks alone seldom reach a handshake's end (four inputs in order).
HANDSHAKE = (
    "ClientHello",
    "ClientHelloCookie",
    "ClientKeyExchange",
    "ChangeCipherSpec",
    "Finished",
)
PROBES = (
    (*HANDSHAKE, "ApplicationData"),
    (*HANDSHAKE[:3], "Finished", "ApplicationData"),
    (*HANDSHAKE[:2], "ChangeCipherSpec", "Finished", "ApplicationData"),
    (*HANDSHAKE[:4], "ApplicationData", "Finished", "ApplicationData"),
    (*HANDSHAKE[:2], "ApplicationData", *HANDSHAKE[2:], "ApplicationData"),
    (*HANDSHAKE, *HANDSHAKE, "ApplicationData"),
    (*HANDSHAKE, "Alert", "ApplicationData"),
    (*HANDSHAKE[:3], "Alert", *HANDSHAKE[3:]),
)
HANDSHAKE13 = ("ClientHello", "ClientHelloCookie", "Finished")
PROBES13 = (
    (*HANDSHAKE13, "ApplicationData"),
    (*HANDSHAKE13[:2], "ApplicationData", "Finished", "ApplicationData"),
    (*HANDSHAKE13, "Finished", "ApplicationData"),
    (*HANDSHAKE13, "Ack", "ApplicationData"),
    (*HANDSHAKE13, "Alert", "ApplicationData"),
    (*HANDSHAKE13[:2], "Alert", "Finished", "ApplicationData"),
)


@dataclass
class Learned:
    model: Any
    states: int
    queries: int
    steps: int


def learn(
    inputs: tuple[str, ...] = INPUTS,
    walks_per_state: int = 10,
    walk_len: int = 6,
    dtls13: bool = False,
) -> Learned:
    """Learn the server's Mealy machine over `inputs`; each hypothesis is
    checked against the server on [`PROBES`] (`PROBES13` for DTLS 1.3; those
    within `inputs`), then by random walks from every state
    (`walks_per_state` of `walk_len` inputs)."""
    sul = MapperSUL(dtls13)
    probes = [list(p) for p in (PROBES13 if dtls13 else PROBES) if set(p) <= set(inputs)]
    try:
        walks = StatePrefixEqOracle(
            list(inputs), sul, walks_per_state=walks_per_state, walk_len=walk_len
        )
        oracle = ProvidedSequencesOracleWrapper(list(inputs), sul, walks, probes)
        model = run_Lstar(list(inputs), sul, oracle, "mealy", print_level=0)
    finally:
        sul.close()
    return Learned(model, len(model.states), sul.num_queries, sul.num_steps)


def deviations(model: Any) -> list[str]:
    """Every path of the model that breaks one of the properties above, as
    the shortest input sequence that shows it (empty: none)."""
    # what a path has seen so far: the cookie exchange (a HelloVerifyRequest),
    # a ServerHello after it, then the client's ClientKeyExchange, its
    # ChangeCipherSpec after that, its Finished, and the server's Finished
    start = (model.initial_state, (False,) * 6)
    seen = {start}
    queue: deque[tuple[Any, tuple[bool, ...], tuple[str, ...]]] = deque([(*start, ())])
    found: list[str] = []
    while queue:
        state, (hvr, hello, cke, ccs, cfin, sfin), path = queue.popleft()
        for i in model.get_input_alphabet():
            out = state.output_fun[i]
            names = out.split("+")
            here = (*path, i)
            shown = " ".join(here) + f" → {out}"
            hvr2 = hvr or "HelloVerifyRequest" in names
            hello2 = hello or (hvr and "ServerHello" in names)
            cke2 = cke or (hello and i == "ClientKeyExchange")
            ccs2 = ccs or (cke2 and i == "ChangeCipherSpec")
            # a Finished of the next epoch sent before ChangeCipherSpec is
            # buffered and read after it (RFC 6347 §4.1): order not required
            cfin2 = cfin or (hello and i == "Finished")
            for n, name in enumerate(names):
                finished_before = sfin or "Finished" in names[:n]
                if name == "ApplicationData" and not finished_before:
                    found.append(f"application data before the server's Finished: {shown}")
                if name == "Finished" and not finished_before and not (ccs2 and cfin2):
                    found.append(f"Finished before the client's handshake: {shown}")
            sfin2 = sfin or "Finished" in names
            nxt = (state.transitions[i], (hvr2, hello2, cke2, ccs2, cfin2, sfin2))
            if nxt not in seen:
                seen.add(nxt)
                queue.append((*nxt, here))
    return found


def deviations13(model: Any) -> list[str]:
    """Every path of a DTLS 1.3 model that breaks one of the 1.3 properties
    above, as the shortest input sequence that shows it (empty: none)."""
    # what a path has seen: the server's encrypted flight, then the
    # client's Finished after it
    start = (model.initial_state, (False, False))
    seen = {start}
    queue: deque[tuple[Any, tuple[bool, bool], tuple[str, ...]]] = deque([(*start, ())])
    found: list[str] = []
    while queue:
        state, (flight, cfin), path = queue.popleft()
        for i in model.get_input_alphabet():
            out = state.output_fun[i]
            names = out.split("+")
            here = (*path, i)
            shown = " ".join(here) + f" → {out}"
            cfin2 = cfin or (flight and i == "Finished")
            if "ApplicationData" in names and not cfin2:
                found.append(f"application data before the client's Finished: {shown}")
            after = state.transitions[i]
            echoes = "ApplicationData" in state.output_fun.get("ApplicationData", "").split("+")
            still = "ApplicationData" in after.output_fun.get("ApplicationData", "").split("+")
            if i in FORGEABLE13 and echoes and not still:
                found.append(f"an unauthenticated record ended the session: {shown}")
            flight2 = flight or "EncryptedFlight" in names
            nxt = (after, (flight2, cfin2))
            if nxt not in seen:
                seen.add(nxt)
                queue.append((*nxt, here))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the learned model (.dot)")
    parser.add_argument("--walks-per-state", type=int, default=25)
    parser.add_argument("--walk-len", type=int, default=8)
    parser.add_argument("--dtls13", action="store_true", help="learn the DTLS 1.3 server")
    args = parser.parse_args()
    learned = learn(
        INPUTS13 if args.dtls13 else INPUTS,
        walks_per_state=args.walks_per_state,
        walk_len=args.walk_len,
        dtls13=args.dtls13,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    learned.model.save(str(args.out.with_suffix("")))
    print(f"{learned.states} states, {learned.queries} queries, {learned.steps} steps")
    check = deviations13 if args.dtls13 else deviations
    for d in check(learned.model) or ["no deviation found"]:
        print(d)


if __name__ == "__main__":
    main()
