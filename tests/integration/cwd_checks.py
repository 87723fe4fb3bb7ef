#!/usr/bin/env python3
"""Checks of a program that creates files in its working directory (tests/programs/explore/
cwd_output_*): a search whose executions share that directory diverges and must say so, never
claiming its bound; with --isolate …,cwd each execution sees the directory as it was, and nothing
reaches the real one; a trace keeps the isolation, and its replay too.

    cwd_checks.py CHESS_TRACE CHECK PROGRAMS_DIR

Every check runs in a fresh temporary directory of its own, which must end as it began (empty)
whenever the working directory was private.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import fail, run  # noqa: E402

PRIVATE_CWD = "--isolate=pid,uts,ipc,mnt,tmp,cwd"


def explore(chess_trace, cwd, options, program, out):
    report_path = os.path.join(out, "report.json")
    code, _, err = run([chess_trace, "explore", "--quiet", "--out", out, "--report", report_path, *options, "--",
                        *program], timeout=300, cwd=cwd)
    if not os.path.exists(report_path):
        fail(f"no --report written (exit {code}):\n{err}")
    with open(report_path) as f:
        return code, err, json.load(f)


def left_in(directory):
    return sorted(os.listdir(directory))


def shared_cwd_diverges(chess_trace, programs):
    """Without cwd, every execution after the first finds tally.0.out and opens once more than
    the one it replays: branches are pruned, the bound is not claimed, and the report names
    the open, what each execution found there and the working directory as the cause."""
    with tempfile.TemporaryDirectory() as cwd, tempfile.TemporaryDirectory() as out:
        # Without the atomic layer, whose learning execution would leave tally.0.out before the
        # search's first execution: the case is the search's own executions sharing the directory.
        code, err, report = explore(chess_trace, cwd, ["--sync-points", "processes"],
                                    [os.path.join(programs, "cwd_output_buggy")], out)
        coverage = report["coverage"]
        if code != 0 or report["outcome"] != "none":
            fail(f"exit {code}, outcome {report['outcome']}; expected no bug found (exit 0):\n{err}")
        if coverage["complete"] or coverage["exhausted"] or coverage["pruned"] == 0 or report["stopped_by"] != "pruned":
            fail(f"a search that pruned branches claims its bound: {coverage}, stopped by {report['stopped_by']}")
        if coverage["bound_completed"] is not None:
            fail(f"branches of round 0 were pruned, yet bound {coverage['bound_completed']} is said to be complete")
        first_line = err.splitlines()[0]
        if not first_line.startswith("chess-trace: no bug found, but the bound is not covered: "):
            fail(f"the first line does not say the bound is not covered:\n{err}")
        if "explored (none needs" in err or "no bug: " in err:
            fail(f"the report claims coverage:\n{err}")
        pruned = report["pruned_branches"]
        if pruned["count"] != coverage["pruned"] or not pruned["described"]:
            fail(f"pruned_branches does not match the coverage: {pruned}")
        branch = pruned["described"][0]
        cause = branch["cause"]
        expected_cause = {"kind": "working-directory", "path": os.path.join(os.path.realpath(cwd), "tally.0.out"),
                          "call": "openat", "in_replayed": "nothing"}
        for key, value in expected_cause.items():
            if cause.get(key) != value:
                fail(f"cause[{key!r}] = {cause.get(key)!r}, expected {value!r}: {cause}")
        if not cause["in_execution"].startswith("a regular file of"):
            fail(f"the diverging execution should have found the file: {cause}")
        if "--isolate pid,uts,ipc,mnt,tmp,cwd" not in cause["remedy"]:
            fail(f"the remedy does not offer --isolate …,cwd: {cause['remedy']}")
        if branch["replayed"] < 1 or branch["execution"] <= branch["replayed"]:
            fail(f"the branch does not say which execution it replayed: {branch}")
        found = branch["found"]
        if found is None or not found["call"].startswith('openat(AT_FDCWD, "tally.1.out", O_WRONLY|O_CREAT|O_EXCL'):
            fail(f"the diverging call is not named with its arguments: {found}")
        if not any("main" in frame for frame in found["stack"]):
            fail(f"the diverging call's stack does not reach main: {found['stack']}")
        for text in ("where the executions diverged", "likely cause: thread 0's openat of tally.0.out found nothing "
                     "there in execution 1, and a regular file of", "try: --isolate pid,uts,ipc,mnt,tmp,cwd"):
            if text not in err:
                fail(f"the text report does not say {text!r}:\n{err}")
        if "tally.0.out" not in left_in(cwd):
            fail(f"the executions shared the working directory, yet left nothing there: {left_in(cwd)}")
    print(f"ok: {coverage['pruned']} branches pruned, the bound not claimed, the open and the working "
          f"directory named")


def private_cwd_leaves_nothing(chess_trace, programs):
    """With cwd, a search of the buggy program finds the bug and one of the fixed twin covers its
    bound, and neither leaves a file in the real working directory, forked or exec'd."""
    for fork in ([], ["--no-fork-server"]):
        with tempfile.TemporaryDirectory() as cwd, tempfile.TemporaryDirectory() as out:
            code, err, report = explore(chess_trace, cwd, [PRIVATE_CWD, *fork],
                                        [os.path.join(programs, "cwd_output_buggy")], out)
            if code != 1 or report["outcome"] != "signal" or report["preemptions"] != 1:
                fail(f"{fork}: expected the bug with 1 preemption (exit 1), got exit {code}:\n{err}")
            if report["coverage"]["pruned"] != 0 or report["divergences"] != 0:
                fail(f"{fork}: executions diverged with a private working directory: {report['coverage']}")
            if not fork and report["fork_server"]["forked"] != report["executions"] - 1:
                fail(f"the executions were not forked: {report['fork_server']}")
            code, err, fixed = explore(chess_trace, cwd, [PRIVATE_CWD, *fork],
                                       [os.path.join(programs, "cwd_output_fixed")], out)
            if code != 0 or fixed["outcome"] != "none" or not fixed["coverage"]["complete"]:
                fail(f"{fork}: the fixed twin was flagged or its bound not covered (exit {code}):\n{err}")
            if left_in(cwd):
                fail(f"{fork}: the executions wrote into the real working directory: {left_in(cwd)}")
    print("ok: with cwd the bug is found, the twin's bound covered, and the working directory untouched")


def template_after_touch(chess_trace, programs):
    """A program that changes its working directory before its first thread gets no template:
    its forked copies would start from a directory without that change."""
    with tempfile.TemporaryDirectory() as cwd, tempfile.TemporaryDirectory() as out:
        code, err, report = explore(chess_trace, cwd, [PRIVATE_CWD],
                                    [os.path.join(programs, "cwd_output_fixed"), "touch"], out)
        reason = report["fork_server"]["unused_because"] or ""
        if code != 0 or report["fork_server"]["forked"] != 0 or "working directory" not in reason:
            fail(f"exit {code}, fork server {report['fork_server']}: expected no template, because of the "
                 f"working directory:\n{err}")
        if left_in(cwd):
            fail(f"the executions wrote into the real working directory: {left_in(cwd)}")
    print(f"ok: no template ({reason})")


def trace_keeps_cwd(chess_trace, programs):
    """run --trace with cwd writes nothing into the real directory, the trace records the
    isolation, and its replay has it too: it finds the directory as the run did. Without cwd the
    run leaves its file, and the replay, which finds it, writes another."""
    program = os.path.join(programs, "cwd_output_fixed")
    with tempfile.TemporaryDirectory() as cwd, tempfile.TemporaryDirectory() as traces:
        trace = os.path.join(traces, "private.trace")
        code, out, err = run([chess_trace, "run", PRIVATE_CWD, "--trace", trace, "--", program], cwd=cwd)
        if code != 0 or out != "tally.0.out: taken 1, left 0\n" or left_in(cwd):
            fail(f"run with cwd: exit {code}, stdout {out!r}, left {left_in(cwd)}:\n{err}")
        code, shown, err = run([chess_trace, "show", "--format", "json", trace], cwd=cwd)
        isolation = json.loads(shown)["options"]["isolation"] if code == 0 else 0
        if not isolation & (1 << 33):
            fail(f"the trace does not record the private working directory (isolation {isolation:#x}):\n{err}")
        for attempt in range(2):
            code, out, err = run([chess_trace, "replay", trace], cwd=cwd)
            if code != 0 or "reproduced: ok" not in err or out != "tally.0.out: taken 1, left 0\n" or left_in(cwd):
                fail(f"replay {attempt + 1}: exit {code}, stdout {out!r}, left {left_in(cwd)}:\n{err}")
        shared = os.path.join(traces, "shared.trace")
        code, _, err = run([chess_trace, "run", "--trace", shared, "--", program], cwd=cwd)
        if code != 0 or left_in(cwd) != ["tally.0.out"]:
            fail(f"run without cwd: exit {code}, left {left_in(cwd)}:\n{err}")
        code, out, err = run([chess_trace, "replay", shared], cwd=cwd)
        if out != "tally.1.out: taken 1, left 0\n" or left_in(cwd) != ["tally.0.out", "tally.1.out"]:
            fail(f"the replay of a run that left its file should find it (exit {code}, stdout {out!r}):\n{err}")
    print("ok: the trace keeps cwd private in its replays; without it the replay finds what the run left")


def with_private_tmp(chess_trace, programs):
    """A run that writes in /tmp and in its working directory gets a new /tmp and a new overlay
    for the next run, whether the directory is under /tmp (its overlay goes with the /tmp it was
    mounted in) or not: every run of --check-determinism finds both as the first did."""
    script = "test -e /tmp/left && exit 4; touch /tmp/left; test -e ./left && exit 3; touch ./left; echo ok"
    for parent in ("/tmp", os.getcwd()):
        with tempfile.TemporaryDirectory(dir=parent) as cwd:
            code, out, err = run([chess_trace, "run", PRIVATE_CWD, "--check-determinism", "4", "--", "sh", "-c",
                                  script], cwd=cwd)
            if code != 0 or "deterministic: 4 runs" not in err or out != "ok\n" or left_in(cwd):
                fail(f"in {cwd}: exit {code}, stdout {out!r}, left {left_in(cwd)}:\n{err}")
    print("ok: /tmp and the working directory both fresh in every run, under /tmp or not")


def refusals(chess_trace, programs):
    """cwd says why it cannot be had, and --help says what it does."""
    cases = [("/", ["--isolate=pid,mnt,cwd"], "the working directory is /"),
             ("/tmp", [PRIVATE_CWD], "which tmp already makes private")]
    for cwd, options, text in cases:
        code, _, err = run([chess_trace, "run", *options, "--", os.path.join(programs, "cwd_output_fixed")], cwd=cwd)
        if code != 125 or text not in err:
            fail(f"in {cwd} with {options}: exit {code}, expected 125 saying {text!r}:\n{err}")
    code, out, _ = run([chess_trace, "run", "--help"])
    if "`cwd` makes the working directory private" not in " ".join(out.split()):
        fail(f"run --help does not say what cwd does:\n{out}")
    print("ok: cwd refused in / and in /tmp with tmp, and --help explains it")


def main():
    chess_trace, check, programs = sys.argv[1:4]
    checks = {"shared-cwd-diverges": shared_cwd_diverges, "private-cwd": private_cwd_leaves_nothing,
              "template-after-touch": template_after_touch, "trace-keeps-cwd": trace_keeps_cwd,
              "with-private-tmp": with_private_tmp, "refusals": refusals}
    checks[check](chess_trace, programs)


if __name__ == "__main__":
    main()
