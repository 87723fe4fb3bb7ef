#!/usr/bin/env python3
"""Integration checks that a trace replays whatever stdin, stdout and stderr the replay is given.

    replay_kinds.py CHESS_TRACE explore --outcome OUTCOME PROGRAM [ARGS...]
    replay_kinds.py CHESS_TRACE run-on-terminal PROGRAM [ARGS...]
    replay_kinds.py CHESS_TRACE run-into-files PROGRAM [ARGS...]
    replay_kinds.py CHESS_TRACE window-size
    replay_kinds.py CHESS_TRACE older-trace PROGRAM [ARGS...]
    replay_kinds.py CHESS_TRACE stop-at-relayed PROGRAM [ARGS...]
    replay_kinds.py CHESS_TRACE interrupted-relay
    replay_kinds.py CHESS_TRACE kind-not-given

A program asks what its descriptors are (isatty, fstat, the window size) and behaves differently
on a terminal, a pipe or a file: C stdio buffers by line on a terminal, CPython takes other
locks. A trace records what they were, and a replay gives the program the same kinds and relays
its output. The terminals here are pseudo-terminals the test makes, of a size no test machine
has by chance. Every run has a wall-clock bound and runs in its own session, which is killed on
the way out.
"""
import argparse
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

TIMEOUT = 120
REPRODUCED = re.compile(r"^chess-trace: reproduced: ", re.M)


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def kill_session(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def on_terminal(command, columns=97, rows=31, cwd=None, typed=None, input_from_terminal=True, timeout=TIMEOUT):
    """Runs `command` with stdout and stderr on a new pseudo-terminal of that size, and stdin too
    (else /dev/null), as a shell in a terminal window would; `typed` is written to the terminal a
    second after the start. Returns (exit code, what appeared on the terminal, with "\\r\\n" as
    "\\n")."""
    master, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    process = subprocess.Popen(command, stdin=terminal if input_from_terminal else subprocess.DEVNULL,
                               stdout=terminal, stderr=terminal, cwd=cwd, start_new_session=True)
    os.close(terminal)
    output = b""
    deadline = time.monotonic() + timeout
    started = time.monotonic()
    try:
        while True:
            if typed is not None and time.monotonic() - started > 1:
                os.write(master, typed)
                typed = None
            left = deadline - time.monotonic()
            if left <= 0:
                fail(f"timed out after {timeout} s on a terminal: {' '.join(command)}\n{output.decode(errors='replace')}")
            ready, _, _ = select.select([master], [], [], min(left, 0.2))
            if not ready:
                if process.poll() is not None and typed is None:
                    # The program's session may keep the terminal open; what it wrote is there.
                    ready, _, _ = select.select([master], [], [], 0.5)
                    if not ready:
                        break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: no one holds the terminal any more
                break
            if not chunk:
                break
            output += chunk
        code = process.wait(timeout=max(1, deadline - time.monotonic()))
    finally:
        kill_session(process.pid)
        os.close(master)
    return code, output.decode(errors="replace").replace("\r\n", "\n")


def into_pipes(command, cwd=None, timeout=TIMEOUT):
    """Runs `command` with stdout and stderr on two pipes; stdin /dev/null. (code, out, err)."""
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=cwd, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_session(process.pid)
        out, err = process.communicate()
        fail(f"timed out after {timeout} s: {' '.join(command)}\n{err.decode(errors='replace')}")
    finally:
        kill_session(process.pid)
    return process.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def into_files(command, directory, cwd=None, timeout=TIMEOUT):
    """Runs `command` with stdout and stderr in two files; stdin /dev/null. (code, out, err)."""
    out_path = os.path.join(directory, "out.txt")
    err_path = os.path.join(directory, "err.txt")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd,
                                   start_new_session=True)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            fail(f"timed out after {timeout} s: {' '.join(command)}")
        finally:
            kill_session(process.pid)
    with open(out_path, errors="replace") as out, open(err_path, errors="replace") as err:
        return process.returncode, out.read(), err.read()


def replays(chess_trace, trace, directory):
    """The trace replayed on a terminal, into pipes and into files: {kind: (code, out, err)}; on a
    terminal, out and err are one stream."""
    command = [chess_trace, "replay", trace]
    code, text = on_terminal(command)
    results = {"a terminal": (code, text, text)}
    results["pipes"] = into_pipes(command)
    results["files"] = into_files(command, directory)
    return results


def expect_reproduced(kind, result, outcome=None):
    code, _, err = result
    if code != 0 or not REPRODUCED.search(err) or (outcome and f"reproduced: {outcome}" not in err):
        fail(f"the replay on {kind} did not reproduce the recording (exit {code}):\n{err}")


def program_lines(text):
    """The lines of `text` that are not chess-trace's (its messages and the reports under them)."""
    lines = []
    ours = False
    for line in text.splitlines():
        if line.startswith("chess-trace: "):
            ours = True
        elif not line.startswith("  "):
            ours = False
        if not ours:
            lines.append(line)
    return lines


def in_order(wanted, lines):
    """Whether every line of `wanted` is among `lines`, in that order (others may come between:
    on a terminal, stderr's lines)."""
    found = iter(lines)
    return all(any(line == candidate for candidate in found) for line in wanted)


def explore(chess_trace, outcome, program):
    """explore finds the bug; show says the trace had stdout and stderr in files; the trace
    replays on a terminal, into pipes and into files, and each replay shows what the recorded
    execution printed (the report's last lines of its stdout and stderr, each on its own stream
    but on the terminal)."""
    with tempfile.TemporaryDirectory() as tmp:
        code, _, err = into_pipes([chess_trace, "explore", "--quiet", "--out", tmp, "--", *program], timeout=600)
        found = re.search(r"^  trace: (\S+)$", err, re.M)
        if code != 1 or not found or f"BUG: {outcome}" not in err:
            fail(f"explore did not find the bug (exit {code}, expected BUG: {outcome}):\n{err}")
        trace = found.group(1)
        recorded = {stream: [line[len(f"    {stream}| "):] for line in err.splitlines() if line.startswith(f"    {stream}| ")]
                    for stream in ("stdout", "stderr")}
        if not recorded["stdout"] and not recorded["stderr"]:
            fail(f"the recorded execution printed nothing: the replays cannot show they relay it\n{err}")
        _, shown, _ = into_pipes([chess_trace, "show", trace])
        if "standard descriptors: stdin /dev/null, stdout a file, stderr a file\n" not in shown:
            fail(f"show does not say that stdout and stderr were files:\n{shown[:600]}")
        results = replays(chess_trace, trace, tmp)
        for kind, result in results.items():
            expect_reproduced(kind, result, outcome)
            for stream, lines in recorded.items():
                shown = program_lines(result[1] if stream == "stdout" else result[2])
                if not in_order(lines, shown):
                    fail(f"the replay on {kind} did not show what the recorded execution printed on {stream}:\n"
                         f"recorded: {lines}\nreplay's output:\n{result[1] if stream == 'stdout' else result[2]}")
        if results["pipes"][1] != results["files"][1]:
            fail(f"the replays into pipes and into files printed different stdout:\n"
                 f"{results['pipes'][1]!r}\n{results['files'][1]!r}")
    print(f"ok: explore's trace reproduced {outcome} on {', '.join(results)}; the output was the recording's")


def run_on_terminal(chess_trace, program):
    """run --trace on a terminal (stdin /dev/null); replays into pipes and into files reproduce,
    and print (on stdout: the recording's stdout and stderr were one terminal) what the program
    wrote there."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "terminal.trace")
        code, transcript = on_terminal([chess_trace, "run", "--trace", trace, "--", *program], columns=111, rows=37,
                                       input_from_terminal=False)
        if not os.path.exists(trace):
            fail(f"run --trace wrote no trace (exit {code}):\n{transcript}")
        _, shown, _ = into_pipes([chess_trace, "show", trace])
        if "standard descriptors: stdin /dev/null, stdout a terminal (111×37), stderr the same as stdout" not in shown:
            fail(f"show does not name the terminal:\n{shown[:600]}")
        for kind, result in (("pipes", into_pipes([chess_trace, "replay", trace])),
                             ("files", into_files([chess_trace, "replay", trace], tmp))):
            expect_reproduced(kind, result)
            if not result[1] or not transcript.startswith(result[1]):
                fail(f"the replay into {kind} did not print what the program wrote on the terminal:\n"
                     f"terminal:\n{transcript}\nreplay's stdout:\n{result[1]}")
    print(f"ok: recorded on a terminal (exit {code}), reproduced into pipes and files with the same output")


def run_into_files(chess_trace, program):
    """run --trace with stdout and stderr in files, and into pipes; both traces replay on a
    terminal."""
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("files", "pipes"):
            trace = os.path.join(tmp, f"{kind}.trace")
            command = [chess_trace, "run", "--trace", trace, "--", *program]
            code, out, err = into_files(command, tmp) if kind == "files" else into_pipes(command)
            if not os.path.exists(trace):
                fail(f"run --trace into {kind} wrote no trace (exit {code}):\n{err}")
            replayed = on_terminal([chess_trace, "replay", trace])
            expect_reproduced("a terminal", (replayed[0], replayed[1], replayed[1]))
            if out and out.splitlines()[0] not in replayed[1]:
                fail(f"the replay on a terminal of a run into {kind} did not show its output:\n{out}\n---\n{replayed[1]}")
    print("ok: runs recorded into files and into pipes reproduced on a terminal")


WINDOW_PROBE = ("import os, sys\n"
                "size = os.get_terminal_size()\n"
                "print(f'{size.columns}x{size.lines}', sys.stdin.isatty(), sys.stdout.isatty(), sys.stderr.isatty())\n")


def window_size(chess_trace):
    """A program that prints its window size and what isatty says, recorded on a 123×45
    terminal, prints the same replayed on an 80×24 terminal, into pipes and into files."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "window.trace")
        program = [sys.executable, "-c", WINDOW_PROBE]
        code, transcript = on_terminal([chess_trace, "run", "--trace", trace, "--", *program], columns=123, rows=45)
        if code != 0 or not transcript.startswith("123x45 True True True\n"):
            fail(f"the recorded run did not see its terminal (exit {code}):\n{transcript}")
        code, text = on_terminal([chess_trace, "replay", trace], columns=80, rows=24)
        results = {"an 80×24 terminal": (code, text, text), "pipes": into_pipes([chess_trace, "replay", trace]),
                   "files": into_files([chess_trace, "replay", trace], tmp)}
        for kind, result in results.items():
            expect_reproduced(kind, result, "ok")
            if not result[1].startswith("123x45 True True True\n"):
                fail(f"replayed on {kind}, the program did not see the recorded terminal:\n{result[1]}")
    print(f"ok: the program saw a 123×45 terminal on {', '.join(results)}")


def varint(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7f) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def put_varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7f
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def fnv1a64(data):
    value = 0xcbf29ce484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    return value


def without_descriptors(trace, older):
    """Writes `trace` again without its standard descriptors record (type 11), as a chess-trace
    from before that record wrote it: in format 1, a bare header and trailer around the zstd
    frame (docs/trace-format.md), and without the options' last two bytes, atomic_points (format
    3) and race_points (format 4; the trace must have neither). Since format 2 the trace itself
    is a zstd file."""
    with open(trace, "rb") as f:
        data = f.read()
    tool = data[20:20 + struct.unpack_from("<H", data, 18)[0]]  # after the skippable frame's 8 bytes
    stream = subprocess.run(["zstd", "-dcq"], input=data, capture_output=True, check=True).stdout
    records = []
    at = 0
    while at < len(stream):
        kind = stream[at]
        length, start = varint(stream, at + 1)
        records.append((kind, stream[start:start + length]))
        at = start + length
    kept = [record for record in records if record[0] != 11]
    if len(kept) != len(records) - 1 or kept[-1][0] != 8:
        fail(f"the trace does not hold one standard descriptors record before its end: {[r[0] for r in records]}")
    kept[-1] = (8, put_varint(len(kept) - 1))
    kept = [(kind, payload[:-2] if kind == 2 else payload) for kind, payload in kept]
    if any(kind in (12, 13) for kind, _ in kept):
        fail("the trace has atomic sites, which format 1 cannot hold: explore it with --sync-points processes")
    stream = b"".join(bytes([kind]) + put_varint(len(payload)) + payload for kind, payload in kept)
    frame = subprocess.run(["zstd", "-cq", "--check"], input=stream, capture_output=True, check=True).stdout
    body = b"CHESSTRC" + struct.pack("<HH", 1, len(tool)) + tool + frame
    with open(older, "wb") as f:
        f.write(body + b"CHESSEND" + struct.pack("<QQ", len(stream), fnv1a64(body)))


def older_trace(chess_trace, program):
    """A trace without the record of the standard descriptors (an older one) replays as it did:
    with the replay's own descriptors. On a terminal, explore's trace of a program that prints
    before its threads then diverges, and the divergence says what the replay's descriptors were
    and that the trace does not tell."""
    if not shutil.which("zstd"):
        print("skipped: the zstd command is not installed")
        return
    with tempfile.TemporaryDirectory() as tmp:
        # Without atomic points, which an older trace cannot hold.
        code, _, err = into_pipes([chess_trace, "explore", "--quiet", "--sync-points", "processes", "--out", tmp, "--",
                                   *program], timeout=600)
        found = re.search(r"^  trace: (\S+)$", err, re.M)
        if code != 1 or not found:
            fail(f"explore did not find the bug (exit {code}):\n{err}")
        older = os.path.join(tmp, "older.trace")
        without_descriptors(found.group(1), older)
        _, shown, _ = into_pipes([chess_trace, "show", older])
        if "standard descriptors: not recorded" not in shown:
            fail(f"show of the older trace should say the descriptors were not recorded:\n{shown[:600]}")
        expect_reproduced("files", into_files([chess_trace, "replay", older], tmp))
        code, text = on_terminal([chess_trace, "replay", older], input_from_terminal=False)
        for expected in ("chess-trace: diverged", "the trace does not say what stdin, stdout and stderr were",
                         "in this replay: stdin /dev/null, stdout a terminal (97×31), stderr the same as stdout"):
            if expected not in text:
                fail(f"the older trace's divergence on a terminal should say {expected!r} (exit {code}):\n{text}")
        if code != 1:
            fail(f"the diverging replay exited {code}, expected 1:\n{text}")
    print("ok: an older trace replays into files, and its divergence on a terminal names the replay's descriptors")


def kind_not_given(chess_trace):
    """A run whose stdin was a character device chess-trace does not give (/dev/kmsg, 1:11)
    replays with the replay's own stdin; a program that looks (`[ -c /dev/stdin ]`) then takes
    another path, and the divergence says what stdin was, what it is, and why."""
    try:
        device = os.open("/dev/kmsg", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as error:
        print(f"skipped: /dev/kmsg cannot be read here ({error})")
        return
    script = "if [ -c /dev/stdin ]; then echo a device; else /bin/echo something else; fi"
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "device.trace")
        process = subprocess.run([chess_trace, "run", "--trace", trace, "--", "sh", "-c", script], stdin=device,
                                 capture_output=True, text=True, timeout=TIMEOUT, start_new_session=True)
        os.close(device)
        if process.returncode != 0 or process.stdout != "a device\n":
            fail(f"the recorded run did not see a device on stdin (exit {process.returncode}):\n{process.stdout}{process.stderr}")
        replay = subprocess.run([chess_trace, "replay", trace], input="", capture_output=True, text=True,
                                timeout=TIMEOUT, start_new_session=True)
        for expected in ("chess-trace: diverged",
                         "note: stdin was the character device 1:11 when recorded, and is a pipe in this replay",
                         "stdin: the character device 1:11 is not one chess-trace gives; the program gets this "
                         "replay's own"):
            if expected not in replay.stderr:
                fail(f"the divergence should say {expected!r} (exit {replay.returncode}):\n{replay.stderr}")
    print("ok: a device chess-trace cannot give is named in the divergence, with the reason")


def survivors(pids):
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                if "zombie" not in f.read():
                    alive.append(pid)
        except FileNotFoundError:
            pass
    return alive


def stop_at_relayed(chess_trace, program):
    """replay --stop-at failure of explore's trace into pipes (its stdout is a relayed stand-in
    file): what the program printed before the failure is on stdout before chess-trace says
    where it stopped, and Ctrl-C ends chess-trace (exit 0) and the tree."""
    with tempfile.TemporaryDirectory() as tmp:
        code, _, err = into_pipes([chess_trace, "explore", "--quiet", "--out", tmp, "--", *program], timeout=600)
        found = re.search(r"^  trace: (\S+)$", err, re.M)
        if code != 1 or not found:
            fail(f"explore did not find the bug (exit {code}):\n{err}")
        process = subprocess.Popen([chess_trace, "replay", "--stop-at", "failure", found.group(1)],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True)
        try:
            said = b""
            deadline = time.monotonic() + TIMEOUT
            while b"Press Ctrl-C" not in said and time.monotonic() < deadline:
                ready, _, _ = select.select([process.stderr], [], [], 1)
                chunk = os.read(process.stderr.fileno(), 65536) if ready else b""
                if ready and not chunk:
                    break
                said += chunk
            said = said.decode(errors="replace")
            pids = [int(pid) for pid in re.findall(r"gdb -p (\d+)", said)]
            if not pids:
                fail(f"replay --stop-at failure printed no gdb command:\n{said}")
            ready, _, _ = select.select([process.stdout], [], [], 0)
            printed = os.read(process.stdout.fileno(), 65536).decode(errors="replace") if ready else ""
            if not printed:
                fail(f"what the program printed before it stopped was not on stdout when chess-trace said it stopped:\n{said}")
            process.send_signal(signal.SIGINT)
            process.wait(timeout=10)
        finally:
            kill_session(process.pid)
        if process.returncode != 0:
            fail(f"replay --stop-at exited {process.returncode} after Ctrl-C")
        time.sleep(0.2)
        if survivors(pids):
            fail(f"processes {survivors(pids)} outlived chess-trace")
    print(f"ok: stopped at the failure with the program's output shown first ({printed.splitlines()[0]!r}); Ctrl-C ended it")


def interrupted_relay(chess_trace):
    """A run recorded on a terminal read a line typed there; its replay into pipes gets a
    terminal with no input and waits. SIGINT ends chess-trace at once, and nothing is left."""
    marker = f"chess-trace-relay-{os.getpid()}"
    script = f"echo {marker} asks; read answer; echo got $answer"
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "asks.trace")
        code, transcript = on_terminal([chess_trace, "run", "--trace", trace, "--", "sh", "-c", script], typed=b"yes\n")
        if code != 0 or "got yes" not in transcript:
            fail(f"the recorded run did not read the line typed (exit {code}):\n{transcript}")
        process = subprocess.Popen([chess_trace, "replay", trace], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
        try:
            ready, _, _ = select.select([process.stdout], [], [], 30)
            printed = os.read(process.stdout.fileno(), 65536).decode(errors="replace") if ready else ""
            if f"{marker} asks" not in printed:
                fail(f"the replay did not relay what the program printed before it waited: {printed!r}")
            time.sleep(0.5)
            if process.poll() is not None:
                fail(f"the replay ended ({process.returncode}) instead of waiting for input that cannot come")
            stopped = time.monotonic()
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=10)
            took = time.monotonic() - stopped
        finally:
            kill_session(process.pid)
        if took > 5 or b"stopped by SIGINT" not in err:
            fail(f"chess-trace took {took:.1f} s to end after SIGINT:\n{err.decode(errors='replace')}")
        left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
        if left:
            fail(f"processes {left} outlived chess-trace")
    print(f"ok: the replay waited for input, and SIGINT ended it in {took:.2f} s with nothing left")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("chess_trace")
    sub = parser.add_subparsers(dest="check", required=True)
    p = sub.add_parser("explore")
    p.add_argument("--outcome", required=True)
    p.add_argument("program", nargs=argparse.REMAINDER)
    for name in ("run-on-terminal", "run-into-files", "older-trace", "stop-at-relayed"):
        sub.add_parser(name).add_argument("program", nargs=argparse.REMAINDER)
    sub.add_parser("window-size")
    sub.add_parser("interrupted-relay")
    sub.add_parser("kind-not-given")
    args = parser.parse_args()
    if args.check == "explore":
        explore(args.chess_trace, args.outcome, args.program)
    elif args.check == "run-on-terminal":
        run_on_terminal(args.chess_trace, args.program)
    elif args.check == "run-into-files":
        run_into_files(args.chess_trace, args.program)
    elif args.check == "window-size":
        window_size(args.chess_trace)
    elif args.check == "older-trace":
        older_trace(args.chess_trace, args.program)
    elif args.check == "stop-at-relayed":
        stop_at_relayed(args.chess_trace, args.program)
    elif args.check == "interrupted-relay":
        interrupted_relay(args.chess_trace)
    elif args.check == "kind-not-given":
        kind_not_given(args.chess_trace)


if __name__ == "__main__":
    main()
