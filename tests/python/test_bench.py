"""`dtlsim bench --compare`: figures kept per code state, the previous
commit's beside ours. What is checked is the bookkeeping, never a time."""

from __future__ import annotations

import pytest

from dtlsim import bench


def row(case: str, measure: str, wall: float) -> dict:
    return {"case": case, "measure": measure, "wall_s": wall, "per_s": None, "note": ""}


def test_figures_are_kept_per_code_state_and_merged(tmp_path):
    state = bench.CodeState("abc123", dirty=False)
    bench.save(tmp_path, state, [row("dtls", bench.IN_PROCESS, 2.0)])
    bench.save(tmp_path, state, [row("startup-help", bench.WHOLE_PROCESS, 0.2)])
    kept = bench.load(bench.store_path(tmp_path, "abc123"))
    assert {(r["case"], r["wall_s"]) for r in kept} == {("dtls", 2.0), ("startup-help", 0.2)}
    assert bench.CodeState("abc123", dirty=True).name == "abc123-dirty"


def test_compare_pairs_figures_by_case_and_measure():
    now = [row("t", bench.IN_PROCESS, 1.0), row("t", bench.WHOLE_PROCESS, 3.0),
           row("new", bench.IN_PROCESS, 1.0)]  # fmt: skip
    # a bench from before `measure` existed stored in-process figures only
    before = bench.load_rows([{"case": "t", "wall_s": 2.0}])
    table = {(r["case"], r["measure"]): r for r in bench.compare(now, before)}
    assert table[("t", bench.IN_PROCESS)]["ratio"] == 0.5
    assert table[("t", bench.WHOLE_PROCESS)]["previous_wall_s"] is None
    assert table[("new", bench.IN_PROCESS)]["ratio"] is None


def test_compare_without_stored_figures_says_so(cli, tmp_path):
    out = cli("bench", "--case", "dtls", "--handshakes", "10", "--compare",
              "--store", str(tmp_path))  # fmt: skip
    assert "in-process" in out and "previous" in out
    assert "no figures of" in out and "--build-previous" in out
    assert list(tmp_path.glob("*.json"))  # ours are kept for the next commit


def test_build_previous_needs_compare(cli):
    out = cli("bench", "--case", "dtls", "--build-previous", code=2)
    assert "give --compare too" in out


def test_the_storm_runs_only_when_asked_for():
    from dtlsim.cli.bench import BENCH_CASES, bench_cases

    assert "tsch-storm-10000" not in bench_cases(None, run_all=False)
    assert "exp7-udp" not in bench_cases(None, run_all=False)
    assert "startup" in bench_cases(None, run_all=False)
    assert bench_cases(None, run_all=True) == list(BENCH_CASES)
    assert bench_cases(["tsch-storm-10000"], run_all=False) == ["tsch-storm-10000"]


def test_all_and_case_do_not_mix(cli):
    out = cli("bench", "--case", "dtls", "--all", code=2)
    assert "either --case or --all" in out


def test_reproduce_walls_per_experiment_come_from_its_progress_lines():
    from dtlsim import bench

    marks = [
        (0.5, "experiment 1 of 2: exp1-xmac (0:00:00 elapsed)"),
        (1.0, "exp1-xmac: 0/4 units, 0:00:00 elapsed"),
        (3.25, "experiment 2 of 2: exp7-dtls13-udp (0:00:02 elapsed)"),
        (10.0, "writing the report"),
    ]
    assert bench.experiment_walls(marks, 12.0) == {"exp1-xmac": 2.75, "exp7-dtls13-udp": 6.75}
    # interrupted before the report: the last experiment runs to the end
    assert bench.experiment_walls(marks[:3], 4.0) == {"exp1-xmac": 2.75, "exp7-dtls13-udp": 0.75}


def test_a_peer_case_without_its_peer_says_not_run():
    from dtlsim import bench_peers

    case = bench_peers.BY_NAME["peer-tsch-sim-100"]
    never = lambda cmd, cwd: pytest.fail("nothing is run without the peer")  # noqa: E731
    [(name, wall, note)] = bench_peers.figures(case, list, never, environ={})
    assert (name, wall) == ("peer-tsch-sim-100", None)
    assert note.startswith("not run: DTLSIM_PEER_TSCH_SIM_100 is not set")


def test_a_peer_case_times_ours_and_the_peer_and_gives_the_ratio():
    from dtlsim import bench_peers

    case = bench_peers.BY_NAME["peer-cooja-xmac"]
    ran = []

    def timer(cmd, cwd):
        ran.append(cmd)
        return 70.0 if cmd[0] == "cooja-headless" else 0.8  # seconds, as if measured

    env = {"DTLSIM_PEER_COOJA_XMAC": "cooja-headless --sim 'my sim.csc'"}
    ours, peer = bench_peers.figures(case, lambda a: ["dtlsim", *a], timer, environ=env)
    assert ran[1] == ["cooja-headless", "--sim", "my sim.csc"]  # split as a shell would
    assert ran[0][:3] == ["dtlsim", "run", "cooja-xmac"] and "--out" in ran[0]
    assert ours[:2] == ("peer-cooja-xmac-dtlsim", 0.8)
    assert peer[:2] == ("peer-cooja-xmac", 70.0)
    assert "87.5x dtlsim's time" in peer[2]  # 70 / 0.8


def test_a_figure_not_run_is_compared_with_nothing():
    before = [row("peer-x", bench.WHOLE_PROCESS, None)]
    now = [row("peer-x", bench.WHOLE_PROCESS, 2.0), row("peer-y", bench.WHOLE_PROCESS, None)]
    table = {r["case"]: r for r in bench.compare(now, bench.load_rows(before))}
    assert table["peer-x"]["previous_wall_s"] is None and table["peer-x"]["ratio"] is None
    assert table["peer-y"]["ratio"] is None
