"""Liveness helpers shared by the scheduler, copy insertion and buffer assignment.

XLA answers "which buffer does this value live in?" with HloDataflowAnalysis and
HloAliasAnalysis, and "can this instruction write its result over that operand?" with
`CanShareOperandBufferWithUser`. This module has the small versions of both that our
passes need, plus reachability within a computation and the flattening of a module's
schedule into one timeline (XLA's sequential heap simulation order).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from hlotool.diagnostics import HloError
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import ELEMENTWISE, Opcode
from hlotool.ir.types import Shape
from hlotool.ir.depth import MAX_CALL_DEPTH

O = Opcode

#: A shape index: the path to a leaf of a (possibly nested) tuple shape.
ShapeIndex = tuple[int, ...]
#: A logical buffer: (id of the defining instruction, shape index of the leaf).
BufferKey = tuple[int, ShapeIndex]

#: Opcodes whose result is (part of) an operand's value, never a new buffer (XLA's
#: HloDataflowAnalysis forwards values through these).
FORWARDING = frozenset(
    {O.BITCAST, O.GET_TUPLE_ELEMENT, O.TUPLE, O.OPT_BARRIER, O.DOMAIN, O.ADD_DEPENDENCY, O.WHILE}
)
#: Opcodes whose called computations run as part of the instruction, one after another
#: (control flow); the computations of reducers, comparators and fusions do not.
CONTROL_FLOW = frozenset({O.WHILE, O.CONDITIONAL, O.CALL, O.ASYNC_START})
#: Elementwise opcodes that read and write the same index, so their result may overwrite
#: an operand that dies at them (conversions included, as XLA's IsElementwise).
SAME_INDEX = ELEMENTWISE | {O.CONVERT, O.COPY, O.STOCHASTIC_CONVERT}


def leaf_items(shape: Shape) -> Iterator[tuple[ShapeIndex, Shape]]:
    """(index, shape) of every array or token leaf of a shape."""
    yield from zip(shape.leaf_indices(), shape.leaves(), strict=True)


def array_bytes(shape: Shape) -> int:
    """Bytes of the array leaves of a shape (tuple index tables are not counted)."""
    return sum(leaf.byte_size for leaf in shape.leaves() if leaf.is_array)


# -- values: which buffers a result refers to --------------------------------------------
ValueTree = dict[ShapeIndex, frozenset[BufferKey]]


def value_tree(ins: Instruction, trees: dict[int, ValueTree]) -> ValueTree:
    """For every leaf of `ins`, the logical buffers it may refer to, given the trees of
    its operands (a per-computation, flow-insensitive version of XLA's dataflow)."""
    op = ins.opcode
    if op is O.TUPLE:
        tree: ValueTree = {}
        for i, operand in enumerate(ins.operands):
            for index, keys in trees[id(operand)].items():
                tree[(i, *index)] = keys
        return tree
    if op is O.GET_TUPLE_ELEMENT:
        k = ins.attrs["index"]
        source = trees[id(ins.operand(0))]
        return {index[1:]: keys for index, keys in source.items() if index[:1] == (k,)}
    if op in FORWARDING:
        return dict(trees[id(ins.operand(0))])
    return {index: frozenset({(id(ins), index)}) for index, _ in leaf_items(ins.shape)}


def value_trees(comp: Computation) -> dict[int, ValueTree]:
    """`value_tree` of every instruction of a computation (in list order)."""
    trees: dict[int, ValueTree] = {}
    for ins in comp.instructions:
        trees[id(ins)] = value_tree(ins, trees)
    return trees


def defined_buffers(ins: Instruction) -> list[tuple[ShapeIndex, Shape]]:
    """The leaves for which `ins` defines a new buffer (none for forwarding opcodes)."""
    if ins.opcode in FORWARDING:
        return []
    return [(index, leaf) for index, leaf in leaf_items(ins.shape) if leaf.is_array]


# -- in-place updates -------------------------------------------------------------------
def can_share_operand_buffer(
    user: Instruction, operand_number: int, output_index: ShapeIndex = ()
) -> bool:
    """XLA's CanShareOperandBufferWithUser: may `user` write its result (at
    `output_index`) into the buffer of operand `operand_number`, when that operand dies
    at `user`? True for same-index elementwise ops, dynamic-update-slice and scatter
    into their operand 0, declared output_to_operand_aliasing, and fusions whose
    parameter reaches the root only through same-index elementwise ops (or is operand 0
    of a root dynamic-update-slice)."""
    operand = user.operand(operand_number)
    out = user.shape.subshape(output_index) if user.shape.is_tuple else user.shape
    if not _same_layout_bytes(operand.shape, out):
        return False
    if _declared_alias(user, operand_number, output_index):
        return True
    op = user.opcode
    if op in SAME_INDEX:
        return True
    if op in (O.DYNAMIC_UPDATE_SLICE, O.SCATTER):
        return operand_number == 0
    if op is O.FUSION and user.attrs.get("kind") != "kCustom":
        return _fusion_param_in_place(user, operand_number, output_index)
    return False


def _same_layout_bytes(a: Shape, b: Shape) -> bool:
    return (
        a.is_array
        and b.is_array
        and a.dimensions == b.dimensions
        and a.element_type.bits == b.element_type.bits
        and (a.layout or None) == (b.layout or None)
    )


def _declared_alias(user: Instruction, operand_number: int, output_index: ShapeIndex) -> bool:
    for alias in user.attrs.get("output_to_operand_aliasing") or ():
        if alias.operand_number == operand_number and alias.output_index == output_index:
            return True
    return False


def _fusion_param_in_place(
    fusion: Instruction, operand_number: int, output_index: ShapeIndex
) -> bool:
    fused: Computation = fusion.attrs["calls"]
    param = fused.parameter(operand_number)
    root = fused.root
    assert root is not None
    if root.opcode is O.TUPLE:
        if len(output_index) != 1:
            return False
        root = root.operand(output_index[0])
    if root.opcode is O.DYNAMIC_UPDATE_SLICE and root.operand(0) is param:
        return param.unique_users == [root] and root.operands.count(param) == 1
    if is_row_fusion(fusion) and param.shape.dimensions == root.shape.dimensions:
        # A row kernel reads row i completely before it writes row i.
        return True
    return reaches_root_elementwise(param, root)


def reaches_root_elementwise(start: Instruction, root: Instruction) -> bool:
    """Every use of `start` (transitively) is a same-shape same-index op leading to
    `root`, so writing `root`'s element i can never clobber an element still unread."""
    stack = [start]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        users = node.unique_users
        if node is root:
            # Only the tuple root of a multi-output fusion may read the result again.
            if any(not (u.opcode is O.TUPLE and u.is_root) for u in users):
                return False
            continue
        if not users:
            return False
        for u in users:
            if u.opcode not in SAME_INDEX or u.shape.dimensions != root.shape.dimensions:
                return False
            stack.append(u)
    return id(root) in seen


# -- row fusions ----------------------------------------------------------------------------
#: Ops that keep a fusion row-local: the value at row i depends only on row i's inputs
#: (broadcasts only spread values along a row or replicate row-invariant ones).
ROW_LOCAL = SAME_INDEX | {
    O.BROADCAST,
    O.REDUCE,
    O.PARAMETER,
    O.CONSTANT,
    O.IOTA,
    O.BITCAST,
    O.RESHAPE,
    O.TUPLE,
    O.GET_TUPLE_ELEMENT,
}


def squeezed(shape: Shape) -> tuple[int, ...]:
    return tuple(d for d in shape.dimensions if d != 1)


def row_structure(instructions: list[Instruction], rows: tuple[int, ...]) -> int | None:
    """For instructions meant to run as one row kernel over an array of dims `rows`:
    the number of leading (row) dimensions their reduces keep (0 without reduces), or
    None when they are not row-local (an op that mixes rows, a reshape that regroups
    dims, reduces over other than the trailing dims of `rows` or keeping different
    numbers of dims)."""
    kept: set[int] = set()
    for ins in instructions:
        if ins.opcode not in ROW_LOCAL:
            return None
        if ins.opcode in (O.BITCAST, O.RESHAPE) and squeezed(ins.shape) != squeezed(
            ins.operand(0).shape
        ):
            return None
        if ins.opcode is O.REDUCE:
            if not is_row_reduce(ins, rows):
                return None
            kept.add(len(rows) - len(ins.attrs["dimensions"]))
    if len(kept) > 1:
        return None
    return kept.pop() if kept else 0


def is_row_reduce(reduce: Instruction, rows: tuple[int, ...]) -> bool:
    """Does `reduce` reduce an array of dims `rows` over its trailing dimensions (and
    keep at least one)?"""
    dims = tuple(sorted(reduce.attrs["dimensions"]))
    k = len(rows) - len(dims)
    return (
        k >= 1 and reduce.operand(0).shape.dimensions == rows and dims == tuple(range(k, len(rows)))
    )


def is_row_fusion(fusion: Instruction) -> bool:
    """A fusion of reduces over the trailing dims of its (array) result, with their
    results used inside it again (softmax, layernorm): its code generator runs it row
    by row, reading a whole row before writing it (XLA:CPU's YNNPACK row fusions)."""
    body: Computation = fusion.attrs["calls"]
    root = body.root
    if root is None or not root.shape.is_array:
        return False
    if row_structure(body.instructions, root.shape.dimensions) is None:
        return False
    return any(i.opcode is O.REDUCE and i is not root for i in body.instructions)


# -- reachability --------------------------------------------------------------------------
@dataclass
class Reachability:
    """Ancestor sets of one computation as integer bitsets (XLA's HloReachabilityMap):
    `reaches(a, b)` is True when b depends, through operands or control edges, on a."""

    index: dict[int, int] = field(default_factory=dict)
    bits: list[int] = field(default_factory=list)

    @staticmethod
    def of(comp: Computation) -> Reachability:
        r = Reachability()
        for n, ins in enumerate(comp.post_order()):
            r.index[id(ins)] = n
            mask = 1 << n
            for dep in (*ins.operands, *ins.control_predecessors):
                mask |= r.bits[r.index[id(dep)]]
            r.bits.append(mask)
        return r

    def reaches(self, a: Instruction, b: Instruction) -> bool:
        return bool(self.bits[self.index[id(b)]] >> self.index[id(a)] & 1)

    def connected(self, a: Instruction, b: Instruction) -> bool:
        return self.reaches(a, b) or self.reaches(b, a)


# -- the module's schedule as one timeline ----------------------------------------------
def control_flow_callees(ins: Instruction) -> list[Computation]:
    """Computations that run, in order, as part of `ins` (loop condition before body)."""
    if ins.opcode not in CONTROL_FLOW:
        return []
    if ins.opcode is O.WHILE:
        return [ins.attrs["condition"], ins.attrs["body"]]
    return ins.called_computations


def sequential_computations(module: Module) -> list[Computation]:
    """The entry and every computation it reaches through control flow: the
    computations a schedule orders (fusion bodies and reducers are not among them)."""
    out: list[Computation] = []
    seen: set[int] = set()
    stack = [module.entry]
    while stack:
        comp = stack.pop()
        if id(comp) in seen:
            continue
        seen.add(id(comp))
        out.append(comp)
        for ins in comp.instructions:
            stack.extend(control_flow_callees(ins))
    return out


@dataclass
class Timeline:
    """Every execution of a scheduled instruction, in order: the entry's schedule with
    each control-flow callee's schedule placed just before the instruction that runs
    it (XLA's sequential HeapSimulator order)."""

    order: list[Instruction] = field(default_factory=list)
    #: id(instruction) -> its positions in `order` (several when its computation runs
    #: from several call sites).
    times: dict[int, list[int]] = field(default_factory=dict)
    #: id(computation) -> (first, last) position of each of its runs.
    spans: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    @staticmethod
    def of(module: Module) -> Timeline:
        t = Timeline()
        t._visit(module.entry, depth=0)
        return t

    def _visit(self, comp: Computation, depth: int) -> None:
        if depth > MAX_CALL_DEPTH:  # the verifier refuses deeper modules
            raise HloError(f"control flow nests more than {MAX_CALL_DEPTH} deep at {comp.name}")
        start = len(self.order)
        for ins in comp.instructions:
            for callee in control_flow_callees(ins):
                self._visit(callee, depth + 1)
            self.times.setdefault(id(ins), []).append(len(self.order))
            self.order.append(ins)
        self.spans.setdefault(id(comp), []).append((start, len(self.order) - 1))

    def first(self, ins: Instruction) -> int:
        return self.times[id(ins)][0]

    def last(self, ins: Instruction) -> int:
        return self.times[id(ins)][-1]
