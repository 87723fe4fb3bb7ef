#!/usr/bin/env python3
"""The dependency rules of the project's layout (docs/architecture.md), checked on the sources.

    check_layout.py ROOT          checks the repository at ROOT; exit 1 with one line per violation
    check_layout.py --self-test   checks that each rule catches a breach planted in a made-up tree

The rules:
  modules      a module includes only the modules below it: search/ nothing, seccomp/ only
               search's Result<T>, trace/ search/, supervisor/ search/ seccomp/ trace/, preload/
               only the hypercall ABI header; cli/ is the composition root and may use all.
  linux-free   search/ includes no operating-system header: it is pure logic.
  handlers     a family handler (supervisor/handlers/NAME.cc without a NAME.h) includes only the
               handler interface and its folder's helpers, never the thread table, the supervisor,
               ptrace/, world/ or report/: it sees one trapped call through SyscallContext and
               answers. The interface and the helpers (the files with a header) may build on the
               thread table, remote memory and /proc's maps, never on the event loop or the ptrace
               calls.
  ptrace       only supervisor/ptrace/ includes <sys/ptrace.h> or <linux/ptrace.h>, or calls
               ptrace(), syscall(SYS_ptrace…), waitpid(), wait4() or waitid().
  one-include  only seccomp/filter.cc includes <seccomp.h>; only trace/compression.cc <zstd.h>;
               only supervisor/code/decode.cc <Zydis/Zydis.h>.
"""
import os
import re
import sys

MODULES = ("search", "seccomp", "trace", "supervisor", "preload", "cli")
SOURCE_SUFFIXES = (".h", ".cc", ".c")

# What each module's quoted includes may name, as path prefixes.
ALLOWED_INCLUDES = {
    "search": ("search/",),
    "seccomp": ("seccomp/", "search/result.h"),
    "trace": ("trace/", "search/"),
    "supervisor": ("supervisor/", "search/", "seccomp/", "trace/"),
    "preload": ("preload/", "seccomp/hypercall_abi.h"),
    "cli": tuple(m + "/" for m in MODULES),
}

HANDLER_MAY_INCLUDE = ("supervisor/handlers/", "search/", "seccomp/arch.h", "seccomp/hypercall_abi.h",
                       "seccomp/syscall_family.h", "seccomp/syscall_table.h")
# The handler interface and its helpers are built on the thread table, remote memory and the
# program's filters; the families see those only through them.
HANDLER_INTERFACE_MAY_INCLUDE = HANDLER_MAY_INCLUDE + (
    "supervisor/thread_table.h", "supervisor/clock.h", "supervisor/fd_probe.h", "supervisor/sandbox.h",
    "supervisor/invariant.h", "supervisor/program_images.h", "supervisor/proc_maps.h",
    "supervisor/ptrace/remote_memory.h", "supervisor/ptrace/registers.h")


def is_family_handler(path, files):
    """A handlers/ source with no header of its own: one syscall family's handler."""
    return path.endswith(".cc") and path[:-3] + ".h" not in files

ONLY_ONE_INCLUDER = {"seccomp.h": "seccomp/filter.cc", "zstd.h": "trace/compression.cc",
                     "Zydis/Zydis.h": "supervisor/code/decode.cc"}

PTRACE_HEADERS = ("sys/ptrace.h", "linux/ptrace.h")
# A call, not a mention: `ptrace::Resume(` and `event.waitpid` are not calls of the libc function.
PTRACE_CALL = re.compile(r"(?<![\w.])(?<!->)(ptrace|waitpid|wait4|waitid)\s*\(|\bsyscall\s*\(\s*SYS_ptrace\b")

QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ANGLE_INCLUDE = re.compile(r"^\s*#\s*include\s+<([^>]+)>", re.M)

# The C++ standard library: the only angle-bracket headers search/ may use.
STANDARD_HEADERS = {
    "algorithm", "any", "array", "atomic", "bit", "bitset", "cassert", "cctype", "cerrno", "charconv",
    "chrono", "cinttypes", "climits", "cmath", "compare", "concepts", "cstddef", "cstdint", "cstdio",
    "cstdlib", "cstring", "deque", "exception", "functional", "initializer_list", "iomanip", "ios",
    "iosfwd", "iostream", "istream", "iterator", "limits", "list", "map", "memory", "mutex", "numeric",
    "optional", "ostream", "queue", "random", "ranges", "ratio", "regex", "set", "span", "sstream", "stack",
    "stdexcept", "string", "string_view", "system_error", "tuple", "type_traits", "typeinfo",
    "unordered_map", "unordered_set", "utility", "variant", "vector",
}


def strip_comments_and_strings(text):
    """The code without its comments and the contents of its string and character literals."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c in "\"'":
            if c == '"' and text[max(0, i - 1)] == "R":  # a raw string: R"delim( … )delim"
                open_paren = text.find("(", i)
                delimiter = text[i + 1:open_paren]
                end = text.find(")" + delimiter + '"', open_paren)
                i = n if end < 0 else end + len(delimiter) + 2
                out.append('""')
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def violations(files):
    """`files` maps a path relative to the root ("supervisor/io.cc") to its text."""
    found = []
    includers = {header: [] for header in ONLY_ONE_INCLUDER}
    for path, text in sorted(files.items()):
        module = path.split("/", 1)[0]
        quoted = QUOTED_INCLUDE.findall(text)
        angled = ANGLE_INCLUDE.findall(text)
        # Includes relative to the file's own folder (preload's C headers) stay inside the module.
        quoted_from_root = [name for name in quoted if "/" in name]
        for name in quoted_from_root:
            if not name.startswith(ALLOWED_INCLUDES[module]):
                found.append(f"{path}: modules: {module}/ may not include \"{name}\"")
        if module == "search":
            for name in angled:
                if name not in STANDARD_HEADERS:
                    found.append(f"{path}: linux-free: search/ includes <{name}>, not a standard C++ header")
        if path.startswith("supervisor/handlers/"):
            family = is_family_handler(path, files)
            allowed = HANDLER_MAY_INCLUDE if family else HANDLER_INTERFACE_MAY_INCLUDE
            for name in quoted_from_root:
                if name.startswith(allowed) or name == path[:-3] + ".h":
                    continue
                if family:
                    found.append(f"{path}: handlers: a family handler includes \"{name}\"; it may use only the "
                                 "handler interface (supervisor/handlers/handler.h) and its folder's helpers")
                else:
                    found.append(f"{path}: handlers: the handler interface includes \"{name}\"; it may build on the "
                                 "thread table and remote memory, not on the event loop or ptrace")
        if not path.startswith("supervisor/ptrace/"):
            for name in angled:
                if name in PTRACE_HEADERS:
                    found.append(f"{path}: ptrace: includes <{name}> outside supervisor/ptrace/")
            code = strip_comments_and_strings(text)
            for match in PTRACE_CALL.finditer(code):
                line = code.count("\n", 0, match.start()) + 1
                call = match.group(1) or "syscall(SYS_ptrace"
                found.append(f"{path}:{line}: ptrace: calls {call}() outside supervisor/ptrace/")
        for header in ONLY_ONE_INCLUDER:
            if header in angled:
                includers[header].append(path)
    for header, paths in includers.items():
        for path in paths:
            if path != ONLY_ONE_INCLUDER[header]:
                found.append(f"{path}: one-include: only {ONLY_ONE_INCLUDER[header]} includes <{header}>")
    return found


def read_tree(root):
    files = {}
    for module in MODULES:
        for folder, _, names in os.walk(os.path.join(root, module)):
            for name in names:
                if name.endswith(SOURCE_SUFFIXES):
                    full = os.path.join(folder, name)
                    with open(full, encoding="utf-8") as source:
                        files[os.path.relpath(full, root)] = source.read()
    return files


def self_test():
    """Each rule, breached once in a tree that otherwise keeps them all, must be reported."""
    clean = {
        "search/strategy.h": "#include <vector>\n#include \"search/outcome.h\"\n",
        "seccomp/filter.cc": "#include <seccomp.h>\n#include \"search/result.h\"\n",
        "trace/compression.cc": "#include <zstd.h>\n#include \"search/outcome.h\"\n",
        "supervisor/handlers/handler.h": "#include \"supervisor/thread_table.h\"\n",
        "supervisor/handlers/handler.cc": "#include \"supervisor/handlers/handler.h\"\n#include \"supervisor/sandbox.h\"\n",
        "supervisor/handlers/futex.cc": ("#include \"supervisor/handlers/handler.h\"\n"
                                         "// waitpid(2) is the ptrace layer's\nconst char* n = \"ptrace(\";\n"
                                         "void F() { ptrace::Resume(1); }\n"),
        "supervisor/ptrace/ptrace.cc": "#include <sys/ptrace.h>\nlong F() { return ptrace(0, 0, 0, 0) + waitpid(1, 0, 0); }\n",
        "preload/shim.c": "#include \"seccomp/hypercall_abi.h\"\n#include \"shim.h\"\n",
        "cli/main.cc": "#include \"supervisor/supervisor.h\"\n#include \"trace/reader.h\"\n",
    }
    breaches = {
        "modules": ("search/explorer.cc", "#include \"supervisor/supervisor.h\"\n"),
        "linux-free": ("search/random.h", "#include <sys/random.h>\n"),
        "handlers": ("supervisor/handlers/poll.cc", "#include \"supervisor/thread_table.h\"\n"),
        "ptrace": ("supervisor/world/fork_server.cc", "void F() { int s; waitpid(1, &s, 0); }\n"),
        "one-include": ("trace/writer.cc", "#include <zstd.h>\n"),
    }
    failures = []
    if violations(clean):
        failures.append("the clean tree is reported: " + "; ".join(violations(clean)))
    for rule, (path, text) in breaches.items():
        tree = dict(clean)
        tree[path] = tree.get(path, "") + text
        reported = violations(tree)
        if not any(f": {rule}:" in line for line in reported):
            failures.append(f"the {rule} rule misses {path}: {text.strip()}")
    for path, text in (("supervisor/handlers/wait.cc", "#include \"supervisor/ptrace/ptrace.h\"\n"),
                       ("supervisor/handlers/wait.cc", "#include <sys/ptrace.h>\n"),
                       ("supervisor/handlers/handler.cc", "#include \"supervisor/supervisor.h\"\n")):
        tree = dict(clean)
        tree[path] = tree.get(path, "") + text
        if not violations(tree):
            failures.append(f"{path} including {text.strip()} is not reported")
    for line in failures:
        print(line)
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip())
        return 2
    found = violations(read_tree(argv[1]))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
