#!/usr/bin/env python3
"""Checks of `explore --checkpoint FILE` and `--resume FILE` on real programs.

    checkpoint_checks.py CHESS_TRACE resume HOW PROGRAM [EXPLORE OPTION]...
        A search saved to a checkpoint and stopped part of the way — HOW: `sigkill` (chess-trace
        killed outright once the checkpoint holds a third of the search), `sigint` (Ctrl-C), or
        `time-limit` (a first run with --time-limit 2, for a search that takes longer) — then
        resumed from it comes to what the search run at once comes to: the same outcome,
        executions, coverage, schedules digest and bugs. The resumed report says how many
        executions it took from the checkpoint, and nothing of the stopped search is left running.
    checkpoint_checks.py CHESS_TRACE refusals PROGRAM
        Bad input exits 125 with a message that says what is wrong: an existing --checkpoint
        file, a missing or foreign --resume file, the checkpoint of another search (it names the
        option that differs), strategies and oracles a checkpoint does not save yet.
"""
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import explore_with_report, fail, run, search_summary, survivors, unique_marker  # noqa: E402

TIMEOUT = 900



def saved_runs(path):
    """The runs a checkpoint holds: its whole records after the header (cli/checkpoint.h)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        return 0
    at, records = 8, 0
    while len(data) - at >= 16:
        size, _ = struct.unpack_from("<QQ", data, at)
        if len(data) - at - 16 < size:
            break
        at += 16 + size
        records += 1
    return max(records - 1, 0)


def stop_partway(chess_trace, work, how, options, program, marker, checkpoint, whole_executions):
    """Starts the checkpointed search and stops it once its checkpoint holds a third of it."""
    command = [chess_trace, "explore", "--quiet", "--out", os.path.join(work, "first-traces"),
               "--checkpoint", checkpoint, *options, "--", program, marker]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=work)
    target = max(whole_executions // 3, 2)
    deadline = time.monotonic() + TIMEOUT
    while saved_runs(checkpoint) < target:
        if process.poll() is not None:
            fail(f"the checkpointed search ended (exit {process.returncode}) before it could be stopped:\n"
                 f"{process.stderr.read().decode(errors='replace')}")
        if time.monotonic() > deadline:
            process.kill()
            fail("the checkpoint never grew")
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL if how == "sigkill" else signal.SIGINT)
    _, err = process.communicate(timeout=60)
    err = err.decode(errors="replace")
    expected = -signal.SIGKILL if how == "sigkill" else 130
    if process.returncode != expected:
        fail(f"the stopped search exited {process.returncode}, expected {expected}:\n{err}")
    if how == "sigint" and f"--resume {checkpoint}" not in err:
        fail(f"the interrupted search does not say how to resume it:\n{err}")
    # Its tracees, fork-server template and namespaces went with it.
    deadline = time.monotonic() + 10
    while survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    if survivors(marker):
        fail(f"processes of the stopped search outlived it: {survivors(marker)}")


def explore_marked(chess_trace, work, name, options, program, marker):
    """explore_with_report with the marker as the program's argument (every part of one search
    has the same command)."""
    return explore_with_report(chess_trace, work, name, options, program, TIMEOUT, (marker,))


def resume(chess_trace, how, program, options):
    # The program's argument marks its processes, to find any the stopped search left behind.
    marker = unique_marker()
    with tempfile.TemporaryDirectory(prefix="chess-checkpoint-") as work:
        whole_code, whole, _ = explore_marked(chess_trace, work, "whole", options, program, marker)
        checkpoint = os.path.join(work, "search.ckpt")
        if how == "time-limit":
            limit = "2"  # the program's search must take longer
            code, first, err = explore_marked(chess_trace, work, "first",
                                              [*options, "--checkpoint", checkpoint, "--time-limit", limit],
                                              program, marker)
            if first["stopped_by"] != "time-limit" or f"--resume {checkpoint}" not in err:
                fail(f"the first part, limited to {limit} s, stopped by {first['stopped_by']} after {first['executions']} "
                     f"executions, and should say how to resume:\n{err}")
        else:
            stop_partway(chess_trace, work, how, options, program, marker, checkpoint, whole["executions"])
        saved = saved_runs(checkpoint)
        code, resumed, err = explore_marked(chess_trace, work, "resumed", [*options, "--resume", checkpoint],
                                            program, marker)
        if code != whole_code or search_summary(resumed) != search_summary(whole):
            fail(f"the resumed search came to {search_summary(resumed)}\nthe whole search came to {search_summary(whole)}\n{err}")
        taken = resumed["search"]["checkpoint"]["resumed_executions"]
        if taken != saved or not 0 < taken < whole["executions"]:
            fail(f"the resumed search took {taken} executions from a checkpoint of {saved}")
        if f"resumed from {checkpoint}" not in err:
            fail(f"the text report does not say the search was resumed:\n{err}")
        if resumed["bugs"]:
            trace = resumed["bugs"][0]["trace"]
            replay_code, _, replay_err = run([chess_trace, "replay", trace], timeout=TIMEOUT, cwd=work)
            if replay_code != 0:
                fail(f"the resumed search's bug does not replay (exit {replay_code}):\n{replay_err}")
        print(f"stopped by {how} with {saved} executions saved, resumed: {search_summary(resumed)}")


def refusals(chess_trace, program):
    with tempfile.TemporaryDirectory(prefix="chess-checkpoint-") as work:
        checkpoint = os.path.join(work, "search.ckpt")
        code, _, err = explore_with_report(chess_trace, work, "first",
                                           ["--checkpoint", checkpoint, "--max-executions", "3"], program)
        if not os.path.exists(checkpoint):
            fail(f"--checkpoint wrote no file:\n{err}")
        junk = os.path.join(work, "junk.json")
        with open(junk, "w") as file:
            file.write('{"schema": 2}\n')
        cases = (
            (["--checkpoint", checkpoint], "the file exists"),
            (["--resume", os.path.join(work, "absent.ckpt")], "absent.ckpt"),
            (["--resume", junk], "not a checkpoint"),
            (["--resume", checkpoint, "--seed", "99"], "its seed was"),
            (["--resume", checkpoint, "--preemption-bound", "1"], "its preemption_bound was 2"),
            (["--resume", checkpoint, "--max-executions", "4"], "its max_executions was 3"),
            (["--resume", checkpoint, "--checkpoint", os.path.join(work, "other.ckpt")], "give --checkpoint only"),
            (["--checkpoint", os.path.join(work, "pct.ckpt"), "--strategy", "pct"], "pb or db"),
            (["--checkpoint", os.path.join(work, "same.ckpt"), "--same-output"], "--same-output"),
        )
        for options, text in cases:
            code, out, err = run([chess_trace, "explore", "--quiet", *options, "--", program], cwd=work)
            if code != 125 or text not in err:
                fail(f"explore {' '.join(options)} exited {code}, expected 125 saying {text!r}:\n{err}")
        # Refusals leave the checkpoint as it was: it still resumes.
        code, resumed, err = explore_with_report(chess_trace, work, "resumed",
                                                 ["--resume", checkpoint, "--max-executions", "3"], program)
        if resumed["search"]["checkpoint"]["resumed_executions"] != 3:
            fail(f"the checkpoint no longer resumes after the refusals:\n{err}")
    print("bad checkpoints and options refused with exit 125")


def main():
    chess_trace, mode = sys.argv[1], sys.argv[2]
    if mode == "refusals":
        refusals(chess_trace, sys.argv[3])
    elif mode == "resume":
        resume(chess_trace, sys.argv[3], sys.argv[4], sys.argv[5:])
    else:
        fail(f"unknown check {mode}")


if __name__ == "__main__":
    main()
