"""`dtlsim bench --compare`: figures kept per code state, the previous
commit's beside ours. What is checked is the bookkeeping, never a time."""

from __future__ import annotations

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
