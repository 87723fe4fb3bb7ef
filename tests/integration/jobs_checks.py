#!/usr/bin/env python3
"""Checks of `explore -j N` on real programs.

    jobs_checks.py CHESS_TRACE same N PROGRAM [EXPLORE OPTION]...
        A search with N workers comes to what the search with one process comes to: the same
        outcome, executions, coverage (schedules, state-cache pruning, bound), the same schedules
        (their digest) and the same first bug, at the same execution, with a trace that replays
        it; its report says it ran on N workers.
    jobs_checks.py CHESS_TRACE refusals PROGRAM
        What -j does not split (the portfolio) is refused with exit 125 and a message that says
        what to do.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import explore_with_report, fail, run, search_summary  # noqa: E402

TIMEOUT = 900


def explore(chess_trace, work, name, options, program):
    return explore_with_report(chess_trace, work, name, options, program, TIMEOUT)



def same(chess_trace, jobs, program, options):
    with tempfile.TemporaryDirectory(prefix="chess-jobs-") as work:
        one_code, one, _ = explore(chess_trace, work, "one", options, program)
        code, many, err = explore(chess_trace, work, "many", [*options, "-j", str(jobs)], program)
        if code != one_code or search_summary(many) != search_summary(one):
            fail(f"-j {jobs} came to {search_summary(many)}\n-j 1 came to {search_summary(one)}\n{err}")
        if many["search"]["jobs"] != jobs or one["search"]["jobs"] != 1:
            fail(f"the reports say -j {many['search']['jobs']} and -j {one['search']['jobs']}")
        if f"on {jobs} workers" not in err:
            fail(f"the text report does not say the search ran on {jobs} workers:\n{err}")
        if many["bugs"]:
            trace = many["bugs"][0]["trace"]
            if not trace:
                fail(f"-j {jobs}'s bug has no trace: {many['bugs'][0]}")
            replay_code, _, replay_err = run([chess_trace, "replay", trace], timeout=TIMEOUT, cwd=work)
            if replay_code != 0 or f"reproduced: {many['bugs'][0]['outcome']}" not in replay_err:
                fail(f"the trace of -j {jobs}'s bug does not replay it (exit {replay_code}):\n{replay_err}")
            # The threads as the bug left them (none when it ended with an exit: wrong output).
            if len(many["bugs"][0]["threads"]) != len(one["bugs"][0]["threads"]):
                fail(f"-j {jobs}'s bug report has other threads than -j 1's: {many['bugs'][0]}\n{one['bugs'][0]}")
        print(f"-j {jobs} = -j 1: {search_summary(many)}; {many['search']['ran_ahead_unused']} executions ran ahead unused")


def refusals(chess_trace, program):
    for options, text in ((["-j", "2", "--strategy", "portfolio"], "--strategy pb, pct or random"),
                          (["-j", "0", "--strategy", "portfolio"], "--shard I/N")):
        code, _, err = run([chess_trace, "explore", *options, "--", program])
        if code != 125 or text not in err:
            fail(f"explore {' '.join(options)} exited {code}, expected 125 saying {text!r}:\n{err}")
    print("what -j does not split is refused with exit 125")


def main():
    chess_trace, mode = sys.argv[1], sys.argv[2]
    if mode == "refusals":
        refusals(chess_trace, sys.argv[3])
    elif mode == "same":
        same(chess_trace, int(sys.argv[3]), sys.argv[4], sys.argv[5:])
    else:
        fail(f"unknown check {mode}")


if __name__ == "__main__":
    main()
