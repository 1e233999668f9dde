"""`cargo test` with the test binaries run side by side.

    .venv/bin/python scripts/cargo_test.py [CARGO TEST ARGS...]

`cargo test` runs its test binaries one after another. Most of this
workspace's 103 binaries wait on real time (UDP peers over loopback,
tshark, retransmission timers), so one after another they took 70 s of
wall for 20 CPU-s (docs/performance.md, "`make test`"). This builds them
with the same arguments (`cargo test --no-run`), runs them JOBS at a time
(default 4, `DTLSIM_TEST_JOBS`), the slowest of the last run first, and
then the doc tests with `cargo test --doc`. Every binary runs the tests it
always ran, with the same arguments, the same working directory (its
package's) and the same package variables that cargo gives it; within a
binary libtest still runs its tests on its own threads, as under cargo.
Binaries already share the machine with their own threads' tests, and
every socket they open is on an ephemeral port.

A binary's output is printed when it ends: whole if it failed, one line if
it passed. The exit status is non-zero if any binary or doc test failed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The last run's seconds per binary, to start the slowest first next time.
TIMES = ROOT / "target" / "cargo-test-times.json"


def jobs(value: str) -> int:
    """How many test binaries at once, from DTLSIM_TEST_JOBS: a whole
    number from 1; anything else stops with a message naming it."""
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        sys.exit(
            f"DTLSIM_TEST_JOBS = {value!r}: must be a whole number of test binaries, 1 or more"
        )
    return int(value)


JOBS = jobs(os.environ.get("DTLSIM_TEST_JOBS", "4"))


@dataclass(frozen=True)
class Binary:
    name: str  # package/target, as cargo's "Running" line names it
    path: str
    package_dir: Path
    package: str
    version: str


def build(args: list[str]) -> list[Binary]:
    """Build the test binaries as `cargo test ARGS` would and list them."""
    cmd = ["cargo", "test", *args, "--no-run", "--message-format=json-render-diagnostics"]
    done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        sys.exit(done.returncode)
    packages = {}
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version=1", "--no-deps"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True,
    )  # fmt: skip
    for p in json.loads(meta.stdout)["packages"]:
        packages[p["id"]] = p
    found = []
    for line in done.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if not msg["profile"]["test"]:
            continue
        package = packages[msg["package_id"]]
        found.append(
            Binary(
                name=f"{package['name']}/{msg['target']['name']}",
                path=msg["executable"],
                package_dir=Path(package["manifest_path"]).parent,
                package=package["name"],
                version=package["version"],
            )
        )
    return found


def package_env(b: Binary) -> dict[str, str]:
    """The variables cargo sets for a test binary it runs (the ones a test
    can read at run time)."""
    # a Cargo version is semver: MAJOR.MINOR.PATCH, then -PRE and +BUILD
    major, minor, patch = b.version.split("+")[0].split("-")[0].split(".")
    return {
        **os.environ,
        "CARGO_MANIFEST_DIR": str(b.package_dir),
        "CARGO_PKG_NAME": b.package,
        "CARGO_PKG_VERSION": b.version,
        "CARGO_PKG_VERSION_MAJOR": major,
        "CARGO_PKG_VERSION_MINOR": minor,
        "CARGO_PKG_VERSION_PATCH": patch,
    }


def run(b: Binary, test_args: list[str]) -> tuple[Binary, int, float, str]:
    started = time.monotonic()
    done = subprocess.run(
        [b.path, *test_args], cwd=b.package_dir, env=package_env(b),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False,
    )  # fmt: skip
    return b, done.returncode, time.monotonic() - started, done.stdout


def main(argv: list[str]) -> int:
    # Arguments after `--` go to every test binary, as with `cargo test`.
    if "--" in argv:
        cut = argv.index("--")
        cargo_args, test_args = argv[:cut], argv[cut + 1 :]
    else:
        cargo_args, test_args = argv, []
    binaries = build(cargo_args)
    last = json.loads(TIMES.read_text()) if TIMES.exists() else {}
    binaries.sort(key=lambda b: -last.get(b.name, 1e9))  # unknown ones first
    started = time.monotonic()
    times: dict[str, float] = {}
    failed = []
    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        futures = [pool.submit(run, b, test_args) for b in binaries]
        for f in as_completed(futures):
            b, code, seconds, output = f.result()
            times[b.name] = round(seconds, 2)
            if code == 0:
                print(f"ok     {seconds:6.2f} s  {b.name}", flush=True)
            else:
                failed.append(b.name)
                print(f"FAILED {seconds:6.2f} s  {b.name} (exit {code})\n{output}", flush=True)
    TIMES.parent.mkdir(exist_ok=True)
    TIMES.write_text(json.dumps(times, indent=1, sort_keys=True))
    print(
        f"{len(binaries)} test binaries, {JOBS} at a time: {time.monotonic() - started:.1f} s "
        f"(one after another {sum(times.values()):.1f} s)"
    )
    doc = subprocess.run(["cargo", "test", *cargo_args, "--doc", "--", *test_args], cwd=ROOT)
    if failed:
        print(f"failed: {', '.join(sorted(failed))}")
    return 1 if failed or doc.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
