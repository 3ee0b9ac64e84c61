"""Closing a system under test in a `finally` (`teardown.close`): a failure to close is raised when
nothing else ends the block, and never takes the place of the error or interruption that does (a
Ctrl-C mid-command can leave a system's connection unable to close cleanly)."""

from __future__ import annotations

import pytest

from harness.evaluation import teardown


class Unclosable:
    def close(self) -> None:
        raise RuntimeError("a reply that is not this command's")


def _use(system: Unclosable, ending: type[BaseException] | None) -> None:
    try:
        if ending is not None:
            raise ending
    finally:
        teardown.close(system)


def test_a_failed_close_is_raised_when_the_block_ends_well() -> None:
    with pytest.raises(RuntimeError, match="not this command's"):
        _use(Unclosable(), None)


@pytest.mark.parametrize("ending", [KeyboardInterrupt, ValueError])
def test_a_failed_close_leaves_what_ends_the_block_in_place(ending: type[BaseException]) -> None:
    with pytest.raises(ending):
        _use(Unclosable(), ending)
