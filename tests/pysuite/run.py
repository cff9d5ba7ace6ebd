#!/usr/bin/env python3
"""Runs the own Python test suites of apache-tvm-ffi releases on each release's Apache library and
on ffihub's, and compares.

The releases are listed in ``releases.txt``; ``scripts/setup-pysuite.sh`` prepares each one's
suite (the ``tests/python`` folder of its sdist) and two venvs holding its wheel under
``.deps/pysuites/<version>``. The ffihub venv's ``tvm_ffi/lib/libtvm_ffi.so`` is pointed at the
library under test; everything else (the Cython extension, ``libtvm_ffi_testing.so``, the headers
the compiling tests build against) is the release's.

The runs (two per release) go in parallel, at most ``--jobs`` at a time, longest suites first. A
test that kills the interpreter is recorded as ``crashed`` and the run resumes after it. The
verdict, per release:

* every test that passes on the release's Apache library must pass on ffihub's, unless it is
  listed in the release's known-failures file (``known_failures/<version>.txt``:
  ``<node id>  # <reason>``, one a line);
* a listed test must still fail on ffihub's runtime and still pass on Apache's: otherwise the
  entry is stale (``--prune`` removes such entries from the file).

Exit status 0 when the verdict holds for every release, 1 when not, 2 when a run could not be
carried out.
"""

from __future__ import annotations

import argparse
import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTCOMES = ("passed", "failed", "error", "crashed", "skipped", "xfailed", "xpassed")
# pytest's exit codes for a run that finished: all passed, some failed, nothing collected.
FINISHED = (0, 1, 5)
MAX_RESUMES = 25
# How much of a long report goes to the terminal (all of it goes to <out>/problems.txt).
SHOWN_COLLECT_ERRORS = 3
SHOWN_PROBLEMS = 60


class SuiteError(Exception):
    """A run that could not be carried out (as opposed to tests that failed)."""


def read_known_failures(path: Path) -> dict[str, str]:
    """Node id -> reason, from lines ``<node id>  # <reason>`` (``#`` lines are comments); none
    when the file does not exist."""
    known: dict[str, str] = {}
    if not path.exists():
        return known
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        nodeid, sep, reason = line.partition(" # ")
        nodeid, reason = nodeid.strip(), reason.strip()
        if not sep or not reason:
            raise SuiteError(f"{path}:{number}: expected `<node id>  # <reason>`, got {line!r}")
        if nodeid in known:
            raise SuiteError(f"{path}:{number}: {nodeid} is listed twice")
        known[nodeid] = reason
    return known


def prune_known_failures(path: Path, stale: set[str]) -> None:
    """Rewrites the file without the entries of `stale`, keeping comments and order."""
    kept = [
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("#") or line.partition(" # ")[0].strip() not in stale
    ]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")


def parse_outcomes(path: Path) -> tuple[dict[str, tuple[str, str]], set[str], dict[str, str]]:
    """(node id -> (outcome, message), node ids started, collection errors) of an outcomes file."""
    results: dict[str, tuple[str, str]] = {}
    started: set[str] = set()
    collect_errors: dict[str, str] = {}
    if not path.exists():
        return results, started, collect_errors
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if fields[0] == "start":
            started.add(fields[1])
        elif fields[0] == "done":
            results[fields[1]] = (fields[2], fields[3] if len(fields) > 3 else "")
        elif fields[0] == "collect-error":
            collect_errors[fields[1]] = fields[3] if len(fields) > 3 else ""
    return results, started, collect_errors


class Release:
    """One release's suite as ``scripts/setup-pysuite.sh`` prepared it in ``<deps>/<version>``."""

    def __init__(self, deps: Path, version: str) -> None:
        self.version, self.dir, self.deps = version, deps / version, deps
        self.tests = self.dir / "tests" / "python"
        if not self.tests.is_dir():
            raise SuiteError(f"{self.tests} is missing: run scripts/setup-pysuite.sh")
        self.size = sum(1 for _ in self.tests.rglob("test_*.py"))


class Suite:
    """One runtime's run of one release's suite."""

    def __init__(self, release: Release, runtime: str, out: Path) -> None:
        self.release, self.name = release, runtime
        self.venv = release.dir / f"venv-{runtime}"
        self.tests = release.tests
        self.out = out
        # Libraries the tests compile are cached per release and runtime, across runs.
        self.cache = release.dir / f"cache-{runtime}"
        self.results: dict[str, tuple[str, str]] = {}
        self.collect_errors: dict[str, str] = {}
        self.seconds = 0.0
        self.error: str | None = None

    def command(self, extra_args: list[str]) -> list[str]:
        return [
            str(self.venv / "bin" / "python"),
            "-m",
            "pytest",
            str(self.tests),
            # Apache's pyproject.toml is not there to be read; no options of its own apply.
            "-c",
            os.devnull,
            "--rootdir",
            str(self.tests),
            "-p",
            "pysuite_outcomes",
            "-p",
            "no:cacheprovider",
            "--continue-on-collection-errors",
            "-q",
            *extra_args,
        ]

    def environment(self, outcomes: Path, deselect: Path) -> dict[str, str]:
        env = dict(os.environ)
        # The compiling tests run the venv's tvm-ffi-config and the shared site's ninja.
        paths = [self.venv / "bin", self.release.deps / "site" / "bin"]
        env["PATH"] = os.pathsep.join([*map(str, paths), env.get("PATH", "")])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYSUITE_OUTCOMES"] = str(outcomes)
        env["PYSUITE_DESELECT"] = str(deselect)
        env["TVM_FFI_CACHE_DIR"] = str(self.cache)
        # The library path must not bring in another libtvm_ffi.so.
        env.pop("LD_LIBRARY_PATH", None)
        env.pop("LD_PRELOAD", None)
        return env

    def run(self, extra_args: list[str], timeout: float) -> None:
        try:
            self._run(extra_args, timeout)
        except Exception as e:  # noqa: BLE001 - reported by the caller
            self.error = f"{type(e).__name__}: {e}"

    def _run(self, extra_args: list[str], timeout: float) -> None:
        outcomes = self.out / f"{self.name}.outcomes"
        deselect = self.out / f"{self.name}.deselect"
        log_path = self.out / f"{self.name}.log"
        outcomes.unlink(missing_ok=True)
        deadline = time.monotonic() + timeout
        start = time.monotonic()
        with open(log_path, "w", encoding="utf-8") as log:
            for _attempt in range(MAX_RESUMES):
                deselect.write_text("".join(f"{n}\n" for n in self.results), encoding="utf-8")
                proc = subprocess.Popen(
                    self.command(extra_args),
                    cwd=self.tests,
                    env=self.environment(outcomes, deselect),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                )
                try:
                    code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
                    what = f"the interpreter died (exit status {code})"
                except subprocess.TimeoutExpired:
                    proc.kill()
                    code = proc.wait()
                    what = f"the run exceeded {timeout:.0f} s"
                results, started, self.collect_errors = parse_outcomes(outcomes)
                in_flight = started - results.keys() - self.results.keys()
                self.results.update(results)
                if code in FINISHED and not in_flight:
                    break
                if not in_flight:
                    raise SuiteError(f"pytest exited with status {code}; see {log_path}")
                for nodeid in in_flight:
                    self.results[nodeid] = ("crashed", what)
                if time.monotonic() >= deadline:
                    raise SuiteError(f"{what}; see {log_path}")
            else:
                raise SuiteError(f"gave up after {MAX_RESUMES} crashes; see {log_path}")
        self.seconds = time.monotonic() - start

    def counts(self) -> str:
        c = Counter(outcome for outcome, _ in self.results.values())
        parts = [f"{c[o]} {o}" for o in OUTCOMES if c[o]]
        if self.collect_errors:
            parts.append(f"{len(self.collect_errors)} files not collected")
        return ", ".join(parts) or "no tests"


def point_library(venv: Path, library: Path) -> None:
    """Makes the venv's tvm_ffi/lib/libtvm_ffi.so a link to `library` (replaced atomically)."""
    libs = list(venv.glob("lib/python3*/site-packages/tvm_ffi/lib"))
    if len(libs) != 1:
        raise SuiteError(f"no tvm_ffi/lib in {venv}: run scripts/setup-pysuite.sh")
    link = libs[0] / "libtvm_ffi.so"
    tmp = libs[0] / "libtvm_ffi.so.tmp"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(library.resolve())
    tmp.replace(link)


def compare(
    apache: Suite, ours: Suite, known: dict[str, str], full_run: bool
) -> tuple[list[str], set[str]]:
    """Prints the comparison; returns (problems, stale known-failure entries). Entries for tests
    neither run saw count as stale only in a full run (extra pytest arguments may select fewer).
    """
    passing = {n for n, (o, _) in apache.results.items() if o == "passed"}
    ours_passing = {n for n, (o, _) in ours.results.items() if o == "passed"}
    both = passing & ours_passing
    ratio = 100.0 * len(both) / len(passing) if passing else 0.0
    version = apache.release.version
    print(f"== apache-tvm-ffi {version}'s own suite")
    print(f"Apache's {version} runtime: {apache.counts()}  ({apache.seconds:.0f} s)")
    print(f"ffihub's runtime: {ours.counts()}  ({ours.seconds:.0f} s)")
    print(
        f"pass ratio: {len(both)}/{len(passing)} = {ratio:.2f}% of the tests that pass on "
        f"Apache's {version} runtime pass on ffihub's"
    )
    for name, suite in (("Apache's", apache), ("ffihub's", ours)):
        errors = sorted(suite.collect_errors.items())
        for path, message in errors[:SHOWN_COLLECT_ERRORS]:
            print(f"  not collected on {name} runtime: {path}: {message}")
        if len(errors) > SHOWN_COLLECT_ERRORS:
            print(f"  ... and {len(errors) - SHOWN_COLLECT_ERRORS} more files")

    problems: list[str] = []
    if not passing:
        problems.append("no test passes on Apache's runtime: the suite did not really run")
    regressions = sorted(passing - ours_passing - known.keys())
    listed = sorted((passing - ours_passing) & known.keys())
    fixed = {n for n in known if n in ours_passing}
    not_apache = {
        n
        for n in known
        if n not in passing and (full_run or n in apache.results or n in ours.results)
    }
    print(f"known failures: {len(listed)} of {len(known)} listed still fail (expected)")
    for nodeid in regressions:
        not_run = (
            "not run: its file could not be collected"
            if nodeid.split("::")[0] in ours.collect_errors
            else "not run"
        )
        outcome, message = ours.results.get(nodeid, ("missing", not_run))
        problems.append(f"{nodeid}: {outcome} on ffihub's runtime: {message}")
    for nodeid in sorted(fixed):
        problems.append(f"{nodeid}: listed as a known failure but passes now: remove it")
    for nodeid in sorted(not_apache):
        outcome = apache.results.get(nodeid, ("missing",))[0]
        problems.append(
            f"{nodeid}: listed as a known failure but is {outcome} on Apache's runtime: remove it"
        )
    extra = sorted(ours_passing - passing)
    if extra:
        print(f"{len(extra)} tests pass on ffihub's runtime but not on Apache's: {extra}")
    return problems, fixed | not_apache


def suite_releases(releases_file: Path) -> list[str]:
    """The versions in ``releases.txt`` that have a test suite (an sdist), in file order."""
    versions = []
    for line in releases_file.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if fields and not fields[0].startswith("#") and fields[2] != "-":
            versions.append(fields[0])
    return versions


def run_all(
    releases: list[Release], ffihub_lib: Path, out: Path, extra: list[str], args: argparse.Namespace
) -> list[tuple[Release, Suite, Suite]]:
    """Runs every release's suite on both runtimes, at most ``args.jobs`` runs at a time."""
    runs = []
    for release in releases:
        point_library(release.dir / "venv-ffihub", ffihub_lib)
        release_out = out / release.version
        release_out.mkdir(parents=True, exist_ok=True)
        runs.append((release, Suite(release, "apache", release_out), Suite(release, "ffihub", release_out)))
    # The largest suites first, so that the last runs to finish are short ones.
    suites = sorted((s for _, *pair in runs for s in pair), key=lambda s: -s.release.size)
    pending: queue.SimpleQueue[Suite] = queue.SimpleQueue()
    for s in suites:
        pending.put(s)

    def worker() -> None:
        while True:
            try:
                suite = pending.get_nowait()
            except queue.Empty:
                return
            suite.run(extra, args.timeout)

    threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in suites:
        if s.error:
            raise SuiteError(
                f"the run of {s.release.version}'s suite on {s.name}'s runtime failed: {s.error}"
            )
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deps", type=Path, required=True, help=".deps/pysuites")
    parser.add_argument("--ffihub-lib", type=Path, required=True, help="ffihub's libtvm_ffi.so")
    parser.add_argument(
        "--release",
        action="append",
        help="a release to run (repeatable; default: every release of releases.txt with a suite)",
    )
    parser.add_argument(
        "--known-failures",
        type=Path,
        default=HERE / "known_failures",
        help="folder of <version>.txt files",
    )
    parser.add_argument("--out", type=Path, required=True, help="folder for logs and outcomes")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="runs at a time (default: CPUs)"
    )
    parser.add_argument("--prune", action="store_true", help="drop stale known-failure entries")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (every run)")
    args = parser.parse_args()
    args.deps, args.out = args.deps.resolve(), args.out.resolve()
    start = time.monotonic()

    try:
        versions = args.release or suite_releases(HERE / "releases.txt")
        releases = [Release(args.deps, v) for v in versions]
        known = {v: read_known_failures(args.known_failures / f"{v}.txt") for v in versions}
        if not args.ffihub_lib.is_file():
            raise SuiteError(f"{args.ffihub_lib} is missing: build ffihub-runtime (release)")
        extra = args.pytest_args + shlex.split(os.environ.get("PYSUITE_PYTEST_ARGS", ""))
        runs = run_all(releases, args.ffihub_lib, args.out, extra, args)
        problems: list[str] = []
        for release, apache, ours in runs:
            found, stale = compare(apache, ours, known[release.version], full_run=not extra)
            known_file = args.known_failures / f"{release.version}.txt"
            if args.prune and stale:
                prune_known_failures(known_file, stale)
                print(f"removed {len(stale)} stale entries from {known_file}")
                found = [p for p in found if p.split(": ")[0] not in stale]
            problems += [f"{release.version}: {p}" for p in found]
    except SuiteError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    (args.out / "problems.txt").write_text("".join(f"{p}\n" for p in problems), encoding="utf-8")
    for problem in problems[:SHOWN_PROBLEMS]:
        print(f"FAIL {problem}")
    if len(problems) > SHOWN_PROBLEMS:
        print(f"FAIL ... and {len(problems) - SHOWN_PROBLEMS} more: {args.out / 'problems.txt'}")
    print(
        f"{len(releases)} releases, {2 * len(releases)} runs, {args.jobs} at a time: "
        f"{time.monotonic() - start:.0f} s; logs and outcomes: {args.out}"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
