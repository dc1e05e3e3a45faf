"""Collectives on one device (XLA semantics for groups of one), and a clear error for
modules written for several devices."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator, Unsupported
from hlotool.interpreter.devices import SingleDevice

_ADD = "add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }\n"


def _run(body: str, header: str = "HloModule m") -> object:
    module = parse_hlo(f"{header}\n{_ADD}ENTRY main {{\n  x = f32[4,2] parameter(0)\n{body}}}\n")
    return Evaluator(module).run([np.arange(8, dtype=np.float32).reshape(4, 2)])


def test_group_of_one_returns_the_operand() -> None:
    out = _run("  ar = f32[4,2] all-reduce(x), replica_groups={}, to_apply=add\n"
               "  ag = f32[4,2] all-gather(ar), dimensions={0}, replica_groups={}\n"
               "  aa = f32[4,2] all-to-all(ag), dimensions={0}, replica_groups={}\n"
               "  ROOT rs = f32[4,2] reduce-scatter(aa), dimensions={0}, replica_groups={}, "
               "to_apply=add\n")
    np.testing.assert_array_equal(out, np.arange(8, dtype=np.float32).reshape(4, 2))


def test_collective_permute_delivers_only_along_0_to_0() -> None:
    kept = _run("  ROOT cp = f32[4,2] collective-permute(x), source_target_pairs={{0,0}}\n")
    dropped = _run("  ROOT cp = f32[4,2] collective-permute(x), source_target_pairs={{1,0}}\n")
    np.testing.assert_array_equal(kept, np.arange(8, dtype=np.float32).reshape(4, 2))
    np.testing.assert_array_equal(dropped, np.zeros((4, 2), np.float32))


def test_several_replicas_are_a_clear_error() -> None:
    with pytest.raises(SingleDevice, match="between 4 devices"):
        _run("  ROOT ar = f32[4,2] all-reduce(x), replica_groups={{0,1,2,3}}, to_apply=add\n",
             "HloModule m, replica_count=4")
