#!/usr/bin/env python3
"""The faithful group: a program natively and under `chess-trace run` must look the same.

    faithful.py CHESS_TRACE same-as-native SOURCE PROGRAM
    faithful.py CHESS_TRACE sigterm SOURCE PROGRAM

same-as-native runs PROGRAM natively, then under `chess-trace run` with the options its SOURCE
names on a `faithful-run-options:` line; stdout and the exit status (128+N for signal N) must be
equal. sigterm runs `chess-trace run -- PROGRAM hold MARKER`, waits for the program's `holding`
line, sends SIGTERM to chess-trace alone, and checks that chess-trace exits within
SIGTERM_BOUND seconds with no process of the program left. With `faithful-hold-group` in SOURCE
the SIGTERM goes to the whole process group, the program's processes too, as Ctrl-C at a
terminal does. (The bound here is generous so a
loaded CI machine does not fail it; docs/limitations.md gives the figure measured by hand.)
Every run is bounded and runs in its own process group, killed on the way out.
"""
import difflib
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import time

TIMEOUT = 60
SIGTERM_BOUND = 5.0


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run_options(source):
    with open(source) as f:
        for line in f:
            match = re.search(r"faithful-run-options:(.*)$", line)
            if match:
                return shlex.split(match.group(1).strip().rstrip("*/").strip())
    return []


def to_group(source):
    with open(source) as f:
        return any("faithful-hold-group" in line for line in f)


def run(command):
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        fail(f"timed out after {TIMEOUT} s: {' '.join(command)}\nstdout:\n{out.decode(errors='replace')}"
             f"\nstderr:\n{err.decode(errors='replace')}")
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    code = process.returncode
    return (128 - code if code < 0 else code), out.decode(errors="replace"), err.decode(errors="replace")


def same_as_native(chess_trace, source, program):
    native = run([program])
    traced = run([chess_trace, "run", *run_options(source), "--", program])
    if native[:2] != traced[:2]:
        diff = "".join(difflib.unified_diff(native[1].splitlines(keepends=True), traced[1].splitlines(keepends=True),
                                            "stdout native", "stdout under chess-trace run"))
        fail(f"{program} differs under chess-trace run\n"
             f"exit status: native {native[0]}, under chess-trace {traced[0]}\n"
             f"stdout diff:\n{diff or '(identical)'}\n"
             f"native stderr:\n{native[2]}\nchess-trace stderr:\n{traced[2]}")
    print(f"ok: exit {native[0]}, stdout identical ({len(native[1])} bytes)\n{native[1]}")


def survivors(marker, exclude):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in exclude:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def sigterm(chess_trace, source, program):
    marker = f"chess-trace-faithful-{os.getpid()}-{time.monotonic_ns()}"
    # stdin: a pipe kept open and never written, which a program may hold on (faithful_helpers.h).
    process = subprocess.Popen([chess_trace, "run", *run_options(source), "--", program, "hold", marker],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE,
                               start_new_session=True)
    try:
        seen = b""
        deadline = time.monotonic() + TIMEOUT
        while b"holding\n" not in seen:
            left = deadline - time.monotonic()
            if left <= 0 or process.poll() is not None:
                fail(f"the program never printed `holding`; stdout so far:\n{seen.decode(errors='replace')}\n"
                     f"stderr:\n{process.stderr.read().decode(errors='replace') if process.poll() is not None else ''}")
            ready, _, _ = select.select([process.stdout], [], [], left)
            if ready:
                chunk = os.read(process.stdout.fileno(), 4096)
                if not chunk and process.poll() is not None:
                    continue
                seen += chunk
        time.sleep(0.2)  # let the program settle into its hold
        if process.poll() is not None:
            fail(f"chess-trace ended before SIGTERM was sent (exit {process.returncode}): the held state is no "
                 f"state to interrupt\nstderr:\n{process.stderr.read().decode(errors='replace')}")
        sent = time.monotonic()
        if to_group(source):
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=SIGTERM_BOUND)
        except subprocess.TimeoutExpired:
            fail(f"chess-trace did not exit within {SIGTERM_BOUND} s of SIGTERM")
        took = time.monotonic() - sent
        deadline = time.monotonic() + 5
        while survivors(marker, {os.getpid()}) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = survivors(marker, {os.getpid()})
        if left:
            fail(f"processes survived chess-trace's SIGTERM: {left}")
        print(f"ok: chess-trace exited {process.returncode} {took:.3f} s after SIGTERM, nothing left")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for pid in survivors(marker, {os.getpid()}):
            os.kill(pid, signal.SIGKILL)


def main():
    if len(sys.argv) != 5 or sys.argv[2] not in ("same-as-native", "sigterm"):
        fail(__doc__)
    chess_trace, mode, source, program = sys.argv[1:]
    (same_as_native if mode == "same-as-native" else sigterm)(chess_trace, source, program)


if __name__ == "__main__":
    main()
