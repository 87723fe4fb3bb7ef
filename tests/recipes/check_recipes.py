#!/usr/bin/python3
"""The sharding recipes (docs/scale.md, "Recipes") checked without a cluster or a runner.

    check_recipes.py k8s FILE              containers/k8s/explore-shards.yaml
    check_recipes.py github-actions FILE   docs/ci/explore-shards.yml
    check_recipes.py --self-test K8S GHA   each way of breaking them, applied to a loaded copy, is caught

Exit 0 when the recipe holds, 1 with one line per problem. Needs PyYAML (Debian: python3-yaml).

Besides the structure (an Indexed Job with completions = parallelism = N, a matrix of 1..N with
fail-fast off, the pod failure rules, the privileges docs/containers.md asks for, the jobs' order),
the shell the recipes run is run: each shard's command with `chess-trace` replaced by a stub that
records its arguments and writes a report and a trace where it is told to, for every index; then
the merge command, on what the shards left (on GitHub: after the artifacts' upload and download).
So the index arithmetic, N, the paths the shards write and the pattern merge reads, and the exit
statuses are checked by running them, not by reading them.
"""
import copy
import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    yaml = None

# Stands in for chess-trace: logs its arguments (one JSON line each call), and for explore writes
# the report and one trace, the report naming the trace by the path explore would (--out as given).
STUB = r'''#!/usr/bin/python3
import json, os, sys
args = sys.argv[1:]
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps({"argv": args, "cwd": os.getcwd()}) + "\n")
def value(name):
    options = args[:args.index("--")] if "--" in args else args
    return options[options.index(name) + 1] if name in options[:-1] else None
report, out = value("--report"), value("--out")
trace = None
if args[:1] == ["explore"] and out:
    os.makedirs(out, exist_ok=True)
    trace = os.path.join(out, "bug.trace")
    open(trace, "w").write("trace")
if report:
    os.makedirs(os.path.dirname(os.path.abspath(report)), exist_ok=True)
    json.dump({"schema": 3, "trace": trace}, open(report, "w"))
sys.exit(int(os.environ.get("STUB_EXIT", "0")))
'''

BUG, ERROR = 1, 125  # explore's exit statuses the recipes must tell apart
SHELL_TIMEOUT = 20


class Sandbox:
    """A temporary directory with the stub on PATH; runs commands and reads what the stub logged."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="check_recipes.")
        self.bin = os.path.join(self.root, "bin")
        os.mkdir(self.bin)
        stub = os.path.join(self.bin, "chess-trace")
        with open(stub, "w") as f:
            f.write(STUB)
        os.chmod(stub, 0o755)
        self.log = os.path.join(self.root, "stub.log")

    def dir(self, name, fresh=False):
        path = os.path.join(self.root, name)
        if fresh:
            shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path, exist_ok=True)
        return path

    def run(self, argv, env, cwd, stub_exit=0):
        """Runs argv; returns (exit status, the stub's calls, output)."""
        open(self.log, "w").close()
        full_env = {"PATH": self.bin + ":/usr/bin:/bin", "HOME": self.root, "STUB_LOG": self.log,
                    "STUB_EXIT": str(stub_exit)}
        full_env.update(env)
        try:
            done = subprocess.run(argv, env=full_env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=SHELL_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as e:
            return None, [], str(e)
        with open(self.log) as f:
            calls = [json.loads(line) for line in f if line.strip()]
        return done.returncode, calls, done.stdout + done.stderr

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def option(argv, name):
    """The value of `name VALUE` before `--` in argv, or None."""
    options = argv[:argv.index("--")] if "--" in argv else argv
    return options[options.index(name) + 1] if name in options[:-1] else None


def merge_inputs(argv):
    """The reports a `merge [--report FILE] REPORT…` call reads."""
    rest = argv[1:]
    inputs = []
    i = 0
    while i < len(rest):
        if rest[i] == "--report":
            i += 2
            continue
        inputs.append(rest[i])
        i += 1
    return inputs


def check_merge_reads_shards(problems, where, calls, cwd, reports):
    """One `chess-trace merge` call that reads exactly the shards' reports (absolute paths), whose traces it
    can find."""
    merges = [c for c in calls if c["argv"][:1] == ["merge"]]
    if len(merges) != 1:
        problems.append(f"{where}: runs `chess-trace merge` {len(merges)} times, not once")
        return
    inputs = sorted(os.path.normpath(os.path.join(cwd, p)) for p in merge_inputs(merges[0]["argv"]))
    if inputs != sorted(reports):
        problems.append(f"{where}: merge reads {merge_inputs(merges[0]['argv'])}, not the {len(reports)} "
                        f"shard reports {sorted(reports)}")
        return
    # A trace is named by the path explore was given; merge resolves it against the report's directory.
    for report in reports:
        with open(report) as f:
            trace = json.load(f).get("trace")
        if trace and not os.path.exists(os.path.join(os.path.dirname(report), trace)):
            problems.append(f"{where}: the trace {trace} named by {os.path.basename(report)} is not beside it "
                            f"where merge runs")


def shard_of(problems, where, calls, index, count):
    """The one explore call of a shard, checked for `--shard index/count`; None if there is none."""
    explores = [c for c in calls if c["argv"][:1] == ["explore"]]
    if len(explores) != 1:
        problems.append(f"{where}: runs `chess-trace explore` {len(explores)} times, not once")
        return None
    argv = explores[0]["argv"]
    shard = option(argv, "--shard")
    if shard != f"{index}/{count}":
        problems.append(f"{where}: runs --shard {shard}, not {index}/{count}")
    for name in ("--report", "--out"):
        if option(argv, name) is None:
            problems.append(f"{where}: explore has no {name}")
    return explores[0]


# --- Kubernetes ----------------------------------------------------------------------------------

def failure_action(rules, container, code):
    """What podFailurePolicy does when `container` exits with `code`: the first rule that matches."""
    for rule in rules:
        on = rule.get("onExitCodes")
        if not on or on.get("containerName", container) != container:
            continue
        values = on.get("values", [])
        if (code in values) == (on.get("operator") == "In"):
            return rule.get("action")
    return "Count"  # no rule: the default, counted against the backoff limits


def container_argv(container):
    return list(container.get("command") or []) + list(container.get("args") or [])


def one_container(problems, job):
    containers = job["spec"]["template"]["spec"].get("containers") or []
    if len(containers) != 1:
        problems.append(f"Job {job['metadata']['name']}: {len(containers)} containers, not one")
        return None
    return containers[0]


def volume_of(pod, container, claim_names):
    """(mountPath, claimName) of the container's volume backed by a PersistentVolumeClaim."""
    claims = {v["name"]: v["persistentVolumeClaim"]["claimName"] for v in pod.get("volumes") or []
              if "persistentVolumeClaim" in v}
    for mount in container.get("volumeMounts") or []:
        if mount["name"] in claims and claims[mount["name"]] in claim_names:
            return mount["mountPath"].rstrip("/"), claims[mount["name"]]
    return None, None


def check_k8s(docs):
    problems = []
    docs = [d for d in docs if d]
    claims = {d["metadata"]["name"] for d in docs if d.get("kind") == "PersistentVolumeClaim"}
    jobs = [d for d in docs if d.get("kind") == "Job"]
    explore_jobs = [j for j in jobs if "chess-trace explore" in " ".join(map(str, container_argv(
        (j["spec"]["template"]["spec"].get("containers") or [{}])[0])))]
    merge_jobs = [j for j in jobs if j not in explore_jobs]
    if len(explore_jobs) != 1 or len(merge_jobs) != 1:
        return [f"{len(explore_jobs)} Jobs run explore and {len(merge_jobs)} others: want one of each"]
    job, merge = explore_jobs[0], merge_jobs[0]
    spec = job["spec"]
    pod = spec["template"]["spec"]

    if spec.get("completionMode") != "Indexed":
        problems.append(f"the shard Job's completionMode is {spec.get('completionMode')}, not Indexed: its pods "
                        f"get no JOB_COMPLETION_INDEX")
    n = spec.get("completions")
    if not isinstance(n, int) or n < 1:
        return problems + [f"completions is {n!r}, not a number of shards"]
    if spec.get("parallelism") != n:
        problems.append(f"parallelism {spec.get('parallelism')} != completions {n}")
    for one in (pod, merge["spec"]["template"]["spec"]):
        if one.get("restartPolicy") != "Never":
            problems.append(f"restartPolicy {one.get('restartPolicy')}: podFailurePolicy needs Never, and a "
                            f"restarted container would rerun a search that ended")

    container = one_container(problems, job)
    merge_container = one_container(problems, merge)
    if container is None or merge_container is None:
        return problems

    # Exit statuses: a bug must not be retried (Ignore recreates the pod forever, Count reruns it), an
    # error ends the Job.
    rules = (spec.get("podFailurePolicy") or {}).get("rules") or []
    bug = failure_action(rules, container["name"], BUG)
    if bug not in ("FailIndex", "FailJob"):
        problems.append(f"exit status {BUG} (a bug) leads to {bug}: the shard would be run again")
    if bug == "FailIndex" and spec.get("backoffLimitPerIndex") is None:
        problems.append("FailIndex needs backoffLimitPerIndex")
    error = failure_action(rules, container["name"], ERROR)
    if error != "FailJob":
        problems.append(f"exit status {ERROR} (chess-trace's error) leads to {error}, not FailJob")
    if not isinstance(spec.get("backoffLimit"), int):
        problems.append("the shard Job has no backoffLimit")
    elif spec.get("backoffLimitPerIndex") is not None and \
            spec["backoffLimit"] < n * (spec["backoffLimitPerIndex"] + 1):
        problems.append(f"backoffLimit {spec['backoffLimit']} < {n} shards × {spec['backoffLimitPerIndex'] + 1} "
                        f"failures each: it could stop shards that are still running")

    # The privileges of docs/containers.md: ptrace, a seccomp profile that lets chess-trace install its
    # own filter, and not root.
    pod_security = pod.get("securityContext") or {}
    security = container.get("securityContext") or {}
    seccomp = (security.get("seccompProfile") or pod_security.get("seccompProfile") or {}).get("type")
    if seccomp not in ("Unconfined", "Localhost"):
        problems.append(f"the shard's seccompProfile is {seccomp}, not Unconfined (or a Localhost profile)")
    if "SYS_PTRACE" not in ((security.get("capabilities") or {}).get("add") or []):
        problems.append("the shard's container does not add SYS_PTRACE")
    run_as_non_root = security.get("runAsNonRoot", pod_security.get("runAsNonRoot"))
    uid = security.get("runAsUser", pod_security.get("runAsUser"))
    if run_as_non_root is not True or uid == 0:
        problems.append(f"the shard may run as root (runAsNonRoot {run_as_non_root}, runAsUser {uid})")

    # The shared volume: the same claim at the same path in both Jobs.
    mount, claim = volume_of(pod, container, claims)
    merge_mount, merge_claim = volume_of(merge["spec"]["template"]["spec"], merge_container, claims)
    if mount is None or (mount, claim) != (merge_mount, merge_claim):
        return problems + [f"the shards write to claim {claim} at {mount}, merge reads claim {merge_claim} at "
                           f"{merge_mount}: not one declared volume at one path"]

    # Run the containers' commands, the volume's mount path moved into the sandbox.
    box = Sandbox()
    try:
        volume = box.dir("volume")

        def moved(argv):
            return [str(a).replace(mount + "/", volume + "/") for a in argv]

        env = {e["name"]: str(e["value"]) for e in container.get("env") or [] if "value" in e}
        reports = []
        for k in range(n):
            where = f"shard pod JOB_COMPLETION_INDEX={k}"
            # The pod failure rules see the container's status: it must be explore's.
            for stub_exit in (ERROR, BUG):
                status, calls, output = box.run(moved(container_argv(container)),
                                                dict(env, JOB_COMPLETION_INDEX=str(k)), box.dir("work"), stub_exit)
                if status != stub_exit:
                    problems.append(f"{where}: the container exits {status} when explore exits {stub_exit}: the pod "
                                    f"failure rules see another status")
            explore = shard_of(problems, where, calls, k + 1, n)
            if explore is None:
                problems.append(f"{where}: {output.strip()}")
                continue
            report = option(explore["argv"], "--report")
            if report:
                report = os.path.normpath(os.path.join(explore["cwd"], report))
                if not report.startswith(volume + "/"):
                    problems.append(f"{where}: the report {report} is not on the shared volume")
                if report in reports:
                    problems.append(f"{where}: writes the report of another shard, {report}")
                reports.append(report)
        if problems:
            return problems
        # Twice: the merged report must not be taken for a shard's the second time.
        for attempt in ("", " run again"):
            status, calls, output = box.run(moved(container_argv(merge_container)), {}, box.dir("work"))
            check_merge_reads_shards(problems, f"the merge Job{attempt}", calls, box.dir("work"), reports)
            if problems:
                problems.append(f"the merge Job's output: {output.strip()}")
                break
    finally:
        box.close()
    return problems


# --- GitHub Actions ------------------------------------------------------------------------------

EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def render(text, context, problems, where):
    """Replaces the ${{ … }} of text from context (names such as matrix.shard); others are problems."""
    def one(match):
        name = match.group(1)
        if name not in context:
            problems.append(f"{where}: the checker does not know ${{{{ {name} }}}}")
            return ""
        return str(context[name])
    return EXPRESSION.sub(one, str(text))


def steps_using(job, action):
    return [s for s in job.get("steps") or [] if str(s.get("uses", "")).split("@")[0] == action]


def runs(step, words):
    return all(w in str(step.get("run", "")) for w in words)


def artifact_files(patterns, workspace):
    """{path in the artifact: absolute path} for upload-artifact's `path:` lines: the files they match,
    relative to the least common ancestor of the matched files' directories, as the action stores them."""
    files = []
    for line in patterns:
        path = os.path.join(workspace, line.rstrip("/"))
        for match in glob.glob(path, recursive=True):
            if os.path.isdir(match):
                files += [os.path.join(d, f) for d, _, fs in os.walk(match) for f in fs]
            else:
                files.append(match)
    if not files:
        return {}
    root = os.path.commonpath([os.path.dirname(f) for f in files])
    return {os.path.relpath(f, root): f for f in files}


def check_github_actions(workflow):
    problems = []
    jobs = workflow.get("jobs") or {}
    shard_ids = [i for i, j in jobs.items()
                 if any(runs(s, ["chess-trace explore", "--shard"]) for s in j.get("steps") or [])]
    merge_ids = [i for i, j in jobs.items() if any(runs(s, ["chess-trace merge"]) for s in j.get("steps") or [])]
    if len(shard_ids) != 1 or len(merge_ids) != 1:
        return [f"jobs running explore --shard: {shard_ids}, running merge: {merge_ids}; want one of each"]
    shard_id, merge_id = shard_ids[0], merge_ids[0]
    shard_job, merge_job = jobs[shard_id], jobs[merge_id]

    strategy = shard_job.get("strategy") or {}
    if strategy.get("fail-fast") is not False:
        problems.append(f"fail-fast is {strategy.get('fail-fast')}, not false: a shard that finds a bug would cancel "
                        f"the others")
    matrix = strategy.get("matrix") or {}
    shards = matrix.get("shard")
    if set(matrix) != {"shard"}:
        problems.append(f"the matrix has {sorted(matrix)}: only `shard`, so that its jobs are the shards")
    if not isinstance(shards, list) or not shards:
        return problems + [f"matrix.shard is {shards!r}, not a list"]
    n = len(shards)
    if shards != list(range(1, n + 1)):
        problems.append(f"matrix.shard is {shards}, not 1 … {n}")

    needs = merge_job.get("needs")
    needs = [needs] if isinstance(needs, str) else needs or []
    if shard_id not in needs:
        problems.append(f"the merge job does not need {shard_id}: it could run before the shards")
    condition = str(merge_job.get("if", ""))
    if "always()" not in condition and "!cancelled()" not in condition:
        problems.append(f"the merge job runs only if every shard succeeded (if: {condition!r}): a shard's error "
                        f"would leave no verdict")

    uploads = steps_using(shard_job, "actions/upload-artifact")
    if len(uploads) != 1:
        return problems + [f"the shard job has {len(uploads)} upload-artifact steps, not one"]
    upload = uploads[0]
    if "always()" not in str(upload.get("if", "")):
        problems.append("the shard's upload runs only on success: a failed shard's report would be lost")
    if not str(upload["uses"]).endswith("@v4"):
        problems.append(f"{upload['uses']}: the download's pattern and merge-multiple need v4")
    downloads = [s for s in steps_using(merge_job, "actions/download-artifact") if (s.get("with") or {}).get("pattern")]
    if len(downloads) != 1:
        return problems + [f"the merge job has {len(downloads)} download-artifact steps with a pattern, not one"]
    download = downloads[0]["with"]
    if download.get("merge-multiple") is not True:
        problems.append("the download does not merge-multiple: each shard's files would land in a directory of "
                        "its own, not where its report names them")
    explore_step = next(s for s in shard_job["steps"] if runs(s, ["chess-trace explore"]))
    merge_step = next(s for s in merge_job["steps"] if runs(s, ["chess-trace merge"]))
    if merge_step.get("continue-on-error"):
        problems.append("the merge step continues on error: its verdict would be lost")
    if problems:
        return problems

    # Simulate: each shard in turn in one workspace (runners give every job the same path), its upload;
    # then the merge job's download and merge.
    box = Sandbox()
    try:
        temp = box.dir("runner-temp")
        base = {f"env.{k}": v for k, v in (workflow.get("env") or {}).items()}
        artifacts = {}
        uploaded = []
        for index in shards:
            workspace = box.dir("workspace", fresh=True)
            where = f"shard {index}"
            context = dict(base, **{"matrix.shard": index, "strategy.job-total": n, "runner.temp": temp,
                                    "github.workspace": workspace})
            context.update({f"env.{k}": render(v, context, problems, where)
                            for k, v in (shard_job.get("env") or {}).items()})
            env = {k[4:]: str(v) for k, v in context.items() if k.startswith("env.")}
            env.update({k: render(v, context, problems, where) for k, v in (explore_step.get("env") or {}).items()})
            env.update(GITHUB_WORKSPACE=workspace, RUNNER_TEMP=temp, GITHUB_PATH=os.path.join(temp, "path"))
            script = render(explore_step["run"], context, problems, where)
            # GitHub runs `run:` with `bash -e` on Linux.
            for stub_exit, must_succeed in ((ERROR, False), (BUG, True)):
                status, calls, output = box.run(["bash", "-e", "-c", script], env, workspace, stub_exit)
                if stub_exit == BUG:
                    shard_of(problems, where, calls, index, n)
                if (status == 0) != must_succeed:
                    problems.append(f"{where}: the step exits {status} when explore exits {stub_exit}" +
                                    ("" if must_succeed else ": an error would pass unseen"))
            name = render(upload["with"]["name"], context, problems, where)
            paths = render(upload["with"]["path"], context, problems, where).split()
            if name in artifacts:
                problems.append(f"{where}: uploads {name}, as another shard did")
            artifacts[name] = {rel: open(path, "rb").read() for rel, path in artifact_files(paths, workspace).items()}
            uploaded.append(name)
        for job_id, job in jobs.items():
            if job_id != shard_id:
                artifacts.update({str((s.get("with") or {}).get("name")): {}
                                  for s in steps_using(job, "actions/upload-artifact")})
        if problems:
            return problems

        workspace = box.dir("workspace", fresh=True)
        context = dict(base, **{"runner.temp": temp, "github.workspace": workspace})
        pattern = render(download["pattern"], context, problems, "the download")
        matched = sorted(name for name in artifacts if fnmatch.fnmatchcase(name, pattern))
        if matched != sorted(uploaded):
            problems.append(f"the download's pattern {pattern} matches {matched}, not the shards' {sorted(uploaded)}")
        destination = os.path.join(workspace, render(download.get("path", "."), context, problems, "the download"))
        for name in matched:
            for rel, content in artifacts[name].items():
                os.makedirs(os.path.dirname(os.path.join(destination, rel)), exist_ok=True)
                with open(os.path.join(destination, rel), "wb") as f:
                    f.write(content)
        reports = sorted(os.path.join(destination, rel) for name in uploaded for rel in artifacts[name]
                         if rel.endswith(".json"))
        if len(reports) != n:
            problems.append(f"the shards' artifacts hold {len(reports)} reports, not {n}")
        env = {k[4:]: str(v) for k, v in context.items() if k.startswith("env.")}
        env.update({k: render(v, context, problems, "merge") for k, v in (merge_step.get("env") or {}).items()})
        script = render(merge_step["run"], context, problems, "the merge step")
        if problems:
            return problems
        # The verdict is merge's exit status, whatever it is; and the merged report is no shard's.
        for attempt, verdict in (("", 0), (" run again", 1), (" with coverage incomplete", 2),
                                 (" on bad reports", 125)):
            status, calls, output = box.run(["bash", "-e", "-c", script], env, workspace, verdict)
            check_merge_reads_shards(problems, f"the merge step{attempt}", calls, workspace, reports)
            if status != verdict:
                problems.append(f"the merge step exits {status} when merge exits {verdict}: it is not the verdict")
            if problems:
                problems.append(f"the merge step's output: {output.strip()}")
                break
    finally:
        box.close()
    return problems


# --- Self-test: broken copies of the recipes must be rejected -------------------------------------

def edit(text, old, new):
    if old not in text:
        raise LookupError(f"the self-test's edit no longer applies: {old!r} is not in the recipe")
    return text.replace(old, new)


def k8s_jobs(docs):
    jobs = [d for d in docs if d and d.get("kind") == "Job"]
    indexed = [j for j in jobs if j["spec"].get("completionMode")]
    return indexed[0], next(j for j in jobs if j not in indexed)


def k8s_script(docs, old, new, merge=False):
    container = k8s_jobs(docs)[1 if merge else 0]["spec"]["template"]["spec"]["containers"][0]
    if not any(old in a for a in container["args"]):
        raise LookupError(f"the self-test's edit no longer applies: {old!r} is not in the container's args")
    container["args"] = [a.replace(old, new) for a in container["args"]]


def k8s_rule(docs, code, action):
    rules = k8s_jobs(docs)[0]["spec"]["podFailurePolicy"]["rules"]
    rule = next(r for r in rules if code in (r.get("onExitCodes") or {}).get("values", []))
    if action is None:
        rules.remove(rule)
    else:
        rule["action"] = action


def k8s_set(docs, key, value, merge=False):
    k8s_jobs(docs)[1 if merge else 0]["spec"][key] = value


def k8s_pod(docs, fn):
    fn(k8s_jobs(docs)[0]["spec"]["template"]["spec"])


K8S_BREAKS = {
    "completions != N": lambda d: k8s_set(d, "completions", k8s_jobs(d)[0]["spec"]["completions"] + 1),
    "parallelism != completions": lambda d: k8s_set(d, "parallelism", 1),
    "completions and parallelism != SHARD_COUNT": lambda d: (
        k8s_set(d, "completions", 5), k8s_set(d, "parallelism", 5), k8s_set(d, "backoffLimit", 10)),
    "not Indexed": lambda d: k8s_set(d, "completionMode", "NonIndexed"),
    "a 0-based shard index": lambda d: k8s_script(d, "JOB_COMPLETION_INDEX + 1", "JOB_COMPLETION_INDEX"),
    "an index counted twice": lambda d: k8s_script(d, "JOB_COMPLETION_INDEX + 1", "JOB_COMPLETION_INDEX / 2 + 1"),
    "exit 1 ignored (retried forever)": lambda d: k8s_rule(d, BUG, "Ignore"),
    "exit 1 counted (retried)": lambda d: k8s_rule(d, BUG, None),
    "exit 125 retried": lambda d: k8s_rule(d, ERROR, "Count"),
    "FailIndex without backoffLimitPerIndex": lambda d: k8s_jobs(d)[0]["spec"].pop("backoffLimitPerIndex"),
    "a backoffLimit that stops running shards": lambda d: k8s_set(d, "backoffLimit", 1),
    "restartPolicy OnFailure": lambda d: k8s_pod(d, lambda p: p.update(restartPolicy="OnFailure")),
    "seccomp confined": lambda d: k8s_pod(d, lambda p: p["securityContext"].pop("seccompProfile")),
    "no SYS_PTRACE": lambda d: k8s_pod(d, lambda p: p["containers"][0]["securityContext"].pop("capabilities")),
    "as root": lambda d: k8s_pod(d, lambda p: p["securityContext"].update(runAsNonRoot=False, runAsUser=0)),
    "reports where merge does not look": lambda d: k8s_script(d, "/shard-$I.json", "/report-$I.json"),
    "every shard the same report": lambda d: k8s_script(d, "/shard-$I.json", "/shard.json"),
    "merge reads another pattern": lambda d: k8s_script(d, "/shard-*.json", "/shards/*.json", merge=True),
    "merge reads its own report": lambda d: k8s_script(d, "/merged.json", "/shard-merged.json", merge=True),
    "merge without a shell (no glob)": lambda d: k8s_jobs(d)[1]["spec"]["template"]["spec"]["containers"][0].update(
        command=["chess-trace"], args=["merge", "/results/shard-*.json"]),
    "merge on another volume": lambda d: k8s_jobs(d)[1]["spec"]["template"]["spec"]["volumes"][0][
        "persistentVolumeClaim"].update(claimName="other"),
    "exit 1 turned into 0": lambda d: (k8s_script(d, "exec chess-trace explore", "chess-trace explore"),
                                       k8s_script(d, "-- sh ./harness.sh", "-- sh ./harness.sh || [ $? = 1 ]")),
}


def gha_run_step(workflow, job, words):
    """The step of job whose `run:` holds all of words."""
    return next(s for s in workflow["jobs"][job]["steps"] if runs(s, words))


def explore_run(workflow, old, new):
    step = gha_run_step(workflow, "explore", ["chess-trace explore"])
    step["run"] = edit(step["run"], old, new)


def merge_run(workflow, old, new):
    step = gha_run_step(workflow, "merge", ["chess-trace merge"])
    step["run"] = edit(step["run"], old, new)


def upload(workflow):
    return steps_using(workflow["jobs"]["explore"], "actions/upload-artifact")[0]


def download(workflow):
    downloads = steps_using(workflow["jobs"]["merge"], "actions/download-artifact")
    return next(s for s in downloads if s["with"].get("pattern"))


def gha_strategy(workflow, **changes):
    workflow["jobs"]["explore"]["strategy"].update(changes)


GHA_BREAKS = {
    "N in the command != the matrix": lambda w: explore_run(w, "$SHARD/$SHARDS", "$SHARD/5"),
    "a matrix of 0 … N-1": lambda w: gha_strategy(w, matrix={"shard": [0, 1, 2, 3]}),
    "a matrix with a gap": lambda w: gha_strategy(w, matrix={"shard": [1, 2, 4]}),
    "another matrix dimension": lambda w: gha_strategy(w, matrix={"shard": [1, 2], "os": ["a", "b"]}),
    "fail-fast": lambda w: gha_strategy(w, **{"fail-fast": True}),
    "merge does not wait for the shards": lambda w: w["jobs"]["merge"].pop("needs"),
    "merge only when every shard passed": lambda w: w["jobs"]["merge"].pop("if"),
    "a bug fails the shard": lambda w: explore_run(w, "0|1)", "0)"),
    "an error passes the shard": lambda w: explore_run(w, "0|1)", "0|1|125)"),
    "a 0-based shard": lambda w: explore_run(w, '--shard "$SHARD/', '--shard "$((SHARD - 1))/'),
    "upload only on success": lambda w: upload(w).pop("if"),
    "one artifact name for every shard": lambda w: upload(w)["with"].update(name="chess-trace-shard"),
    "download pattern != upload names": lambda w: download(w)["with"].update(pattern="shard-*"),
    "download pattern takes the build too": lambda w: download(w)["with"].update(pattern="chess-trace-*"),
    "no merge-multiple": lambda w: download(w)["with"].update({"merge-multiple": False}),
    "reports where merge does not look": lambda w: explore_run(w, '"shard-$SHARD.json"', '"report-$SHARD.json"'),
    "the report not uploaded": lambda w: upload(w)["with"].update(
        path=edit(upload(w)["with"]["path"], "shard-${{ matrix.shard }}.json\n", "")),
    "traces not beside the report": lambda w: explore_run(w, '--out "traces-$SHARD"', '--out "out/traces-$SHARD"'),
    "merge reads its own report": lambda w: merge_run(w, "--report merged.json", "--report shard-merged.json"),
    "merge's verdict swallowed": lambda w: merge_run(w, "shard-*.json", "shard-*.json || true"),
    "merge continues on error": lambda w: gha_run_step(w, "merge", ["chess-trace merge"]).update(
        {"continue-on-error": True}),
}


def self_test(k8s_path, gha_path):
    """The recipes pass, and every break of them is caught."""
    failures = []
    for kind, path, check, breaks in (("k8s", k8s_path, check_k8s, K8S_BREAKS),
                                      ("github-actions", gha_path, check_github_actions, GHA_BREAKS)):
        original = load(kind, path)
        if check(copy.deepcopy(original)):
            failures.append(f"{kind}: the recipe itself fails; run `check_recipes.py {kind} {path}`")
            continue
        for name, breaking in breaks.items():
            broken = copy.deepcopy(original)
            try:
                breaking(broken)
            except (LookupError, KeyError, StopIteration) as e:
                failures.append(f"{kind}: {name}: cannot break the recipe that way any more ({e!r}); "
                                f"update the self-test")
                continue
            problems = check(broken)
            print(f"{kind}: {name}: " + (problems[0] if problems else "NOT CAUGHT"))
            if not problems:
                failures.append(f"{kind}: {name}: not caught")
    for failure in failures:
        print("FAIL " + failure)
    return 1 if failures else 0


def load(kind, path):
    with open(path) as f:
        return list(yaml.safe_load_all(f)) if kind == "k8s" else yaml.safe_load(f)


def main(argv):
    if yaml is None:
        print(f"{argv[0]}: needs PyYAML for {sys.executable} (Debian: apt-get install python3-yaml)")
        return 1
    if len(argv) == 4 and argv[1] == "--self-test":
        return self_test(argv[2], argv[3])
    if len(argv) != 3 or argv[1] not in ("k8s", "github-actions"):
        print(__doc__)
        return 2
    check = check_k8s if argv[1] == "k8s" else check_github_actions
    problems = check(load(argv[1], argv[2]))
    for problem in problems:
        print(f"{argv[2]}: {problem}")
    if not problems:
        print(f"{argv[2]}: the {argv[1]} recipe holds")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
