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


def test_all_reduce_leaves_out_members_the_module_has_no_device_for() -> None:
    """As XLA:CPU runs XLA's import tests: a one-device module whose groups name 8."""
    out = _run("  ROOT ar = f32[4,2] all-reduce(x), replica_groups={{0,2,4,6},{1,3,5,7}}, "
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


def test_collective_reduce_of_one_device_returns_the_operand() -> None:
    out = _run("  ROOT cr = f32[4,2] collective-reduce(x), replica_groups={}, to_apply=add\n")
    np.testing.assert_array_equal(out, np.arange(8, dtype=np.float32).reshape(4, 2))


@pytest.mark.parametrize(("root", "dynamic"), [(0, False), (2, True)])
def test_collective_reduce_sums_onto_the_root(root: int, dynamic: bool) -> None:
    from hlotool.spmd.run import run_devices

    operands = "x, r" if dynamic else "x"
    module = parse_hlo(
        f"HloModule m, replica_count=3\n{_ADD}ENTRY main {{\n  x = f32[2] parameter(0)\n"
        f"  r = s32[1] parameter(1)\n  ROOT cr = f32[2] collective-reduce({operands}), "
        f"replica_groups={{{{0,1,2}}}}, has_dynamic_root={str(dynamic).lower()}, "
        "to_apply=add\n}\n")
    args = {(d, 0): [np.array([d, 10 * d], np.float32), np.array([root], np.int32)]
            for d in range(3)}
    out = run_devices(module, args)
    for d in range(3):
        want = np.array([3, 30], np.float32) if d == root else args[(d, 0)][0]
        np.testing.assert_array_equal(out[(d, 0)], want)
