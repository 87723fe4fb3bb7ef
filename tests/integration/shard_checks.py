#!/usr/bin/env python3
"""Checks of `explore --shard I/N` and `chess-trace merge` on real programs.

    shard_checks.py CHESS_TRACE partition N PROGRAM [EXPLORE OPTION]...
        The N shards of a search of a correct PROGRAM add up to the search run whole: their
        executions, and the sum of the digests of their schedules (the same schedules, each run
        once); each covers its part; `merge` says the whole is covered (exit 0), with the whole's
        digest; without one shard it exits 2 and names it.
    shard_checks.py CHESS_TRACE samples N M PROGRAM [EXPLORE OPTION]...
        A sampling search (pct, random) split in N shards of M samples each runs the N·M samples of
        the whole search of N·M: the same schedules (digest), merged as one sampled search.
    shard_checks.py CHESS_TRACE bug N PROGRAM [EXPLORE OPTION]...
        A buggy PROGRAM's bug is found by the shards whose part holds a failing schedule (each
        stops at its first); `merge` reports it once (exit 1), from the shard whose schedule has
        the fewest preemptions, with its trace, which replays it.
    shard_checks.py CHESS_TRACE refusals PROGRAM
        Bad input exits 125 with a message that says what is wrong: --shard 4/3, 0/3, x/y; merging
        shards of different searches, or a report that is not a shard's.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import explore_with_report, fail, run  # noqa: E402

TIMEOUT = 600


def explore(chess_trace, work, name, options, program):
    return explore_with_report(chess_trace, work, name, options, program, TIMEOUT)


def merge(chess_trace, work, reports, expected):
    merged = os.path.join(work, "merged.json")
    code, out, err = run([chess_trace, "merge", "--report", merged, *reports], cwd=work)
    if code != expected:
        fail(f"merge of {len(reports)} reports exited {code}, expected {expected}:\n{out}{err}")
    with open(merged) as file:
        return json.load(file), out + err


def partition(chess_trace, count, program, options):
    with tempfile.TemporaryDirectory(prefix="chess-shards-") as work:
        _, whole, _ = explore(chess_trace, work, "whole", options, program)
        if whole["outcome"] != "none" or not whole["coverage"]["complete"]:
            fail(f"the whole search is not a complete search of a correct program: {whole['message']}")
        reports, executions, digest, replayed = [], 0, 0, 0
        for index in range(1, count + 1):
            code, part, err = explore(chess_trace, work, f"shard-{index}", [*options, "--shard", f"{index}/{count}"],
                                      program)
            shard = part["search"]["shard"]
            if (shard["index"], shard["count"]) != (index, count):
                fail(f"shard {index}/{count}'s report says {shard}")
            if code != 0 or not part["coverage"]["complete"]:
                fail(f"shard {index}/{count} did not cover its part: {part['message']}")
            if f"shard {index}/{count} (its part of the search)" not in err:
                fail(f"shard {index}/{count}'s report does not say it was a part:\n{err}")
            executions += part["executions"]
            replayed += part["search"]["replayed_prefixes"]
            digest = (digest + int(part["search"]["schedules_digest"], 16)) % (1 << 64)
            reports.append(os.path.join(work, f"shard-{index}.json"))
        if executions != whole["executions"]:
            fail(f"the shards ran {executions} executions, the whole search {whole['executions']}")
        if digest != int(whole["search"]["schedules_digest"], 16):
            fail(f"the shards' schedules (digest {digest:016x}) are not the whole search's "
                 f"({whole['search']['schedules_digest']})")
        if replayed < count - 1:
            fail(f"{replayed} replayed prefixes: every shard but the first's owner replays the first execution")
        merged, out = merge(chess_trace, work, reports, 0)
        if merged["executions"] != whole["executions"] or merged["schedules_digest"] != whole["search"]["schedules_digest"]:
            fail(f"merge counts {merged['executions']} executions, digest {merged['schedules_digest']}; the whole "
                 f"search {whole['executions']}, {whole['search']['schedules_digest']}")
        if f"all {whole['executions']} schedules" not in out:
            fail(f"merge does not say every schedule was explored:\n{out}")
        # One shard missing: not a "no bug".
        merged, out = merge(chess_trace, work, reports[:1] + reports[2:], 2)
        if merged["missing"] != [2] or f"shard 2/{count}: missing" not in out:
            fail(f"merge without shard 2 does not name it:\n{out}")
        print(f"{count} shards: {executions} executions (+{replayed} replayed) = the whole search's, "
              f"digest {digest:016x}")


def samples(chess_trace, count, each, program, options):
    with tempfile.TemporaryDirectory(prefix="chess-shards-") as work:
        _, whole, _ = explore(chess_trace, work, "whole", [*options, "--max-executions", str(count * each)], program)
        reports, digest = [], 0
        for index in range(1, count + 1):
            _, part, _ = explore(chess_trace, work, f"shard-{index}",
                                 [*options, "--max-executions", str(each), "--shard", f"{index}/{count}"], program)
            if part["executions"] != each or part["coverage"]["sampled"] != each:
                fail(f"shard {index}/{count} ran {part['executions']} samples, expected {each}")
            digest = (digest + int(part["search"]["schedules_digest"], 16)) % (1 << 64)
            reports.append(os.path.join(work, f"shard-{index}.json"))
        # --max-executions differs between the shards and the whole: compare the schedules only.
        if digest != int(whole["search"]["schedules_digest"], 16):
            fail(f"the shards' samples (digest {digest:016x}) are not the whole search's "
                 f"({whole['search']['schedules_digest']})")
        merged, out = merge(chess_trace, work, reports, 0)
        if merged["sampled"] != count * each or f"{count * each} schedules sampled" not in out:
            fail(f"merge does not count {count * each} samples:\n{out}")
        print(f"{count} shards of {each} samples = the whole search's {count * each}, digest {digest:016x}")


def bug(chess_trace, count, program, options):
    with tempfile.TemporaryDirectory(prefix="chess-shards-") as work:
        reports, found = [], {}
        for index in range(1, count + 1):
            code, part, _ = explore(chess_trace, work, f"shard-{index}", [*options, "--shard", f"{index}/{count}"],
                                    program)
            reports.append(os.path.join(work, f"shard-{index}.json"))
            if code == 1:
                found[index] = part["bugs"][0]
            elif not part["coverage"]["complete"]:
                fail(f"shard {index}/{count} found no bug and did not cover its part: {part['message']}")
        if not found:
            fail("no shard found the bug")
        merged, out = merge(chess_trace, work, reports, 1)
        signatures = {bug["signature"] for bug in found.values()}
        if sorted(bug["signature"] for bug in merged["bugs"]) != sorted(signatures):
            fail(f"merge does not list each distinct bug once ({len(signatures)} signatures):\n{out}")
        first = merged["bugs"][0]
        fewest = min((bug["preemptions"], index) for index, bug in found.items())
        if (first["preemptions"], first["shard"]) != fewest or not first["replay_command"] or first["trace_problem"]:
            fail(f"merge does not report shard {fewest[1]}'s bug first, with its trace:\n{out}")
        finders = sorted(found)
        if first["replay_command"] != f"chess-trace replay {first['trace']}":
            fail(f"merge's replay command is {first['replay_command']!r}")
        code, _, err = run([chess_trace, "replay", first["trace"]], timeout=TIMEOUT, cwd=work)
        if code != 0 or f"reproduced: {first['outcome']}" not in err:
            fail(f"`{first['replay_command']}` exited {code}:\n{err}")
        print(f"shards {finders} of {count} found the bug; merge reported shard {first['shard']}'s first and its "
              f"trace replays")


def refusals(chess_trace, program):
    for shard, text in (("4/3", "I must be from 1 to N"), ("0/3", "numbered from 1"), ("x/y", "whole numbers"),
                        ("3", "is not I/N")):
        code, _, err = run([chess_trace, "explore", "--shard", shard, "--", program])
        if code != 125 or text not in err:
            fail(f"--shard {shard} exited {code}, expected 125 with {text!r}:\n{err}")
    with tempfile.TemporaryDirectory(prefix="chess-shards-") as work:
        explore(chess_trace, work, "a", ["--shard", "1/2"], program)
        explore(chess_trace, work, "b", ["--shard", "2/2", "--preemption-bound", "1"], program)
        code, out, err = run([chess_trace, "merge", os.path.join(work, "a.json"), os.path.join(work, "b.json")])
        if code != 125 or "not parts of one search" not in err or "preemption_bound" not in err:
            fail(f"merging shards of different searches exited {code}, expected 125 naming the bound:\n{out}{err}")
        explore(chess_trace, work, "c", ["--shard", "1/3"], program)
        code, _, err = run([chess_trace, "merge", os.path.join(work, "a.json"), os.path.join(work, "c.json")])
        if code != 125 or "a shard of 3" not in err:
            fail(f"merging a shard of 2 with one of 3 exited {code}, expected 125:\n{err}")
        with open(os.path.join(work, "run.json"), "w") as file:
            file.write('{"schema": 2, "command": "run", "outcome": "ok"}\n')
        code, _, err = run([chess_trace, "merge", os.path.join(work, "run.json")])
        if code != 125 or "not the report of `chess-trace explore --report`" not in err:
            fail(f"merging a run report exited {code}, expected 125:\n{err}")
        code, _, err = run([chess_trace, "merge", os.path.join(work, "absent.json")])
        if code != 125 or "cannot read it" not in err:
            fail(f"merging a missing file exited {code}, expected 125:\n{err}")
    print("bad shards and mismatched reports refused with exit 125")


def main():
    chess_trace, mode = sys.argv[1], sys.argv[2]
    if mode == "refusals":
        refusals(chess_trace, sys.argv[3])
        return
    if mode == "samples":
        samples(chess_trace, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6:])
        return
    count, program, options = int(sys.argv[3]), sys.argv[4], sys.argv[5:]
    {"partition": partition, "bug": bug}[mode](chess_trace, count, program, options)


if __name__ == "__main__":
    main()
