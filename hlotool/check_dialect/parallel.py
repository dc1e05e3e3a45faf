"""`interpreter.run_parallel`: StableHLO's interpreter tests of collectives run several
programs at once, `programs = [[@replica0_partition0, ...], [@replica1_partition0, ...]]`,
each on its own device with its own slice of the operands; the results are every
program's results in order.

It lowers to a side-effecting custom call `interpreter.run_parallel` that calls the
programs (`called_computations`, row by row) with the grid in its backend config
(`replicas x partitions`); the handler runs each program on its own interpreter thread
with that device's replica and partition id, meeting the others at every collective
(hlotool.interpreter.devices), as `hlotool run` runs the devices of a module. With
`infeed = [@f, ...]`, the functions follow the programs in `called_computations`: each
stablehlo.infeed on any device takes the next one from a shared queue and feeds its
results (StableHLO's process grid); outfeed values are collected in arrival order.
"""

from __future__ import annotations

import functools
import threading
from collections import deque

from hlotool.interpreter.core import Evaluator, Value
from hlotool.interpreter.devices import DeviceContext, DeviceFailure, Feeds, Rendezvous
from hlotool.interpreter.kernels.custom_call import handler
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape
from hlotool.stablehlo.ast import ListAttr
from hlotool.stablehlo.attrs import get_symbol
from hlotool.stablehlo.lowering import CONVERTERS, OpCtx

RUN_PARALLEL = "interpreter.run_parallel"


def _convert(ctx: OpCtx) -> list[Instruction]:
    feeds = ctx.op.attrs.get("infeed") if ctx.has("infeed") else ListAttr([])
    if not isinstance(feeds, ListAttr):
        raise ctx.error("expects infeed = [@f, ...] (functions giving the fed values)")
    sources = [ctx.lw.function(ctx.lw.callee(get_symbol(s, "infeed", ctx.tok), ctx.tok),
                               None, None) for s in feeds.items]
    if any(c.num_parameters for c in sources):
        raise ctx.error("infeed functions take no arguments")
    rows = ctx.op.attrs.get("programs")
    if not isinstance(rows, ListAttr) or not all(isinstance(r, ListAttr) for r in rows.items):
        raise ctx.error("expects programs = [[@f, ...], ...] (one row per replica)")
    grid = [[get_symbol(s, "programs", ctx.tok) for s in row.items] for row in rows.items]
    if len({len(row) for row in grid}) != 1:
        raise ctx.error("every row of programs needs the same number of partitions")
    comps = [ctx.lw.function(ctx.lw.callee(name, ctx.tok), None, None)
             for row in grid for name in row]
    taken = sum(c.num_parameters for c in comps)
    if taken != len(ctx.operands):
        raise ctx.error(f"the programs take {taken} operands, but {len(ctx.operands)} are given")
    attrs = {"custom_call_target": RUN_PARALLEL, "custom_call_has_side_effect": True,
             "called_computations": (*comps, *sources)}
    shape = Shape.tuple_of(ctx.result_shapes())
    ins = ctx.emit(Opcode.CUSTOM_CALL, shape, ctx.operands, attrs,
                   backend_config=f"{len(grid)}x{len(grid[0])}+{len(sources)}")
    return ctx.gtes(ins)


CONVERTERS[RUN_PARALLEL] = _convert


@handler(RUN_PARALLEL)
def _run_parallel(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    grid = ins.backend_config.partition("+")[0]
    replicas, partitions = (int(n) for n in grid.split("x"))
    rendezvous = Rendezvous(replicas, partitions)
    called = ins.attrs["called_computations"]
    comps = called[:replicas * partitions]
    feeds = Feeds(deque(functools.partial(Evaluator(ev.module).call, c, [])
                        for c in called[replicas * partitions:]))
    results: list[Value] = [None] * len(comps)
    errors: list[BaseException] = []
    starts = [sum(c.num_parameters for c in comps[:k]) for k in range(len(comps))]

    def work(k: int) -> None:
        ctx = DeviceContext(k // partitions, k % partitions, replicas, partitions, rendezvous,
                            feeds)
        args = ops[starts[k]:starts[k] + comps[k].num_parameters]
        try:
            results[k] = Evaluator(ev.module, device=ctx).call(comps[k], args)
        except BaseException as exc:  # one device's failure stops the others
            errors.append(exc)
            rendezvous.fail(exc)

    threads = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(len(comps))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        real = [e for e in errors if not isinstance(e, DeviceFailure)]
        raise (real or errors)[0]
    out: list[Value] = []
    for r in results:
        out.extend(r if isinstance(r, tuple) else (r,))
    return tuple(out)
