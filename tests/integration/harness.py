#!/usr/bin/env python3
"""Integration checks of `chess-trace run` against real programs.

    harness.py CHESS_TRACE same-as-native PROGRAM [ARGS...]
    harness.py CHESS_TRACE deadlock --function NAME [--function NAME...] PROGRAM [ARGS...]
    harness.py CHESS_TRACE stop-signal SIGNAL EXIT_CODE PROGRAM
    harness.py CHESS_TRACE no-survivors [--stderr TEXT] EXIT_CODE CHESS_TRACE_ARGS...
    harness.py CHESS_TRACE exit-code [--stderr TEXT]... [--stdout TEXT]... EXIT_CODE CHESS_TRACE_ARGS...

Every run has a wall-clock bound, and every test leaves no process behind: the programs run in
their own process group, which is killed on the way out.
"""
import argparse
import difflib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

TIMEOUT = 60


def run(command, timeout=TIMEOUT):
    """Runs a command in its own process group; returns (exit code, stdout, stderr)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
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


def same_as_native(chess_trace, program):
    native = run(program)
    native = (shell_status(native[0]),) + native[1:]
    traced = run([chess_trace, "run", "--"] + program)
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
    expect = {"schema": 1, "outcome": "deadlock", "exit_status": None, "signal": None}
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
        for frame in frames:
            if set(frame) != {"pc", "function", "offset", "module"} or not frame["pc"].startswith("0x"):
                fail(f"malformed frame {frame}")
            seen_functions.add(frame["function"])
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


def stop_signal(chess_trace, signal_name, expected_code, program):
    """Starts chess-trace run on a program that never ends, signals chess-trace (only it) once
    the program has run for about a second, and checks the exit code and that no process
    carrying the marker argument is left after a bounded grace period."""
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
        expect = {"schema": 1, "command": "run", "outcome": "ok", "exit_status": 0, "signal": None, "threads": []}
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


def exit_code(chess_trace, expected, stderr_texts, stdout_texts, arguments):
    code, out, err = run([chess_trace] + arguments)
    if code != expected:
        fail(f"chess-trace {' '.join(arguments)} exited {code}, expected {expected}\nstderr:\n{err}")
    for text in stderr_texts:
        if text not in err:
            fail(f"stderr should mention {text!r}:\n{err}")
    for text in stdout_texts:
        if text not in out:
            fail(f"stdout should contain {text!r}:\n{out}")
    print(f"ok: exit {code}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("chess_trace")
    sub = parser.add_subparsers(dest="check", required=True)
    p = sub.add_parser("same-as-native")
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("deadlock")
    p.add_argument("--function", action="append", default=[])
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("stop-signal")
    p.add_argument("signal")
    p.add_argument("code", type=int)
    p.add_argument("program", nargs=argparse.REMAINDER)
    p = sub.add_parser("exit-code")
    p.add_argument("code", type=int)
    p.add_argument("--stderr", action="append", default=[])
    p.add_argument("--stdout", action="append", default=[])
    p.add_argument("arguments", nargs=argparse.REMAINDER)
    p = sub.add_parser("no-survivors")
    p.add_argument("--stderr", default="")
    p.add_argument("code", type=int)
    p.add_argument("arguments", nargs=argparse.REMAINDER)
    p = sub.add_parser("clean-report-and-log")
    p.add_argument("program", nargs=argparse.REMAINDER)
    sub.add_parser("late-input")
    sub.add_parser("external-wait-hang")
    args = parser.parse_args()
    if args.check == "same-as-native":
        same_as_native(args.chess_trace, args.program)
    elif args.check == "deadlock":
        deadlock(args.chess_trace, args.function, args.program)
    elif args.check == "stop-signal":
        stop_signal(args.chess_trace, args.signal, args.code, args.program)
    elif args.check == "clean-report-and-log":
        clean_report_and_log(args.chess_trace, args.program)
    elif args.check == "late-input":
        late_input(args.chess_trace)
    elif args.check == "external-wait-hang":
        external_wait_hang(args.chess_trace)
    elif args.check == "no-survivors":
        no_survivors(args.chess_trace, args.code, args.stderr, args.arguments)
    else:
        exit_code(args.chess_trace, args.code, args.stderr, args.stdout, args.arguments)


if __name__ == "__main__":
    main()
