"""Structural identity of modules: deep clones and a fingerprint that ignores names.

The debugger snapshots modules with `clone_module`; passes and tests detect change with
`fingerprint` (XLA's after-change check, MLIR's print-after-change).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import OPS, AttrKind, Opcode
from hlotool.ir.types import shape_to_text


def clone_module(module: Module) -> Module:
    """A deep copy with fresh graph nodes (values such as shapes and literals are shared)."""
    new = Module(module.name, config=_copy_config(module), stack_frames=module.stack_frames,
                 entry_computation_layout=module.entry_computation_layout)
    comp_map: dict[int, Computation] = {}
    for comp in module.computations:
        c = clone_computation(comp, comp_map)
        comp_map[id(comp)] = c
        new.add_computation(c)
    by_name = {c.name: c for c in new.computations}
    instructions = {(c.name, i.name): i for c in new.computations for i in c.instructions}
    for comp in module.computations:
        if comp.fusion_instruction is not None:
            fusion_owner = _find_clone(by_name, instructions, comp.fusion_instruction)
            comp_map[id(comp)].fusion_instruction = fusion_owner
    return new


def _copy_config(module: Module) -> Any:
    from dataclasses import replace

    cfg = replace(module.config)
    cfg.frontend_attributes = dict(module.config.frontend_attributes)
    return cfg


def _find_clone(by_name: dict[str, Computation],
                instructions: dict[tuple[str, str], Instruction],
                ins: Instruction) -> Instruction | None:
    assert ins.parent is not None
    if ins.parent.name not in by_name:
        return None
    return instructions[(ins.parent.name, ins.name)]


def clone_computation(comp: Computation, comp_map: dict[int, Computation]) -> Computation:
    """Copy a computation; called computations are mapped through `comp_map` (by id)."""
    new = Computation(comp.name, is_entry=comp.is_entry, execution_thread=comp.execution_thread,
                      async_sugar=comp.async_sugar, location=comp.location)
    ins_map: dict[int, Instruction] = {}
    for ins in comp.instructions:
        copy = clone_instruction(ins, [ins_map[id(o)] for o in ins.operands], comp_map)
        for p in ins.control_predecessors:
            copy.add_control_predecessor(ins_map[id(p)])
        ins_map[id(ins)] = copy
        new.add_instruction(copy)
    assert comp.root is not None
    new.root = ins_map[id(comp.root)]
    return new


def clone_instruction(ins: Instruction, operands: list[Instruction],
                      comp_map: dict[int, Computation] | None = None) -> Instruction:
    """A copy of one instruction with new operands (not added to any computation)."""
    attrs = dict(ins.attrs)
    if comp_map:
        for spec in OPS[ins.opcode].attrs:
            v = attrs.get(spec.key)
            if v is None:
                continue
            if spec.kind is AttrKind.COMPUTATION:
                attrs[spec.key] = comp_map.get(id(v), v)
            elif spec.kind is AttrKind.COMPUTATIONS:
                attrs[spec.key] = tuple(comp_map.get(id(c), c) for c in v)
    copy = Instruction(
        name=ins.name, opcode=ins.opcode, shape=ins.shape, attrs=attrs,
        parameter_number=ins.parameter_number, literal=ins.literal,
        async_wrapped=ins.async_wrapped, metadata=ins.metadata, sharding=ins.sharding,
        backend_config=ins.backend_config, frontend_attributes=dict(ins.frontend_attributes),
        statistics=ins.statistics, origin=ins.origin, result_accuracy=ins.result_accuracy,
        location=ins.location,
    )
    copy.set_operands(operands)
    return copy


def fingerprint(module: Module, *, names: bool = False) -> str:
    """A hash of the module's structure: opcodes, shapes, operand wiring, attributes,
    constants and call graph. Names are left out unless `names` (renaming is no change)."""
    h = hashlib.blake2b(digest_size=16)
    comp_index = {id(c): i for i, c in enumerate(module.computations)}
    h.update(repr(_config_key(module)).encode())
    for comp in module.computations:
        h.update(_computation_key(comp, comp_index, names).encode())
    return h.hexdigest()


def structurally_equal(a: Module, b: Module, *, names: bool = True) -> bool:
    return fingerprint(a, names=names) == fingerprint(b, names=names)


def _config_key(module: Module) -> tuple[Any, ...]:
    cfg = module.config
    return (cfg.is_scheduled, cfg.replica_count, cfg.num_partitions, cfg.input_output_alias,
            cfg.buffer_donor, module.entry_computation_layout)


def computation_key(comp: Computation) -> str:
    """The structure of one computation, names left out (calls named by callee)."""
    return _computation_key(comp, {}, False)


def _computation_key(comp: Computation, comp_index: dict[int, int], names: bool) -> str:
    index = {id(i): n for n, i in enumerate(comp.instructions)}
    parts = [f"C{comp.name if names else ''}|{comp.is_entry}|{comp.execution_thread}"]
    for ins in comp.instructions:
        parts.append(_instruction_key(ins, index, comp_index, names))
    assert comp.root is not None
    parts.append(f"R{index[id(comp.root)]}")
    return "\n".join(parts)


def _instruction_key(ins: Instruction, index: dict[int, int],
                     comp_index: dict[int, int], names: bool) -> str:
    attrs = []
    if ins.attrs:
        for key, kind in _attr_kinds(ins.opcode):
            if key not in ins.attrs:
                continue
            v = ins.attrs[key]
            if kind is AttrKind.COMPUTATION:
                v = comp_index.get(id(v), v.name)
            elif kind is AttrKind.COMPUTATIONS:
                v = tuple(comp_index.get(id(c), c.name) for c in v)
            attrs.append((key, v))
    lit = ins.literal.fingerprint().hex() if ins.literal is not None else ""
    return "|".join((
        ins.name if names else "", ins.opcode.value, shape_to_text(ins.shape),
        str([index.get(id(o), -1) for o in ins._operands]), str(ins.parameter_number),
        str(attrs) if attrs else "[]", lit, _text(ins.metadata), _text(ins.sharding),
        ins.backend_config, str(sorted(ins.frontend_attributes.items())),
        str([index.get(id(p), -1) for p in ins.control_predecessors]), ins.statistics,
        ins.origin, _text(ins.result_accuracy), ins.async_wrapped,
    ))


@lru_cache(maxsize=None)
def _attr_kinds(opcode: Opcode) -> tuple[tuple[str, AttrKind], ...]:
    return tuple((spec.key, spec.kind) for spec in OPS[opcode].attrs)


@lru_cache(maxsize=1 << 16)
def _text(value: Any) -> str:
    """str() of an immutable attribute value (metadata, sharding), memoized."""
    return str(value)
