#!/usr/bin/env python3
"""Checks of `chess-trace test` on a whole test suite: each test case searched on its own, the
verdict of each, the JUnit file (valid against tests/suite/junit.xsd, one failure per failing
test, named), the --report JSON, and each concurrency bug's trace replaying that test alone.

    suite_checks.py CHESS_TRACE SCHEMA [--bug NAME]... [--plain NAME]... [--skipped NAME=TEXT]...
                    [--passed NAME]... [--tests N] [--option OPT]... -- TEST_COMMAND...
    suite_checks.py CHESS_TRACE SCHEMA --tests-file FILE ...

--bug: a concurrency bug (found under a preemption, with a trace); --plain: a failure without any
preemption; --skipped: skipped, its reason containing TEXT; --passed: passed. Every test named is
checked; --tests: exactly N tests were run. Every test not named must not have failed.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import fail, run  # noqa: E402

TIMEOUT = 1500


def check_junit(path, schema, report):
    code = subprocess.run(["xmllint", "--noout", "--schema", schema, path], capture_output=True, text=True)
    if code.returncode != 0:
        fail(f"the JUnit file does not validate against {schema}:\n{code.stderr}")
    root = ElementTree.parse(path).getroot()
    cases = {case.get("name"): case for case in root.iter("testcase")}
    for test in report["tests"]:
        case = cases.get(test["name"])
        if case is None:
            fail(f"the JUnit file has no testcase {test['name']!r}")
        failure = case.find("failure")
        skipped = case.find("skipped")
        if test["verdict"] in ("concurrency-bug", "plain-failure"):
            kind = "concurrency" if test["verdict"] == "concurrency-bug" else "plain"
            if failure is None or failure.get("type") != kind:
                fail(f"{test['name']}: no <failure type={kind!r}> in the JUnit file")
            if kind == "concurrency" and test["replay_command"] not in (failure.text or ""):
                fail(f"{test['name']}: the failure does not give the replay command")
            out = case.find("system-out")
            if kind == "concurrency" and (out is None or "[[ATTACHMENT|" not in (out.text or "")):
                fail(f"{test['name']}: no trace attachment line in system-out")
        elif failure is not None:
            fail(f"{test['name']} ({test['verdict']}) has a <failure> in the JUnit file")
        if test["verdict"] == "skipped" and (skipped is None or test["skip_reason"] != skipped.get("message")):
            fail(f"{test['name']}: not <skipped> with its reason in the JUnit file")
    failures = sum(1 for case in cases.values() if case.find("failure") is not None)
    expected = sum(1 for t in report["tests"] if t["verdict"] in ("concurrency-bug", "plain-failure"))
    if failures != expected:
        fail(f"{failures} failures in the JUnit file, {expected} in the report")


def check_replay(chess_trace, test, cwd):
    trace = test["trace"]
    if not trace or not os.path.exists(os.path.join(cwd, trace)):
        fail(f"{test['name']}: no trace at {trace!r}")
    code, _, err = run([chess_trace, "replay", trace], timeout=300, cwd=cwd)
    if code != 0 or f"reproduced: {test['outcome']}" not in err:
        fail(f"{test['name']}: its trace does not replay the bug (exit {code}):\n{err}")
    # The trace holds the command that runs this one test, not the whole suite.
    code, shown, err = run([chess_trace, "show", "--format", "json", trace], timeout=60, cwd=cwd)
    argv = json.loads(shown)["command"]["argv"]
    if code != 0 or not any(part in " ".join(argv) for part in test["name"].replace("::", " ").split()):
        fail(f"{test['name']}: the trace's command {argv} does not run that test alone")


def interrupted(chess_trace, command, after):
    """SIGINT `after` seconds into a run: the test in progress is stopped, the rest are skipped,
    the reports are still written, it exits 130, and no search is left running."""
    with tempfile.TemporaryDirectory() as work:
        report_path = os.path.join(work, "report.json")
        junit = os.path.join(work, "junit.xml")
        line = [chess_trace, "test", "--report", report_path, "--junit", junit, "--out", work + "/out", "--",
                *command]
        process = subprocess.Popen(line, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True)
        time.sleep(after)
        os.kill(process.pid, signal.SIGINT)
        try:
            _, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            fail("chess-trace test did not end within 60 s of SIGINT")
        err = err.decode(errors="replace")
        if process.returncode != 130:
            fail(f"exit status {process.returncode} after SIGINT, expected 130:\n{err}")
        if not os.path.exists(report_path) or not os.path.exists(junit):
            fail(f"the reports were not written after SIGINT:\n{err}")
        with open(report_path) as f:
            report = json.load(f)
        reasons = [t["skip_reason"] for t in report["tests"] if t["verdict"] == "skipped"]
        if not any("interrupted" in reason for reason in reasons):
            fail(f"no test skipped as interrupted: {reasons}\n{err}")
        left = subprocess.run(["pgrep", "-f", work], capture_output=True, text=True).stdout.split()
        if left:
            fail(f"processes left running after SIGINT: {left}")
        print(f"ok: interrupted after {after} s: " + ", ".join(t["verdict"] for t in report["tests"]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("chess_trace")
    parser.add_argument("schema")
    parser.add_argument("--bug", action="append", default=[])
    parser.add_argument("--plain", action="append", default=[])
    parser.add_argument("--skipped", action="append", default=[])
    parser.add_argument("--passed", action="append", default=[])
    parser.add_argument("--tests", type=int)
    parser.add_argument("--tests-file")
    parser.add_argument("--option", action="append", default=[])
    parser.add_argument("--interrupt-after", type=float, help="send SIGINT after this many seconds")
    argv = sys.argv[1:]
    command = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if args.interrupt_after is not None:
        interrupted(args.chess_trace, command, args.interrupt_after)
        return
    with tempfile.TemporaryDirectory() as scratch:
        # The reports are written beside the working directory, not in it: a replay must find the
        # directory as the search did (CPython lists it, with it on sys.path).
        work = os.path.join(scratch, "work")
        os.mkdir(work)
        junit = os.path.join(scratch, "junit.xml")
        report_path = os.path.join(scratch, "report.json")
        line = [args.chess_trace, "test", "--junit", junit, "--report", report_path, "--out", "out", *args.option]
        line += ["--tests", args.tests_file] if args.tests_file else ["--", *command]
        code, out, err = run(line, timeout=TIMEOUT, cwd=work)
        if not os.path.exists(report_path):
            fail(f"no --report written (exit {code}):\n{err}")
        with open(report_path) as f:
            report = json.load(f)
        verdicts = {test["name"]: test for test in report["tests"]}
        failing = args.bug or args.plain
        if code != (1 if failing else 0):
            fail(f"exit status {code}, expected {1 if failing else 0}:\n{err}")
        if args.tests is not None and len(verdicts) != args.tests:
            fail(f"{len(verdicts)} tests run, expected {args.tests}: {sorted(verdicts)}")
        expected = {name: "concurrency-bug" for name in args.bug}
        expected.update({name: "plain-failure" for name in args.plain})
        expected.update({name: "passed" for name in args.passed})
        reasons = {}
        for item in args.skipped:
            name, _, reason = item.partition("=")
            expected[name] = "skipped"
            reasons[name] = reason
        # A pytest node id is relative to pytest's rootdir, which depends on where the suite is:
        # a name given as its end matches the one name that ends so.
        def resolve(name):
            if name in verdicts:
                return name
            ends = [n for n in verdicts if n.endswith("/" + name)]
            if len(ends) != 1:
                fail(f"no test {name!r} in the report: {sorted(verdicts)}\n{err}")
            return ends[0]
        expected = {resolve(name): verdict for name, verdict in expected.items()}
        reasons = {resolve(name): reason for name, reason in reasons.items()}
        args.bug = [resolve(name) for name in args.bug]
        args.plain = [resolve(name) for name in args.plain]
        for name, verdict in expected.items():
            if verdicts[name]["verdict"] != verdict:
                fail(f"{name}: {verdicts[name]['verdict']}, expected {verdict}:\n{err}")
            if name in reasons and reasons[name] not in verdicts[name]["skip_reason"]:
                fail(f"{name}: skipped because {verdicts[name]['skip_reason']!r}, expected {reasons[name]!r}")
        for name, test in verdicts.items():
            if name not in expected and test["verdict"] in ("concurrency-bug", "plain-failure", "error"):
                fail(f"{name}: {test['verdict']} ({test['message']}), expected no failure:\n{err}")
            if name not in err:
                fail(f"no line for {name} in the output:\n{err}")
        if "chess-trace test: " not in err:
            fail(f"no summary:\n{err}")
        check_junit(junit, args.schema, report)
        for name in args.bug:
            check_replay(args.chess_trace, verdicts[name], work)
        for name in args.plain:
            if verdicts[name]["preemptions"] != 0:
                fail(f"{name}: a plain failure with {verdicts[name]['preemptions']} preemptions")
        print(f"ok: {len(verdicts)} tests, " + ", ".join(f"{n}: {t['verdict']}" for n, t in verdicts.items()))


if __name__ == "__main__":
    main()
