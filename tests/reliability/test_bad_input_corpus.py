"""The bad-input corpus: every malformed stack config or component spec is refused
with the exact lines naming its field (by config path in a stack) and the allowed
values, and nothing registers. Cases are data in ``corpus/*.yaml``.

A case with ``known_issue`` states what the message *should* be and is expected to
fail until the issue is fixed (strict: a fix makes it pass and the marker must go).
"""
import pytest
from pydantic import ValidationError

from nodepools.config import StackConfigError
from nodepools.spec import describe

import corpus_cases

CASES = corpus_cases.load()


def _param(case):
    marks = [pytest.mark.xfail(reason=case["known_issue"], strict=True)] if "known_issue" in case else []
    return pytest.param(case, id=f"{case['file'].removesuffix('.yaml')}:{case['id']}", marks=marks)


def test_the_corpus_is_large_and_well_formed():
    assert len(CASES) >= 40
    assert len({c["id"] for c in CASES}) == len(CASES)
    for case in CASES:
        assert case["errors"] and ("stack" in case) != ("component" in case), case["id"]
        assert set(case) <= {"id", "file", "stack", "set", "unset", "component", "class", "cloud", "target", "spec",
                             "errors", "known_issue", "registers_only"}, case["id"]


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_bad_input_is_refused_by_name_before_anything_registers(case):
    run, error = corpus_cases.run(case)
    if "stack" in case:
        assert isinstance(error, StackConfigError), error
        lines = error.lines
        count = len(lines)
        assert str(error).splitlines()[0] == (
            f"stack config has {count} problem{'s' if count != 1 else ''} (nothing was registered):")
    else:
        assert isinstance(error, ValidationError), error
        lines = describe(error)
    assert lines == case["errors"]
    # A Platform takes its Kubernetes provider as an argument, so a program has
    # registered that provider (no cloud resource) before the Platform can check
    # its cluster target; nothing else may exist.
    assert [r.type for r in run.resources] == case.get("registers_only", [])
