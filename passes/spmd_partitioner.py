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
from hlotool.ir.attributes import ReplicaGroups, Sharding
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.literal import Literal
from hlotool.ir.module import Module
from hlotool.ir.opcodes import ELEMENTWISE, Opcode
from hlotool.ir.structure import clone_instruction
from hlotool.ir.types import PrimitiveType, Shape
from hlotool.passes.base import Pass
from hlotool.passes.utils import Builder, NameTable, binary_reducer_opcode, scalar_computation
from hlotool.spmd.placement import Placement
from hlotool.spmd.sharding import parse_sharding

O = Opcode

#: Reducers whose init value can be dropped from the partial reductions when it is the
#: operation's identity, so that the all-reduce of partial results equals the whole.
_IDENTITIES: dict[Opcode, Any] = {O.ADD: 0, O.MAXIMUM: -np.inf, O.MINIMUM: np.inf,
                                  O.MULTIPLY: 1, O.AND: True, O.OR: False}


#: The custom-calls JAX's shard_map leaves before XLA's passes (Shardy export).
_SHARD_MAP = frozenset({"xla.sdy.GlobalToLocalShape", "xla.sdy.LocalToGlobalShape"})


def module_meshes(module: Module) -> dict[str, Any]:
    """The Shardy meshes in the module's `xla.sdy.meshes` attribute."""
    from hlotool.spmd.shardy import parse_meshes

    return parse_meshes(module.config.frontend_attributes.get("xla.sdy.meshes", ""))


def device_count(module: Module) -> int:
    """Partitions the module's shardings name: its Shardy meshes' sizes and its entry
    parameters' tile assignments (1 when nothing is sharded)."""
    count = max((m.size for m in module_meshes(module).values()), default=1)
    for p in module.entry.parameters:
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
        self.new = Computation(self.old.name, execution_thread=self.old.execution_thread)
        self.b = Builder(self.new, self.names)
        self.values: dict[int, _Value] = {}
        self.channel = 1 + max((i.attrs.get("channel_id") or 0 for c in module.computations
                                for i in c.instructions), default=0)
        self._offsets: dict[tuple[int, int, int], Instruction] = {}
        self._partition_id: Instruction | None = None
        self.meshes = module_meshes(module)

    def run(self) -> None:
        # The new entry takes the old one's names (the old one is dropped).
        self.names.taken.difference_update(i.name for i in self.old.instructions)
        self.old.name = self.names.fresh(self.old.name)
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
        rule = {O.BROADCAST: self._broadcast, O.TRANSPOSE: self._transpose, O.DOT: self._dot,
                O.REDUCE: self._reduce, O.TUPLE: self._tuple}.get(ins.opcode)
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
        out = self._local(ins, [self.values[id(o)].ins for o in ins.operands],
                          Placement(tiles, coords))
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
               placement: Placement) -> _Value | None:
        """`ins` on each device's pieces (None when its result does not split evenly)."""
        local = placement.local(ins.shape.dimensions)
        if local is None or not placement.is_valid():
            return None
        copy = clone_instruction(ins, operands)
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


def _is_value(ins: Instruction, value: Any) -> bool:
    from hlotool.passes.utils import is_all

    return is_all(ins, value)


def _with_dims(shape: Shape, dims: tuple[int, ...]) -> Shape:
    return Shape.array(shape.element_type, dims, shape.layout)
