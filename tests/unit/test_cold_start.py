"""The first invocation of a Lambda instance runs without the cyclic garbage collector
(``api.runtime.cold_start_without_gc``)."""

from __future__ import annotations

import gc

import pytest

from hindsight.api.runtime import cold_start_without_gc


def test_the_collector_is_off_during_the_cold_start_and_on_again_after_it_even_when_it_fails() -> None:
    assert gc.isenabled()
    frozen_before = gc.get_freeze_count()
    seen: list[bool] = []

    def first_invocation() -> None:
        with cold_start_without_gc():
            seen.append(gc.isenabled())
            raise RuntimeError("the first invocation failed")

    try:
        with pytest.raises(RuntimeError):
            first_invocation()
        assert seen == [False]
        assert gc.isenabled()
        # what the cold start left alive is out of later collections' way
        assert gc.get_freeze_count() > frozen_before
    finally:
        gc.unfreeze()
        gc.enable()


def test_a_process_that_had_the_collector_off_keeps_it_off() -> None:
    gc.disable()
    try:
        with cold_start_without_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()
