"""Copy insertion (XLA's CopyInsertion): add the copies that let buffer assignment give
loop state, conditional results and entry outputs one buffer each, updated in place.

A while loop's state lives in one set of buffers: the init value, the body's parameter
and root, and the loop's result share them. That is only correct when

- each init element that the body changes is a buffer the loop may overwrite: not a
  constant or parameter (read-only), not an alias of another value, and used by
  nothing but the loop; otherwise it is copied first;
- each body root element that changes is written after every read of the old value of
  that element (or by an instruction that can update in place), and is not another
  element's old value (a swap); otherwise the root gets a copy.

A conditional's branches each produce their result in the conditional's buffer, so a
branch root that is not computed in the branch (a parameter, a constant, an alias) is
copied. The entry's outputs must be distinct buffers that are neither constants nor
(unaliased) parameters (XLA's AddSpecialCaseCopies).

XLA adds copies everywhere and removes the unneeded ones with liveness analysis; this
pass adds only the needed ones, by the same rules, up front.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from hlotool.analysis.liveness import (
    FORWARDING,
    Reachability,
    can_share_operand_buffer,
    sequential_computations,
)
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass
from hlotool.passes.utils import Builder, NameTable

O = Opcode

#: Values that are not a buffer of their own (so never safe to update in place).
NOT_FRESH = FORWARDING | {O.PARAMETER, O.CONSTANT}


def is_read_only(value: Instruction) -> bool:
    """Does `value` (through bitcasts and tuple plumbing) name a constant or a
    parameter's buffer?"""
    while True:
        op = value.opcode
        if op in (O.PARAMETER, O.CONSTANT):
            return True
        if op is O.GET_TUPLE_ELEMENT and value.operand(0).opcode is O.TUPLE:
            value = value.operand(0).operand(value.attrs["index"])
        elif op in (O.BITCAST, O.GET_TUPLE_ELEMENT, O.OPT_BARRIER, O.DOMAIN):
            value = value.operand(0)
        else:
            return False


def deep_copy(b: Builder, value: Instruction) -> Instruction:
    """A copy of every array leaf of `value`, rebuilt into tuples as needed."""
    if value.shape.is_tuple:
        parts = [deep_copy(b, b.gte(value, j)) for j in range(len(value.shape.tuple_shapes))]
        return b.tuple(parts)
    if not value.shape.is_array:
        return value
    return b.add(O.COPY, [value], shape=value.shape, name="copy")


@dataclass(frozen=True)
class CopyInsertionPass(Pass):
    """Copies for while-loop state, conditional results and entry outputs, so that
    every loop updates its state in place (XLA's CopyInsertion)."""

    name: ClassVar[str] = "copy-insertion"
    summary: ClassVar[str] = "copy loop state, branch results and outputs that would alias"
    xla: ClassVar[str] = "CopyInsertion"

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        changed = False
        for comp in sequential_computations(module):
            for ins in list(comp.instructions):
                if ins.opcode is O.WHILE:
                    changed |= _LoopCopies(ins, names).insert()
                elif ins.opcode is O.CONDITIONAL:
                    changed |= _branch_copies(ins, names)
        changed |= _output_copies(module, names)
        changed |= _aliased_output_copies(module, names)
        return changed


@dataclass
class _LoopCopies:
    loop: Instruction
    names: NameTable

    @property
    def body(self) -> Computation:
        body: Computation = self.loop.attrs["body"]
        return body

    def insert(self) -> bool:
        if not self.loop.shape.is_tuple:
            return self._init_copies([True]) | self._root_copies([True])
        modified = [
            self._needs_buffer(i) and not self._passes_through(i)
            for i in range(len(self.loop.shape.tuple_shapes))
        ]
        return self._init_copies(modified) | self._root_copies(modified)

    def _needs_buffer(self, i: int) -> bool:
        return not self.loop.shape.tuple_shapes[i].is_token

    def _passes_through(self, i: int) -> bool:
        root = self.body.root
        assert root is not None
        if root.opcode is not O.TUPLE:
            return False
        element = root.operand(i)
        return (
            element.opcode is O.GET_TUPLE_ELEMENT
            and element.attrs["index"] == i
            and element.operand(0) is self.body.parameter(0)
        )

    # -- the init value ---------------------------------------------------------------------
    def _init_copies(self, modified: list[bool]) -> bool:
        init = self.loop.operand(0)
        b = Builder.before(self.loop, self.names)
        if not self.loop.shape.is_tuple:
            if self._donatable(init, None):
                return False
            self.loop.replace_operand(0, deep_copy(b, init))
            return True
        is_tuple = init.opcode is O.TUPLE
        wanted = [
            m and not (is_tuple and self._donatable(init.operand(i), init))
            for i, m in enumerate(modified)
        ]
        if not any(wanted):
            return False
        parts = [init.operand(i) if is_tuple else b.gte(init, i) for i in range(len(modified))]
        parts = [deep_copy(b, p) if w else p for p, w in zip(parts, wanted, strict=True)]
        self.loop.replace_operand(0, b.tuple(parts))
        return True

    def _donatable(self, value: Instruction, init_tuple: Instruction | None) -> bool:
        """May the loop overwrite `value`'s buffer? Only a fresh array nobody else reads."""
        if value.opcode in NOT_FRESH or not value.shape.is_array or value.is_root:
            return False
        if init_tuple is None:
            return value.unique_users == [self.loop]
        return (
            value.unique_users == [init_tuple]
            and init_tuple.operands.count(value) == 1
            and init_tuple.unique_users == [self.loop]
            and not init_tuple.is_root
        )

    # -- the body root -------------------------------------------------------------------------
    def _root_copies(self, modified: list[bool]) -> bool:
        body = self.body
        root = body.root
        assert root is not None
        reach = Reachability.of(body)
        if not self.loop.shape.is_tuple or root.opcode is not O.TUPLE:
            if not self.loop.shape.is_tuple and self._writes_safely(root, None, reach):
                return False
            body.root = deep_copy(_builder_after(root, self.names), root)
            return True
        bad = [
            i
            for i, m in enumerate(modified)
            if m and not self._writes_safely(root.operand(i), i, reach)
        ]
        b = Builder.before(root, self.names)
        for i in bad:
            root.replace_operand(i, deep_copy(b, root.operand(i)))
        return bool(bad)

    def _writes_safely(self, value: Instruction, i: int | None, reach: Reachability) -> bool:
        """Is `value` a fresh buffer, in the root once, written after every read of
        the old value of element `i` (or updating it in place)?"""
        root = self.body.root
        assert root is not None
        if value.opcode in NOT_FRESH or not value.shape.is_array:
            return False
        if root.opcode is O.TUPLE and root.operands.count(value) != 1:
            return False
        for reader, operand in self._readers_of_old(i):
            if reader is root:
                return False
            if reader is value:
                if not can_share_operand_buffer(value, value.operands.index(operand)):
                    return False
            elif not reach.reaches(reader, value):
                return False
        return True

    def _readers_of_old(self, i: int | None) -> list[tuple[Instruction, Instruction]]:
        """(reader, the operand it reads) for every use of the old value of element
        `i` (of the whole state when None), looking through bitcasts and tuple access;
        a use of the whole parameter reads every element."""
        param = self.body.parameter(0)
        readers: list[tuple[Instruction, Instruction]] = []
        frontier = [param]
        if i is not None:
            gtes = [u for u in param.unique_users if u.opcode is O.GET_TUPLE_ELEMENT]
            frontier = [u for u in gtes if u.attrs["index"] == i]
            readers = [
                (u, param) for u in param.unique_users if u.opcode is not O.GET_TUPLE_ELEMENT
            ]
        while frontier:
            node = frontier.pop()
            for u in node.unique_users:
                if u.opcode in (O.BITCAST, O.GET_TUPLE_ELEMENT):
                    frontier.append(u)
                else:
                    readers.append((u, node))
        return readers


def _builder_after(value: Instruction, names: NameTable) -> Builder:
    """A builder that places instructions right after `value`."""
    comp = value.parent
    assert comp is not None
    position = comp.instructions.index(value) + 1
    anchor = comp.instructions[position] if position < len(comp.instructions) else None
    return Builder(comp, names, anchor, value.metadata)


def _branch_copies(cond: Instruction, names: NameTable) -> bool:
    """Copy branch roots that are not computed in their branch."""
    changed = False
    for branch in cond.called_computations:
        root = branch.root
        assert root is not None
        b = Builder.before(root, names)
        if root.opcode is O.TUPLE:
            seen: set[int] = set()
            for k, part in enumerate(root.operands):
                if part.shape.is_token:
                    continue
                if is_read_only(part) or part.opcode in NOT_FRESH or id(part) in seen:
                    root.replace_operand(k, deep_copy(b, part))
                    changed = True
                seen.add(id(part))
        elif is_read_only(root) or root.opcode in NOT_FRESH:
            branch.root = deep_copy(_builder_after(root, names), root)
            changed = True
    return changed


def _output_copies(module: Module, names: NameTable) -> bool:
    """XLA's AddSpecialCaseCopies for the entry: outputs that are constants, unaliased
    parameters, or the same buffer twice get copies."""
    entry = module.entry
    root = entry.root
    assert root is not None
    aliased = {a.output_index for a in module.config.input_output_alias}
    if root.opcode is not O.TUPLE:
        if is_read_only(root) and () not in aliased:
            entry.root = deep_copy(_builder_after(root, names), root)
            return True
        return False
    changed = False
    seen: set[int] = set()
    b = Builder.before(root, names)
    for k, part in enumerate(root.operands):
        if part.shape.is_token:
            continue
        key = id(_strip_bitcasts(part))
        if (is_read_only(part) and (k,) not in aliased) or key in seen:
            root.replace_operand(k, deep_copy(b, part))
            changed = True
        seen.add(key)
    return changed


def _aliased_output_copies(module: Module, names: NameTable) -> bool:
    """An output aliased to a parameter (input_output_alias) is written into the
    parameter's buffer: unless every reader of the parameter runs before it is
    computed, it is copied, and the copy ordered after those readers (control edges,
    as XLA's copy insertion adds)."""
    entry = module.entry
    root = entry.root
    assert root is not None
    reach = Reachability.of(entry)
    changed = False
    for alias in module.config.input_output_alias:
        if root.opcode is not O.TUPLE or len(alias.output_index) != 1:
            continue
        k = alias.output_index[0]
        value = root.operand(k)
        param = entry.parameter(alias.parameter_number)
        if _strip_bitcasts(value) is param:
            continue
        readers = _readers(param)
        if value.opcode not in NOT_FRESH and all(
            r is value or reach.reaches(r, value) for r in readers
        ):
            continue
        copy = deep_copy(Builder.before(root, names), value)
        for r in readers:
            if r is not root and r is not value and not reach.reaches(r, value):
                copy.add_control_predecessor(r)
        root.replace_operand(k, copy)
        changed = True
    return changed


def _readers(value: Instruction) -> list[Instruction]:
    """Instructions reading `value`, looking through bitcasts and tuple access."""
    out: list[Instruction] = []
    stack = [value]
    while stack:
        node = stack.pop()
        for u in node.unique_users:
            if u.opcode in (O.BITCAST, O.GET_TUPLE_ELEMENT):
                stack.append(u)
            else:
                out.append(u)
    return out


def _strip_bitcasts(value: Instruction) -> Instruction:
    while value.opcode is O.BITCAST:
        value = value.operand(0)
    return value
