"""The debugger's model, without any UI: a tree of module states joined by pass
applications, a head (the state the next pass applies to), undo/redo with branching,
and numeric checks against the original module.

    session = Session(module, plan=expand(get_pipeline("default"), module))
    session.step()            # apply the next planned pass
    session.undo()            # head back to the parent; the undone state stays for redo
    session.apply(make_pass("cse"))   # a new branch; redo now follows it
    session.redo()

Each state is a clone (xDSL's apply_to_clone), so going back never re-runs passes.
Every method takes the session's lock: workers step while the UI undoes.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hlotool.ir.opcodes import OPS, Category
from hlotool.ir.structure import clone_module, fingerprint

if TYPE_CHECKING:
    from hlotool.bisect import BisectResult, NumericResult, Oracle, Progress
    from hlotool.ir.module import Module
    from hlotool.passes.base import Pass
    from hlotool.passes.pipeline import Pipeline, StepResult

#: The passes of the fallback pipeline, used when `hlotool.passes.pipelines` is absent.
FALLBACK_PASSES = ("call-inliner", "algebraic-simplify", "constant-folding", "tuple-simplifier",
                   "cse", "dce", "instruction-fusion", "dce")

#: The step list's name for XLA's after-optimizations module.
REFERENCE_LABEL = "XLA: after optimizations"

_serials = itertools.count()


class PassFailed(Exception):
    """A pass raised while the debugger applied it."""


@dataclass(eq=False)
class Node:
    """One state of the module: the input, or the result of a pass on its parent."""

    module: Module
    parent: Node | None = None
    #: The pass that made this state from the parent's (None for the input).
    pass_: Pass | None = None
    result: StepResult | None = None
    #: Index into the plan of the pass `step()` applies next from this state.
    plan_index: int = 0
    #: Whether the pass came from the plan (else from the command palette).
    on_plan: bool = True
    children: list[Node] = field(default_factory=list)
    #: The child `redo()` goes to: the one most recently created or undone.
    redo_child: Node | None = None
    #: The verifier's complaint, "" when it verifies.
    verify_error: str = ""
    numeric: NumericResult | None = None
    counts: Counter[Category] = field(default_factory=Counter)
    fingerprint: str = ""
    #: A state from outside the session (XLA's optimized module): its name, and its
    #: parent is whichever state it is compared with.
    label: str = ""
    serial: int = field(default_factory=lambda: next(_serials))
    _text: str | None = None

    def __repr__(self) -> str:
        """Short: the generated repr recursed through parent, children and redo_child,
        and workers format their arguments with repr, which grew exponentially with
        the depth (a 20-step burst of `n` took minutes)."""
        return f"Node(#{self.depth} {self.spec})"

    @property
    def depth(self) -> int:
        """Passes applied since the input."""
        return 0 if self.parent is None else self.parent.depth + 1

    @property
    def spec(self) -> str:
        """The pass spec that made this state ("input" for the root), or the label."""
        if self.label:
            return self.label
        return self.pass_.spec if self.pass_ is not None else "input"

    @property
    def changed(self) -> bool:
        """Whether the pass changed the module (by fingerprint)."""
        return self.parent is not None and self.fingerprint != self.parent.fingerprint

    @property
    def seconds(self) -> float:
        """How long the pass took."""
        return self.result.seconds if self.result is not None else 0.0

    def text(self) -> str:
        """The module printed (cached)."""
        if self._text is None:
            from hlotool.ir.printer import print_module

            self._text = print_module(self.module)
        return self._text

    def computation_texts(self) -> dict[str, str]:
        """Computation name -> printed computation, in module order."""
        from hlotool.ir.printer import print_computation

        return {c.name: print_computation(c) for c in self.module.computations}

    def delta(self) -> dict[Category, int]:
        """Instruction count change by opcode category, against the parent."""
        if self.parent is None:
            return {}
        keys = set(self.counts) | set(self.parent.counts)
        out = {k: self.counts[k] - self.parent.counts[k] for k in keys}
        return {k: v for k, v in sorted(out.items(), key=lambda kv: kv[0].value) if v}


def category_counts(module: Module) -> Counter[Category]:
    """How many instructions of each opcode category the module has."""
    return Counter(OPS[ins.opcode].category
                   for comp in module.computations for ins in comp.instructions)


def make_node(module: Module, **kwargs: object) -> Node:
    """A node for `module`, with its fingerprint, counts and verifier status."""
    from hlotool.bisect import verify_error

    return Node(module, counts=category_counts(module), fingerprint=fingerprint(module),
                verify_error=verify_error(module), **kwargs)  # type: ignore[arg-type]


class Session:
    """The history tree of one debugging session and its head."""

    def __init__(self, module: Module, plan: Sequence[Pass] = (), *, rtol: float | None = None,
                 atol: float | None = None, seed: int = 0, reference: Module | None = None,
                 settle: bool = False) -> None:
        """`settle`: exempt each new state from later garbage collections (the `hlotool
        debug` process, whose states live as long as it does: `collector.settle`)."""
        from hlotool.bisect import Oracle

        self.settle = settle
        self.lock = threading.RLock()
        self.root = make_node(clone_module(module))
        self.head = self.root
        self.plan: list[Pass] = list(plan)
        self.rtol, self.atol, self.seed = rtol, atol, seed
        self.oracle: Oracle = Oracle(self.root.module, seed=seed, rtol=rtol, atol=atol)
        #: XLA's after-optimizations module of a dump folder, outside the history tree.
        self.reference: Node | None = None
        #: Slow plan steps the planning run kept (`bisect.expand`): plan index ->
        #: (fingerprint of the state it ran on, the state after, its result).
        self.precomputed: dict[int, tuple[str, Module, StepResult]] = {}
        if reference is not None:
            self.reference = make_node(clone_module(reference), label=REFERENCE_LABEL)

    # -- reading -------------------------------------------------------------------------
    def path(self) -> list[Node]:
        """The states from the input to the head."""
        with self.lock:
            out: list[Node] = []
            node: Node | None = self.head
            while node is not None:
                out.append(node)
                node = node.parent
            return out[::-1]

    def pending(self) -> list[Pass]:
        """The planned passes not yet applied on the way to the head."""
        with self.lock:
            return self.plan[self.head.plan_index:]

    def next_pass(self) -> Pass | None:
        """The pass `step()` would apply."""
        pending = self.pending()
        return pending[0] if pending else None

    def reference_node(self) -> Node | None:
        """XLA's optimized module as a state whose parent is the head (so its diff shows
        what XLA did beyond hlotool's steps so far); None without a dump folder."""
        with self.lock:
            if self.reference is not None:
                self.reference.parent = self.head
            return self.reference

    def can_undo(self) -> bool:
        """Whether there is a step to undo."""
        return self.head.parent is not None

    def can_redo(self) -> bool:
        """Whether an undone step can be redone."""
        return self.head.redo_child is not None

    # -- changing ------------------------------------------------------------------------
    def step(self) -> Node | None:
        """Apply the next planned pass (reusing the redo state when it is that pass);
        None when the plan is done."""
        with self.lock:
            p = self.next_pass()
            if p is None:
                return None
            again = self.head.redo_child
            if again is not None and again.on_plan and again.spec == p.spec:
                self.head = again
                return again
            kept = self.precomputed.pop(self.head.plan_index, None)
            if kept is not None and kept[0] == self.head.fingerprint:
                return self._attach(p, kept[1], kept[2], on_plan=True)
            return self._apply(p, on_plan=True)

    def apply(self, p: Pass) -> Node:
        """Apply any pass to the head (a new branch when the head has children)."""
        with self.lock:
            return self._apply(p, on_plan=False)

    def _apply(self, p: Pass, on_plan: bool) -> Node:
        from hlotool.collector import paused
        from hlotool.passes.pipeline import run_pass

        parent = self.head
        results: list[StepResult] = []
        with paused():  # a snapshot and a pass: see hlotool.collector
            work = clone_module(parent.module)
            try:
                run_pass(p, work, (), results)
            except Exception as exc:
                raise PassFailed(f"pass {p.spec} raised {type(exc).__name__}: {exc}") from exc
        return self._attach(p, work, results[0], on_plan)

    def _attach(self, p: Pass, work: Module, result: StepResult, on_plan: bool) -> Node:
        """Make `work`, the result of `p` on the head, the new head."""
        from hlotool.collector import paused, settle

        parent = self.head
        next_index = parent.plan_index + 1 if on_plan else parent.plan_index
        with paused():  # its fingerprint and verification
            node = make_node(work, parent=parent, pass_=p, result=result,
                             plan_index=next_index, on_plan=on_plan)
        if self.settle:
            settle()
        parent.children.append(node)
        parent.redo_child = node
        self.head = node
        return node

    def undo(self) -> Node | None:
        """Move the head back one state; the undone state becomes the redo target."""
        with self.lock:
            parent = self.head.parent
            if parent is None:
                return None
            parent.redo_child = self.head
            self.head = parent
            return parent

    def redo(self) -> Node | None:
        """Move the head forward to the most recent undone (or created) child."""
        with self.lock:
            child = self.head.redo_child
            if child is None:
                return None
            self.head = child
            return child

    def branches(self, node: Node) -> int:
        """How many different passes were applied to this state."""
        return len(node.children)

    # -- numerics ------------------------------------------------------------------------
    def check(self, node: Node) -> NumericResult:
        """Run the state and the input on the seeded inputs; store and return the result."""
        result = self.oracle.check(node.module)
        node.numeric = result
        return result

    def bisect(self, progress: Progress | None = None) -> BisectResult:
        """Bisect the passes on the way to the head followed by the pending plan."""
        from hlotool.bisect import bisect

        with self.lock:
            passes = [n.pass_ for n in self.path()[1:] if n.pass_ is not None]
            passes += self.pending()
        return bisect(self.root.module, passes, rtol=self.rtol, atol=self.atol, seed=self.seed,
                      progress=progress)


def resolve_pipeline(name: str | None, passes: str | None) -> Pipeline:
    """The named pipeline (or a pass list as a pipeline); the fallback pipeline when
    `hlotool.passes.pipelines` does not exist yet. PassError on bad names."""
    from hlotool.passes.pipeline import Pipeline, Step
    from hlotool.passes.registry import parse_pass_list

    if passes:
        return Pipeline("passes", tuple(Step(p) for p in parse_pass_list(passes)))
    try:
        from hlotool.passes.pipelines import get_pipeline
    except ImportError:
        return fallback_pipeline()
    return get_pipeline(name or "default")


def fallback_pipeline() -> Pipeline:
    """A small target-independent pipeline from whichever passes the registry has."""
    from hlotool.passes.pipeline import Pipeline, Step
    from hlotool.passes.registry import all_passes, make_pass

    have = all_passes()
    return Pipeline("fallback", tuple(Step(make_pass(n)) for n in FALLBACK_PASSES if n in have))
