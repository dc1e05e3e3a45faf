"""SPMD partitioning: from a module whose parameters carry sharding annotations (a
`jax.jit` with sharded inputs, before XLA's passes) to one per-device program for N
partitions, with the collectives that exchange data (XLA's ShardingPropagation and
SpmdPartitioner, for the ops below).

Shardings flow forward from the parameters, each instruction's placement (tiles per
dim and every device's tile, `hlotool.spmd.placement`) derived from its operands':
- elementwise ops take their first tiled operand's placement; the others are resharded
  to it; broadcasts and transposes carry tiles along with their dims;
- a dot whose operands agree on every device's batch and contracting tiles computes
  its block locally; partial sums over a split contraction are all-reduced over the
  devices that hold the same output tile;
- a reduce with an identity init reduces its block locally and all-reduces over the
  devices that split the reduced dims;
- anything else runs on whole (replicated) operands.
Resharding gathers tiled dims (all-gather over the devices along each dim) and cuts
replicated values with a dynamic-slice at offsets looked up by partition-id. Shapes
that do not split evenly stay replicated. The ROOT records its sharding, so running
the result on global arrays gives global outputs.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.ir.attributes import ReplicaGroups, Sharding, SliceRange
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.literal import Literal
from hlotool.ir.module import Module
from hlotool.ir.opcodes import ELEMENTWISE, Opcode
from hlotool.ir.structure import clone_instruction
from hlotool.ir.types import PrimitiveType, Shape
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    Builder,
    NameTable,
    binary_reducer_opcode,
    remove_unreferenced,
    scalar_computation,
)
from hlotool.spmd import rules
from hlotool.spmd.placement import Placement
from hlotool.spmd.sharding import parse_sharding

O = Opcode

#: Reducers whose init value can be dropped from the partial reductions when it is the
#: operation's identity, so that the all-reduce of partial results equals the whole.
_IDENTITIES: dict[Opcode, Any] = {O.ADD: 0, O.MAXIMUM: -np.inf, O.MINIMUM: np.inf,
                                  O.MULTIPLY: 1, O.AND: True, O.OR: False}


#: Custom-calls that only say where their operand should live.
_CONSTRAINTS = frozenset({"Sharding", "xla.sdy.FuncResultSharding"})

#: The custom-calls JAX's shard_map leaves before XLA's passes (Shardy export).
_SHARD_MAP = frozenset({"xla.sdy.GlobalToLocalShape", "xla.sdy.LocalToGlobalShape"})


def module_meshes(module: Module) -> dict[str, Any]:
    """The Shardy meshes in the module's `xla.sdy.meshes` attribute."""
    from hlotool.spmd.shardy import parse_meshes

    return parse_meshes(module.config.frontend_attributes.get("xla.sdy.meshes", ""))


def device_count(module: Module) -> int:
    """Partitions the module's shardings name: its Shardy meshes' sizes and the tile
    assignments of its entry parameters and sharding constraints (1 when nothing is
    sharded)."""
    count = max((m.size for m in module_meshes(module).values()), default=1)
    constraints = [i for c in module.computations for i in c.instructions
                   if i.opcode is O.CUSTOM_CALL
                   and i.attrs.get("custom_call_target") in _CONSTRAINTS]
    for p in [*module.entry.parameters, *constraints]:
        if p.sharding is not None:
            for leaf in parse_sharding(p.sharding.text).leaves:
                if leaf.kind == "tiled" and leaf.tiles is not None:
                    count = max(count, int(leaf.tiles.max()) + 1)
    return count


@dataclass(frozen=True)
class SpmdPartitionerPass(Pass):
    """Partition the entry computation for the devices its parameter shardings name."""

    name = "spmd-partitioner"
    summary = "one per-device program from sharding annotations, collectives inserted"
    xla = "ShardingPropagation + SpmdPartitioner"

    def run(self, module: Module) -> bool:
        cfg = module.config
        devices = device_count(module)
        if devices == 1 or cfg.replica_count * cfg.num_partitions != 1:
            return False
        _Partitioner(module, devices).run()
        cfg.num_partitions = devices
        return True


@dataclass
class _Value:
    """An instruction of the new entry and where its pieces live: `placement` for an
    array, `leaves` (one _Value per element) for a tuple; `manual` for the values of a
    shard_map body, which are each device's own and take no resharding."""

    ins: Instruction
    placement: Placement | None  # None: a token or tuple, or a manual value
    leaves: tuple[_Value, ...] = ()
    manual: bool = False


class _Partitioner:
    def __init__(self, module: Module, devices: int) -> None:
        self.module = module
        self.devices = devices
        self.names = NameTable(module)
        self.old = module.entry
        self.entry = module.entry
        self.new = Computation(self.old.name, execution_thread=self.old.execution_thread)
        self.b = Builder(self.new, self.names)
        self.values: dict[int, _Value] = {}
        self.channel = 1 + max((i.attrs.get("channel_id") or 0 for c in module.computations
                                for i in c.instructions), default=0)
        self._offsets: dict[tuple[int, int, int], Instruction] = {}
        self._partition_id: Instruction | None = None
        self.meshes = module_meshes(module)
        #: Placements users want (backward propagation from sharding constraints).
        self.hints: dict[int, Placement] = {}

    def run(self) -> None:
        # The new entry takes the old one's names (the old one is dropped).
        self.names.taken.difference_update(i.name for i in self.old.instructions)
        self.old.name = self.names.fresh(self.old.name)
        self._propagate_back(self.old)
        for ins in self.old.post_order():
            self.b.metadata = ins.metadata
            self.values[id(ins)] = self.partition(ins)
        root = self.old.root
        assert root is not None
        result = self.values[id(root)]
        self.new.root = result.ins
        text = self._root_sharding(root, result)
        result.ins.sharding = Sharding(text) if text else None
        self.new.is_entry = True
        self.module.add_computation(self.new, before=self.old)
        self.module.remove_computation(self.old)
        self.module.entry_computation_layout = None
        remove_unreferenced(self.module, list(self.module.computations))

    def _propagate_back(self, comp: Computation) -> None:
        """Backward propagation: a sharding constraint's placement is wanted of its
        operand, and carried on through same-shape elementwise operands and through dots
        to their operands' batch and free dims (parameters keep their own)."""
        for ins in reversed(comp.post_order()):
            if ins.opcode is not O.PARAMETER and ins.sharding is not None:
                if ins.shape.is_array:
                    self.hints[id(ins)] = self._placement_of(ins)
                elif ins.opcode is O.TUPLE:
                    self._hint_elements(ins)
            constraint = self._constraint(ins)
            if constraint is not None:
                self.hints[id(ins)] = constraint
            want = self.hints.get(id(ins))
            if want is None or want.is_replicated:
                continue
            if ins.opcode is O.CUSTOM_CALL and ins.attrs.get("custom_call_target") in _CONSTRAINTS:
                wanted = [(ins.operand(0), want)]
            elif ins.opcode is O.GET_TUPLE_ELEMENT and ins.operand(0).opcode is O.TUPLE:
                wanted = [(ins.operand(0).operand(ins.attrs["index"]), want)]
            elif ins.opcode in ELEMENTWISE:
                wanted = [(o, want) for o in ins.operands
                          if o.shape.is_array and o.shape.dimensions == ins.shape.dimensions]
            elif ins.opcode is O.DOT:
                wanted = list(zip(ins.operands, rules.dot_operands(ins, want), strict=True))
            else:
                continue
            for operand, placement in wanted:
                if operand.opcode is not O.PARAMETER and not placement.is_replicated:
                    self.hints.setdefault(id(operand), placement)

    def _hint_elements(self, tup: Instruction) -> None:
        """A tuple's sharding (one part per element) wanted of its array operands."""
        assert tup.sharding is not None
        parts = parse_sharding(tup.sharding.text).leaves
        if len(parts) != tup.operand_count:
            return
        for operand, part in zip(tup.operands, parts, strict=True):
            if operand.shape.is_array and operand.opcode is not O.PARAMETER:
                placement = Placement.of(part, operand.shape.rank, self.devices)
                if placement is not None and not placement.is_replicated:
                    self.hints.setdefault(id(operand), placement)

    def _hint(self, ins: Instruction) -> Placement | None:
        """The placement users want of `ins`, when it splits it evenly."""
        hint = self.hints.get(id(ins))
        if hint is None or not hint.is_valid() or hint.local(ins.shape.dimensions) is None:
            return None
        return hint

    # -- per instruction ------------------------------------------------------------------
    def partition(self, ins: Instruction) -> _Value:
        if ins.opcode is O.PARAMETER:
            return self._parameter(ins)
        if not ins.operands:
            return self._whole(ins, [])
        if ins.opcode is O.CUSTOM_CALL and ins.attrs.get("custom_call_target") in _SHARD_MAP:
            return self._shard_map_edge(ins)
        if any(self.values[id(o)].manual for o in ins.operands):
            return self._as_is(ins)
        if ins.opcode is O.GET_TUPLE_ELEMENT:
            value = self.values[id(ins.operand(0))]
            if value.leaves:
                return value.leaves[ins.attrs["index"]]
        if ins.opcode in ELEMENTWISE and ins.shape.is_array:
            return self._elementwise(ins)
        if ins.opcode is O.CALL:
            return self._call(ins)
        rule = {O.BROADCAST: self._broadcast, O.TRANSPOSE: self._transpose, O.DOT: self._dot,
                O.REDUCE: self._reduce, O.TUPLE: self._tuple, O.RESHAPE: self._reshape,
                O.CONVOLUTION: self._convolution, O.DYNAMIC_SLICE: self._dynamic_slice,
                O.DYNAMIC_UPDATE_SLICE: self._dynamic_update_slice, O.GATHER: self._gather,
                O.SCATTER: self._scatter, O.WHILE: self._while,
                O.CONDITIONAL: self._conditional,
                O.CUSTOM_CALL: self._sharding_constraint}.get(ins.opcode)
        out = rule(ins) if rule is not None else None
        if out is not None:
            return out
        return self._whole(ins, [self.replicated(o) for o in ins.operands])

    def _parameter(self, ins: Instruction) -> _Value:
        if not ins.shape.is_array:
            return self._place(clone_instruction(ins, []), None)
        placement = self._placement_of(ins)
        local = placement.local(ins.shape.dimensions)
        if local is None:
            raise HloError(f"parameter {ins.name} {ins.shape}: its sharding does not split "
                           f"it evenly over {self.devices} devices")
        copy = clone_instruction(ins, [])
        copy.shape = _with_dims(ins.shape, local)
        return self._place(copy, placement)

    def _placement_of(self, ins: Instruction) -> Placement:
        rank = ins.shape.rank
        if ins.sharding is None:
            return Placement.replicated(rank, self.devices)
        (leaf,) = parse_sharding(ins.sharding.text).leaves[:1]
        placement = Placement.of(leaf, rank, self.devices)
        return placement if placement is not None else Placement.replicated(rank, self.devices)

    def _elementwise(self, ins: Instruction) -> _Value:
        dims = ins.shape.dimensions
        target = next((p for o in ins.operands
                       if o.shape.is_array and o.shape.dimensions == dims
                       and (p := self.values[id(o)].placement) is not None
                       and not p.is_replicated), None)
        if target is None:
            target = self._hint(ins)
        if target is None or target.local(dims) is None:
            return self._whole(ins, [self.replicated(o) for o in ins.operands])
        operands = [self.reshard(o, target) if o.shape.dimensions == dims else self.replicated(o)
                    for o in ins.operands]
        return self._local(ins, operands, target)

    def _broadcast(self, ins: Instruction) -> _Value | None:
        src = self.values[id(ins.operand(0))].placement
        if src is None:
            return None
        mapped = list(ins.attrs["dimensions"])
        rank = ins.shape.rank
        tiles = tuple(src.tiles[mapped.index(d)] if d in mapped else 1 for d in range(rank))
        coords = tuple(tuple(c[mapped.index(d)] if d in mapped else 0 for d in range(rank))
                       for c in src.coords)
        return self._local(ins, [self.values[id(ins.operand(0))].ins], Placement(tiles, coords))

    def _transpose(self, ins: Instruction) -> _Value | None:
        src = self.values[id(ins.operand(0))].placement
        if src is None:
            return None
        perm = ins.attrs["dimensions"]
        placement = Placement(tuple(src.tiles[p] for p in perm),
                              tuple(tuple(c[p] for p in perm) for c in src.coords))
        return self._local(ins, [self.values[id(ins.operand(0))].ins], placement)

    def _dot(self, ins: Instruction) -> _Value | None:
        lhs, rhs = (self.values[id(o)].placement for o in ins.operands)
        if lhs is None or rhs is None:
            return None
        operands = [self.values[id(o)].ins for o in ins.operands]
        hint = self._hint(ins)
        if hint is not None and lhs.is_replicated and rhs.is_replicated:
            lhs, rhs = rules.dot_operands(ins, hint)
            operands = [self.reshard(o, p) for o, p in zip(ins.operands, (lhs, rhs),
                                                            strict=True)]
        a = ins.attrs
        lb, lk = list(a.get("lhs_batch_dims", ())), list(a.get("lhs_contracting_dims", ()))
        rb, rk = list(a.get("rhs_batch_dims", ())), list(a.get("rhs_contracting_dims", ()))
        lfree = [d for d in range(ins.operand(0).shape.rank) if d not in lb + lk]
        rfree = [d for d in range(ins.operand(1).shape.rank) if d not in rb + rk]
        pairs = list(zip(lb, rb, strict=True)) + list(zip(lk, rk, strict=True))
        if any(lhs.tiles[i] != rhs.tiles[j] for i, j in pairs) or any(
                lc[i] != rc[j] for lc, rc in zip(lhs.coords, rhs.coords, strict=True)
                for i, j in pairs):
            return None
        tiles = tuple([lhs.tiles[d] for d in lb + lfree] + [rhs.tiles[d] for d in rfree])
        coords = tuple(tuple([lc[d] for d in lb + lfree] + [rc[d] for d in rfree])
                       for lc, rc in zip(lhs.coords, rhs.coords, strict=True))
        split = tuple(tuple(lc[d] for d in lk) for lc in lhs.coords)
        out = self._local(ins, operands, Placement(tiles, coords))
        if out is None or math.prod(lhs.tiles[d] for d in lk) == 1:
            return out
        add = scalar_computation(self.module, self.names, O.ADD, ins.shape.element_type,
                                 self.old)
        return self._all_reduce(out, split, add)

    def _reduce(self, ins: Instruction) -> _Value | None:
        if ins.operand_count != 2 or not ins.shape.is_array:
            return None
        src = self.values[id(ins.operand(0))].placement
        if src is None or self.values[id(ins.operand(1))].placement is None:
            return None
        reduced = list(ins.attrs["dimensions"])
        kept = [d for d in range(ins.operand(0).shape.rank) if d not in reduced]
        placement = Placement(tuple(src.tiles[d] for d in kept),
                              tuple(tuple(c[d] for d in kept) for c in src.coords))
        if all(src.tiles[d] == 1 for d in reduced):
            return self._local(ins, [self.values[id(o)].ins for o in ins.operands], placement)
        reducer = ins.attrs["to_apply"]
        op = binary_reducer_opcode(reducer)
        if op not in _IDENTITIES or not _is_value(ins.operand(1), _IDENTITIES[op]):
            return None
        out = self._local(ins, [self.values[id(o)].ins for o in ins.operands], placement)
        if out is None:
            return None
        split = tuple(tuple(c[d] for d in reduced) for c in src.coords)
        return self._all_reduce(out, split, reducer)

    def _reshape(self, ins: Instruction) -> _Value | None:
        src = self.values[id(ins.operand(0))]
        if src.placement is None or not ins.shape.is_array:
            return None
        placement = rules.reshape(src.placement, ins.operand(0).shape.dimensions,
                                  ins.shape.dimensions)
        return None if placement is None else self._local(ins, [src.ins], placement)

    def _convolution(self, ins: Instruction) -> _Value | None:
        lhs, rhs = (self.values[id(o)] for o in ins.operands[:2])
        if lhs.placement is None or rhs.placement is None or ins.operand_count != 2:
            return None
        plan = rules.convolution(ins, lhs.placement, rhs.placement)
        if plan is None:
            return self._convolution_halo(ins, lhs, rhs)
        out = self._local(ins, [lhs.ins, rhs.ins], plan.placement)
        if out is None or not plan.partial:
            return out
        add = scalar_computation(self.module, self.names, O.ADD, ins.shape.element_type,
                                 self.old)
        return self._all_reduce(out, plan.split, add)

    def _convolution_halo(self, ins: Instruction, lhs: _Value, rhs: _Value) -> _Value | None:
        """A stride-1 "same" convolution split along one spatial dim: each device takes
        the rows its window needs from its neighbours (collective-permutes of the edge
        rows; the first and last devices get zeros, which are the padding) and convolves
        its piece with that padding removed."""
        assert lhs.placement is not None and rhs.placement is not None
        plan = rules.halo(ins, lhs.placement, rhs.placement,
                          ins.operand(0).shape.dimensions)
        if plan is None:
            return None
        x, dim = lhs.ins, plan.input_dim
        n = x.shape.dimensions[dim]
        groups = lhs.placement.gather_groups(dim)
        parts = []
        if plan.low:
            edge = self._rows(x, dim, n - plan.low, n)
            pairs = tuple((g[k], g[k + 1]) for g in groups for k in range(len(g) - 1))
            parts.append(self._permute(edge, pairs))
        parts.append(x)
        if plan.high:
            edge = self._rows(x, dim, 0, plan.high)
            pairs = tuple((g[k + 1], g[k]) for g in groups for k in range(len(g) - 1))
            parts.append(self._permute(edge, pairs))
        dims = list(x.shape.dimensions)
        dims[dim] = n + plan.low + plan.high
        padded = self.b.add(O.CONCATENATE, parts, {"dimensions": (dim,)},
                            shape=_with_dims(x.shape, tuple(dims)))
        return self._local(ins, [padded, rhs.ins], plan.placement, window=plan.window)

    def _rows(self, x: Instruction, dim: int, start: int, limit: int) -> Instruction:
        ranges = tuple(SliceRange(start, limit) if d == dim else SliceRange(0, n)
                       for d, n in enumerate(x.shape.dimensions))
        dims = tuple(limit - start if d == dim else n for d, n in enumerate(x.shape.dimensions))
        return self.b.add(O.SLICE, [x], {"slice": ranges}, shape=_with_dims(x.shape, dims))

    def _permute(self, x: Instruction, pairs: tuple[tuple[int, int], ...]) -> Instruction:
        return self.b.add(O.COLLECTIVE_PERMUTE, [x], {"channel_id": self._next_channel(),
                                                      "source_target_pairs": pairs},
                          shape=x.shape)

    def _dynamic_slice(self, ins: Instruction) -> _Value | None:
        src = self.values[id(ins.operand(0))]
        if src.placement is None or src.placement.is_replicated:
            return None
        sizes = tuple(ins.attrs["dynamic_slice_sizes"])
        placement = rules.dynamic_slice(src.placement, ins.operand(0).shape.dimensions, sizes)
        local = placement.local(sizes) if placement is not None else None
        if placement is None or local is None:
            return None
        starts = [self.replicated(o) for o in ins.operands[1:]]
        return self._local(ins, [src.ins, *starts], placement, dynamic_slice_sizes=local)

    def _dynamic_update_slice(self, ins: Instruction) -> _Value | None:
        src = self.values[id(ins.operand(0))]
        if src.placement is None or src.placement.is_replicated:
            return None
        dims = ins.operand(0).shape.dimensions
        update = ins.operand(1).shape.dimensions
        if any(t > 1 and u != n for t, u, n in zip(src.placement.tiles, update, dims,
                                                   strict=True)):
            return None
        if src.placement.local(update) is None:
            return None
        operands = [src.ins, self.reshard(ins.operand(1), src.placement),
                    *(self.replicated(o) for o in ins.operands[2:])]
        return self._local(ins, operands, src.placement)

    def _gather(self, ins: Instruction) -> _Value | None:
        operand, indices = (self.values[id(o)] for o in ins.operands)
        if operand.placement is None or indices.placement is None:
            return None
        plan = rules.gather(ins, operand.placement, indices.placement)
        if plan is None or (plan.placement.is_replicated and not plan.masked):
            return None
        local_operand = operand.placement.local(ins.operand(0).shape.dimensions)
        assert local_operand is not None
        sizes = tuple(n if t > 1 and d not in plan.masked else s for d, (s, n, t) in
                      enumerate(zip(ins.attrs["slice_sizes"], local_operand,
                                    operand.placement.tiles, strict=True)))
        index_ins = indices.ins
        mask = None
        if plan.masked:
            if not ins.operand(1).shape.element_type.is_signed_int:
                return None
            index_ins, mask = self._rebase_indices(ins, operand.placement, indices.ins,
                                                   plan.masked, local_operand)
        out = self._local(ins, [operand.ins, index_ins], plan.placement, slice_sizes=sizes)
        if out is None or not plan.masked:
            return out
        assert mask is not None
        batch = [d for d in range(ins.shape.rank) if d not in ins.attrs["offset_dims"]]
        shape = out.ins.shape
        keep = self.b.add(O.BROADCAST, [mask], {"dimensions": tuple(batch)},
                          shape=Shape.array(PrimitiveType.PRED, shape.dimensions))
        zeros = self.b.splat(0, Shape.array(shape.element_type, shape.dimensions))
        picked = self.b.add(O.SELECT, [keep, out.ins, zeros], shape=shape)
        add = scalar_computation(self.module, self.names, O.ADD, shape.element_type, self.old)
        return self._all_reduce(_Value(picked, out.placement), plan.split, add)

    def _rebase_indices(self, ins: Instruction, placement: Placement, indices: Instruction,
                        masked: tuple[int, ...], local: tuple[int, ...]
                        ) -> tuple[Instruction, Instruction]:
        """Indices into this device's tile of the masked operand dims (clamped globally
        first, as the gather would), and where they fall inside it."""
        a = ins.attrs
        index_map = list(a["start_index_map"])
        dims = ins.operand(0).shape.dimensions
        ivd = a["index_vector_dim"]
        shape = indices.shape
        t = shape.element_type
        vector = ivd < shape.rank

        def spread(values: list[int] | tuple[int, ...] | Instruction) -> Instruction:
            x = values if isinstance(values, Instruction) else self.b.constant(
                Literal.from_array(np.array(values, t.numpy_dtype), t))
            if not vector:
                return self.b.broadcast(self.b.reshape(x, []), shape, ())
            return self.b.broadcast(x, shape, (ivd,))

        high = [dims[d] - a["slice_sizes"][d] for d in index_map]
        clamped = self.b.add(O.CLAMP, [spread([0] * len(index_map)), indices, spread(high)],
                             shape=shape)
        table = np.array([[c[d] * local[d] if d in masked else 0 for d in index_map]
                          for c in placement.coords], t.numpy_dtype)
        rows = self.b.constant(Literal.from_array(table, t))
        row = self.b.add(O.DYNAMIC_SLICE, [rows, self.b.convert(self._pid(), t),
                                           self.b.scalar(0, t)],
                         {"dynamic_slice_sizes": (1, len(index_map))},
                         shape=Shape.array(t, (1, len(index_map))))
        offsets = spread(self.b.reshape(row, [len(index_map)]))
        rebased = self.b.add(O.SUBTRACT, [clamped, offsets], shape=shape)
        limit = [local[d] if d in masked else dims[d] + 1 for d in index_map]
        pred = shape.with_element_type(PrimitiveType.PRED)
        inside = self.b.add(O.AND, [
            self.b.add(O.COMPARE, [rebased, spread([0] * len(index_map))],
                       {"direction": "GE"}, shape=pred),
            self.b.add(O.COMPARE, [rebased, spread(limit)], {"direction": "LT"}, shape=pred)],
            shape=pred)
        if vector:
            every = scalar_computation(self.module, self.names, O.AND, PrimitiveType.PRED,
                                       self.old)
            kept = tuple(d for d in range(shape.rank) if d != ivd)
            inside = self.b.add(O.REDUCE, [inside, self.b.scalar(True, PrimitiveType.PRED)],
                                {"dimensions": (ivd,), "to_apply": every},
                                shape=Shape.array(PrimitiveType.PRED,
                                                  tuple(shape.dimensions[d] for d in kept)))
        return rebased, inside

    def _scatter(self, ins: Instruction) -> _Value | None:
        operand = self.values[id(ins.operand(0))]
        if operand.placement is None or ins.operand_count != 3:
            return None
        if operand.placement.is_replicated:
            return self._scatter_add_by_indices(ins)
        target = rules.scatter(ins, operand.placement)
        if target is None or target.local(ins.operand(2).shape.dimensions) is None:
            return None
        operands = [operand.ins, self.replicated(ins.operand(1)),
                    self.reshard(ins.operand(2), target)]
        return self._local(ins, operands, operand.placement)

    def _scatter_add_by_indices(self, ins: Instruction) -> _Value | None:
        """An add-scatter whose indices are split along their batch dims: each device
        scatters its updates into zeros, an all-reduce sums the devices' parts, and the
        operand is added (index-parallel)."""
        indices = self.values[id(ins.operand(1))]
        if indices.placement is None or indices.placement.is_replicated:
            return None
        if binary_reducer_opcode(ins.attrs["to_apply"]) is not O.ADD:
            return None
        target = rules.scatter_updates_by_indices(ins, indices.placement)
        if target is None or target.local(ins.operand(2).shape.dimensions) is None:
            return None
        shape = ins.shape
        zeros = self.b.splat(0, shape)
        part = clone_instruction(ins, [zeros, indices.ins, self.reshard(ins.operand(2), target)])
        part.name = self.names.fresh(ins.name)
        part.sharding = None
        self.b.place(part)
        whole = Placement.replicated(shape.rank, self.devices)
        split = tuple(tuple(c) for c in indices.placement.coords)
        summed = self._all_reduce(_Value(part, whole), split, ins.attrs["to_apply"])
        if summed is None:
            return None
        out = self.b.add(O.ADD, [self.values[id(ins.operand(0))].ins, summed.ins], shape=shape)
        return _Value(out, whole)

    def _constraint(self, ins: Instruction) -> Placement | None:
        """The placement a sharding constraint names: `custom-call "Sharding"` (jax's
        with_sharding_constraint) by its sharding, `xla.sdy.FuncResultSharding` (a jit's
        out_shardings, Shardy export) by its `xla.sdy.sharding`."""
        target = ins.attrs.get("custom_call_target") if ins.opcode is O.CUSTOM_CALL else None
        if target not in _CONSTRAINTS or ins.operand_count != 1 or not ins.shape.is_array:
            return None
        if target == "Sharding":
            return self._placement_of(ins) if ins.sharding is not None else None
        from hlotool.spmd.shardy import parse_sharding_per_value

        text = ins.frontend_attributes.get("xla.sdy.sharding", "")
        if not text:
            return None
        (placement,) = parse_sharding_per_value(text, self.meshes, [ins.shape.rank])
        return placement

    def _sharding_constraint(self, ins: Instruction) -> _Value | None:
        """A sharding constraint: its operand resharded to the placement it names."""
        target = self._constraint(ins)
        if target is None or self.values[id(ins.operand(0))].placement is None:
            return None
        if target.local(ins.shape.dimensions) is None:
            return None
        return _Value(self.reshard(ins.operand(0), target), target)

    # -- control flow: bodies partitioned with their operands' placements ----------------
    def _call(self, ins: Instruction) -> _Value:
        """A call is partitioned inline: its callee's instructions on the operands' pieces."""
        callee = ins.attrs["to_apply"]
        for p in callee.parameters:
            self.values[id(p)] = self.values[id(ins.operand(p.parameter_number))]
        for inner in callee.post_order():
            if inner.opcode is not O.PARAMETER:
                self.b.metadata = inner.metadata
                self.values[id(inner)] = self.partition(inner)
        assert callee.root is not None
        return self.values[id(callee.root)]

    def _while(self, ins: Instruction) -> _Value | None:
        """The loop state keeps the init's placements, a replicated element taking the
        body's placement when the body makes it tiled (so the body need not gather it)."""
        init = self.values[id(ins.operand(0))]
        specs = _flat_specs(init, ins.shape)
        if specs is None:
            return None
        body, cond = ins.attrs["body"], ins.attrs["condition"]
        for attempt in range(len(specs) + 1):
            new_body, raw = self._partition_in(body, [specs], specs)
            better = _adopt(specs, _flat_specs(raw, ins.shape))
            if better == specs or attempt == len(specs):
                break
            self.module.remove_computation(new_body)
            specs = better
        new_cond, _ = self._partition_in(cond, [specs], Placement.replicated(0, self.devices))
        state = self._tuple_of([_Value(self._reshard_value(leaf, spec), spec)
                                if spec is not None else leaf
                                for leaf, spec in zip(init.leaves, specs, strict=True)])
        loop = clone_instruction(ins, [state.ins])
        loop.name = self.names.fresh(ins.name)
        loop.sharding = None
        loop.attrs["body"], loop.attrs["condition"] = new_body, new_cond
        loop.shape = state.ins.shape
        self.b.place(loop)
        return self._leaves_of(loop, specs)

    def _conditional(self, ins: Instruction) -> _Value | None:
        """Every branch on its operand's pieces; the results placed as branch 0 places
        them (the other branches reshard theirs)."""
        key = "branch_computations" if ins.attrs.get("branch_computations") else None
        branches = list(ins.attrs[key]) if key else [ins.attrs["true_computation"],
                                                     ins.attrs["false_computation"]]
        args = [self.values[id(o)] for o in ins.operands[1:]]
        arg_specs = [_flat_specs(v, o.shape) if o.shape.is_tuple else v.placement
                     for v, o in zip(args, ins.operands[1:], strict=True)]
        if any(s is None for s, o in zip(arg_specs, ins.operands[1:], strict=True)
               if o.shape.is_array or o.shape.is_tuple):
            return None
        first, raw = self._partition_in(branches[0], arg_specs[:1], None)
        out_spec = (_flat_specs(raw, ins.shape) if ins.shape.is_tuple
                    else raw.placement)
        if out_spec is None:
            self.module.remove_computation(first)
            return None
        new = [first] + [self._partition_in(b, [spec], out_spec)[0]
                         for b, spec in zip(branches[1:], arg_specs[1:], strict=True)]
        operands = [self.replicated(ins.operand(0)), *(v.ins for v in args)]
        copy = clone_instruction(ins, operands)
        copy.name = self.names.fresh(ins.name)
        copy.sharding = None
        if key:
            copy.attrs[key] = tuple(new)
        else:
            copy.attrs["true_computation"], copy.attrs["false_computation"] = new
        root = first.root
        assert root is not None
        copy.shape = root.shape
        self.b.place(copy)
        if ins.shape.is_tuple:
            return self._leaves_of(copy, out_spec)  # type: ignore[arg-type]
        return _Value(copy, out_spec)  # type: ignore[arg-type]

    def _leaves_of(self, tup: Instruction, specs: list[Placement | None]) -> _Value:
        leaves = tuple(_Value(self.b.gte(tup, i), spec) for i, spec in enumerate(specs))
        return _Value(tup, None, leaves)

    def _partition_in(self, comp: Computation, specs: list[Any],
                      root_spec: Any) -> tuple[Computation, _Value]:
        """A new computation: `comp` on pieces placed as `specs` say (a placement per
        array parameter, a list of them per flat tuple one), its root resharded to
        `root_spec` when given. Returns it (added to the module) and the root's value
        before that resharding."""
        saved = (self.new, self.b, self.old, self._offsets, self._partition_id)
        new = Computation(self.names.fresh(comp.name), execution_thread=comp.execution_thread)
        self.new, self.b, self.old = new, Builder(new, self.names), comp
        self._offsets, self._partition_id = {}, None
        try:
            self._propagate_back(comp)
            for p in comp.parameters:
                self.values[id(p)] = self._parameter_as(p, specs[p.parameter_number])
            for ins in comp.post_order():
                if ins.opcode is not O.PARAMETER:
                    self.b.metadata = ins.metadata
                    self.values[id(ins)] = self.partition(ins)
            assert comp.root is not None
            raw = self.values[id(comp.root)]
            new.root = self._root_as(raw, root_spec) if root_spec is not None else \
                self._value_ins(raw)
        finally:
            self.new, self.b, self.old, self._offsets, self._partition_id = saved
        self.module.add_computation(new, before=self.entry)
        return new, raw

    def _parameter_as(self, p: Instruction, spec: Any) -> _Value:
        copy = clone_instruction(p, [])
        copy.name = self.names.fresh(p.name)
        copy.sharding = None
        if isinstance(spec, list):
            parts = [s if s is None else _with_dims(leaf, s.local(leaf.dimensions) or ())
                     for s, leaf in zip(spec, p.shape.tuple_shapes, strict=True)]
            copy.shape = Shape.tuple_of([leaf if s is None else s for s, leaf in
                                         zip(parts, p.shape.tuple_shapes, strict=True)])
            self.b.place(copy)
            return self._leaves_of(copy, spec)
        if spec is not None and p.shape.is_array:
            local = spec.local(p.shape.dimensions)
            assert local is not None
            copy.shape = _with_dims(p.shape, local)
        return self._place(copy, spec)

    def _root_as(self, value: _Value, spec: Any) -> Instruction:
        if isinstance(spec, list):
            parts = [_Value(self._reshard_value(leaf, s), s) if s is not None else leaf
                     for leaf, s in zip(value.leaves, spec, strict=True)]
            return self._tuple_of(parts).ins
        return self._reshard_value(value, spec)

    def _value_ins(self, value: _Value) -> Instruction:
        """A value as one instruction (a tuple of its leaves when it has them)."""
        if value.leaves:
            return self._tuple_of(list(value.leaves)).ins
        return value.ins

    def _tuple(self, ins: Instruction) -> _Value | None:
        return self._tuple_of([self.values[id(o)] for o in ins.operands], ins)

    def _tuple_of(self, parts: list[_Value], like: Instruction | None = None) -> _Value:
        operands = [v.ins for v in parts]
        if like is not None:
            copy = clone_instruction(like, operands)
            copy.name = self.names.fresh(like.name)
            copy.sharding = None
        else:
            copy = Instruction(self.names.fresh("tuple"), O.TUPLE, Shape.tuple_of([]))
            copy.set_operands(operands)
        copy.shape = Shape.tuple_of([o.shape for o in operands])
        return _Value(self.b.place(copy), None, tuple(parts))

    # -- shard_map: manual regions between GlobalToLocalShape and LocalToGlobalShape ------
    def _shard_map_edge(self, ins: Instruction) -> _Value:
        """GlobalToLocalShape cuts its operands as `xla.sdy.in_shardings` says; inside,
        values are each device's own (manual); LocalToGlobalShape gives them the places
        `xla.sdy.out_shardings` says."""
        from hlotool.spmd.shardy import parse_sharding_per_value

        entering = ins.attrs.get("custom_call_target") == "xla.sdy.GlobalToLocalShape"
        key = "xla.sdy.in_shardings" if entering else "xla.sdy.out_shardings"
        self._check_fully_manual(ins)
        ranks = [o.shape.rank for o in ins.operands]
        placements = parse_sharding_per_value(ins.frontend_attributes.get(key, ""),
                                              self.meshes, ranks)
        if entering:
            parts = [_Value(self.reshard(o, p), None, manual=True)
                     for o, p in zip(ins.operands, placements, strict=True)]
        else:
            parts = [_Value(self.values[id(o)].ins, p)
                     for o, p in zip(ins.operands, placements, strict=True)]
        if not ins.shape.is_tuple:
            return parts[0]
        value = self._tuple_of(parts)
        value.manual = entering
        return value

    def _check_fully_manual(self, ins: Instruction) -> None:
        text = ins.frontend_attributes.get("xla.sdy.manual_axes", "")
        manual = set(re.findall(r'"([^"]+)"', text.replace('\\"', '"')))
        axes = {a for m in self.meshes.values() for a, _ in m.axes}
        if manual and manual != axes:
            raise HloError(f"{ins.name}: a shard_map manual over {sorted(manual)} of the mesh "
                           f"axes {sorted(axes)} (partly automatic) is not supported yet")

    def _as_is(self, ins: Instruction) -> _Value:
        """An instruction on manual values: each device runs it on its own."""
        copy = clone_instruction(ins, [self.values[id(o)].ins for o in ins.operands])
        copy.name = self.names.fresh(ins.name)
        copy.sharding = None
        value = _Value(self.b.place(copy), None, manual=True)
        if ins.shape.is_tuple:
            value.leaves = tuple(_Value(copy, None, manual=True) for _ in ins.shape.tuple_shapes)
        return value

    # -- building blocks ------------------------------------------------------------------
    def _local(self, ins: Instruction, operands: list[Instruction],
               placement: Placement, **attrs: Any) -> _Value | None:
        """`ins` (with `attrs` replaced) on each device's pieces (None when its result does
        not split evenly)."""
        local = placement.local(ins.shape.dimensions)
        if local is None or not placement.is_valid():
            return None
        copy = clone_instruction(ins, operands)
        copy.attrs.update(attrs)
        copy.name = self.names.fresh(ins.name)
        copy.shape = _with_dims(ins.shape, local)
        copy.sharding = None
        return self._place(copy, placement)

    def _whole(self, ins: Instruction, operands: list[Instruction]) -> _Value:
        copy = clone_instruction(ins, operands)
        copy.name = self.names.fresh(ins.name)
        copy.sharding = None
        rank = ins.shape.rank if ins.shape.is_array else None
        return self._place(copy, Placement.replicated(rank, self.devices)
                           if rank is not None else None)

    def _place(self, ins: Instruction, placement: Placement | None) -> _Value:
        return _Value(self.b.place(ins), placement)

    def _all_reduce(self, value: _Value, split: tuple[tuple[int, ...], ...],
                    reducer: Computation) -> _Value | None:
        """Sum (by `reducer`) the partial results of the devices that hold the same output
        tile but different parts `split` of what was reduced."""
        assert value.placement is not None
        groups = _reduction_groups(value.placement.coords, split)
        if groups is None:
            return None
        ins = self.b.add(O.ALL_REDUCE, [value.ins], {
            "channel_id": self._next_channel(), "to_apply": reducer,
            "replica_groups": ReplicaGroups(groups=groups), "use_global_device_ids": True,
        }, shape=value.ins.shape)
        return _Value(ins, value.placement)

    def replicated(self, operand: Instruction) -> Instruction:
        return self._whole_value(self.values[id(operand)], operand.shape)

    def _whole_value(self, value: _Value, shape: Shape) -> Instruction:
        """Every device holding all of `value` (tuples element by element)."""
        if value.leaves and any(leaf.placement is not None and not leaf.placement.is_replicated
                                for leaf in value.leaves):
            parts = [self._whole_value(leaf, s) for leaf, s in zip(value.leaves,
                                                                  shape.tuple_shapes, strict=True)]
            return self._tuple_of([_Value(p, None) for p in parts]).ins
        if value.placement is None or value.placement.is_replicated:
            return value.ins
        return self._reshard_value(value, Placement.replicated(shape.rank, self.devices))

    def reshard(self, operand: Instruction, target: Placement) -> Instruction:
        """`operand`'s pieces as `target` places them: gather, then cut."""
        return self._reshard_value(self.values[id(operand)], target)

    def _reshard_value(self, value: _Value, target: Placement) -> Instruction:
        src = value.placement
        assert src is not None
        if src == target:
            return value.ins
        x = value.ins
        if src.is_replicated and x.opcode is O.BROADCAST and x.operand(0).shape.rank == 0:
            local = target.local(x.shape.dimensions)
            if local is not None:  # a splat: made at the piece's size, nothing to cut
                return self.b.add(O.BROADCAST, [x.operand(0)], {"dimensions": ()},
                                  shape=_with_dims(x.shape, local))
        dims = list(x.shape.dimensions)
        for d, t in enumerate(src.tiles):
            if t == 1:
                continue
            dims[d] *= t
            x = self.b.add(O.ALL_GATHER, [x], {
                "channel_id": self._next_channel(), "dimensions": (d,),
                "replica_groups": ReplicaGroups(groups=tuple(map(tuple, src.gather_groups(d)))),
                "use_global_device_ids": True}, shape=_with_dims(x.shape, tuple(dims)))
        if target.is_replicated:
            return x
        local = target.local(tuple(dims))
        assert local is not None
        offsets = [self._offset(target, d, n) for d, n in enumerate(local)]
        return self.b.add(O.DYNAMIC_SLICE, [x, *offsets], {"dynamic_slice_sizes": local},
                          shape=_with_dims(x.shape, local))

    def _offset(self, placement: Placement, dim: int, size: int) -> Instruction:
        """This device's start along `dim`: a table of starts indexed by partition-id."""
        starts = tuple(c[dim] * size for c in placement.coords)
        key = (hash(starts), dim, size)
        if key in self._offsets:
            return self._offsets[key]
        s32 = PrimitiveType.S32
        if len(set(starts)) == 1:
            out = self.b.scalar(starts[0], s32)
        else:
            table = self.b.constant(Literal.from_array(np.array(starts, np.int32), s32))
            index = self.b.reshape(self.b.convert(self._pid(), s32), [1])
            one = self.b.add(O.DYNAMIC_SLICE, [table, index], {"dynamic_slice_sizes": (1,)},
                             shape=Shape.array(s32, (1,)))
            out = self.b.reshape(one, [])
        self._offsets[key] = out
        return out

    def _pid(self) -> Instruction:
        if self._partition_id is None:
            self._partition_id = self.b.add(O.PARTITION_ID, [],
                                            shape=Shape.scalar(PrimitiveType.U32))
        return self._partition_id

    def _next_channel(self) -> int:
        self.channel += 1
        return self.channel - 1

    def _root_sharding(self, root: Instruction, result: _Value) -> str:
        if result.manual:
            raise HloError(f"{root.name}: the result is still inside a shard_map (no "
                           "xla.sdy.LocalToGlobalShape gives it a sharding)")
        if result.leaves:
            parts = [leaf.placement for leaf in result.leaves]
            if all(p is None or p.is_replicated for p in parts):
                return ""
            return ", ".join("{" + (p.text() if p is not None else "replicated") + "}"
                             for p in parts)
        if result.placement is None or result.placement.is_replicated:
            return ""
        return result.placement.text()


def _reduction_groups(coords: tuple[tuple[int, ...], ...],
                      split: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...] | None:
    """Groups of devices with the same output tile, one device per part of the reduced
    dims in each (several groups per tile when the tile has copies); None when the parts
    are not covered evenly."""
    by_tile: dict[tuple[int, ...], dict[tuple[int, ...], list[int]]] = defaultdict(
        lambda: defaultdict(list))
    for p, (c, s) in enumerate(zip(coords, split, strict=True)):
        by_tile[c][s].append(p)
    groups: list[tuple[int, ...]] = []
    for parts in by_tile.values():
        copies = {len(v) for v in parts.values()}
        if len(copies) != 1:
            return None
        ordered = [parts[s] for s in sorted(parts)]
        groups.extend(tuple(devs[i] for devs in ordered) for i in range(copies.pop()))
    return tuple(sorted(groups))


def _flat_specs(value: _Value, shape: Shape) -> list[Placement | None] | None:
    """The placements of a flat tuple's elements (None for tokens); None when the value
    is not a flat tuple of placed arrays."""
    if not shape.is_tuple or len(value.leaves) != len(shape.tuple_shapes):
        return None
    specs: list[Placement | None] = []
    for leaf, s in zip(value.leaves, shape.tuple_shapes, strict=True):
        if s.is_tuple or (s.is_array and leaf.placement is None) or leaf.manual:
            return None
        specs.append(leaf.placement if s.is_array else None)
    return specs


def _adopt(specs: list[Placement | None],
           body: list[Placement | None] | None) -> list[Placement | None]:
    """A loop state's placements after one body: replicated elements the body returns
    tiled take that tiling."""
    if body is None:
        return specs
    return [b if s is not None and s.is_replicated and b is not None and not b.is_replicated
            else s for s, b in zip(specs, body, strict=True)]


def _is_value(ins: Instruction, value: Any) -> bool:
    from hlotool.passes.utils import is_all

    return is_all(ins, value)


def _with_dims(shape: Shape, dims: tuple[int, ...]) -> Shape:
    return Shape.array(shape.element_type, dims, shape.layout)
