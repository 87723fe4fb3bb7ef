#!/usr/bin/env python3
"""Integration checks of `chess-trace run` against real programs.

    harness.py CHESS_TRACE same-as-native [--run-option OPT]... PROGRAM [ARGS...]
    harness.py CHESS_TRACE deadlock --function NAME [--function NAME...] PROGRAM [ARGS...]
    harness.py CHESS_TRACE stop-signal SIGNAL EXIT_CODE PROGRAM
    harness.py CHESS_TRACE no-survivors [--stderr TEXT] EXIT_CODE CHESS_TRACE_ARGS...
    harness.py CHESS_TRACE exit-code [--stderr TEXT]... [--stdout TEXT]... EXIT_CODE CHESS_TRACE_ARGS...
    harness.py CHESS_TRACE deterministic [--runs N] [--ids] [--run-option OPT]... PROGRAM [ARGS...]
    harness.py CHESS_TRACE virtual-time [--runs N] [--max-wall S] [--run-option OPT]... PROGRAM [ARGS...]
    harness.py CHESS_TRACE explore --outcome OUTCOME [--execution N] [--preemptions P] [--schedules N]
                                   [--signal SIG] [--function NAME]... [--option OPT]... [--twice]
                                   [--forked | --not-forked-because TEXT] PROGRAM
    harness.py CHESS_TRACE explore-interrupt PROGRAM
    harness.py CHESS_TRACE isolated-network [--port N | --host-holds-port] [--replays N] [--run-option OPT]...
                                            PROGRAM

Every run has a wall-clock bound, and every test leaves no process behind: the programs run in
their own process group, which is killed on the way out.
"""
import argparse
import difflib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

TIMEOUT = 60
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(command, timeout=TIMEOUT, stdin=subprocess.DEVNULL, input_bytes=None, cwd=None):
    """Runs a command in its own process group (in `cwd`, if given); returns (exit code, stdout,
    stderr). Its stdin is /dev/null, or `stdin` (a file), or a pipe that carries `input_bytes`."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.PIPE if input_bytes is not None else stdin, start_new_session=True,
                               cwd=cwd)
    try:
        out, err = process.communicate(input=input_bytes, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        fail(f"timed out after {timeout} s: {' '.join(command)}\nstderr:\n{err.decode(errors='replace')}")
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return process.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def shell_status(code):
    """An exit status as a shell reports it: 128+N for death by signal N."""
    return 128 - code if code < 0 else code


def same_as_native(chess_trace, program, run_options=()):
    native = run(program)
    native = (shell_status(native[0]),) + native[1:]
    traced = run([chess_trace, "run", *run_options, "--"] + program)
    if native[0] != traced[0] or native[1] != traced[1]:
        diff = "".join(difflib.unified_diff(native[1].splitlines(keepends=True), traced[1].splitlines(keepends=True),
                                            "stdout native", "stdout under chess-trace run"))
        fail(f"{' '.join(program)} differs under chess-trace run\n"
             f"exit status: native {native[0]}, under chess-trace {traced[0]}\n"
             f"stdout diff:\n{diff or '(identical)'}\n"
             f"native stdout:\n{native[1]}\n"
             f"chess-trace stderr:\n{traced[2]}")
    print(f"ok: exit {native[0]}, stdout identical ({len(native[1])} bytes)")


# The calls a thread of a deadlock may be blocked in: futexes, waits for children, reads and
# writes of pipes and sockets, readiness waits, signal waits, file locks, SysV and POSIX IPC.
BLOCKING_SYSCALLS = {
    "futex", "futex_waitv", "wait4", "waitid",
    "read", "readv", "recvfrom", "recvmsg", "accept", "accept4", "write", "writev", "sendto", "sendmsg",
    "poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2",
    "pause", "rt_sigsuspend", "rt_sigtimedwait",
    "flock", "fcntl", "semop", "semtimedop", "msgsnd", "msgrcv", "mq_timedsend", "mq_timedreceive",
}


FRAME_KEYS = {"function", "offset", "module", "module_offset", "file", "line", "inlined", "pc"}


def check_frames(frames):
    """A report's frames are objects (schema 2): null for what is not known, a line only with its file."""
    for frame in frames:
        if not isinstance(frame, dict) or set(frame) != FRAME_KEYS or not frame["pc"].startswith("0x"):
            fail(f"malformed frame {frame}")
        for key, kind in (("function", str), ("offset", int), ("module", str), ("module_offset", int),
                          ("file", str), ("line", int)):
            if frame[key] is not None and not isinstance(frame[key], kind):
                fail(f"frame[{key!r}] is not a {kind.__name__} or null: {frame}")
        if (frame["function"] is None) != (frame["offset"] is None) or (frame["file"] is None) != (frame["line"] is None):
            fail(f"a frame's function comes with its offset, its file with its line: {frame}")
        if not isinstance(frame["inlined"], list) or any(
                not isinstance(i, dict) or set(i) != {"function", "file", "line"} or not isinstance(i["function"], str)
                for i in frame["inlined"]):
            fail(f"a frame's inlined functions are objects with function, file and line: {frame}")


def deadlock(chess_trace, functions, program):
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "report.json")
        # A deadlock is reported at once; a wait misjudged as one on the outside world ends as
        # `hang` after a few seconds and fails below, instead of running into the timeout.
        code, _, err = run([chess_trace, "run", "--external-wait", "10", "--report", report_path, "--"] + program)
        if code != 124:
            fail(f"expected exit 124, got {code}\nstderr:\n{err}")
        if err.startswith("chess-trace: hang"):
            fail(f"reported as a hang (the waits were judged to be on the outside world), expected a deadlock:\n{err}")
        if not err.startswith("chess-trace: deadlock"):
            fail(f"the report's first line must name the outcome:\n{err}")
        with open(report_path) as f:
            report = json.load(f)
    expect = {"schema": 2, "outcome": "deadlock", "exit_status": None, "signal": None}
    for key, value in expect.items():
        if report.get(key) != value:
            fail(f"report[{key!r}] = {report.get(key)!r}, expected {value!r}")
    if not isinstance(report.get("scheduling_points"), int) or report["scheduling_points"] <= 0:
        fail(f"scheduling_points missing or zero: {report.get('scheduling_points')!r}")
    if not isinstance(report.get("wall_seconds"), (int, float)):
        fail("wall_seconds missing")
    threads = report.get("threads")
    if not isinstance(threads, list):
        fail(f"report['threads'] is not an array: {threads!r}")
    for thread in threads:
        for key in ("thread", "tid", "pid"):
            if not isinstance(thread.get(key), int):
                fail(f"thread without an integer {key!r}: {thread}")
    threads = [thread for thread in threads if thread.get("state") != "exited"]
    if len(threads) < 2:
        fail(f"expected every deadlocked thread in the report, got {threads}")
    seen_functions = set()
    for thread in threads:
        if thread.get("state") != "blocked":
            fail(f"thread {thread['thread']} is {thread.get('state')!r}, expected 'blocked'")
        syscall = thread.get("syscall", "")
        if syscall not in BLOCKING_SYSCALLS or not thread.get("call", "").startswith(f"{syscall}("):
            fail(f"thread {thread['thread']} should be blocked in a decoded blocking call "
                 f"({', '.join(sorted(BLOCKING_SYSCALLS))}): {thread}")
        frames = thread.get("frames") or []
        if not frames:
            fail(f"thread {thread['thread']} has no stack frames")
        check_frames(frames)
        # The test programs are built with -g: their own frames say where in the source they are.
        own = [frame for frame in frames if frame["module"] == os.path.basename(program[0]) and frame["line"]]
        if not own or not any(f"{os.path.basename(f['file'])}:{f['line']}" in err for f in own):
            fail(f"thread {thread['thread']}: no frame of the program with its file and line, or not in the "
                 f"text report: {frames}\n{err}")
        seen_functions.update(frame["function"] for frame in frames)
    missing = [name for name in functions + ["main"] if name not in seen_functions]
    if missing:
        fail(f"the stacks do not name {missing}; they name {sorted(seen_functions)}")
    if "thread 0 (pid" not in err or "#0 " not in err:
        fail(f"the text report lacks threads or frames:\n{err}")
    print(f"ok: deadlock reported with {len(threads)} threads naming {sorted(functions + ['main'])}")


def survivors(marker, supervisor_pid=None):
    """Pids of processes with `marker` among their arguments, other than chess-trace itself.
    (A zombie has an empty cmdline: only processes that still run are found.)"""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in (supervisor_pid, os.getpid()):
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                arguments = f.read().split(b"\0")
        except OSError:
            continue
        if marker.encode() in arguments:
            found.append(int(entry))
    return found


def unique_marker():
    return f"chess-trace-test-{os.getpid()}-{time.monotonic_ns()}"


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop_signal(chess_trace, signal_name, expected_code, program, stderr_texts=()):
    """Starts chess-trace run on a program that never ends, signals chess-trace (only it) once
    the program has run for about a second, and checks the exit code, that its stderr holds
    `stderr_texts`, and that no process carrying the marker argument is left after a bounded
    grace period."""
    marker = unique_marker()
    process = subprocess.Popen([chess_trace, "run", "--"] + program + [marker], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while not survivors(marker, process.pid):
            if time.monotonic() > deadline:
                fail("the program never started")
            time.sleep(0.05)
        time.sleep(1)
        process.send_signal(getattr(signal, signal_name))
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            fail(f"chess-trace did not exit within 20 s of {signal_name}")
        err = process.stderr.read().decode(errors="replace")
        code = process.returncode
        if code != expected_code and not (signal_name == "SIGKILL" and code == -signal.SIGKILL):
            fail(f"chess-trace exited {code} after {signal_name}, expected {expected_code}\nstderr:\n{err}")
        for text in stderr_texts:
            if text not in err:
                fail(f"stderr after {signal_name} lacks {text!r}:\n{err}")
        deadline = time.monotonic() + 5
        while survivors(marker):
            if time.monotonic() > deadline:
                left = survivors(marker)
                for pid in left:
                    os.kill(pid, signal.SIGKILL)
                fail(f"tracees survived chess-trace's {signal_name}: {left}\nstderr:\n{err}")
            time.sleep(0.05)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        kill_group(process.pid)  # a backstop only: survivors were already checked above
        for pid in survivors(marker):
            os.kill(pid, signal.SIGKILL)
    print(f"ok: {signal_name} -> exit {code}, no tracee left")


def no_survivors(chess_trace, expected, stderr_text, arguments):
    """Runs chess-trace with a unique marker as the program's last argument; then no process
    carrying the marker may be left, whatever the program forked."""
    marker = unique_marker()
    process = subprocess.Popen([chess_trace] + arguments + [marker], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        _, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        kill_group(process.pid)
        for pid in survivors(marker):
            os.kill(pid, signal.SIGKILL)
        fail("timed out")
    err = err.decode(errors="replace")
    if process.returncode != expected or stderr_text not in err:
        fail(f"exited {process.returncode} (expected {expected}); stderr:\n{err}")
    deadline = time.monotonic() + 5  # processes killed by chess-trace may take a moment to go
    while survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = survivors(marker)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    kill_group(process.pid)
    if left:
        fail(f"{len(left)} processes survived chess-trace")
    print(f"ok: exit {expected}, no process left")


def late_input(chess_trace):
    """cat reads a pipe whose writer, outside the tree, writes only after 2 s: run must wait for
    it as cat would, never call it a deadlock."""
    process = subprocess.Popen([chess_trace, "run", "--", "cat"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(2)
        out, err = process.communicate(b"written late\n", timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if process.returncode != 0 or out != b"written late\n":
        fail(f"exit {process.returncode}, stdout {out!r}, stderr:\n{err.decode(errors='replace')}")
    print("ok: the late input arrived")


def external_wait_hang(chess_trace):
    """A program blocked on stdin that nobody writes ends as `hang` after --external-wait."""
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "report.json")
        started = time.monotonic()
        process = subprocess.Popen([chess_trace, "run", "--external-wait", "1", "--report", report_path,
                                    "--", "cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        try:
            process.wait(timeout=TIMEOUT)  # stdin stays open: cat never sees EOF
        except subprocess.TimeoutExpired:
            process.kill()
            fail("--external-wait did not end the run")
        finally:
            process.stdin.close()
        err = process.stderr.read()
        elapsed = time.monotonic() - started
        if process.returncode != 124:
            fail(f"exit {process.returncode}, expected 124; stderr:\n{err.decode(errors='replace')}")
        with open(report_path) as f:
            report = json.load(f)
    if report["outcome"] != "hang" or report["threads"][0]["syscall"] != "read":
        fail(f"expected a hang in read, got {report}")
    if elapsed > 10:
        fail(f"took {elapsed:.1f} s for --external-wait 1")
    print(f"ok: hang reported after {elapsed:.1f} s")


def clean_report_and_log(chess_trace, program):
    """A clean run: its --report says ok with the exit status, and with --log nothing of
    chess-trace's reaches stderr while the log gets its messages."""
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "report.json")
        log_path = os.path.join(tmp, "chess-trace.log")
        code, _, err = run([chess_trace, "run", "--report", report_path, "--"] + program)
        with open(report_path) as f:
            report = json.load(f)
        expect = {"schema": 2, "command": "run", "outcome": "ok", "exit_status": 0, "signal": None, "threads": []}
        for key, value in expect.items():
            if report.get(key) != value:
                fail(f"report[{key!r}] = {report.get(key)!r}, expected {value!r}")
        if code != 0 or report["scheduling_points"] <= 0 or report["threads_created"] < 2:
            fail(f"exit {code}, report {report}")
        code, _, err = run([chess_trace, "run", "--log", log_path, "--", "sh", "-c", "exit 3"])
        with open(log_path) as f:
            log = f.read()
        if code != 3 or "chess-trace" in err or "exit-status" not in log:
            fail(f"--log: exit {code}, stderr {err!r}, log {log!r}")
    print("ok: clean report and --log")


def replay_stop_signal(chess_trace, signal_name, expected_code, program):
    """A replay stopped by a signal exits as `run` does (128 + N) and leaves no process: the run
    is recorded for three seconds (ended by SIGINT), then its replay is signalled after one."""
    marker = unique_marker()
    with tempfile.TemporaryDirectory() as out:
        trace = os.path.join(out, "long.trace")
        recording = subprocess.Popen([chess_trace, "run", "--trace", trace, "--", *program, marker],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        time.sleep(3)
        recording.send_signal(signal.SIGINT)
        try:
            recording.wait(timeout=20)
        except subprocess.TimeoutExpired:
            kill_group(recording.pid)
            fail("the recording did not end within 20 s of SIGINT")
        if not os.path.exists(trace):
            fail("the interrupted recording wrote no trace")
        replay = subprocess.Popen([chess_trace, "replay", trace], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
        time.sleep(1)
        replay.send_signal(getattr(signal, signal_name))
        try:
            _, err = replay.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            kill_group(replay.pid)
            fail(f"the replay did not end within 20 s of {signal_name}")
        err = err.decode(errors="replace")
        if replay.returncode != expected_code:
            fail(f"the replay exited {replay.returncode} after {signal_name}, expected {expected_code}:\n{err}")
        deadline = time.monotonic() + 5
        while survivors(marker):
            if time.monotonic() > deadline:
                fail(f"tracees survived the replay's {signal_name}: {survivors(marker)}")
            time.sleep(0.05)
    print(f"ok: a replay stopped by {signal_name} exited {expected_code}, nothing left behind")


def trace_is_zstd(chess_trace, program):
    """A trace is a zstd file: `zstd -t` accepts it, and `zstd -dc` gives its record stream, which
    begins with the command record (type 1) and ends with the end record (type 8)."""
    zstd = shutil.which("zstd")
    if zstd is None:
        fail("zstd is not installed (apt-get install zstd)")
    with tempfile.TemporaryDirectory() as out:
        trace = os.path.join(out, "run.trace")
        code, _, err = run([chess_trace, "run", "--trace", trace, "--", *program])
        if not os.path.exists(trace):
            fail(f"no trace recorded (exit {code}):\n{err}")
        tested = subprocess.run([zstd, "-t", "-q", trace], capture_output=True)
        if tested.returncode != 0:
            fail(f"zstd -t refuses the trace: {tested.stderr.decode(errors='replace')}")
        stream = subprocess.run([zstd, "-dc", trace], capture_output=True).stdout
        types = []
        at = 0
        while at < len(stream):  # type, varint length, payload
            types.append(stream[at])
            length, shift, at = 0, 0, at + 1
            while at < len(stream):
                byte = stream[at]
                at += 1
                length |= (byte & 0x7f) << shift
                shift += 7
                if byte < 0x80:
                    break
            at += length
        if at != len(stream) or not types or types[0] != 1 or types[-1] != 8:
            fail(f"zstd -dc does not give the record stream: record types {types[:4]} … {types[-4:]}")
    print(f"ok: the trace is a zstd file of {len(stream)} bytes of records")


def exit_code(chess_trace, expected, stderr_texts, stdout_texts, arguments, absent_texts=(), absent_stdout=(),
              timeout=TIMEOUT):
    code, out, err = run([chess_trace] + arguments, timeout=timeout)
    if code != expected:
        fail(f"chess-trace {' '.join(arguments)} exited {code}, expected {expected}\nstderr:\n{err}")
    for text in stderr_texts:
        if text not in err:
            fail(f"stderr should mention {text!r}:\n{err}")
    for text in absent_texts:
        if text in err:
            fail(f"stderr should not mention {text!r}:\n{err}")
    for text in stdout_texts:
        if text not in out:
            fail(f"stdout should contain {text!r}:\n{out}")
    for text in absent_stdout:
        if text in out:
            fail(f"stdout should not contain {text!r}:\n{out}")
    print(f"ok: exit {code}")


def explore_with_report(chess_trace, work, name, options, program, timeout=TIMEOUT, arguments=()):
    """`chess-trace explore` in `work`, its report and traces named after `name`; exit 0 or 1
    expected. Returns (exit code, the report, stderr)."""
    report = os.path.join(work, name + ".json")
    code, _, err = run([chess_trace, "explore", "--quiet", "--out", os.path.join(work, name + "-traces"),
                        "--report", report, *options, "--", program, *arguments], timeout=timeout, cwd=work)
    if code not in (0, 1):
        fail(f"explore {' '.join(options)} exited {code}:\n{err}")
    with open(report) as file:
        return code, json.load(file), err


def search_summary(report):
    """What two runs of one search must agree on: outcome, executions, coverage, the schedules'
    digest and the bugs (execution, preemptions, outcome)."""
    coverage = report["coverage"]
    return {
        "outcome": report["outcome"],
        "executions": report["executions"],
        "schedules": coverage["schedules"],
        "cache_pruned": coverage.get("cache_pruned"),
        "complete": coverage["complete"],
        "bound_completed": coverage.get("bound_completed"),
        "schedules_digest": report["search"]["schedules_digest"],
        "bugs": [(bug["execution"], bug["preemptions"], bug["outcome"]) for bug in report["bugs"]],
    }


# `deterministic`: the output of a program under `chess-trace run` is a function of its --seed
# and --epoch alone. The program marks its lines (tests/programs/determinism_probe.c):
#   "random: ..."    bytes from the seed: differ with --seed, and between native runs;
#   "realtime: ..."  values that follow the epoch ("realtime: clock NAME NS", "realtime:
#                    gettimeofday_us US", "realtime: time_s S", and values derived from them);
#   "ids: ..."       pids, tids, the hostname: the same only in fresh namespaces (--isolate),
#                    ignored unless --ids is given;
#   anything else:   the same in every run, whatever the seed and the epoch.
DEFAULT_EPOCH = 1_704_067_200  # 2024-01-01 00:00:00 UTC, chess-trace run's default --epoch
OTHER_EPOCH = 1_000_000_000
TAI_OFFSET_NS = 37 * 10**9
NANOS = 10**9


def lines_with_prefix(text, prefix):
    return [line for line in text.splitlines() if line.startswith(prefix)]


def comparable(text, with_ids, drop=()):
    """The lines that must repeat: all but the ids lines (unless with_ids) and those of `drop`."""
    return [line for line in text.splitlines()
            if (with_ids or not line.startswith("ids: ")) and not line.startswith(tuple(drop))]


def diff_text(a, b, name_a, name_b):
    return "".join(difflib.unified_diff([line + "\n" for line in a], [line + "\n" for line in b], name_a, name_b))


def realtime_values(text):
    """{name: (value, unit in nanoseconds)} of the realtime lines, in order of appearance; a
    name seen twice gets a #2 suffix."""
    values = {}
    for line in lines_with_prefix(text, "realtime: "):
        fields = line.split()
        if fields[1] == "clock":
            name, value, unit = fields[2], int(fields[3]), 1
        elif fields[1] == "gettimeofday_us":
            name, value, unit = fields[1], int(fields[2]), 1000
        elif fields[1] == "time_s":
            name, value, unit = fields[1], int(fields[2]), NANOS
        else:
            continue  # derived from the time (rand after srand(time)): free to change
        key, n = name, 1
        while key in values:
            n += 1
            key = f"{name}#{n}"
        values[key] = (value, unit)
    return values


def traced_run(chess_trace, options, program, what):
    code, out, err = run([chess_trace, "run"] + options + ["--"] + program)
    if code != 0:
        fail(f"{what}: chess-trace run {' '.join(options)} exited {code}\nstdout:\n{out}\nstderr:\n{err}")
    return out


def deterministic(chess_trace, runs, with_ids, run_options, program):
    # Natively the random bytes differ from run to run: the program really reads randomness.
    native = []
    for _ in range(2):
        code, out, err = run(program)
        if code != 0:
            fail(f"native run exited {code}\nstderr:\n{err}")
        native.append(lines_with_prefix(out, "random: "))
    if not native[0]:
        fail("the program printed no 'random: ' line")
    same = [a for a, b in zip(*native) if a == b]
    if same:
        fail(f"two native runs printed the same random bytes: {same}")

    # The same seed, every run: byte-identical (but for the ids lines, until --isolate).
    first = traced_run(chess_trace, run_options, program, "run 1")
    expected = comparable(first, with_ids)
    for i in range(2, runs + 1):
        out = traced_run(chess_trace, run_options, program, f"run {i}")
        if comparable(out, with_ids) != expected:
            fail(f"run {i} of {runs} differs from run 1 with the same seed:\n"
                 f"{diff_text(expected, comparable(out, with_ids), 'run 1', f'run {i}')}")
    explicit = traced_run(chess_trace, run_options + ["--seed", "0"], program, "--seed 0")
    if comparable(explicit, with_ids) != expected:
        fail(f"--seed 0 differs from the default seed:\n{diff_text(expected, comparable(explicit, with_ids), 'default', '--seed 0')}")

    # Another seed: every random line changes, nothing else (rand() after srand(time()) included).
    seeded = traced_run(chess_trace, run_options + ["--seed", "1"], program, "--seed 1")
    for a, b in zip(lines_with_prefix(first, "random: "), lines_with_prefix(seeded, "random: ")):
        if a == b:
            fail(f"--seed 1 left a random line as it was under --seed 0: {a}")
    if len(lines_with_prefix(first, "random: ")) != len(lines_with_prefix(seeded, "random: ")):
        fail("--seed 1 printed another number of random lines")
    a, b = comparable(first, with_ids, ["random: "]), comparable(seeded, with_ids, ["random: "])
    if a != b:
        fail(f"--seed 1 changed more than the random bytes:\n{diff_text(a, b, '--seed 0', '--seed 1')}")

    # The epoch: CLOCK_REALTIME starts at --epoch (plus the little virtual time elapsed), and
    # another epoch shifts every realtime value by exactly the difference.
    base = realtime_values(first)
    if "CLOCK_REALTIME" in base:
        realtime = base["CLOCK_REALTIME"][0]
        if not 0 <= realtime - DEFAULT_EPOCH * NANOS < NANOS:
            fail(f"CLOCK_REALTIME {realtime} is not within a second after the default epoch {DEFAULT_EPOCH} s")
        if "CLOCK_TAI" in base and not 0 <= base["CLOCK_TAI"][0] - realtime - TAI_OFFSET_NS < NANOS // 1000:
            fail(f"CLOCK_TAI {base['CLOCK_TAI'][0]} is not CLOCK_REALTIME {realtime} + 37 s")
    shifted_out = traced_run(chess_trace, run_options + ["--epoch", str(OTHER_EPOCH)], program,
                             f"--epoch {OTHER_EPOCH}")
    shifted = realtime_values(shifted_out)
    if list(shifted) != list(base):
        fail(f"--epoch {OTHER_EPOCH} printed other realtime values: {list(shifted)} vs {list(base)}")
    if "CLOCK_REALTIME" in shifted and not 0 <= shifted["CLOCK_REALTIME"][0] - OTHER_EPOCH * NANOS < NANOS:
        fail(f"CLOCK_REALTIME {shifted['CLOCK_REALTIME'][0]} is not within a second after --epoch {OTHER_EPOCH}")
    shift = (DEFAULT_EPOCH - OTHER_EPOCH) * NANOS
    for name, (value, unit) in base.items():
        if (value - shifted[name][0]) * unit != shift:
            fail(f"{name}: {value} under the default epoch, {shifted[name][0]} under --epoch {OTHER_EPOCH}: "
                 f"not shifted by exactly {DEFAULT_EPOCH - OTHER_EPOCH} s")
    a, b = comparable(first, with_ids, ["realtime: "]), comparable(shifted_out, with_ids, ["realtime: "])
    if a != b:
        fail(f"--epoch {OTHER_EPOCH} changed more than the realtime values:\n{diff_text(a, b, 'default', 'shifted')}")

    skipped = "" if with_ids else f", {len(lines_with_prefix(first, 'ids: '))} ids lines not compared"
    print(f"ok: {runs} runs identical ({len(expected)} lines{skipped}); --seed 1 changed only the "
          f"{len(lines_with_prefix(first, 'random: '))} random lines; --epoch shifted {len(base)} realtime values exactly")


def virtual_time(chess_trace, runs, max_wall, run_options, program):
    """Runs a sleeping program under chess-trace only (natively it would take its sleeps in
    wall time): it must exit 0 — its own checks held — every time, each run within max_wall
    seconds, a bound that only guards against a hang."""
    slowest = 0.0
    for i in range(1, runs + 1):
        started = time.monotonic()
        code, out, err = run([chess_trace, "run"] + run_options + ["--"] + program)
        elapsed = time.monotonic() - started
        if code != 0:
            fail(f"run {i} of {runs} exited {code}\nstdout:\n{out}\nstderr:\n{err}")
        if elapsed > max_wall:
            fail(f"run {i} of {runs} took {elapsed:.2f} s of wall time, more than {max_wall} s\nstderr:\n{err}")
        slowest = max(slowest, elapsed)
    print(f"ok: {runs} run{'s' if runs != 1 else ''} exited 0, the slowest in {slowest:.3f} s of wall time")


def record_replay(chess_trace, replays, rebuilt, program, input_lines=0, input_kind="pipe", run_options=(),
                  as_native=False):
    """Records the program with run --trace, then replays the trace `replays` times: each replay
    must say it reproduced the run and print exactly the recorded run's stdout. With `rebuilt`,
    the replays run a copy of the program at another path, as a clean rebuild would be. With
    `input_lines`, the run's stdin holds that many lines (through a pipe or from a file) and the
    replays' stdin is /dev/null: what the program read must come from the trace. With
    `as_native`, the recorded run must also end and print as the program does natively."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "run.trace")
        command = [chess_trace, "run", "--trace", trace] + list(run_options) + ["--"] + program
        if input_lines == 0:
            code, out, err = run(command)
            if as_native:
                native_code, native_out, _ = run(program)
                if shell_status(native_code) != code or native_out != out:
                    fail(f"the recorded run differs from the native one: exit {code}, natively "
                         f"{shell_status(native_code)}\nstdout:\n{out}\nnative stdout:\n{native_out}\nstderr:\n{err}")
        else:
            text = "".join(f"line {n:06d} {(n * 7919) % 1000003}\n" for n in range(input_lines)).encode()
            if input_kind == "pipe":
                code, out, err = run(command, input_bytes=text)
            else:
                path = os.path.join(tmp, "input.txt")
                with open(path, "wb") as f:
                    f.write(text)
                with open(path, "rb") as f:
                    code, out, err = run(command, stdin=f)
            if not out.strip():
                fail(f"the recorded run printed nothing: it cannot show what it read\nstderr:\n{err}")
        if not os.path.exists(trace):
            fail(f"run --trace wrote no trace (exit {code})\nstderr:\n{err}")
        override = []
        if rebuilt:
            copy = os.path.join(tmp, "rebuilt", os.path.basename(program[0]))
            os.makedirs(os.path.dirname(copy))
            shutil.copy2(program[0], copy)
            override = ["--", copy] + program[1:]
        for attempt in range(1, replays + 1):
            rcode, rout, rerr = run([chess_trace, "replay", trace] + override)
            if rcode != 0 or "chess-trace: reproduced:" not in rerr:
                fail(f"replay {attempt}/{replays} did not reproduce the run (exit {rcode}; the run exited {code})\n"
                     f"stderr:\n{rerr}")
            if rout != out:
                diff = "".join(difflib.unified_diff(out.splitlines(keepends=True), rout.splitlines(keepends=True),
                                                    "stdout recorded", f"stdout of replay {attempt}"))
                fail(f"replay {attempt}/{replays} printed something else\n{diff}")
    print(f"ok: recorded (exit {code}) and reproduced {replays} times")


def isolated_network(chess_trace, port, host_holds_port, replays, run_options, program):
    """`run --isolate net`: the program (tests/programs/net_namespace_probe.c, given the port as
    its last argument) talks to itself over TCP on 127.0.0.1 at `port`, and sees the loopback
    interface alone, up. With `host_holds_port`, this process holds a listener on 127.0.0.1 at a
    port the kernel picks, for the whole check: natively the program cannot bind it, in its own
    network namespace it can. With `replays`, the run is recorded and each replay must reproduce
    it, with the same output: the trace's isolation word brings the network namespace back."""
    holder = None
    if host_holds_port:
        holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
    try:
        command = program + [str(port)]
        if holder is not None:
            code, out, err = run(command)
            if code == 0 or "Address already in use" not in err:
                fail(f"natively, with 127.0.0.1:{port} held on the host, the program should fail to bind "
                     f"(exit {code})\nstdout:\n{out}\nstderr:\n{err}")
        with tempfile.TemporaryDirectory() as tmp:
            trace = os.path.join(tmp, "run.trace")
            recording = ["--trace", trace] if replays else []
            code, out, err = run([chess_trace, "run"] + recording + list(run_options) + ["--"] + command)
            if code != 0:
                fail(f"chess-trace run {' '.join(run_options)} exited {code}\nstdout:\n{out}\nstderr:\n{err}")
            interfaces = lines_with_prefix(out, "interface ")
            if interfaces != ["interface lo up"] or "echoed 1 byte" not in out:
                fail(f"expected a TCP echo over 127.0.0.1:{port} and the interface lo alone, up; the program "
                     f"printed:\n{out}\nstderr:\n{err}")
            for attempt in range(1, replays + 1):
                rcode, rout, rerr = run([chess_trace, "replay", trace])
                if rcode != 0 or "chess-trace: reproduced:" not in rerr:
                    fail(f"replay {attempt}/{replays} did not reproduce the run (exit {rcode})\nstderr:\n{rerr}")
                if rout != out:
                    diff = "".join(difflib.unified_diff(out.splitlines(keepends=True), rout.splitlines(keepends=True),
                                                        "stdout recorded", f"stdout of replay {attempt}"))
                    fail(f"replay {attempt}/{replays} printed something else\n{diff}")
    finally:
        if holder is not None:
            holder.close()
    held = f", while the host held 127.0.0.1:{port}" if holder is not None else ""
    replayed = f"; reproduced {replays} times" if replays else ""
    print(f"ok: TCP over 127.0.0.1:{port} in a network namespace with lo alone, up{held}{replayed}")


def replay_divergence(chess_trace, program, changed_arguments, expected_texts):
    """A trace replayed against a changed program must say where the replay left the recording."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "run.trace")
        run([chess_trace, "run", "--trace", trace, "--"] + program)
        code, _, err = run([chess_trace, "replay", trace, "--", program[0]] + changed_arguments)
    if code != 1 or "diverged" not in err:
        fail(f"expected exit 1 and a divergence, got exit {code}\nstderr:\n{err}")
    for text in expected_texts:
        if text not in err:
            fail(f"the divergence report should mention {text!r}:\n{err}")
    print(f"ok: divergence reported: {err.splitlines()[0]}")


def damaged_traces(chess_trace, program):
    """Truncated and bit-flipped copies of a real trace: show and replay refuse each with exit 125
    and a message, and never crash or hang."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "good.trace")
        run([chess_trace, "run", "--trace", trace, "--"] + program)
        with open(trace, "rb") as f:
            good = f.read()
        damaged = os.path.join(tmp, "damaged.trace")
        variants = [("empty", b""), ("header only", good[:12])]
        step = max(1, len(good) // 40)
        variants += [(f"cut at {n}", good[:n]) for n in range(0, len(good), step)]
        for position in range(0, len(good) * 8, max(1, len(good) * 8 // 60)):
            flipped = bytearray(good)
            flipped[position // 8] ^= 1 << (position % 8)
            variants.append((f"bit {position} flipped", bytes(flipped)))
        for name, content in variants:
            with open(damaged, "wb") as f:
                f.write(content)
            for command in (["show", damaged], ["replay", damaged]):
                code, _, err = run([chess_trace] + command, timeout=30)
                if code != 125 or not err.startswith("chess-trace: "):
                    fail(f"{' '.join(command[:1])} of the trace with {name}: exit {code}, expected 125\nstderr:\n{err}")
    print(f"ok: {len(variants)} damaged traces refused by show and replay")


def stop_at(chess_trace, where, expected_state_texts, gdb_texts, refused, program):
    """replay --stop-at WHERE of a recorded run: chess-trace stops the tree there, says which
    `gdb -p` to run and waits; the process is stopped (state T), its thread states are in the
    message, gdb attached to it shows `gdb_texts` in its stacks; Ctrl-C ends chess-trace with
    exit 0 and the tree with it."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "run.trace")
        run([chess_trace, "run", "--trace", trace, "--"] + program)
        if not os.path.exists(trace):
            fail("run --trace wrote no trace")
        if refused:
            code, _, err = run([chess_trace, "replay", "--stop-at", where, trace])
            if code != 125 or refused not in err:
                fail(f"replay --stop-at {where} should be refused (125, {refused!r}); it exited {code}:\n{err}")
            print(f"ok: refused: {err.strip()}")
            return
        process = subprocess.Popen([chess_trace, "replay", "--stop-at", where, trace], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True, text=True)
        try:
            lines = []
            pids = []
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline:
                line = process.stderr.readline()
                if not line:
                    break
                lines.append(line)
                pids += [int(p) for p in re.findall(r"gdb -p (\d+)", line)]
                if "Press Ctrl-C" in line:
                    break
            err = "".join(lines)
            if not pids:
                fail(f"replay --stop-at {where} printed no gdb command\nstderr:\n{err}")
            for text in expected_state_texts:
                if text not in err:
                    fail(f"the stop message should mention {text!r}:\n{err}")
            with open(f"/proc/{pids[0]}/status") as f:
                state = next(line for line in f if line.startswith("State:"))
            if "stopped" not in state:
                fail(f"process {pids[0]} should be stopped, it is {state.strip()}")
            if gdb_texts and shutil.which("gdb"):
                gdb = subprocess.run(["gdb", "-p", str(pids[0]), "-batch", "-ex", "thread apply all bt"],
                                     capture_output=True, text=True, timeout=TIMEOUT)
                for text in gdb_texts:
                    if text not in gdb.stdout:
                        fail(f"gdb's stacks should mention {text!r}:\n{gdb.stdout}\n{gdb.stderr}")
            process.send_signal(signal.SIGINT)
            out, rest = process.communicate(timeout=TIMEOUT)
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if process.returncode != 0:
            fail(f"replay --stop-at exited {process.returncode} after Ctrl-C\n{err}{rest}")
        time.sleep(0.2)
        for pid in pids:
            if os.path.exists(f"/proc/{pid}"):
                with open(f"/proc/{pid}/status") as f:
                    if "zombie" not in f.read():
                        fail(f"process {pid} outlived chess-trace")
    print(f"ok: stopped {where}, gdb -p {pids[0]}, ended on Ctrl-C")


def mask_runtime_frames(text):
    """Frames inside the C and C++ runtimes and the dynamic loader differ with their builds and
    with whether their debug information (libc6-dbg…) is installed: a golden report keeps only
    which library they are in."""
    return re.sub(r"(#\d+ ).*\((libc\.so\.6|libstdc\+\+\.so[.0-9]*|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2)"
                  r"[^)]*\)( at .*)?$", r"\1… (\2)", text, flags=re.M)


def compare_with_golden(golden, text, what):
    """Fails with a diff unless `text` is the golden file's; CHESS_UPDATE_GOLDEN=1 rewrites it."""
    if os.environ.get("CHESS_UPDATE_GOLDEN"):
        with open(golden, "w") as f:
            f.write(text)
    with open(golden) as f:
        expected = f.read()
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(keepends=True), text.splitlines(keepends=True),
                                            "golden", what))
        fail(f"{what} differs from {golden} (CHESS_UPDATE_GOLDEN=1 rewrites it)\n{diff}")


def show_golden(chess_trace, golden, program):
    """show of a recorded deadlock matches the golden timeline; its chrome output is valid
    trace-event JSON; its json output parses and holds every decision. CHESS_UPDATE_GOLDEN=1
    rewrites the golden file."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "deadlock.trace")
        code, _, err = run([chess_trace, "run", "--trace", trace, "--"] + program)
        if code != 124:
            fail(f"expected the program to deadlock (exit 124), got {code}\n{err}")
        _, text, _ = run([chess_trace, "show", trace])
        _, chrome, _ = run([chess_trace, "show", "--format", "chrome", trace])
        _, decoded, _ = run([chess_trace, "show", "--format", "json", trace])
    text = text.replace(os.path.dirname(program[0]), "PROGRAMS")
    text = re.sub(r"recorded by chess-trace \S+", "recorded by chess-trace VERSION", text)
    text = re.sub(r"tid \d+ outside its namespace", "tid N outside its namespace", text)
    # Code offsets change with every build of a library; the functions in a stack do not.
    text = re.sub(r"\+0x[0-9a-f]+", "+0x…", text)
    text = mask_runtime_frames(text)
    compare_with_golden(golden, text, "show")
    events = json.loads(chrome)["traceEvents"]
    if not events or any("ph" not in e or "pid" not in e or "tid" not in e for e in events):
        fail("the chrome output is not trace-event JSON")
    record = json.loads(decoded)
    if record["outcome"]["outcome"] != "deadlock" or not record["decisions"]:
        fail(f"the json output lacks the outcome or the decisions: {record['outcome']}")
    print(f"ok: show matches {os.path.basename(golden)}, {len(events)} chrome events, "
          f"{len(record['decisions'])} decisions in json")


def report_golden(chess_trace, golden, options, program):
    """The text report of `explore OPTIONS -- PROGRAM` matches the golden file, once what
    changes from run to run is masked: kernel inode numbers, host tids, code offsets, timings
    and paths. CHESS_UPDATE_GOLDEN=1 rewrites the golden file."""
    with tempfile.TemporaryDirectory() as tmp:
        code, _, err = run([chess_trace, "explore", "--out", tmp] + options + ["--"] + program)
        if code != 1:
            fail(f"expected explore to find a bug (exit 1), got {code}\n{err}")
        text = err.replace(tmp, "OUT")
    text = text.replace(os.path.dirname(program[-1]), "PROGRAMS")
    text = text.replace(SOURCE_DIR, "SOURCE")  # an assertion's message names its source file
    text = re.sub(r"(pipe|socket):\[\d+\]", r"\1:[N]", text)
    text = re.sub(r"tid \d+ outside its namespace", "tid N outside its namespace", text)
    text = re.sub(r"\+0x[0-9a-f]+", "+0x…", text)
    # Stack addresses move with the size of the environment (the golden update's variable too).
    text = re.sub(r"0x7fff[0-9a-f]+", "0x7fff…", text)
    text = re.sub(r"\d+ executions? in [0-9.]+ s \([0-9.]+/s\)", "EXECUTIONS in S", text)
    text = mask_runtime_frames(text)
    compare_with_golden(golden, text, "the report")
    print(f"ok: the report matches {os.path.basename(golden)}")


def check_races(report, err, races, race_texts):
    """The report's `races`: exactly `races` of them when given, and for each text one race whose
    JSON holds it (a variable, an instruction)."""
    found = report.get("races")
    if found is None:
        fail(f"no races key in the report:\n{err}")
    if races is not None and len(found) != races:
        fail(f"{len(found)} races reported, expected {races}: {json.dumps(found, indent=1)}")
    for text in race_texts:
        if not any(text in json.dumps(race) for race in found):
            fail(f"no race names {text!r}: {json.dumps(found, indent=1)}")


def explore(chess_trace, outcome, execution, preemptions, schedules, signal_name, functions, options, twice,
            found_by, program, forked=False, input_text=None, blind=False, not_forked_because=None, races=None,
            race_texts=()):
    """`explore` finds the bug (or none) it must, after exactly the executions and with exactly the
    preemptions expected, the same way when run twice, and its trace replays the bug. With
    `forked`, every execution but the first must have been forked from the fork server's
    template, and a search with --no-fork-server must end the same way: the same executions,
    preemptions and schedules, and the same output of the failing execution. With
    `not_forked_because`, none may have been, and the report's reason must contain that text."""
    found = []
    input_bytes = input_text.encode() if input_text is not None else None
    for attempt in range(2 if twice else 1):
        with tempfile.TemporaryDirectory() as out:
            report_path = os.path.join(out, "report.json")
            command = [chess_trace, "explore", "--quiet", "--out", out, "--report", report_path, *options, "--", *program]
            code, _, err = run(command, timeout=1100, input_bytes=input_bytes)
            if not os.path.exists(report_path):
                fail(f"no --report written (exit {code}):\n{err}")
            with open(report_path) as f:
                report = json.load(f)
            if report["schema"] != 2 or report["outcome"] != outcome:
                fail(f"schema {report['schema']}, outcome {report['outcome']}, expected 2 and {outcome}:\n{err}")
            for bug in report["bugs"]:
                for thread in bug["threads"]:
                    check_frames(thread["frames"])
            expected_code = 0 if outcome == "none" else 1
            if code != expected_code:
                fail(f"exit status {code}, expected {expected_code}:\n{err}")
            coverage = report["coverage"]
            if races is not None or race_texts:
                check_races(report, err, races, race_texts)
            if forked and attempt == 0:
                compare_with_exec(chess_trace, report, err, options, program, input_bytes)
            if not_forked_because is not None:
                fork = report["fork_server"]
                if fork["forked"] != 0 or not_forked_because not in (fork["unused_because"] or ""):
                    fail(f"{fork['forked']} executions forked, not used because {fork['unused_because']!r}; expected "
                         f"none, because of {not_forked_because!r}:\n{err}")
            if outcome == "none":
                # A program whose threads synchronize out of the search's sight (atomics, Rust's
                # std::sync, a static binary) gets no "no bug: all … explored": it is no proof.
                verdict = ("chess-trace: no bug found, but the search could not see everything: " if blind
                           else "chess-trace: no bug: ")
                # The data races the learning execution saw come first, a line each.
                report_text = re.sub(r"\Achess-trace: data race: .*\n(chess-trace: data race: .*\n)*", "", err)
                if not report_text.startswith(verdict) or (blind and re.search(r"\ball \d+ schedules",
                                                                               report_text.split("\n")[0])):
                    fail(f"the report does not begin with {verdict!r}:\n{err}")
                if coverage["sync_ops_visible"] == blind or bool(report["warnings"]) != blind:
                    fail(f"the JSON says sync_ops_visible {coverage['sync_ops_visible']} with warnings "
                         f"{report['warnings']}, expected {'a blind spot' if blind else 'none'}")
                if schedules is not None and coverage["schedules"] != schedules:
                    fail(f"{coverage['schedules']} schedules explored, expected {schedules}:\n{err}")
                limited = any(o.startswith("--max-executions") for o in options)
                if not limited and not coverage["complete"]:
                    fail(f"the search did not cover its bound: {coverage}")
                found.append(coverage["schedules"])
                continue
            headline = f"chess-trace: BUG: {outcome} in execution {report['execution']} with {report['preemptions']} "
            # Notices (a refused call) may come first; the report's own first line is the headline.
            if not err.startswith(headline) and f"\n{headline}" not in err:
                fail(f"the report does not begin with {headline!r}:\n{err}")
            if execution is not None and report["execution"] != execution:
                fail(f"found in execution {report['execution']}, expected {execution}:\n{err}")
            if preemptions is not None and report["preemptions"] != preemptions:
                fail(f"found with {report['preemptions']} preemptions, expected {preemptions}:\n{err}")
            if signal_name and report["signal"] != signal_name:
                fail(f"signal {report['signal']}, expected {signal_name}")
            if found_by and report["found_by"] != found_by:
                fail(f"found by {report['found_by']}, expected {found_by}:\n{err}")
            if len(re.findall(r"^  preemption \d+ \(decision \d+\): thread \d+('s deadline fired early| could go on)",
                              err, re.M)) != report["preemptions"]:
                fail(f"the report does not list every preemption:\n{err}")
            for function in functions:
                if function not in err:
                    fail(f"the report does not name {function}:\n{err}")
            trace = report["trace"]
            if not trace or not os.path.exists(trace) or f"replay it: chess-trace replay {trace}" not in err:
                fail(f"no trace saved, or no replay command:\n{err}")
            # The report's own note (the program's output, quoted below it, may say "note:" too).
            if re.search(r"^  note: ", err, re.M):
                fail(f"saving the trace did not go as the search did:\n{err}")
            code, _, replayed = run([chess_trace, "replay", trace], timeout=300)
            if code != 0 or f"reproduced: {outcome}" not in replayed:
                fail(f"the trace does not replay the bug (exit {code}):\n{replayed}")
            found.append(report["execution"])
    if twice and found[0] != found[1]:
        fail(f"not deterministic: the two searches took {found[0]} and {found[1]} executions")
    print(f"ok: explore ended {outcome} after {found} executions")


def compare_with_exec(chess_trace, report, err, options, program, input_bytes):
    """The search forked its executions from a template, and one that starts each by execve
    (--no-fork-server) ends the same way."""
    fork = report["fork_server"]
    if not fork["enabled"] or fork["forked"] != report["executions"] - 1:
        fail(f"{fork['forked']} of {report['executions']} executions forked from the template "
             f"(not used because: {fork['unused_because']}):\n{err}")
    with tempfile.TemporaryDirectory() as out:
        report_path = os.path.join(out, "report.json")
        command = [chess_trace, "explore", "--quiet", "--no-fork-server", "--out", out, "--report", report_path,
                   *options, "--", *program]
        _, _, exec_err = run(command, timeout=600, input_bytes=input_bytes)
        with open(report_path) as f:
            exec_report = json.load(f)
    if exec_report["fork_server"]["forked"] != 0:
        fail("--no-fork-server forked executions")
    for key in ("outcome", "execution", "preemptions", "executions", "signal", "exit_status"):
        if report.get(key) != exec_report.get(key):
            fail(f"{key}: {report.get(key)} forked, {exec_report.get(key)} by execve:\n{err}\n{exec_err}")
    if report["coverage"]["schedules"] != exec_report["coverage"]["schedules"]:
        fail(f"schedules: {report['coverage']} forked, {exec_report['coverage']} by execve")
    tails = [[bug["output_tail"] for bug in r["bugs"]] for r in (report, exec_report)]
    if tails[0] != tails[1]:
        fail(f"the failing execution's output differs: forked {tails[0]}, by execve {tails[1]}")


def program_in_tmp(chess_trace, program):
    """A program built right in /tmp (`cc -o /tmp/t`), and a data file beside it, stay visible in
    the private /tmp of every execution: named by absolute paths, and relative to a working
    directory of /tmp itself. Nothing else of /tmp is, and nothing an execution leaves there."""
    with tempfile.TemporaryDirectory() as out:
        name = f"chess-trace-test-{os.getpid()}"
        copy = os.path.join("/tmp", name)
        data = copy + ".data"
        stray = copy + ".stray"
        try:
            shutil.copy(program[0], copy)
            for path in (data, stray):
                with open(path, "w") as f:
                    f.write("x\n")
            script = (f"test -x ./{name} && test -f ./{name}.data || exit 3; "
                      f"test -e ./{name}.stray && exit 4; test -e ./left && exit 5; touch ./left; exec ./{name}")
            for command in ([copy, *program[1:]], [f"./{name}", *program[1:]],
                            ["sh", "-c", script, "sh", f"./{name}", f"{name}.data"]):
                report_path = os.path.join(out, "report.json")
                code, _, err = run([chess_trace, "explore", "--quiet", "--max-executions", "5", "--out", out,
                                    "--report", report_path, "--", *command], timeout=120, cwd="/tmp")
                with open(report_path) as f:
                    report = json.load(f)
                if code != 0 or report["outcome"] != "none" or report["executions"] != 5:
                    fail(f"{command}: exit {code}, outcome {report['outcome']} after {report['executions']} "
                         f"executions, expected none after 5:\n{err}")
        finally:
            for path in (copy, data, stray):
                if os.path.exists(path):
                    os.unlink(path)
    print("ok: a program and a data file right in /tmp stay visible in the private /tmp")


def explore_interrupt(chess_trace, program, stop="SIGINT"):
    """Ctrl-C (or SIGTERM) during a search prints the report so far and exits 128 + the signal's
    number, 130 or 143, leaving no process behind."""
    number = getattr(signal, stop)
    marker = unique_marker()
    with tempfile.TemporaryDirectory() as out:
        report_path = os.path.join(out, "report.json")
        # No learning execution before the search (--sync-points processes): on a loaded machine
        # it could still be running when the signal comes, and then no search execution is in
        # progress to be saved.
        process = subprocess.Popen([chess_trace, "explore", "--quiet", "--sync-points", "processes", "--out", out,
                                    "--report", report_path, "--", *program, marker], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
        time.sleep(3)
        process.send_signal(number)
        try:
            _, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            kill_group(process.pid)
            fail(f"explore did not end within 30 s of {stop}")
        err = err.decode(errors="replace")
        if process.returncode != 128 + number:
            fail(f"exit status {process.returncode} after {stop}, expected {128 + number}:\n{err}")
        if f"interrupted by {stop}" not in err:
            fail(f"the partial report does not say it was interrupted by {stop}:\n{err}")
        with open(report_path) as f:
            report = json.load(f)
        if (report["stopped_by"] != "interrupted" or report["interrupted_by"] != stop
                or report["coverage"]["complete"]):
            fail(f"the JSON report does not say the search was interrupted by {stop}: {report}")
        left = survivors(marker)
        if left:
            fail(f"processes left behind: {left}")
        # The execution in progress is saved, up to where it was stopped, and replays.
        trace = report["interrupted_trace"]
        if not trace or not os.path.exists(trace) or trace not in err:
            fail(f"the execution in progress was not saved as a trace ({trace!r}):\n{err}")
        code, _, replayed = run([chess_trace, "replay", trace])
        if "reproduced: timeout" not in replayed or f"interrupted ({stop})" not in replayed:
            fail(f"the interrupted execution's trace does not replay, naming {stop} (exit {code}):\n{replayed}")
    print(f"ok: search interrupted by {stop} reported, its execution in progress saved and replayed, "
          f"exited {128 + number}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("chess_trace")
    sub = parser.add_subparsers(dest="check", required=True)
    p = sub.add_parser("same-as-native")
    p.add_argument("--run-option", action="append", default=[], help="an option for chess-trace run")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("deadlock")
    p.add_argument("--function", action="append", default=[])
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("stop-signal")
    p.add_argument("--stderr", action="append", default=[], help="text stderr must contain")
    p.add_argument("signal")
    p.add_argument("code", type=int)
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("replay-stop-signal")
    p.add_argument("signal")
    p.add_argument("code", type=int)
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("trace-is-zstd")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("exit-code")
    p.add_argument("code", type=int)
    p.add_argument("--stderr", action="append", default=[])
    p.add_argument("--stdout", action="append", default=[])
    p.add_argument("--not-stderr", action="append", default=[], help="text stderr must not contain")
    p.add_argument("--not-stdout", action="append", default=[], help="text stdout must not contain")
    p.add_argument("--timeout", type=float, default=TIMEOUT,
                   help="seconds the command may take (a loaded machine slows some programs many times)")
    p.add_argument("arguments", nargs=argparse.REMAINDER)
    p = sub.add_parser("no-survivors")
    p.add_argument("--stderr", default="")
    p.add_argument("code", type=int)
    p.add_argument("arguments", nargs=argparse.REMAINDER)
    p = sub.add_parser("clean-report-and-log")
    p.add_argument("program", nargs=argparse.REMAINDER)
    sub.add_parser("late-input")
    sub.add_parser("external-wait-hang")
    p = sub.add_parser("deterministic")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--ids", action="store_true", help="compare the ids: lines too (pids, hostname)")
    p.add_argument("--run-option", action="append", default=[], help="an option for chess-trace run")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("record-replay")
    p.add_argument("--replays", type=int, default=20)
    p.add_argument("--rebuilt", action="store_true")
    p.add_argument("--input-lines", type=int, default=0, help="lines of stdin for the recorded run")
    p.add_argument("--input-kind", choices=["pipe", "file"], default="pipe")
    p.add_argument("--run-option", action="append", default=[], help="an option for chess-trace run")
    p.add_argument("--as-native", action="store_true", help="the recorded run must end and print as natively")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("replay-divergence")
    p.add_argument("--changed", action="append", default=[])
    p.add_argument("--expect", action="append", default=[])
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("damaged-traces")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("stop-at")
    p.add_argument("--where", required=True)
    p.add_argument("--state", action="append", default=[])
    p.add_argument("--gdb", action="append", default=[])
    p.add_argument("--refused", help="the replay must refuse --stop-at with this text (exit 125)")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("report-golden")
    p.add_argument("golden")
    p.add_argument("--option", action="append", default=[])
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("show-golden")
    p.add_argument("golden")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("virtual-time")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--max-wall", type=float, default=5.0)
    p.add_argument("--run-option", action="append", default=[], help="an option for chess-trace run")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("explore")
    p.add_argument("--outcome", required=True)
    p.add_argument("--execution", type=int)
    p.add_argument("--preemptions", type=int)
    p.add_argument("--schedules", type=int)
    p.add_argument("--signal")
    p.add_argument("--function", action="append", default=[])
    p.add_argument("--option", action="append", default=[], help="an option for chess-trace explore")
    p.add_argument("--twice", action="store_true", help="search twice: the same number of executions")
    p.add_argument("--found-by", help="the strategy the report must say found the bug")
    p.add_argument("--forked", action="store_true",
                   help="executions after the first were forked from a template, and end as with --no-fork-server")
    p.add_argument("--input", help="the text on the search's standard input (a pipe)")
    p.add_argument("--blind", action="store_true",
                   help="no bug, but a program's sync operations were no scheduling points: the verdict says so")
    p.add_argument("--not-forked-because", help="no execution was forked, and the report says why with this text")
    p.add_argument("--races", type=int, help="exactly this many data races reported")
    p.add_argument("--race", action="append", default=[], help="a reported race names this text")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("program-in-tmp")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("explore-interrupt")
    p.add_argument("--signal", default="SIGINT", choices=["SIGINT", "SIGTERM", "SIGHUP"])
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("isolated-network")
    p.add_argument("--port", type=int, default=0, help="the fixed port the program binds")
    p.add_argument("--host-holds-port", action="store_true",
                   help="hold a listener on 127.0.0.1 at a port the kernel picks, and give the program that port")
    p.add_argument("--replays", type=int, default=0, help="record the run and replay it N times")
    p.add_argument("--run-option", action="append", default=[], help="an option for chess-trace run")
    p.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.check == "same-as-native":
        same_as_native(args.chess_trace, args.program, args.run_option)
    elif args.check == "deadlock":
        deadlock(args.chess_trace, args.function, args.program)
    elif args.check == "stop-signal":
        stop_signal(args.chess_trace, args.signal, args.code, args.program, args.stderr)
    elif args.check == "trace-is-zstd":
        trace_is_zstd(args.chess_trace, args.program)
    elif args.check == "replay-stop-signal":
        replay_stop_signal(args.chess_trace, args.signal, args.code, args.program)
    elif args.check == "clean-report-and-log":
        clean_report_and_log(args.chess_trace, args.program)
    elif args.check == "late-input":
        late_input(args.chess_trace)
    elif args.check == "external-wait-hang":
        external_wait_hang(args.chess_trace)
    elif args.check == "deterministic":
        deterministic(args.chess_trace, args.runs, args.ids, args.run_option, args.program)
    elif args.check == "record-replay":
        record_replay(args.chess_trace, args.replays, args.rebuilt, args.program, args.input_lines, args.input_kind,
                      args.run_option, args.as_native)
    elif args.check == "replay-divergence":
        replay_divergence(args.chess_trace, args.program, args.changed, args.expect)
    elif args.check == "damaged-traces":
        damaged_traces(args.chess_trace, args.program)
    elif args.check == "report-golden":
        report_golden(args.chess_trace, args.golden, args.option, args.program)
    elif args.check == "show-golden":
        show_golden(args.chess_trace, args.golden, args.program)
    elif args.check == "stop-at":
        stop_at(args.chess_trace, args.where, args.state, args.gdb, args.refused, args.program)
    elif args.check == "virtual-time":
        virtual_time(args.chess_trace, args.runs, args.max_wall, args.run_option, args.program)
    elif args.check == "explore":
        explore(args.chess_trace, args.outcome, args.execution, args.preemptions, args.schedules, args.signal,
                args.function, args.option, args.twice, args.found_by, args.program, args.forked, args.input,
                args.blind, args.not_forked_because, args.races, args.race)
    elif args.check == "program-in-tmp":
        program_in_tmp(args.chess_trace, args.program)
    elif args.check == "explore-interrupt":
        explore_interrupt(args.chess_trace, args.program, args.signal)
    elif args.check == "isolated-network":
        if (args.port == 0) == (not args.host_holds_port):
            parser.error("isolated-network: give --port N or --host-holds-port")
        isolated_network(args.chess_trace, args.port, args.host_holds_port, args.replays, args.run_option,
                         args.program)
    elif args.check == "no-survivors":
        no_survivors(args.chess_trace, args.code, args.stderr, args.arguments)
    else:
        exit_code(args.chess_trace, args.code, args.stderr, args.stdout, args.arguments, args.not_stderr,
                  args.not_stdout, args.timeout)


if __name__ == "__main__":
    main()
