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
