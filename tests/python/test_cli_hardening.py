"""The command line under hostile or careless input: every mistake gets a
clear error naming what was wrong (exit 2), never a traceback or a panic;
Ctrl-C keeps what was done and says how to go on."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dtlsim.scenario import SCENARIO_DIR
from udp_peers import our_server

PSK = "000102030405060708090a0b0c0d0e0f"
DTLSIM = [sys.executable, "-m", "dtlsim.cli"]


def dtlsim(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DTLSIM, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def refused(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit 2 with an error that says each of `words`, and no traceback or panic."""
    err = done.stderr
    assert done.returncode == 2, (done.returncode, err)
    assert "Traceback" not in err and "panicked" not in err and "Panic" not in err, err
    for w in words:
        assert w in err, (w, err)
    return err


def small_scenario(tmp_path: Path, replications: int = 1) -> Path:
    """exp1 cut to one point, so a run takes seconds."""
    text = (SCENARIO_DIR / "exp1-xmac.toml").read_text()
    text = text.replace("hops = [1, 2, 3, 4]", "hops = 1")
    text = text.replace("pdr = [1.0, 0.9, 0.8, 0.7]", "pdr = 1.0")
    text = text.replace(
        "check_interval_ms = [62.5, 125.0, 250.0, 500.0, 1000.0, 2000.0, 4000.0]",
        "check_interval_ms = 125.0",
    )
    path = tmp_path / "small.toml"
    path.write_text(text)
    return path


def test_run_out_pointing_at_a_file(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    refused(dtlsim("run", str(small_scenario(tmp_path)), "--out", str(afile)), "--out", "is a file")


def test_pcap_to_an_unwritable_path(tmp_path):
    done = dtlsim("run", str(small_scenario(tmp_path)), "--out", str(tmp_path / "o"),
                  "--pcap", str(tmp_path / "no" / "such" / "x.pcap"))  # fmt: skip
    refused(done, "--pcap", "does not exist")
    # nothing was simulated before the refusal
    assert not (tmp_path / "o" / "units").exists() or not list((tmp_path / "o" / "units").iterdir())


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "1e300", "0"])
def test_client_timeout_out_of_range(value):
    done = dtlsim("dtls", "client", "--psk", PSK, f"--timeout={value}")
    refused(done, "--timeout", "range (0, 86400]")


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_server_duration_out_of_range(value):
    done = dtlsim("dtls", "server", "--psk", PSK, "--bind", "127.0.0.1:0", f"--duration={value}")
    refused(done, "--duration", "range (0, 86400]")


def test_client_count_negative():
    refused(dtlsim("dtls", "client", "--psk", PSK, "--count=-1"), "--count")


def test_client_count_above_its_maximum():
    # the messages are built before the handshake: a run holds at most this many
    from dtlsim import _core

    top = _core.MAX_MESSAGES
    done = dtlsim("dtls", "client", "--psk", PSK, f"--count={top + 1}")
    refused(done, f"--count {top + 1}:", f"range [0, {top}]")


def test_binding_refuses_more_messages_than_its_maximum():
    from dtlsim import _core

    top = _core.MAX_MESSAGES
    dtls = json.dumps({"suite": "psk-aes128-ccm8", "psk_hex": PSK})
    in_range = rf"in the range \[0, {top}\]"
    with pytest.raises(ValueError, match=rf"^messages = {top + 1}: .*{in_range}"):
        _core.dtls_client("127.0.0.1:9", dtls, messages=[b"x"] * (top + 1))
    with pytest.raises(ValueError, match=rf"^expect_replies = {top + 1}: .*{in_range}"):
        _core.dtls_client13("127.0.0.1:9", dtls, expect_replies=top + 1)


def test_non_ascii_psk():
    # refused on main already (the hex reader checks ASCII before slicing)
    refused(dtlsim("dtls", "client", "--psk", "ééé", "--timeout", "1"), "psk_hex", "hex")


def test_rich_markup_in_a_value_is_shown_as_written(tmp_path):
    refused(dtlsim("dtls", "client", "--psk", PSK, "--connect", "[/x]"), "[/x]", "HOST:PORT")
    bad = small_scenario(tmp_path).read_text().replace('id = "exp1-xmac"', 'id = "[bold]A[/x]"')
    path = tmp_path / "markup.toml"
    path.write_text(bad)
    err = refused(dtlsim("scenario", "check", str(path)), "[bold]A[/x]", "experiment.id")
    assert "dashes" in err


def test_a_binary_scenario_file_is_named(tmp_path):
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\x00\xff\xfe\x80binary")
    refused(dtlsim("run", str(path)), "binary.toml", "not a text file")
    refused(dtlsim("scenario", "check", str(path)), "binary.toml", "not a text file")


@contextlib.contextmanager
def psk_server(*args: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """A `dtlsim dtls server --json` with the test PSK (and `args`) on a free
    local port, once it is listening; killed on the way out."""
    server, port = our_server("--psk", PSK, *args)
    try:
        yield server, port
    finally:
        server.kill()


def psk_client(port: int, text: str, count: int) -> subprocess.CompletedProcess[str]:
    """`dtlsim dtls client --json` sending `text` `count` times to the server at `port`."""
    return dtlsim("dtls", "client", "--connect", f"127.0.0.1:{port}", "--psk", PSK,
                  "--send", text, "--count", str(count), "--json")  # fmt: skip


def test_sigint_on_dtls_server_keeps_the_report():
    with psk_server() as (server, port):
        client = psk_client(port, "before ctrl-c", 2)
        assert client.returncode == 0, client.stderr
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=30)
    assert "Traceback" not in err, err
    assert server.returncode == 0, err
    report = json.loads(out)
    assert report["echoed"] == 2 and len(report["handshakes"]) == 1


def test_server_report_is_bounded():
    """A peer can make a server receive without end; its report keeps a
    count and the first few (crates/dtls-udp `Sample::LIMIT`, 64)."""
    with psk_server("--handshakes", "1", "--duration", "60") as (server, port):
        client = psk_client(port, "x", 200)
        assert client.returncode == 0, client.stderr
        out, _ = server.communicate(timeout=60)
    report = json.loads(out)
    assert report["received_total"] == 200 and report["echoed"] == 200
    assert len(report["received"]) == 64
    assert report["failures_total"] == 0 and report["failures"] == []


def test_client_report_is_bounded():
    """A server can make a client receive without end; its report keeps a
    count and the first few, as the server's does."""
    with psk_server("--handshakes", "1", "--duration", "60") as (server, port):
        client = psk_client(port, "x", 100)
        server.communicate(timeout=60)
    assert client.returncode == 0, client.stderr
    report = json.loads(client.stdout)
    assert report["received_total"] == 100
    assert report["received"] == ["x"] * 64


def test_sigint_on_run_says_what_was_finished_and_how_to_resume(tmp_path):
    # 4 units of 100 000 handshakes, several seconds each even on a quiet
    # machine (the simulator got faster: 25 000 a unit let the whole sweep end
    # before a loaded test process sent its Ctrl-C): Ctrl-C lands mid-sweep
    scenario = small_scenario(tmp_path)
    out = tmp_path / "results"
    run = subprocess.Popen(
        [*DTLSIM, "run", str(scenario), "--replications", "400000", "--workers", "1",
         "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        units = out / "units"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list(units.glob("*/*.parquet")):
            time.sleep(0.2)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 130, err
    assert "Traceback" not in err, err
    assert "interrupted" in err and "of 4 units finished" in err and "run the same command" in err
    assert str(units) in err.replace("\n", "")
    finished = len(list(units.glob("*/*.parquet")))
    assert 1 <= finished < 4
    assert not (out / "results.parquet").exists()  # nothing half-summed


def test_a_swept_key_is_summarised_by_its_fingerprint(tmp_path):
    out = tmp_path / "o"
    done = dtlsim("run", str(small_scenario(tmp_path)), "--replications", "2", "--out", str(out),
                  "--set", 'dtls.psk_hex=["5ec2e75ec2e7", "0badc0ffee00"]', "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert len({row["dtls.psk_fingerprint"] for row in summary}) == 2
    written = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert b"5ec2e75ec2e7" not in written and b"0badc0ffee00" not in written
    assert "5ec2e75ec2e7" not in done.stdout
