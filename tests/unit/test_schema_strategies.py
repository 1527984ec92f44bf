"""The fuzz suites' argument strategies (``tests.schema_cases``) draw only through Hypothesis, never from
the global ``random`` (which would make their examples less diverse and unshrinkable). Checked here, with
no other thread about and Hypothesis's warning an error, because beside the in-process stack the server's
threads change the global state themselves and the fuzz suites ignore that warning
(``schema_cases.RANDOM_FROM_OTHER_THREADS``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.schema_cases import arguments_strategy, tool_schemas

SCHEMAS = tool_schemas()


@pytest.mark.filterwarnings("error::hypothesis.errors.HypothesisDeprecationWarning")
@pytest.mark.parametrize("tool", sorted(SCHEMAS))
@settings(
    max_examples=5,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_argument_strategies_leave_the_global_random_alone(tool: str, data: st.DataObject) -> None:
    """Every tool's strategies, random-ish and valid, drawn with Hypothesis watching the global state."""
    for valid in (False, True):
        arguments = data.draw(arguments_strategy(SCHEMAS[tool], valid=valid), label=f"valid={valid}")
        assert isinstance(arguments, dict)
