#!/usr/bin/env python3
"""Run rr's C test programs under `chess-trace run` and compare with the pass criterion rr uses.

Outside CI on purpose: it needs rr's source (CI has no network) and takes minutes.

    git clone https://github.com/rr-debugger/rr /tmp/rr-src
    git -C /tmp/rr-src checkout 5c202cd8cb678b32107fa6aaf1c6108420bc53a8
    tests/outside/rr_suite.py --rr-source /tmp/rr-src --chess-trace build/chess-trace

A test passes when its stdout holds EXIT-SUCCESS, no line holds FAILED, and it exits 0 —
rr's own criterion. The list of tests (rr-tests-passing.txt, beside this script) holds the
ones that pass natively on the reference machine every time; `--native` runs them without
chess-trace too, so a failure that is the machine's and not chess-trace's shows as such.
Each test runs in a fresh empty working directory with a time limit; the script then checks
that no process of the test is left behind.
"""

import argparse
import concurrent.futures
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
RR_HEADER = """#define RR_MAGIC_SAVE_DATA_FD 999
#define RR_RESERVED_SOCKET_FD 1001
#define RR_DESCHED_EVENT_FLOOR_FD 100
"""
CFLAGS = ["-std=gnu11", "-DDEBUG", "-UNDEBUG", "-g3", "-O0", "-DMQUEUE_H=1",
          "-DFANOTIFY_H=1", "-D_FILE_OFFSET_BITS=64", "-pthread", "-w"]
LIBS = ["-lrt", "-ldl", "-lpthread"]
NONTMP_PARENT = "/var/tmp"


def read_list(path):
    tests = []
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        tests.append(line.split("\t")[0])
    return tests


def prepare_headers(rr_source, build_dir):
    include = build_dir / "include"
    (include / "rr").mkdir(parents=True, exist_ok=True)
    (include / "rr" / "rr.h").write_text(RR_HEADER)
    generated = include / "SyscallEnumsForTestsX64.generated"
    if not generated.exists():
        subprocess.run([sys.executable, str(rr_source / "src" / "generate_syscalls.py"),
                        str(generated)], check=True, cwd=rr_source / "src")
    return include


def build_one(name, rr_source, include, build_dir):
    binary = build_dir / "bin" / name
    if binary.exists():
        return name, None
    tests = rr_source / "src" / "test"
    candidates = [tests / f"{name}.c", tests / f"{name}.cc", tests / "x86" / f"{name}.c",
                  tests / "x86" / f"{name}.cc"]
    source = next((c for c in candidates if c.exists()), candidates[0])
    compiler = "g++" if source.suffix == ".cc" else "gcc"
    flags = [f for f in CFLAGS if not (compiler == "g++" and f.startswith("-std="))]
    command = [compiler, *flags, f"-I{include}", f"-I{rr_source / 'src' / 'test'}",
               f"-I{rr_source / 'src' / 'preload'}", str(source), "-o", str(binary), *LIBS]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return name, result.stderr[-2000:]
    return name, None


def passed(returncode, stdout):
    return returncode == 0 and "EXIT-SUCCESS" in stdout and "FAILED" not in stdout


def run_one(name, binary, prefix, timeout):
    """Runs one test in a fresh directory; returns (verdict, seconds, detail)."""
    with tempfile.TemporaryDirectory(prefix=f"rr-{name}-") as cwd:
        start = time.monotonic()
        # rr's runner names a directory off tmpfs for the tests that need a real file system
        # (reflinks, O_DIRECT); each test gets its own.
        nontmp = tempfile.mkdtemp(prefix=f"rr-{name}-", dir=NONTMP_PARENT)
        environment = dict(os.environ, NONTMP_WORKDIR=nontmp, RR_SUITE_MARKER=marker(name))
        process = subprocess.Popen([*prefix, str(binary)], cwd=cwd, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                   start_new_session=True, env=environment)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # SIGTERM first: chess-trace must end its run within a second of it.
            os.killpg(process.pid, signal.SIGTERM)
            try:
                stdout, stderr = process.communicate(timeout=1)
                verdict = "timeout"
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                stdout, stderr = process.communicate()
                verdict = "timeout, SIGTERM ignored"
            return verdict, time.monotonic() - start, tail(stdout, stderr)
        seconds = time.monotonic() - start
        shutil.rmtree(nontmp, ignore_errors=True)
        out = stdout.decode(errors="replace")
        if passed(process.returncode, out):
            return "pass", seconds, ""
        return f"fail (exit {process.returncode})", seconds, tail(stdout, stderr)


def tail(stdout, stderr):
    text = (stdout or b"").decode(errors="replace")[-600:] + "\n--- stderr ---\n" + \
        (stderr or b"").decode(errors="replace")[-1200:]
    return text


def marker(name):
    """The environment entry that tells this run's processes from any other's."""
    return f"{name}-{os.getpid()}"


def leftovers(name):
    """Processes of the test still running (none may remain): found by the marker in their
    environment, which every process of the test inherits (names alone are cut to 15 bytes)."""
    wanted = f"RR_SUITE_MARKER={marker(name)}".encode()
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if wanted in environment:
            found.append(int(entry.name))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rr-source", type=pathlib.Path, required=True,
                        help="a checkout of rr (the list was made at 5c202cd8)")
    parser.add_argument("--chess-trace", type=pathlib.Path, default=pathlib.Path("build/chess-trace"))
    parser.add_argument("--list", type=pathlib.Path, default=HERE / "rr-tests-passing.txt")
    parser.add_argument("--build-dir", type=pathlib.Path, default=pathlib.Path("/tmp/rr-suite"))
    parser.add_argument("--timeout", type=float, default=60, help="seconds per test (default 60)")
    parser.add_argument("--jobs", type=int, default=2, help="tests run at once (default 2)")
    parser.add_argument("--native", action="store_true", help="run natively instead, as a check of the machine")
    parser.add_argument("--only", nargs="*", help="run only these tests (regexes)")
    parser.add_argument("--verbose", action="store_true", help="print each failure's output")
    parser.add_argument("--results", type=pathlib.Path, help="write `name<TAB>verdict` lines here")
    parser.add_argument("run_options", nargs="*", help="options after `--` go to `chess-trace run`")
    args = parser.parse_args()

    tests = read_list(args.list)
    if args.only:
        tests = [t for t in tests if any(re.fullmatch(p, t) for p in args.only)]
    (args.build_dir / "bin").mkdir(parents=True, exist_ok=True)
    include = prepare_headers(args.rr_source.resolve(), args.build_dir)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        builds = pool.map(lambda t: build_one(t, args.rr_source.resolve(), include, args.build_dir), tests)
        broken = {name: error for name, error in builds if error}
    for name, error in broken.items():
        print(f"{name}: does not build\n{error}", file=sys.stderr)

    prefix = [] if args.native else [str(args.chess_trace.resolve()), "run", *args.run_options, "--"]
    runnable = [t for t in tests if t not in broken]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_one, t, args.build_dir / "bin" / t, prefix, args.timeout): t
                   for t in runnable}
        for future in concurrent.futures.as_completed(futures):
            name = futures[future]
            verdict, seconds, detail = future.result()
            left = leftovers(name)
            if left:
                verdict += f", left processes {left}"
                for pid in left:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            results[name] = verdict
            if verdict != "pass":
                print(f"{name}: {verdict} ({seconds:.1f} s)", flush=True)
                if args.verbose:
                    print(detail, flush=True)

    passes = sum(1 for v in results.values() if v == "pass")
    total = len(tests)
    print(f"\n{passes} of {total} pass ({100.0 * passes / total:.1f} %); "
          f"{len(broken)} did not build, {len(runnable) - passes} failed")
    if args.results:
        args.results.write_text("".join(f"{n}\t{results.get(n, 'does not build')}\n" for n in tests))
    return 0 if passes == total else 1


if __name__ == "__main__":
    sys.exit(main())
