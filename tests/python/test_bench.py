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
    assert "tsch-storm-10000-br" not in bench_cases(None, run_all=False)
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


def test_every_target_is_a_row_measured_or_not():
    from dtlsim import bench_targets

    rows = [
        row("startup-tiny-run", bench.WHOLE_PROCESS, 0.3),
        row("reproduce-quick", bench.WHOLE_PROCESS, 19.0),
        row("exp1-xmac-grid", bench.IN_PROCESS, 30.0),
        row("exp1-xmac-grid-floor", bench.IN_PROCESS, 2.5),
        row("peer-tsch-sim-100-dtlsim", bench.WHOLE_PROCESS, 0.5),
        row("peer-tsch-sim-100", bench.WHOLE_PROCESS, 6.0),
        row("peer-cooja-xmac", bench.WHOLE_PROCESS, None),  # its peer was not there
    ]
    judged = {r["target"]: r for r in bench_targets.judge(rows)}
    assert list(judged) == [t.name for t in bench_targets.TARGETS]
    assert (judged["tiny-run"]["measured"], judged["tiny-run"]["holds"]) == (0.3, "no")
    assert judged["reproduce-quick"]["holds"] == "yes"
    assert (judged["exp1-grid-floor"]["measured"], judged["exp1-grid-floor"]["holds"]) == (
        12.0, "no")  # fmt: skip
    # a peer's ratio is at least: 12x against 10x holds
    assert (judged["peer-tsch-sim-100"]["measured"], judged["peer-tsch-sim-100"]["holds"]) == (
        12.0, "yes")  # fmt: skip
    assert judged["peer-cooja-xmac"]["holds"] == "not measured: run --case peer-cooja-xmac"
    assert judged["make-test"]["holds"] == "not measured by bench"
    assert judged["reproduce"]["measured"] is None


def test_the_history_keeps_a_row_per_commit_and_target(tmp_path):
    from dtlsim import bench_targets

    path = tmp_path / "bench" / "history.csv"
    first = bench_targets.judge([row("startup-tiny-run", bench.WHOLE_PROCESS, 0.4)])
    bench_targets.record(path, "aaa", "2026-11-29 09:00", first, load=2.345)
    bench_targets.record(path, "bbb", "2026-11-29 10:00", bench_targets.judge([]))
    # aaa measured again: its rows are replaced where they were, before bbb's
    again = bench_targets.judge([row("startup-tiny-run", bench.WHOLE_PROCESS, 0.1)])
    bench_targets.record(path, "aaa", "2026-11-29 11:00", again)
    kept = bench_targets.read_history(path)
    n = len(bench_targets.TARGETS)
    assert len(kept) == 2 * n
    assert [r["commit"] for r in kept] == ["aaa"] * n + ["bbb"] * n
    tiny = {r["commit"]: r for r in kept if r["target"] == "tiny-run"}
    assert (tiny["aaa"]["measured"], tiny["aaa"]["holds"]) == ("0.1", "yes")
    assert tiny["bbb"]["measured"] == "" and tiny["bbb"]["holds"].startswith("not measured")
    assert tiny["aaa"]["load"] == "" and tiny["bbb"]["load"] == ""  # recorded again without it
    # a history written before the load column was kept reads with it empty
    path.write_text("commit,date,target,limit,measured,holds\nold,d,tiny-run,<= 0.15 s,0.3,no\n")
    bench_targets.record(path, "new", "d2", again, load=2.0)
    kept = bench_targets.read_history(path)
    assert (kept[0]["commit"], kept[0]["load"], kept[-1]["load"]) == ("old", "", "2.0")
    assert list(kept[0]) == list(bench_targets.HISTORY_COLUMNS)


def test_the_floor_row_gives_the_grids_time_over_it(monkeypatch):
    monkeypatch.setattr(bench._core, "bench_event_loop_floor", lambda events, pending: 4.0)
    r = bench.event_loop_floor(100_000_000, 2, grid_wall=30.0)
    assert r["case"] == "exp1-xmac-grid-floor" and r["measure"] == bench.IN_PROCESS
    assert r["wall_s"] == 2.0  # one thread's 4 s over the grid's 2 workers
    assert "40.0 ns per event" in r["note"] and "15.0x this" in r["note"]


def test_a_bench_shows_every_target_even_those_it_did_not_measure(cli, tmp_path):
    out = cli("bench", "--case", "dtls", "--handshakes", "10", "--store", str(tmp_path))
    assert "speed targets" in out
    assert "not measured: run --case startup" in out and "not measured by bench" in out


def test_build_previous_finds_the_library_cargo_writes(tmp_path):
    manifest = tmp_path / "Cargo.toml"
    manifest.write_text('[package]\nname = "dtlsim-py"\n\n[lib]\nname = "_core"\n')
    assert bench._cdylib_file(manifest) == "lib_core.so"
    manifest.write_text('[package]\nname = "dtlsim-py"\n')
    assert bench._cdylib_file(manifest) == "libdtlsim_py.so"


def test_figures_measured_again_replace_the_earlier_ones():
    now = [row("startup-help", bench.WHOLE_PROCESS, 0.9), row("dtls", bench.IN_PROCESS, 1.0)]
    again = [row("startup-help", bench.WHOLE_PROCESS, 0.2)]
    out = bench.replace_rows(now, again)
    assert [(r["case"], r["wall_s"]) for r in out] == [("startup-help", 0.2), ("dtls", 1.0)]
