#!/usr/bin/env python3
"""Runs chess-trace's benchmarks and prints medians and same-round ratios as a Markdown table.

Every configuration is measured in the same invocation as its baseline, interleaved round by
round, and ratios are taken within a round before the median, so a machine whose speed drifts
still gives comparable figures.

    python3 bench/run_benchmarks.py --build build [--rounds 7] [--skip-tools] [--only SECTION]
                                    [--against OTHER_BUILD]

Sections: micro (untrapped syscalls, scheduling points), breakpoints (the floor of a point at an
atomic instruction: an int3, then the instruction single-stepped, emulated or run out of line), shim (the preload shim's announcements:
by system call, and by trap under a seccomp filter of the program's own), tools (real tools), determinism (sleeps
in virtual time, emulated clock reads, startup of clock-hungry runtimes), trace (bytes per
scheduling decision of a trace, and what recording and replaying cost against plain `run`),
explore (executions per second of a search against spawning the same program natively, and
executions to the first bug on the bug corpus), atomics (an atomic point against a syscall point,
the learning execution on real tools with atomics of their own, with and without race sampling, and
executions to each lock-free bug and data race).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def measure(command, key):
    out = subprocess.run(command, capture_output=True, text=True, timeout=600)
    match = re.search(rf"{key} ([0-9.]+)", out.stdout)
    if out.returncode != 0 or not match:
        sys.exit(f"benchmark failed: {' '.join(command)}\nstdout: {out.stdout}\nstderr: {out.stderr}")
    return float(match.group(1))


def wall(command):
    # stdin is /dev/null: `run --trace` reads a piped stdin to its end (and records it), which
    # would wait for the caller's pipe to close, and make the rounds' traces differ.
    started = time.monotonic()
    out = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
    if out.returncode != 0:
        sys.exit(f"benchmark failed: {' '.join(command)}\n{out.stderr.decode(errors='replace')}")
    return time.monotonic() - started


def tool_commands(tmp, programs):
    """Real multi-threaded and multi-process tools, each reading the same generated input."""
    data = os.path.join(tmp, "input.txt")
    with open(data, "w") as f:
        subprocess.run(["seq", "1", "3000000"], stdout=f, check=True)
    tools = {
        "xz -T2": f"xz -T2 -c {data} > /dev/null",
        "zstd -T2": f"zstd -q -T2 -c {data} > /dev/null",
        "pigz -p 2": f"pigz -p 2 -c {data} > /dev/null",
        "sort --parallel=2": f"sort --parallel=2 -S 64M -r {data} > /dev/null",
        "make -j2 (9 compiles, ar, link)": os.path.join(programs, "build_make_project.sh") + " > /dev/null",
        "shell pipeline (cat | sort | uniq | sort | wc)": f"cat {data} | sort -r | uniq -c | sort -n | wc -l > /dev/null",
    }
    return {name: ["sh", "-c", command] for name, command in tools.items()
            if subprocess.run(["sh", "-c", f"command -v {command.split()[0]}"], capture_output=True).returncode == 0
            or command.startswith("/")}


def cell(text):
    """Text for a Markdown table cell: a | inside it would end the cell."""
    return text.replace("|", "\\|")


def median_row(name, values, unit):
    return f"| {name} | {statistics.median(values):.2f} {unit} | {min(values):.2f} – {max(values):.2f} |"


def wall_difference(command_many, command_none, count):
    """Nanoseconds per operation from the wall time of two whole runs, `count` operations and
    none: for programs whose own clock is virtual under chess-trace run."""
    return (wall(command_many) - wall(command_none)) * 1e9 / count


def determinism_section(args, ct, bench, programs):
    """Virtual time: what sleeps cost under `run` (nothing), what an emulated clock read costs
    (a trap: the vDSO is hidden), and what that does to the startup of clock-hungry runtimes."""
    sleepy = [os.path.join(bench, "bench_sleep_heavy"), str(args.sleeps // 4), "10"]
    reads = os.path.join(bench, "bench_clock_reads")
    runtimes = {"`python3 -c pass`": [sys.executable, "-c", "pass"]}
    if shutil.which("java"):
        runtimes["`java -version`"] = [shutil.which("java"), "-version"]
    go = os.path.join(programs, "go_goroutines")
    if os.path.exists(go):
        runtimes["Go test program (go_goroutines)"] = [go]

    sleep_native, sleep_run, sleep_real = [], [], []
    vdso, raw_syscall, trapped, emulated = [], [], [], []
    start = {name: {"native": [], "real-time": [], "run": []} for name in runtimes}
    for _ in range(args.rounds):
        sleep_native.append(wall(sleepy))
        sleep_run.append(wall([ct, "run", "--"] + sleepy))
        sleep_real.append(wall([ct, "run", "--real-time", "--"] + sleepy))
        vdso.append(measure([reads, str(args.clock_reads), "vdso"], "ns_per_call"))
        raw_syscall.append(measure([reads, str(args.clock_reads), "syscall"], "ns_per_call"))
        # Under --real-time the program's own clock is the machine's: it can time the trap itself.
        trapped.append(measure([ct, "run", "--real-time", "--", reads, str(args.clock_reads), "syscall"], "ns_per_call"))
        emulated.append(wall_difference([ct, "run", "--", reads, str(args.clock_reads)],
                                        [ct, "run", "--", reads, "0"], args.clock_reads))
        for name, command in runtimes.items():
            start[name]["native"].append(wall(command))
            start[name]["real-time"].append(wall([ct, "run", "--real-time", "--"] + command))
            start[name]["run"].append(wall([ct, "run", "--"] + command))

    def ratios(a, b):
        return [x / y for x, y in zip(a, b)]

    print(f"\n### Determinism: sleeps in virtual time ({args.sleeps} × 10 ms nanosleep over 4 threads, wall time)\n")
    print("| configuration | median | range |\n|---|---|---|")
    print(median_row("native", [x * 1e3 for x in sleep_native], "ms"))
    print(median_row("`chess-trace run --real-time`", [x * 1e3 for x in sleep_real], "ms"))
    print(median_row("`chess-trace run` (virtual time)", [x * 1e3 for x in sleep_run], "ms"))
    print(median_row("ratio run / native (target ≤ 0.05)", ratios(sleep_run, sleep_native), "×"))
    print(f"\n### Determinism: clock reads ({args.clock_reads} × clock_gettime(CLOCK_MONOTONIC))\n")
    print("| configuration | median | range |\n|---|---|---|")
    print(median_row("native, vDSO", vdso, "ns/call"))
    print(median_row("native, raw syscall", raw_syscall, "ns/call"))
    print(median_row("`run --real-time`, raw syscall trapped and passed to the kernel", trapped, "ns/call"))
    print(median_row("`run`, emulated (vDSO hidden; wall time of N reads − 0 reads)", emulated, "ns/call"))
    print(median_row("ratio emulated / native vDSO", ratios(emulated, vdso), "×"))
    print(median_row("ratio emulated / trapped-and-passed", ratios(emulated, trapped), "×"))
    print("\n### Determinism: startup of clock-hungry runtimes (wall time)\n")
    print("| program | native | `run --real-time` | `run` | ratio run / native | ratio run / run --real-time |")
    print("|---|---|---|---|---|---|")
    for name, t in start.items():
        r = ratios(t["run"], t["native"])
        v = ratios(t["run"], t["real-time"])
        print(f"| {name} | {statistics.median(t['native']) * 1e3:.1f} ms | {statistics.median(t['real-time']) * 1e3:.1f} ms "
              f"| {statistics.median(t['run']) * 1e3:.1f} ms | {statistics.median(r):.2f} × ({min(r):.2f} – {max(r):.2f}) "
              f"| {statistics.median(v):.2f} × ({min(v):.2f} – {max(v):.2f}) |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build", help="the CMake build directory")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--syscalls", type=int, default=1_000_000)
    parser.add_argument("--pingpong-rounds", type=int, default=20_000)
    parser.add_argument("--skip-tools", action="store_true", help="only the micro-benchmarks")
    parser.add_argument("--against", metavar="BUILD",
                        help="another build directory (the code before a change): the micro section measures its "
                             "chess-trace too, round by round, and prints this build's cost against it")
    parser.add_argument("--only", choices=["micro", "breakpoints", "shim", "tools", "determinism", "trace", "explore",
                                           "strategies", "predict", "harness",
                                           "atomics", "jobs"],
                        help="only this section")
    parser.add_argument("--announcements", type=int, default=20_000, help="lock/unlock pairs of the shim section")
    parser.add_argument("--sleeps", type=int, default=200, help="10 ms sleeps of the sleep-heavy program")
    parser.add_argument("--clock-reads", type=int, default=200_000)
    parser.add_argument("--yields", type=int, default=1_000_000, help="sched_yield calls of the trace section's loop")
    parser.add_argument("--trace-pingpong-rounds", type=int, default=200_000,
                        help="futex ping-pong rounds of the trace section")
    args = parser.parse_args()
    ct = os.path.join(args.build, "chess-trace")
    bench = os.path.join(args.build, "bench")

    loop = [os.path.join(bench, "bench_syscall_loop"), str(args.syscalls)]
    floor = [os.path.join(bench, "bench_filter_floor"), str(args.syscalls)]
    raw = [os.path.join(bench, "bench_ptrace_round_trip"), "100000"]
    pingpong = [os.path.join(bench, "bench_futex_pingpong"), str(args.pingpong_rounds)]

    print(f"Rounds: {args.rounds}; medians with min – max.")
    if args.only in (None, "micro"):
        micro_section(args, ct, loop, floor, raw, pingpong)
    if args.only in (None, "breakpoints"):
        breakpoint_section(args, bench, raw)
    if args.only in (None, "shim"):
        shim_section(args, ct, bench)
    if args.only == "tools" or (args.only is None and not args.skip_tools):
        tools_section(args, ct)
    if args.only == "determinism" or (args.only is None and not args.skip_tools):
        determinism_section(args, ct, bench, os.path.join(args.build, "tests", "programs"))
    if args.only == "trace" or (args.only is None and not args.skip_tools):
        trace_section(args, ct, bench)
    if args.only == "explore" or (args.only is None and not args.skip_tools):
        explore_section(args, ct, bench, os.path.join(args.build, "tests", "programs"))
    if args.only == "strategies":
        with tempfile.TemporaryDirectory() as out:
            strategies_section(ct, out, os.path.join(args.build, "tests", "programs"))
    if args.only == "predict":
        with tempfile.TemporaryDirectory() as out:
            predict_section(ct, out, os.path.join(args.build, "tests", "programs"))
    if args.only == "jobs" or (args.only is None and not args.skip_tools):
        with tempfile.TemporaryDirectory() as out:
            jobs_section(args, ct, out, os.path.join(args.build, "tests", "programs"))
    if args.only == "harness" or (args.only is None and not args.skip_tools):
        harness_section(args, ct, os.path.join(args.build, "tests", "programs"))
    if args.only == "atomics" or (args.only is None and not args.skip_tools):
        atomics_section(args, ct, bench, os.path.join(args.build, "tests", "programs"))


def harness_section(args, ct, programs):
    """The shell harness of the corpus (a server, a sleep, a client) searched at both
    --sync-points levels, against running it natively, interleaved round by round; then what the
    cross-process points cost and find on the worker pool."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "programs", "explore")
    harness = ["sh", os.path.join(source, "client_then_wait_fixed.sh"), os.path.join(programs, "harness_peer")]
    runs = 20
    native, rates = [], {"processes": [], "auto": []}
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.rounds):
            started = time.monotonic()
            for _ in range(runs):
                subprocess.run(harness, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True, timeout=60)
            native.append(runs / (time.monotonic() - started))
            for level in rates:
                report, elapsed = explore_search(ct, out, ["--sync-points", level, "--max-executions", "100"], harness)
                rates[level].append(report["executions"] / elapsed)
        print("\n### A shell harness under explore (executions per second)\n")
        print("`client_then_wait_fixed.sh`: a server in the background, a loop that polls for its ready "
              "file with `sleep 0.1`, a client, `wait`. Native: the harness run 20 times in a row (its "
              "sleeps are real); explore: 100 executions (its sleeps are virtual).\n")
        print("| native | `explore` (`processes`, default) | `explore --sync-points auto` | processes / auto |\n"
              "|---|---|---|---|")
        ratio = [p / a for p, a in zip(rates["processes"], rates["auto"])]
        print(f"| {statistics.median(native):,.1f}/s | {statistics.median(rates['processes']):,.1f}/s | "
              f"{statistics.median(rates['auto']):,.1f}/s | {statistics.median(ratio):.2f} "
              f"({min(ratio):.2f} – {max(ratio):.2f}) |")

        print("\n### What the cross-process points cost and find (pb, bound 2)\n")
        print("| program | level | outcome | executions | wall |\n|---|---|---|---|---|")
        for name in ["process_pool_lost_stop_buggy", "process_pool_lost_stop_fixed", "epoll_edge_triggered_fixed"]:
            for level in ["processes", "auto"]:
                report, elapsed = explore_search(ct, out, ["--sync-points", level], os.path.join(programs, name))
                print(f"| {name} | {level} | {report['outcome']} | {report['executions']} | {elapsed:.2f} s |")


def explore_search(ct, out, options, program):
    """Runs a search of `program` (a path, or a command as a list); returns its JSON report and its
    wall time."""
    report = os.path.join(out, "report.json")
    command = program if isinstance(program, list) else [program]
    started = time.monotonic()
    subprocess.run([ct, "explore", "--quiet", "--out", out, "--report", report, *options, "--", *command],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1200)
    elapsed = time.monotonic() - started
    with open(report) as f:
        return json.load(f), elapsed


def start_floor_section(args, bench, counter, spawn):
    """What starting an execution costs under ptrace, on the CPU chess-trace pins itself to: a
    minimal tracer (bench/start_floor.c) that execs each execution, and the same tracer forking
    each from a template stopped at its first clone3; with native spawning, pinned and not."""
    cpu = str(max(os.sched_getaffinity(0)))
    floor = os.path.join(bench, "bench_start_floor")
    columns = {"native spawn + wait": [spawn, "300", counter],
               f"native spawn + wait, on CPU {cpu} only": ["taskset", "-c", cpu, spawn, "300", counter],
               "minimal tracer, exec per execution": [floor, "exec", "300", cpu, counter],
               "minimal tracer, forked from a template": [floor, "fork", "300", cpu, counter]}
    rates = {name: [] for name in columns}
    for _ in range(args.rounds):
        for name, command in columns.items():
            rates[name].append(measure(command, "rate"))
    print("\n### What starting an execution costs (executions per second)\n")
    print("| " + " | ".join(columns) + " |\n|" + "---|" * len(columns))
    print("| " + " | ".join(f"{statistics.median(r):,.1f}/s ({min(r):,.0f} – {max(r):,.0f})" for r in rates.values()) + " |")


def strategies_section(ct, out, programs):
    """The executions each bug of the corpus takes to be found, per strategy."""
    corpus = [("atomicity_buggy", []), ("abba_deadlock_buggy", []), ("lost_wakeup_buggy", []),
              ("order_violation_buggy", []), ("use_after_free_buggy", []), ("two_preemptions_buggy", []),
              ("three_preemptions_buggy", []), ("timed_wait_uaf_buggy", []),
              ("polite_livelock_buggy", ["--max-steps", "10000"]), ("good_samaritan_buggy", []),
              ("cpp_atomicity_buggy", []), ("cpp_abba_deadlock_buggy", []), ("cpp_lost_wakeup_buggy", []),
          # Many threads: a sched_yield barrier (free switches by the thousand before the one
          # preemption), and a reader that must run before any of its writers.
          ("yield_barrier_buggy 8", []), ("yield_barrier_buggy 32", []), ("late_reader_buggy 9", []),
          ("late_reader_buggy 49", []), ("late_reader_buggy 99", [])]
    # A bug no strategy finds within this many executions shows as "—". Without prediction: the
    # strategies' own counts (the predict section measures what prediction adds).
    budget = ["--max-executions", "3000", "--predict-budget", "0"]
    strategies = ["pb", "db", "pct", "random", "portfolio"]
    print("\n### Executions to the first bug, per strategy\n")
    print("Each cell: the execution that found the bug (with minimization's executions after it for "
          "pct and random), its preemptions after minimization, and the search's wall time; at most "
          "3,000 executions; default bounds 2 for pb (preemptions) and db (delays), depth 3 for pct, "
          "seed 0.\n")
    print("| program | outcome | " + " | ".join(strategies) + " |\n|---|---|" + "---|" * len(strategies))
    for name, options in corpus:
        cells, outcome = [], "none"
        for strategy in strategies:
            program, *arguments = name.split()
            report, elapsed = explore_search(ct, out, ["--strategy", strategy, *budget, *options],
                                             [os.path.join(programs, program), *arguments])
            if report["outcome"] == "none":
                cells.append(f"— ({report['executions']} executions, {elapsed:.1f} s)")
                continue
            outcome = report["outcome"]
            bug = report["bugs"][0]
            found = bug["minimized_from"]["execution"] if bug["minimized_from"] else report["execution"]
            cells.append(f"{found} ({report['executions']} with minimizing), {report['preemptions']} p, "
                         f"{elapsed:.2f} s")
        print(f"| {name} | {outcome} | " + " | ".join(cells) + " |")


def predict_section(ct, out, programs):
    """Predicted deadlocks: the executions and wall time to the deadlock with prediction (the
    default: cycles predicted from the first execution, then directed executions) and without it
    (pb alone, --predict-budget 0), and what prediction says of the correct twins."""
    corpus = ["late_inversion_buggy", "three_lock_cycle_buggy", "rwlock_cycle_buggy", "flock_cycle_buggy",
              "abba_deadlock_buggy",
              "cpp_abba_deadlock_buggy", "late_inversion_fixed", "late_inversion_gated", "rwlock_cycle_fixed",
              "flock_cycle_fixed",
              "join_ordered_inversion"]
    print("\n### Predicted deadlocks: executions to the deadlock, with and without prediction\n")
    print("pb, bound 2; the correct programs at most 3,000 executions (a limit changes the order pb takes its "
          "work in, so the buggy ones run without one). With prediction: the execution that deadlocked, the "
          "cycles predicted from execution 1 and how many were confirmed. Without: pb alone.\n")
    print("| program | with prediction | predicted (confirmed) | pb alone (--predict-budget 0) |\n|---|---|---|---|")
    for name in corpus:
        path = os.path.join(programs, name)
        budget = [] if name.endswith("_buggy") else ["--max-executions", "3000"]
        cells = []
        for options in ([], ["--predict-budget", "0"]):
            report, elapsed = explore_search(ct, out, [*budget, *options], path)
            if report["outcome"] == "none":
                cells.append(f"no bug ({report['executions']} executions, {elapsed:.1f} s)")
            else:
                cells.append(f"{report['outcome']} in execution {report['execution']} "
                             f"({report['executions']} executions, {elapsed:.2f} s)")
            if not options:
                predicted = report["predicted"]
                confirmed = sum(1 for cycle in predicted if cycle["confirmed_in"] is not None)
                gated = report["prediction"]["gated"]
                cells.append(f"{len(predicted)} ({confirmed})" + (f", {gated} ruled out by a gate lock" if gated else ""))
        print(f"| {name} | " + " | ".join(cells) + " |")


def jobs_section(args, ct, out, programs):
    """explore -j: the wall time of one search with 1 worker process and with one per CPU (at most
    2 here), round by round, against running the program natively as many times as the search
    has executions; the executions and schedules must be the same at every -j."""
    cpus = len(os.sched_getaffinity(0))
    searches = [("three_preemptions_fixed", ["--no-state-cache", "--preemption-bound", "2"]),
                ("three_preemptions_fixed", []),
                ("atomicity_fixed", ["--no-state-cache", "--preemption-bound", "3"])]
    jobs = sorted({1, min(2, cpus), cpus})
    print(f"\n### explore -j: wall time per worker count ({cpus} CPUs)\n")
    print("| search | executions | native, the same count | " + " | ".join(f"-j {j}" for j in jobs) +
          f" | -j {jobs[-1]} / -j 1 |\n|---|---|---|" + "---|" * (len(jobs) + 1))
    for program, options in searches:
        path = os.path.join(programs, program)
        walls = {j: [] for j in jobs}
        natives = []
        executions = None
        for _ in range(args.rounds):
            for j in jobs:
                report, elapsed = explore_search(ct, out, [*options, "-j", str(j)], path)
                key = (report["executions"], report["search"]["schedules_digest"])
                if executions is None:
                    executions = key
                elif key != executions:
                    raise SystemExit(f"-j {j} ran {key}, another -j {executions}")
                walls[j].append(elapsed)
            natives.append(wall_of_native_runs(path, executions[0]))
        cells = [f"{statistics.median(walls[j]):.2f} s" for j in jobs]
        ratio = statistics.median(w / o for w, o in zip(walls[jobs[-1]], walls[1]))
        print(f"| {program} {' '.join(options)} | {executions[0]:,} | {statistics.median(natives):.2f} s | " +
              " | ".join(cells) + f" | {ratio:.2f}× |")


def wall_of_native_runs(path, count):
    """Runs `path` natively `count` times in a row; the wall time."""
    started = time.monotonic()
    for _ in range(count):
        subprocess.run([path], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def explore_section(args, ct, bench, programs):
    """A search's executions per second on a small two-thread program, against the rate at which
    the same binary is spawned and waited for natively, interleaved round by round; then the
    executions each bug of the corpus takes to be found."""
    counter = os.path.join(bench, "bench_two_thread_counter")
    spawn = os.path.join(bench, "bench_spawn_loop")
    native, searched, ratios = [], [], []
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.rounds):
            native.append(measure([spawn, "300", counter], "rate"))
            report, elapsed = explore_search(ct, out, ["--max-executions", "300"], counter)
            searched.append(report["executions"] / elapsed)
            ratios.append(searched[-1] / native[-1])
        print("\n### Search speed (executions per second)\n")
        print("| program | native spawn + wait | `explore` | ratio explore / native |\n|---|---|---|---|")
        print(f"| two threads, 3 lock/unlock each ({report['executions']} executions) | {statistics.median(native):,.1f}/s "
              f"| {statistics.median(searched):,.1f}/s | {statistics.median(ratios):.2f} "
              f"({min(ratios):.2f} – {max(ratios):.2f}) |")
        best = statistics.median(ratios)
        print(f"\nTarget ≥ 0.5× the native rate — {best:.2f}: {'met' if best >= 0.5 else 'NOT met'}.")
        start_floor_section(args, bench, counter, spawn)

        strategies_section(ct, out, programs)

        twins = ["atomicity_fixed", "abba_deadlock_fixed", "lost_wakeup_fixed", "two_preemptions_fixed",
                 "polite_livelock_fixed", "use_after_free_fixed", "timed_wait_uaf_fixed"]
        print("\n### State caching (pb, bound 2): the correct twins' whole space\n")
        print("| program | schedules without caching | with caching | executions saved | wall without / with |\n"
              "|---|---|---|---|---|")
        for name in twins:
            plain, plain_wall = explore_search(ct, out, ["--no-state-cache"], os.path.join(programs, name))
            cached, cached_wall = explore_search(ct, out, [], os.path.join(programs, name))
            saved = 1 - cached["executions"] / plain["executions"]
            print(f"| {name} | {plain['coverage']['schedules']} | {cached['coverage']['schedules']} | "
                  f"{saved:.0%} | {plain_wall:.2f} s / {cached_wall:.2f} s |")


def atomics_section(args, ct, bench, programs):
    """Atomic and race points (--sync-points atomics, races). What an atomic point costs against a
    syscall point: a search's first execution of a two-thread program making N atomic increments,
    or N FUTEX_WAKE calls, each, less the same with none, interleaved round by round. What the
    learning execution costs real tools whose own code has atomics, with the race layer's sampling
    and without, against `run` without the layer and natively. And the executions each lock-free
    bug and data race of the corpus takes with explore's defaults, and its twin's."""
    cost = os.path.join(bench, "bench_atomic_point_cost")
    # Enough points that the wall time's own jitter (a poll of up to 50 ms while the tree ends)
    # is a few per cent of the difference.
    per_thread = 50000
    search = ["--max-executions", "1", "--max-atomic-points", "1000000"]
    atomic, futex, ratio = [], [], []
    with tempfile.TemporaryDirectory() as out:
        def search_wall(mode, count):
            started = time.monotonic()
            subprocess.run([ct, "explore", "--quiet", "--out", out, *search, "--", cost, mode, str(count)],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=600, check=True)
            return time.monotonic() - started
        for _ in range(args.rounds):
            atomic.append((search_wall("atomic", per_thread) - search_wall("atomic", 0)) * 1e6 / (2 * per_thread))
            futex.append((search_wall("futex", per_thread) - search_wall("futex", 0)) * 1e6 / (2 * per_thread))
            ratio.append(atomic[-1] / futex[-1])
    print(f"\n### An atomic point against a syscall point (explore, 2 threads × {per_thread:,} operations)\n")
    print("| point | median | range |\n|---|---|---|")
    print(median_row("atomic increment (int3, out of line)", atomic, "µs/point"))
    print(median_row("FUTEX_WAKE (seccomp stop)", futex, "µs/point"))
    print(median_row("ratio atomic / syscall", ratio, "×"))

    tools = {}
    if shutil.which("rg"):
        tools["rg -j2 (Rust: crossbeam, its own atomics)"] = ["rg", "-j2", "-c", "Supervisor", os.path.dirname(ct)]
    go_program = os.path.join(programs, "go_atomic_counter_fixed")
    if os.path.exists(go_program):
        tools["a Go program (the runtime's atomics)"] = [go_program]
    if shutil.which("xz"):
        tools["xz -T2 (libc's atomics only: not planted)"] = ["sh", "-c", f"seq 1 300000 | xz -T2 -c > /dev/null"]
    if tools:
        walls = {name: {"native": [], "processes": [], "atomics": [], "races": []} for name in tools}
        stops, sampled = {}, {}
        with tempfile.TemporaryDirectory() as out:
            report = os.path.join(out, "run.json")
            for _ in range(args.rounds):
                for name, command in tools.items():
                    walls[name]["native"].append(wall(command))
                    walls[name]["processes"].append(wall([ct, "run", "--sync-points", "processes", "--"] + command))
                    walls[name]["atomics"].append(wall([ct, "run", "--sync-points", "atomics", "--report", report, "--"]
                                                       + command))
                    with open(report) as f:
                        stops[name] = json.load(f).get("atomic_points", {})
                    walls[name]["races"].append(wall([ct, "run", "--sync-points", "races", "--report", report, "--"]
                                                     + command))
                    with open(report) as f:
                        found = json.load(f)
                        sampled[name] = dict(found.get("atomic_points", {}), races=len(found.get("races", [])))
        print("\n### The learning execution (`run --sync-points atomics`, then `races`) on real programs (wall time)\n")
        print("| program | native | `run`, no atomic points | `--sync-points atomics` | ratio to no atomic points "
              "| breakpoints planted / stops | `--sync-points races` | ratio to no atomic points "
              "| accesses sampled / watched, races |\n|---|---|---|---|---|---|---|---|---|")
        for name, w in walls.items():
            r = [a / p for a, p in zip(w["atomics"], w["processes"])]
            rr = [a / p for a, p in zip(w["races"], w["processes"])]
            seen, races = stops.get(name, {}), sampled.get(name, {})
            print(f"| {cell(name)} | {statistics.median(w['native']):.3f} s | {statistics.median(w['processes']):.3f} s "
                  f"| {statistics.median(w['atomics']):.3f} s | {statistics.median(r):.2f} × ({min(r):.2f} – {max(r):.2f}) "
                  f"| {seen.get('planted', '?')} / {seen.get('stops', '?')} "
                  f"| {statistics.median(w['races']):.3f} s | {statistics.median(rr):.2f} × ({min(rr):.2f} – {max(rr):.2f}) "
                  f"| {races.get('sampled_accesses', '?')} / {races.get('watched_accesses', '?')}, {races.get('races', '?')} |")

    # Go's takes thousands of executions (minutes): measured by hand, docs/performance.md.
    corpus = ["treiber_aba", "chase_lev", "rust_atomic_counter", "static_lost_wakeup", "plain_check_then_act",
              "seqlock", "lazy_init"]
    print("\n### Lock-free bugs and data races with explore's defaults\n")
    print("| program | bug: outcome, execution, wall | twin: outcome, executions, wall |\n|---|---|---|")
    with tempfile.TemporaryDirectory() as out:
        for name in corpus:
            cells = []
            for variant in ("buggy", "fixed"):
                program = os.path.join(programs, f"{name}_{variant}")
                if name == "static_lost_wakeup" and variant == "fixed":
                    program = os.path.join(programs, "lost_wakeup_fixed")  # no static twin: the dynamic one
                if not os.path.exists(program):
                    cells.append("— (not built)")
                    continue
                found, elapsed = explore_search(ct, out, [], program)
                where = found.get("execution") or found["executions"]
                cells.append(f"{found['outcome']}, {where}, {elapsed:.2f} s")
            print(f"| {name} | " + " | ".join(cells) + " |")


def micro_section(args, ct, loop, floor, raw, pingpong):
    # The programs time themselves with clock_gettime, which under `run` reads virtual time:
    # those runs use --real-time. The cost of a point in virtual time (rdtsc trapped, clock reads
    # emulated) is the run's wall time from outside, divided by its points.
    native, filtered, raw_stop, native_round, points_per_round = [], [], [], [], []
    # What each build of chess-trace measures: this one, and the --against one when given.
    builds = {"this": ct}
    if args.against:
        builds["against"] = os.path.join(args.against, "chess-trace")
    traced = {build: [] for build in builds}
    run_point = {build: [] for build in builds}
    virtual_point = {build: [] for build in builds}
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        for _ in range(args.rounds):
            native.append(measure(loop, "ns_per_call"))
            filtered.append(measure(floor, "ns_per_call"))
            raw_stop.append(measure(raw, "us_per_stop"))
            native_round.append(measure(pingpong, "us_per_round"))
            for build, binary in builds.items():
                traced[build].append(measure([binary, "run", "--real-time", "--"] + loop, "ns_per_call"))
                us_round = measure([binary, "run", "--real-time", "--report", report, "--"] + pingpong, "us_per_round")
                with open(report) as f:
                    points = json.load(f)["scheduling_points"]
                per_round = points / args.pingpong_rounds
                if build == "this":
                    points_per_round.append(per_round)
                run_point[build].append(us_round / per_round)
                seconds = wall([binary, "run", "--report", report, "--"] + pingpong)
                with open(report) as f:
                    virtual_point[build].append(seconds * 1e6 / json.load(f)["scheduling_points"])

    def ratios(a, b):
        return [x / y for x, y in zip(a, b)]

    print(f"\n### Untrapped syscalls ({args.syscalls} × getppid)\n")
    print("| configuration | median | range |\n|---|---|---|")
    print(median_row("native", native, "ns/call"))
    print(median_row("chess-trace's filter, no tracer (kernel floor)", filtered, "ns/call"))
    print(median_row("`chess-trace run --real-time`", traced["this"], "ns/call"))
    print(median_row("ratio run / filter floor", ratios(traced["this"], filtered), "×"))
    print(median_row("ratio run / native", ratios(traced["this"], native), "×"))
    print(f"\n### Scheduling points (futex ping-pong, {args.pingpong_rounds} rounds)\n")
    print("| configuration | median | range |\n|---|---|---|")
    print(median_row("raw ptrace round trip (waitpid + PTRACE_CONT)", raw_stop, "µs/stop"))
    print(median_row("`chess-trace run --real-time`, per scheduling point", run_point["this"], "µs/point"))
    print(median_row("`chess-trace run` (virtual time), per scheduling point, from outside", virtual_point["this"],
                     "µs/point"))
    print(median_row("scheduling points per round", points_per_round, ""))
    print(median_row("native ping-pong", native_round, "µs/round"))
    print(median_row("ratio run --real-time point / raw round trip", ratios(run_point["this"], raw_stop), "×"))
    print(median_row("ratio run point (virtual time) / raw round trip", ratios(virtual_point["this"], raw_stop), "×"))
    if args.against:
        print(f"\n### This build against {args.against} (same rounds, interleaved)\n")
        print("| measure | this build | against | ratio this / against |\n|---|---|---|---|")
        for name, values, unit in (("untrapped syscall, `run --real-time`", traced, "ns/call"),
                                   ("scheduling point, `run --real-time`", run_point, "µs/point"),
                                   ("scheduling point, `run` (virtual time)", virtual_point, "µs/point")):
            r = ratios(values["this"], values["against"])
            print(f"| {name} | {statistics.median(values['this']):.3g} {unit} | {statistics.median(values['against']):.3g} {unit} "
                  f"| {statistics.median(r):.3f} × ({min(r):.3f} – {max(r):.3f}) |")


def breakpoint_section(args, bench, raw):
    """The floor of a scheduling point at an atomic instruction, by the way the instruction is
    let run after its int3 (bench/breakpoint_round_trip.cc), against the raw seccomp stop, in the
    same rounds: what an atomic point can cost at best against a syscall point."""
    modes = {
        "step": "restore the byte, single-step, plant again",
        "emulate": "emulated by the tracer (registers, memory read and write)",
        "xol": "executed out of line (all registers read and written)",
        "xol-rip": "executed out of line (rip written alone)",
    }
    points = "100000"
    raw_stop, per_mode = [], {mode: [] for mode in modes}
    for _ in range(args.rounds):
        raw_stop.append(measure(raw, "us_per_stop"))
        for mode in modes:
            per_mode[mode].append(measure([os.path.join(bench, "bench_breakpoint_round_trip"), mode, points],
                                          "us_per_point"))
    print(f"\n### A point at an atomic instruction, raw (int3 over `lock xadd`, {points} points)\n")
    print("| configuration | median | range | ratio to a seccomp stop (same round) |\n|---|---|---|---|")
    print(f"{median_row('raw seccomp stop (waitpid + PTRACE_CONT)', raw_stop, 'µs/stop')} 1 |")
    for mode, description in modes.items():
        r = [x / y for x, y in zip(per_mode[mode], raw_stop)]
        print(f"{median_row(f'int3, {description}', per_mode[mode], 'µs/point')} "
              f"{statistics.median(r):.2f} × ({min(r):.2f} – {max(r):.2f}) |")


def shim_section(args, ct, bench):
    """What one announcement of the preload shim costs under `run`: made as a system call (the
    default), and as an int3 trap (once the program installed a seccomp filter of its own, which
    the system call would have to pass). Interleaved round by round; --real-time, as the program
    times itself."""
    program = [os.path.join(bench, "bench_shim_announcements"), str(args.announcements)]
    run = [ct, "run", "--real-time", "--sync-points", "auto", "--"]
    native, syscall, trap = [], [], []
    for _ in range(args.rounds):
        native.append(measure(program, "us_per_announcement"))
        syscall.append(measure(run + program, "us_per_announcement"))
        trap.append(measure(run + program + ["filtered"], "us_per_announcement"))
    print(f"\n### The preload shim's announcements ({args.announcements} lock/unlock pairs, one thread)\n")
    print("| configuration | median | range |\n|---|---|---|")
    print(median_row("native (the shim is not loaded)", native, "µs/call"))
    print(median_row("`run --sync-points auto`: by system call", syscall, "µs/announcement"))
    print(median_row("…under a filter of the program's own: by trap (int3)", trap, "µs/announcement"))
    print(median_row("ratio trap / system call", [t / s for t, s in zip(trap, syscall)], "×"))


def tools_section(args, ct):
    def ratios(a, b):
        return [x / y for x, y in zip(a, b)]

    with tempfile.TemporaryDirectory() as tmp:
        tools = tool_commands(tmp, os.path.join(args.build, "tests", "programs"))
        # Under run the whole tree shares one CPU; natively on one CPU shows how much of the
        # ratio is the lost parallelism and how much is chess-trace.
        one_cpu = ["taskset", "-c", str(min(os.sched_getaffinity(0)))]
        native_wall = {name: [] for name in tools}
        pinned_wall = {name: [] for name in tools}
        run_wall = {name: [] for name in tools}
        for _ in range(args.rounds):
            for name, command in tools.items():
                native_wall[name].append(wall(command))
                pinned_wall[name].append(wall(one_cpu + command))
                run_wall[name].append(wall([ct, "run", "--"] + command))
    print(f"\n### Real tools (wall time, input: seq 1 3000000, 22 MB)\n")
    print("| tool | native | native on one CPU | `chess-trace run` | ratio run / native | ratio run / native on one CPU |\n"
          "|---|---|---|---|---|---|")
    for name in tools:
        r = ratios(run_wall[name], native_wall[name])
        p = ratios(run_wall[name], pinned_wall[name])
        print(f"| {cell(name)} | {statistics.median(native_wall[name]):.3f} s | {statistics.median(pinned_wall[name]):.3f} s "
              f"| {statistics.median(run_wall[name]):.3f} s "
              f"| {statistics.median(r):.2f} × ({min(r):.2f} – {max(r):.2f}) "
              f"| {statistics.median(p):.2f} × ({min(p):.2f} – {max(p):.2f}) |")


def trace_stats(bench, path):
    """What bench_trace_stats says about a trace: file_bytes, decisions, decision_records…"""
    out = subprocess.run([os.path.join(bench, "bench_trace_stats"), path], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"bench_trace_stats {path} failed: {out.stderr}")
    return {key: int(value) for key, value in (line.split() for line in out.stdout.splitlines())}


def trace_section(args, ct, bench):
    """Traces: how many bytes a scheduling decision costs in a trace file (one thread yielding
    alone: every decision the same, the run-length encoding's best case; a two-thread futex
    ping-pong: decisions alternate, zstd does the work; a real shell pipeline), and the wall time
    of `run --trace` and of `replay` against plain `run`, interleaved round by round."""
    yields = [os.path.join(bench, "bench_yield_loop"), str(args.yields)]
    pingpong = [os.path.join(bench, "bench_futex_pingpong"), str(args.trace_pingpong_rounds)]

    def ratios(a, b):
        return [x / y for x, y in zip(a, b)]

    with tempfile.TemporaryDirectory() as tmp:
        pipeline_name = "shell pipeline (cat | sort | uniq | sort | wc)"
        pipeline = tool_commands(tmp, os.path.join(args.build, "tests", "programs"))[pipeline_name]
        programs = {
            f"sched_yield loop, 1 thread ({args.yields:,} calls)": yields,
            f"futex ping-pong, 2 threads ({args.trace_pingpong_rounds:,} rounds)": pingpong,
            pipeline_name: pipeline,
        }
        trace = os.path.join(tmp, "bench.trace")
        stats = {name: [] for name in programs}
        times = {name: {"run": [], "trace": [], "replay": []} for name in programs}
        for _ in range(args.rounds):
            for name, command in programs.items():
                if os.path.exists(trace):
                    os.unlink(trace)
                times[name]["run"].append(wall([ct, "run", "--"] + command))
                times[name]["trace"].append(wall([ct, "run", "--trace", trace, "--"] + command))
                stats[name].append(trace_stats(bench, trace))
                times[name]["replay"].append(wall([ct, "replay", trace]))

    print("\n### Trace size (bytes per scheduling decision; the file holds the whole environment too)\n")
    print("| program | decisions | decision / repeat records | records before compression | trace file "
          "| bytes per decision |\n|---|---|---|---|---|---|")
    for name in programs:
        runs = stats[name]
        per_decision = [r["file_bytes"] / r["decisions"] for r in runs]
        last = runs[-1]
        print(f"| {cell(name)} | {statistics.median(r['decisions'] for r in runs):,.0f} "
              f"| {last['decision_records']:,} / {last['repeat_records']:,} "
              f"| {statistics.median(r['stream_bytes'] for r in runs):,.0f} B "
              f"| {statistics.median(r['file_bytes'] for r in runs):,.0f} B "
              f"| {statistics.median(per_decision):.4f} ({min(per_decision):.4f} – {max(per_decision):.4f}) |")
    first = next(iter(programs))
    best = statistics.median(r["file_bytes"] / r["decisions"] for r in stats[first])
    print(f"\nTarget for the mostly run-length execution: ≤ 0.05 bytes/decision — {best:.4f}: "
          f"{'met' if best <= 0.05 else 'NOT met'}.")

    print("\n### Recording and replaying (wall time)\n")
    print("| program | `run` | `run --trace` | `replay` | ratio run --trace / run | ratio replay / run |\n"
          "|---|---|---|---|---|---|")
    for name in programs:
        t = times[name]
        r = ratios(t["trace"], t["run"])
        p = ratios(t["replay"], t["run"])
        print(f"| {cell(name)} | {statistics.median(t['run']):.3f} s | {statistics.median(t['trace']):.3f} s "
              f"| {statistics.median(t['replay']):.3f} s "
              f"| {statistics.median(r):.3f} × ({min(r):.3f} – {max(r):.3f}) "
              f"| {statistics.median(p):.3f} × ({min(p):.3f} – {max(p):.3f}) |")


if __name__ == "__main__":
    main()
