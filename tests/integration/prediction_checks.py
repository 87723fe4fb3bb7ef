#!/usr/bin/env python3
"""Checks of predicted deadlocks (explore --predict-budget, run --predict) on real programs.

    prediction_checks.py CHESS_TRACE confirmed STEPS PROGRAM [PB_AFTER]
        explore predicts a cycle of STEPS threads from execution 1 and a directed execution
        makes it happen within 10 executions: a deadlock found by `directed`, reported as
        predicted and confirmed, whose trace replays it; directed executions count in the
        executions but not in the schedules. With PB_AFTER: pb alone (--predict-budget 0) finds
        it only after that many executions.
    prediction_checks.py CHESS_TRACE twin GATED PROGRAM
        A correct program: no bug, nothing predicted, GATED cycles ruled out by a gate lock.
    prediction_checks.py CHESS_TRACE unconfirmed PROGRAM
        A cycle no schedule can close: predicted, tried --predict-budget times, listed as a
        warning, never a bug; the whole search finds nothing.
    prediction_checks.py CHESS_TRACE run CYCLES GATED PROGRAM
        run --predict: the program's own exit status, CYCLES potential deadlocks as warnings and
        in `predicted`, GATED ruled out.
    prediction_checks.py CHESS_TRACE jobs PROGRAM
        -j 2 comes to what -j 1 comes to, prediction included.
    prediction_checks.py CHESS_TRACE off PROGRAM
        --predict-budget 0: no prediction in the report, and pb's own search.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import explore_with_report, fail, run, search_summary  # noqa: E402

TIMEOUT = 600


def explore(chess_trace, work, name, options, program):
    return explore_with_report(chess_trace, work, name, options, program, TIMEOUT)


def confirmed(chess_trace, steps, program, pb_after):
    with tempfile.TemporaryDirectory(prefix="chess-predict-") as work:
        code, report, err = explore(chess_trace, work, "predicted", [], program)
        if code != 1 or report["outcome"] != "deadlock":
            fail(f"expected a deadlock, got {report['outcome']} (exit {code}):\n{err}")
        bug = report["bugs"][0]
        if bug["found_by"] != "directed" or report["execution"] > 10:
            fail(f"the deadlock was found by {bug['found_by']} in execution {report['execution']}, "
                 f"expected a directed execution within 10:\n{err}")
        cycles = [cycle for cycle in report["predicted"] if cycle["confirmed_in"] == report["execution"]]
        if len(cycles) != 1 or len(cycles[0]["steps"]) != steps:
            fail(f"expected one confirmed cycle of {steps} steps: {report['predicted']}")
        prediction = report["prediction"]
        if (prediction["from_execution"] != 1 or
                prediction["directed_executions"] != report["executions"] - 1 or
                report["coverage"]["schedules"] != 1):
            fail(f"directed executions are counted wrong: {prediction}, executions {report['executions']}, "
                 f"schedules {report['coverage']['schedules']}")
        said = f"deadlock predicted from execution 1 ("
        if said not in err or f"and confirmed in execution {report['execution']}" not in err:
            fail(f"the text report does not say the deadlock was predicted and confirmed:\n{err}")
        replay_code, _, replay_err = run([chess_trace, "replay", bug["trace"]], timeout=TIMEOUT, cwd=work)
        if replay_code != 0 or "reproduced: deadlock" not in replay_err:
            fail(f"the trace does not replay the deadlock (exit {replay_code}):\n{replay_err}")
        if pb_after:
            _, alone, _ = explore(chess_trace, work, "alone", ["--predict-budget", "0"], program)
            if alone["outcome"] != "deadlock" or alone["execution"] <= int(pb_after) or alone["prediction"] is not None:
                fail(f"pb alone came to {alone['outcome']} in execution {alone['execution']}, expected a deadlock "
                     f"after execution {pb_after}: the program no longer shows what prediction gains")
            print(f"pb alone: the deadlock in execution {alone['execution']}")
        print(f"predicted and confirmed in execution {report['execution']}: {cycles[0]['cycle']}")


def twin(chess_trace, gated, program):
    with tempfile.TemporaryDirectory(prefix="chess-predict-") as work:
        code, report, err = explore(chess_trace, work, "twin", ["--max-executions", "40"], program)
        prediction = report["prediction"]
        if code != 0 or report["outcome"] != "none" or report["predicted"]:
            fail(f"a correct program was flagged or had predictions: {report['outcome']}, {report['predicted']}\n{err}")
        if not prediction["watched"] or prediction["dependencies"] == 0 or prediction["gated"] != gated:
            fail(f"expected its locks watched and {gated} gated cycles: {prediction}")
        print(f"nothing predicted from {prediction['dependencies']} dependencies, {gated} ruled out by a gate lock")


def unconfirmed(chess_trace, program):
    with tempfile.TemporaryDirectory(prefix="chess-predict-") as work:
        code, report, err = explore(chess_trace, work, "unconfirmed", [], program)
        if code != 0 or report["outcome"] != "none" or report["bugs"]:
            fail(f"an unconfirmed prediction became a bug: {report['outcome']}\n{err}")
        predicted = report["predicted"]
        if len(predicted) != 1 or predicted[0]["confirmed_in"] is not None or predicted[0]["attempts"] != 5:
            fail(f"expected one cycle tried 5 times, unconfirmed: {predicted}")
        if not any(w.startswith("deadlock predicted, not confirmed") for w in report["warnings"]):
            fail(f"the prediction is not among the warnings: {report['warnings']}")
        if "warning: deadlock predicted, not confirmed in 5 directed executions" not in err:
            fail(f"the text report does not warn of the prediction:\n{err}")
        if report["coverage"]["schedules"] != report["executions"] - 5 or not report["coverage"]["complete"]:
            fail(f"directed executions were counted as schedules: {report['coverage']}, {report['executions']}")
        print(f"predicted, not confirmed in 5 directed executions, no bug: {predicted[0]['cycle']}")


def run_predict(chess_trace, cycles, gated, program):
    with tempfile.TemporaryDirectory(prefix="chess-predict-") as work:
        report_path = os.path.join(work, "run.json")
        code, _, err = run([chess_trace, "run", "--predict", "--report", report_path, "--", program], timeout=TIMEOUT,
                           cwd=work)
        import json
        with open(report_path) as file:
            report = json.load(file)
        if code != 0 or report["outcome"] != "ok":
            fail(f"run --predict did not exit as the program did: {code}, {report['outcome']}\n{err}")
        if len(report["predicted"]) != cycles or report["prediction"]["gated"] != gated:
            fail(f"expected {cycles} cycles, {gated} gated: {report['prediction']}, {report['predicted']}")
        if err.count("warning: potential deadlock") != cycles:
            fail(f"expected {cycles} potential deadlocks among the warnings:\n{err}")
        print(f"run --predict: {cycles} potential deadlocks, {gated} ruled out by a gate lock")


def jobs(chess_trace, program):
    with tempfile.TemporaryDirectory(prefix="chess-predict-") as work:
        _, one, _ = explore(chess_trace, work, "one", [], program)
        _, many, err = explore(chess_trace, work, "many", ["-j", "2"], program)
        if search_summary(many) != search_summary(one) or many["predicted"] != one["predicted"]:
            fail(f"-j 2 came to {search_summary(many)}, {many['predicted']}\n"
                 f"-j 1 came to {search_summary(one)}, {one['predicted']}\n{err}")
        if [b["found_by"] for b in many["bugs"]] != [b["found_by"] for b in one["bugs"]]:
            fail(f"-j 2's bugs were found otherwise than -j 1's: {many['bugs']}")
        print(f"-j 2 = -j 1 with prediction: {search_summary(many)}")


def off(chess_trace, program):
    with tempfile.TemporaryDirectory(prefix="chess-predict-") as work:
        _, report, err = explore(chess_trace, work, "off", ["--predict-budget", "0"], program)
        if report["prediction"] is not None or report["predicted"] or "prediction" in err:
            fail(f"--predict-budget 0 still predicted: {report['prediction']}\n{err}")
        if any(bug["found_by"] == "directed" for bug in report["bugs"]):
            fail(f"--predict-budget 0 ran directed executions: {report['bugs']}")
        print(f"--predict-budget 0: no prediction; {search_summary(report)}")


def main():
    if len(sys.argv) < 4:
        fail(__doc__)
    chess_trace, check, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if check == "confirmed":
        confirmed(chess_trace, int(rest[0]), rest[1], rest[2] if len(rest) > 2 else None)
    elif check == "twin":
        twin(chess_trace, int(rest[0]), rest[1])
    elif check == "unconfirmed":
        unconfirmed(chess_trace, rest[0])
    elif check == "run":
        run_predict(chess_trace, int(rest[0]), int(rest[1]), rest[2])
    elif check == "jobs":
        jobs(chess_trace, rest[0])
    elif check == "off":
        off(chess_trace, rest[0])
    else:
        fail(f"unknown check {check}\n{__doc__}")


if __name__ == "__main__":
    main()
