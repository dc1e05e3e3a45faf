"""The HLO verifier: every instruction against its shape rule, and the module's
structure (names, parameters, roots, call graph, users lists, acyclic graphs)."""

from __future__ import annotations

from hlotool.diagnostics import HloError
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import OPS, AttrKind, Opcode
from hlotool.ir.shape_rules import ShapeContext, ShapeError
from hlotool.limits import check_depths, check_dimensions


def verify(module: Module) -> None:
    """Raise HloError (positioned at the instruction when it has a source location)."""
    check_depths(module)
    names: set[str] = set()
    entries = [c for c in module.computations if c.is_entry]
    if len(entries) > 1:
        raise _error(entries[1], f"module {module.name} has more than one ENTRY computation")
    for comp in module.computations:
        if comp.name in names:
            raise _error(comp, f"computation {comp.name} already exists")
        names.add(comp.name)
        if comp.parent is not module:
            raise _error(comp, f"computation {comp.name} does not belong to module {module.name}")
        verify_computation(comp)
    _verify_call_graph(module)
    _verify_entry_layout(module)


def verify_computation(comp: Computation) -> None:
    if not comp.instructions:
        raise _error(comp, f"computation {comp.name} has no instructions")
    if comp.root is None or comp.root.parent is not comp:
        raise _error(comp, f"computation {comp.name} has no root instruction in it")
    seen: set[str] = set()
    numbers: set[int] = set()
    members = {id(i) for i in comp.instructions}
    #: Users of each operand as an id set, made once (a constant read by thousands of
    #: instructions would otherwise have its users list scanned once per reader).
    users_of: dict[int, set[int]] = {}
    for ins in comp.instructions:
        if ins.name in seen:
            raise _error(ins, f"instruction name {ins.name} is not unique in {comp.name}")
        seen.add(ins.name)
        if ins.parent is not comp:
            raise _error(ins, f"{ins.name} is listed in {comp.name} but belongs elsewhere")
        if ins.opcode is Opcode.PARAMETER:
            if ins.parameter_number in numbers:
                raise _error(ins, f"duplicate parameter number {ins.parameter_number} in {comp.name}")
            numbers.add(ins.parameter_number)
        for op in ins.operands:
            if id(op) not in members:
                raise _error(ins, f"operand {op.name} of {ins.name} is not in {comp.name}")
            users = users_of.get(id(op))
            if users is None:
                users = users_of[id(op)] = {id(u) for u in op.users}
            if id(ins) not in users:
                raise _error(ins, f"{ins.name} uses {op.name} but is not among its users")
        verify_instruction(ins)
    if numbers != set(range(len(numbers))):
        missing = min(set(range(len(numbers))) - numbers)
        raise _error(comp, f"computation {comp.name}: parameter numbers must be dense; "
                     f"{missing} is missing")
    # A list with every operand before its users has no cycle: the post-order walk is
    # only needed to tell a cycle from a misordered list.
    if _misordered(comp):
        if len(comp.post_order()) != len(comp.instructions):
            raise _error(comp, f"computation {comp.name} has a cycle")
        _check_acyclic(comp)


def verify_instruction(ins: Instruction) -> None:
    """Check one instruction's operand count, attributes and shape rule. The checks are
    a function of the opcode, operand shapes, attributes and shape, so a combination
    that passed once passes again (remembered; shape rules see called computations
    only through their program shapes, which stand for them in the key)."""
    key = _memo_key(ins)
    if key is not None and key in _VERIFIED:
        return
    _verify_instruction(ins)
    if key is not None:
        if len(_VERIFIED) > _VERIFIED_MAX:
            _VERIFIED.clear()
        _VERIFIED.add(key)


_VERIFIED: set[tuple[object, ...]] = set()
_VERIFIED_MAX = 1 << 18


def _memo_key(ins: Instruction) -> tuple[object, ...] | None:
    attrs = ins.attrs
    calls = _COMPUTATION_KEYS[ins.opcode]
    if calls and any(k in attrs for k in calls):
        attrs = dict(attrs)
        for k in calls:
            v = attrs.get(k)
            if isinstance(v, Computation):
                attrs[k] = _program_shape(v)
            elif v is not None:
                attrs[k] = tuple(_program_shape(c) for c in v)
    key = (ins.opcode, ins.shape, tuple(ins.operand_shapes()), tuple(attrs.items()))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _program_shape(comp: Computation) -> object:
    return comp.program_shape if comp.root is not None else None


#: Per opcode, the attribute keys that hold called computations.
_COMPUTATION_KEYS = {
    op: tuple(a.key for a in spec.attrs if a.kind in (AttrKind.COMPUTATION, AttrKind.COMPUTATIONS))
    for op, spec in OPS.items()
}


def _verify_instruction(ins: Instruction) -> None:
    spec = OPS[ins.opcode]
    check_dimensions(ins)
    n = ins.operand_count
    if spec.arity is not None and n != spec.arity:
        raise _error(ins, f"{ins.opcode.value} expects {spec.arity} operands, but {ins.name} has {n}")
    if spec.arity is None and n < spec.min_operands:
        raise _error(ins, f"{ins.opcode.value} expects at least {spec.min_operands} operands, "
                     f"but {ins.name} has {n}")
    for a in spec.attrs:
        if a.required and a.key not in ins.attrs and not (
            ins.opcode is Opcode.BROADCAST and n == 1 and ins.operand(0).shape.rank == 0
        ):
            raise _error(ins, f"{ins.name}: attribute {a.key} is required for {ins.opcode.value}")
    ctx = ShapeContext(ins.opcode.value, ins.operand_shapes(), ins.attrs, ins.shape)
    try:
        inferred = spec.shape_rule(ctx)
    except ShapeError as exc:
        raise _error(ins, f"{ins.name}: {exc}") from None
    if not inferred.compatible(ins.shape):
        raise _error(ins, f"{ins.name}: the shape is {ins.shape}, but {ins.opcode.value} of these "
                     f"operands gives {inferred}")


def _verify_call_graph(module: Module) -> None:
    comps = {id(c) for c in module.computations}
    for comp in module.computations:
        for ins in comp.instructions:
            for called in ins.called_computations:
                if id(called) not in comps:
                    raise _error(ins, f"{ins.name} calls {called.name}, which is not in the module")
                if called.is_entry:
                    raise _error(ins, f"{ins.name} calls the entry computation {called.name}")
    order = module.computation_post_order()
    if len(order) != len(module.computations):
        raise HloError(f"module {module.name}: the call graph is not consistent")


def _verify_entry_layout(module: Module) -> None:
    layout = module.entry_computation_layout
    if layout is None:
        return
    entry = module.entry
    params = entry.parameters
    if len(layout.parameters) != len(params):
        raise _error(entry, f"entry_computation_layout has {len(layout.parameters)} parameters "
                     f"but {entry.name} has {len(params)}")
    for shape, p in zip(layout.parameters, params, strict=True):
        if not shape.compatible(p.shape):
            raise _error(p, f"entry_computation_layout says {shape} for parameter "
                         f"{p.parameter_number}, but {p.name} is {p.shape}")
    if not layout.result.compatible(entry.root_shape):
        raise _error(entry, f"entry_computation_layout says the result is {layout.result}, "
                     f"but {entry.name} returns {entry.root_shape}")


def _misordered(comp: Computation) -> bool:
    position = {id(i): n for n, i in enumerate(comp.instructions)}
    return any(position.get(id(op), n) >= n
               for n, ins in enumerate(comp.instructions)
               for op in (*ins._operands, *ins.control_predecessors))


def _check_acyclic(comp: Computation) -> None:
    """Operands must come before users when the list order is a schedule."""
    position = {id(i): n for n, i in enumerate(comp.instructions)}
    for n, ins in enumerate(comp.instructions):
        for op in (*ins.operands, *ins.control_predecessors):
            if position[id(op)] >= n:
                raise _error(ins, f"{ins.name} uses {op.name}, which is defined after it "
                             f"(or the graph has a cycle)")


def _error(node: Instruction | Computation, message: str) -> HloError:
    line, col = node.location
    return HloError(message, line, col, width=len(node.name))
