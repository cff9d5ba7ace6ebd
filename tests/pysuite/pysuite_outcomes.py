"""pytest plugin of tests/pysuite/run.py: records every test's outcome as it happens.

Loaded with ``-p pysuite_outcomes``. Environment:

* ``PYSUITE_OUTCOMES``: file to append to, one tab-separated line per event:
  ``start <nodeid>`` before a test runs, ``done <nodeid> <outcome> <message>`` after it, and
  ``collect-error <nodeid> - <message>`` for a file that cannot be collected. A ``start`` without
  its ``done`` names the test that killed the interpreter. Lines are flushed at once.
* ``PYSUITE_DESELECT``: optional file of node ids (one a line) not to run again, so that a run
  can resume after a crash.

Outcomes: passed, failed, error (setup or teardown failed), skipped, xfailed, xpassed.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

_OUTCOMES: Any = None
_RESULTS: dict[str, tuple[str, str]] = {}


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def _write(*fields: str) -> None:
    _OUTCOMES.write("\t".join(fields) + "\n")
    _OUTCOMES.flush()


def pytest_configure(config: pytest.Config) -> None:
    global _OUTCOMES
    _OUTCOMES = open(os.environ["PYSUITE_OUTCOMES"], "a", encoding="utf-8")  # noqa: SIM115


def pytest_unconfigure(config: pytest.Config) -> None:
    if _OUTCOMES is not None:
        _OUTCOMES.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    path = os.environ.get("PYSUITE_DESELECT")
    if not path:
        return
    with open(path, encoding="utf-8") as f:
        done = {line.rstrip("\n") for line in f if line.strip()}
    keep = [item for item in items if item.nodeid not in done]
    dropped = [item for item in items if item.nodeid in done]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        text = str(report.longrepr)
        # The exception itself (pytest's `E ` lines) says more than the traceback before it.
        raised = [line[1:] for line in text.splitlines() if line.startswith("E ")]
        _write("collect-error", report.nodeid, "-", _one_line(" ".join(raised) or text))


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    _write("start", nodeid)


def _message(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return _one_line(crash.message)
    if isinstance(report.longrepr, tuple):  # skips: (file, line, reason)
        return _one_line(str(report.longrepr[2]))
    return _one_line(str(report.longrepr or ""))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    previous = _RESULTS.get(report.nodeid)
    if previous is not None and previous[0] not in ("passed", "xpassed"):
        return  # the first non-pass of setup/call/teardown decides
    if report.failed:
        outcome = "failed" if report.when == "call" else "error"
    elif report.skipped:
        outcome = "xfailed" if hasattr(report, "wasxfail") else "skipped"
    elif report.when == "call":
        outcome = "xpassed" if hasattr(report, "wasxfail") else "passed"
    else:
        return
    _RESULTS[report.nodeid] = (outcome, "" if outcome == "passed" else _message(report))


def pytest_runtest_logfinish(nodeid: str, location: Any) -> None:
    outcome, message = _RESULTS.pop(nodeid, ("error", "no outcome reported"))
    _write("done", nodeid, outcome, message)
