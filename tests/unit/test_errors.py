from __future__ import annotations

import lakeshift.errors as errors


def test_every_error_family_has_its_own_exit_code() -> None:
    families = [
        errors.UsageError,
        errors.PartialFailure,
        errors.ValidationMismatch,
        errors.EnvironmentProblem,
        errors.NotFound,
        errors.RefusedInput,
        errors.LeaseHeld,
    ]
    codes = [f.exit_code for f in families]
    assert len(set(codes)) == len(codes)
    assert 0 not in codes and errors.EXIT_INTERNAL not in codes


def test_subclasses_inherit_family_code_and_message_includes_hint() -> None:
    error = errors.MetastoreUnreachable("cannot reach x", hint="start it")
    assert error.exit_code == errors.EXIT_ENVIRONMENT
    assert str(error) == "cannot reach x\nstart it"
    assert errors.UnsupportedTable("t").exit_code == errors.EXIT_REFUSED


def _worker_traceback(error: BaseException) -> str:
    """What the driver gets of a failed Python task: the worker's traceback as text, wrapped
    in a JVM stack trace (Spark passes no exception object back)."""
    import traceback

    text = "".join(traceback.format_exception(error))
    return (
        "An error occurred while calling o123.collectToPython.\n"
        "org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 4.0 "
        "failed 1 times, most recent failure: Lost task 0.0 in stage 4.0 (TID 7): "
        f"org.apache.spark.api.python.PythonException: {text}\n"
        "\tat org.apache.spark.api.python.BasePythonRunner$ReaderIterator.handlePythonException"
    )


def _raised_in_task(error: errors.LakeshiftError) -> RuntimeError:
    @errors.in_task
    def task(batches: list[int]) -> list[int]:
        raise error

    try:
        list(task([1]))
    except errors.TaskError as carried:
        return RuntimeError(_worker_traceback(carried))
    raise AssertionError("in_task did not carry the error")


def test_a_task_error_reaches_the_driver_with_its_class_code_message_and_hint() -> None:
    message = "/data/t/dt=1/000000_0: line 3 is not UTF-8\nsecond line: 'quoted' \\ back"
    driver_side = _raised_in_task(errors.CorruptFile(message, hint="Fix the file."))
    found = errors.from_task(driver_side)
    assert type(found) is errors.CorruptFile
    assert found.exit_code == errors.EXIT_REFUSED
    assert (found.message, found.hint) == (message, "Fix the file.")


def test_a_task_error_defined_outside_the_errors_module_keeps_its_class() -> None:
    from lakeshift.schema_map.field_ids import TypeChangeRefused

    error = TypeChangeRefused.__new__(TypeChangeRefused)
    errors.LakeshiftError.__init__(error, "c: int to string is refused")
    found = errors.from_task(_raised_in_task(error))
    assert type(found) is TypeChangeRefused and found.exit_code == errors.EXIT_REFUSED


def test_a_task_error_found_through_the_exception_chain() -> None:
    inner = _raised_in_task(errors.NotFound("table db.t is gone"))
    try:
        try:
            raise inner
        except RuntimeError as e:
            raise ValueError("wrapper without the text") from e
    except ValueError as outer:
        found = errors.from_task(outer)
    assert isinstance(found, errors.NotFound) and found.message == "table db.t is gone"


def test_other_failures_are_not_taken_for_task_errors() -> None:
    assert errors.from_task(RuntimeError(_worker_traceback(ValueError("boom")))) is None
    assert errors.from_task(RuntimeError("lakeshift-task-error: nothing encoded")) is None


def test_an_unknown_error_kind_keeps_its_exit_code() -> None:
    driver_side = _raised_in_task(errors.PartialFailure("2 of 3 failed"))
    text = str(driver_side)
    import base64
    import json
    import re

    payload = re.search(r"lakeshift-task-error:([A-Za-z0-9+/=]+)", text)
    assert payload is not None
    data = json.loads(base64.b64decode(payload.group(1)))
    data["kind"] = "ErrorOfANewerLakeshift"
    encoded = base64.b64encode(json.dumps(data).encode()).decode()
    found = errors.from_task(RuntimeError(f"lakeshift-task-error:{encoded}"))
    assert type(found) is errors.LakeshiftError and found.exit_code == errors.EXIT_PARTIAL
