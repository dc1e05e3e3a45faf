"""Module: the computations of one HLO module plus its header."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from hlotool.ir.attributes import ModuleConfig, StackFrameTables
from hlotool.ir.computation import Computation
from hlotool.ir.types import Shape


@dataclass(frozen=True, slots=True)
class EntryLayout:
    """`entry_computation_layout={(params...)->result}`."""

    parameters: tuple[Shape, ...]
    result: Shape


@dataclass(eq=False, slots=True, weakref_slot=True)
class Module:
    """An HLO module. `computations` keeps callees before callers (text order)."""

    name: str
    computations: list[Computation] = field(default_factory=list)
    config: ModuleConfig = field(default_factory=ModuleConfig)
    #: As written in the header; None when absent (then derived from the entry).
    entry_computation_layout: EntryLayout | None = None
    stack_frames: StackFrameTables = field(default_factory=StackFrameTables)

    @property
    def entry(self) -> Computation:
        for c in self.computations:
            if c.is_entry:
                return c
        return self.computations[-1]

    def computation(self, name: str) -> Computation:
        for c in self.computations:
            if c.name == name:
                return c
        raise KeyError(name)

    def add_computation(self, comp: Computation, *, before: Computation | None = None) -> Computation:
        comp.parent = self
        if before is None:
            self.computations.append(comp)
        else:
            self.computations.insert(self.computations.index(before), comp)
        return comp

    def remove_computation(self, comp: Computation) -> None:
        self.computations.remove(comp)
        comp.parent = None

    @property
    def instruction_count(self) -> int:
        return sum(len(c.instructions) for c in self.computations)

    def computation_post_order(self) -> list[Computation]:
        """Computations with every callee before its callers."""
        order: list[Computation] = []
        seen: set[int] = set()

        def visit(c: Computation) -> None:
            stack: list[tuple[Computation, Iterator[Computation]]] = [(c, iter(_callees(c)))]
            seen.add(id(c))
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    order.append(node)
                elif id(nxt) not in seen:
                    seen.add(id(nxt))
                    stack.append((nxt, iter(_callees(nxt))))

        for c in self.computations:
            if id(c) not in seen:
                visit(c)
        return order

    def __repr__(self) -> str:
        return f"<Module {self.name} ({len(self.computations)} computations)>"

    def __str__(self) -> str:
        from hlotool.ir.printer import print_module

        return print_module(self)


def _callees(c: Computation) -> list[Computation]:
    out: list[Computation] = []
    for ins in c.instructions:
        out.extend(ins.called_computations)
    return out
