"""Run a module for several devices in one process, on global arrays: each entry
parameter is cut into the piece its sharding gives each device, every device runs the
entry on the interpreter (collectives meet in a rendezvous), and the results are put
back together by the ROOT's sharding, as a JAX user sees them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.interpreter.devices import DeviceContext, DeviceFailure, Rendezvous
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.types import Shape
from hlotool.spmd.groups import Device
from hlotool.spmd.sharding import TileSharding, assemble, global_dims, parse_sharding, shard
from hlotool.values_io import parameter_array


@dataclass(frozen=True, slots=True)
class ShardedResult:
    """Global outputs, plus a line per output that could not be put together."""

    outputs: list[np.ndarray]
    notes: list[str]


def devices_of(module: Module) -> list[Device]:
    cfg = module.config
    return [(r, p) for r in range(cfg.replica_count) for p in range(cfg.num_partitions)]


def _leaf_shardings(ins: Instruction, shape: Shape) -> list[TileSharding]:
    leaves = _leaves(shape)
    if ins.sharding is None:
        return [TileSharding("replicated")] * len(leaves)
    tree = parse_sharding(ins.sharding.text).leaves
    if len(tree) == 1 and len(leaves) > 1:
        return list(tree) * len(leaves)
    if len(tree) != len(leaves):
        raise HloError(f"{ins.name}: sharding has {len(tree)} parts for {len(leaves)} values")
    return list(tree)


def _leaves(shape: Shape) -> list[Shape]:
    if shape.is_tuple:
        return [leaf for s in shape.tuple_shapes for leaf in _leaves(s)]
    return [shape]


def split_arguments(module: Module, arrays: dict[str, np.ndarray],
                    only: Device | None = None) -> dict[Device, list[Any]]:
    """Each device's entry arguments from `arg0, arg1, ...` given as global arrays (or
    as one device's piece, which every device then gets); `only`: that device's alone."""
    devices = [only] if only is not None else devices_of(module)
    per: dict[Device, list[Any]] = {d: [] for d in devices}
    k = 0
    for p in module.entry.parameters:
        leaves, shardings = _leaves(p.shape), _leaf_shardings(p, p.shape)
        values: dict[Device, list[Any]] = {d: [] for d in devices}
        for leaf, sh in zip(leaves, shardings, strict=True):
            key = f"arg{k}"
            k += 1
            if key not in arrays:
                raise HloError(f"inputs file has no {key} for parameter {p.name} ({leaf})")
            a = parameter_array(arrays[key], leaf.element_type.numpy_dtype)
            local = leaf.dimensions
            whole = global_dims(sh, local) if sh.kind == "tiled" else local
            if a.dtype != leaf.element_type.numpy_dtype:
                raise HloError(f"{key} has dtype {a.dtype}, but parameter {p.name} is {leaf}")
            if _fits(a.shape, sh, local):
                pieces = {d: shard(a, sh, d[1], local) for d in devices}
            elif tuple(a.shape) == local:
                pieces = {d: a for d in devices}
            else:
                raise HloError(f"{key} has shape {list(a.shape)}; parameter {p.name} takes "
                               f"{list(local)} per device, {list(whole)} as a global array")
            for d in devices:
                values[d].append(pieces[d])
        for d in devices:
            vs = values[d]
            per[d].append(tuple(vs) if p.shape.is_tuple else vs[0])
    extra = sorted(set(arrays) - {f"arg{i}" for i in range(k)})
    if extra:
        raise HloError(f"inputs file has entries the module does not take: {', '.join(extra)}")
    return per


def _fits(shape: tuple[int, ...], sh: TileSharding, local: tuple[int, ...]) -> bool:
    """A global shape whose uneven tiles pad to `local` (ceil division)."""
    tiles = sh.tile_dims(len(local))
    return len(shape) == len(local) and all(
        -(-g // t) == n for g, t, n in zip(shape, tiles, local, strict=True))


#: Makes the runner of one device (anything with `.run(args)` whose collectives use
#: the DeviceContext it is given): the interpreter by default, or a compiled executable.
RunnerFactory = Callable[[DeviceContext], Any]


def interpreter_runner(module: Module) -> RunnerFactory:
    from hlotool.interpreter.core import Evaluator

    return lambda ctx: Evaluator(module, device=ctx)


def run_devices(module: Module, per_device_args: dict[Device, list[Any]],
                make_runner: RunnerFactory | None = None) -> dict[Device, Any]:
    """Run the entry on every device, one thread each; device -> its result."""
    make = make_runner or interpreter_runner(module)
    cfg = module.config
    rendezvous = Rendezvous(cfg.replica_count, cfg.num_partitions)
    results: dict[Device, Any] = {}
    errors: dict[Device, BaseException] = {}

    def work(device: Device) -> None:
        ctx = DeviceContext(device[0], device[1], cfg.replica_count, cfg.num_partitions,
                            rendezvous)
        try:
            results[device] = make(ctx).run(per_device_args[device])
        except BaseException as exc:  # one device's failure stops the others
            errors[device] = exc
            rendezvous.fail(exc)

    threads = [threading.Thread(target=work, args=(d,), daemon=True, name=f"device{d}")
               for d in per_device_args]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.1)
    if errors:
        real = [e for e in errors.values() if not isinstance(e, DeviceFailure)]
        raise (real or list(errors.values()))[0]
    return results


def run_sharded(module: Module, arrays: dict[str, np.ndarray],
                make_runner: RunnerFactory | None = None) -> ShardedResult:
    """Global outputs of the entry run on every device of the module."""
    return assemble_outputs(module, run_devices(module, split_arguments(module, arrays),
                                                make_runner))


def assemble_outputs(module: Module, results: dict[Device, Any]) -> ShardedResult:
    """Global outputs from every device's result of the entry."""
    from hlotool.interpreter.core import flatten

    root = module.entry.root
    assert root is not None
    leaves = _leaves(root.shape)
    shardings = _leaf_shardings(root, root.shape) if root.sharding is not None else None
    per_leaf = {d: [np.asarray(v) for v in flatten(r)] for d, r in results.items()}
    outputs, notes = [], []
    for i, leaf in enumerate(leaves):
        pieces = {d[1]: vals[i] for d, vals in per_leaf.items() if d[0] == 0}
        if shardings is not None:
            sh = shardings[i]
            whole = global_dims(sh, leaf.dimensions) if sh.kind == "tiled" else leaf.dimensions
            outputs.append(assemble(pieces, sh, whole))
            continue
        values = [per_leaf[d][i] for d in sorted(per_leaf)]
        if all(np.array_equal(values[0], v, equal_nan=values[0].dtype.kind in "fc")
               for v in values[1:]):
            outputs.append(values[0])
        else:
            outputs.append(np.stack(values))
            notes.append(f"out{i} differs between devices and the ROOT names no sharding: "
                         f"written per device as [{len(values)}, ...]")
    return ShardedResult(outputs, notes)


def random_global_arguments(module: Module, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded global inputs (`arg0, ...`) for a sharded entry: each parameter leaf at its
    global shape, drawn like hlotool's single-device random inputs."""
    from hlotool import values_io
    from hlotool.ir.types import Shape as S

    out: dict[str, np.ndarray] = {}
    rng = np.random.default_rng(seed)
    for p in module.entry.parameters:
        for leaf, sh in zip(_leaves(p.shape), _leaf_shardings(p, p.shape), strict=True):
            whole = global_dims(sh, leaf.dimensions) if sh.kind == "tiled" else leaf.dimensions
            out[f"arg{len(out)}"] = values_io.random_value(S.array(leaf.element_type, whole), rng)
    return out
