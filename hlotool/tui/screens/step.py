"""The main screen: step list on the left; diff, IR and graph tabs on the right."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Static, TabbedContent, TabPane

from hlotool.safe_io import atomic_write
from hlotool.tui.render import (
    DiffLine,
    IRIndex,
    changed_computations,
    find_instruction,
    graph_diff_lines,
    neighbourhood,
    side_by_side,
    unified,
)
from hlotool.tui.session import Node, PassFailed, Session
from hlotool.tui.widgets.diff_view import DiffView
from hlotool.tui.widgets.filter_box import FilterBox
from hlotool.tui.widgets.graph_view import GraphView
from hlotool.tui.widgets.ir_view import IRView
from hlotool.tui.widgets.step_list import StepList, format_delta

if TYPE_CHECKING:
    from hlotool.bisect import BisectResult, NumericResult
    from hlotool.passes.base import Pass
    from hlotool.tui.app import DebuggerApp


def _b(key: str, action: str, description: str, tooltip: str, show: bool = True,
       priority: bool = False) -> Binding:
    """A step-screen binding, with its id derived from the action."""
    return Binding(key, action, description, show=show, priority=priority,
                   id=f"step.{action.split('(')[0]}", tooltip=tooltip)


class StepScreen(Screen[None]):
    """Step through the pipeline; every slow thing happens in a worker."""

    BINDINGS = [
        _b("n", "next", "Next", "Apply the next pass at the head (keys queue in order)"),
        Binding("space", "next", "Next", show=False, id="step.next_space",
                tooltip="Apply the next pass at the head"),
        _b("p", "previous", "Prev", "Show the previous step (the head stays)"),
        _b("u", "undo", "Undo", "Undo the last applied pass (it stays for redo)"),
        _b("ctrl+r", "redo", "Redo", "Redo the most recently undone pass"),
        _b("d", "toggle_diff", "Diff ⇄", "Unified or side-by-side diff"),
        _b("h", "toggle_hidden", "Hide ○", "Hide or show steps that changed nothing", False),
        _b("v", "check", "Check", "Compare the step's outputs with the input's (interpreter)"),
        _b("c", "toggle_check_each", "Check each", "Check numerics after every step", False),
        _b("b", "bisect", "Bisect", "Find the first pass that breaks the module"),
        _b("g", "export_svg", "SVG", "Export the step's graph as SVG", False),
        _b("G", "graph_diff", "Graph diff",
           "Show the graph diff against the previous step (and write it as SVG)", False),
        _b("e", "export_hlo", "Export", "Export the step as .hlo", False),
        _b("E", "export_all", "Export all",
           "Export every step as NNN-<pass>.hlo into the export directory", False),
        # Priority: the box takes the focus before the keys typed after it are delivered.
        _b("slash", "search", "Search", "Search the IR", False, priority=True),
        _b("f", "filter", "Filter", "Filter the step list by pass name", False, priority=True),
        _b("1", "tab('diff')", "Diff", "Show the diff tab", False),
        _b("2", "tab('ir')", "IR", "Show the IR tab", False),
        _b("3", "tab('graph')", "Graph", "Show the graph tab", False),
        _b("escape", "leave_input", "Back", "Clear and leave the filter, or leave the search box",
           False),
    ]

    @dataclass
    class PlanReady(Message):
        """The pipeline's pass applications are known (or could not be found)."""

        plan: list[Any]
        error: str = ""
        #: The slow steps' results the planning run kept (`Session.precomputed`).
        kept: dict[int, Any] = field(default_factory=dict)

    @dataclass
    class PlanProgress(Message):
        """Planning has run `count` pass applications, the last one `spec`."""

        count: int
        spec: str

    @dataclass
    class StepApplied(Message):
        """A pass was applied (node), or it could not be (error)."""

        node: Node | None
        error: str = ""

    @dataclass
    class Moved(Message):
        """A queued undo or redo ran: the head is now `node` (None: nothing to do)."""

        node: Node | None
        text: str
        severity: str = "information"

    @dataclass
    class Rendered(Message):
        """The diff and IR text of one step are ready."""

        node: Node
        unified: list[DiffLine]
        rows: list[tuple[DiffLine, DiffLine]]
        text: str
        index: IRIndex
        note: str

    @dataclass
    class Checked(Message):
        """A numeric check finished."""

        node: Node
        result: NumericResult

    @dataclass
    class Status(Message):
        """A line for the status bar."""

        text: str
        severity: str = "information"

    @dataclass
    class GraphDiff(Message):
        """A step's graph diff is drawn: `lines` for the Graph tab, `note` for the status."""

        node: Node
        lines: list[Text]
        note: str

    @dataclass
    class BisectDone(Message):
        """A bisection finished; `path` is the reproducer written ("" when none)."""

        result: BisectResult
        path: str

    def __init__(self) -> None:
        super().__init__()
        self.selected: Node | None = None
        self._queue_lock = threading.Lock()
        #: What the pipeline worker does next, in order: ("next", None), ("undo", None),
        #: ("redo", None) or ("apply", pass).
        self._queue: deque[tuple[str, Pass | None]] = deque()
        self._stepping = False
        self._ready = False
        #: The instruction the Graph tab draws the neighbourhood of.
        self._graph_focus = ""

    @property
    def session(self) -> Session:
        """The app's session."""
        return self.debugger.session

    @property
    def debugger(self) -> DebuggerApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield FilterBox(placeholder="f: filter passes (esc clears)", id="filter")
                yield StepList(id="steps", show_times=self.debugger.options.show_times)
                yield Static(id="details")
            with TabbedContent(id="panes", initial="diff"):
                with TabPane("Diff", id="diff"):
                    yield DiffView(id="diff-view")
                with TabPane("IR", id="ir"):
                    yield Input(placeholder="search (enter: next match, esc: close)",
                                id="search")
                    yield IRView(id="ir-view")
                with TabPane("Graph", id="graph"):
                    yield GraphView(id="graph-view")
        yield Static("loading the pipeline…", id="status")
        yield Footer()

    def on_mount(self) -> None:
        steps = self.query_one(StepList)
        source = "/".join(self.debugger.options.source_name.split("/")[-2:])
        steps.border_title = f"{source} · {self.debugger.pipeline.name}"
        steps.focus()
        self.refresh_steps(select=self.session.root)
        self.load_plan()

    # -- workers ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="plan")
    def load_plan(self) -> None:
        """Find the pipeline's pass applications (fixed points unrolled)."""
        from hlotool.bisect import expand

        def progress(count: int, p: Any) -> None:
            self.post_message(self.PlanProgress(count, p.spec))

        kept: dict[int, Any] = {}
        try:
            plan = expand(self.debugger.pipeline, self.session.root.module, progress, kept)
        except Exception as exc:
            self.post_message(self.PlanReady([], f"cannot expand the pipeline: {exc}"))
            return
        self.post_message(self.PlanReady(plan, kept=kept))

    @work(thread=True, group="pipeline")
    def run_queue(self) -> None:
        """Run the queued operations (n, u, ctrl+r, palette applies) one by one, in the
        order they were asked for."""
        while True:
            with self._queue_lock:
                if not self._queue:
                    self._stepping = False
                    return
                kind, p = self._queue.popleft()
            if kind == "next":
                self._step_once()
            elif kind == "apply" and p is not None:
                self._apply_once(p)
            elif kind == "undo":
                node = self.session.undo()
                self.post_message(self.Moved(*_undo_text(node)))
            elif kind == "redo":
                node = self.session.redo()
                self.post_message(self.Moved(*_redo_text(node)))

    def _step_once(self) -> None:
        try:
            node = self.session.step()
        except PassFailed as exc:
            self.post_message(self.StepApplied(None, str(exc) + self._clear_queue()))
            return
        if node is None:
            self.post_message(self.StepApplied(None, "the pipeline is done"
                                               + self._clear_queue(keep_moves=True)))
            return
        if self.debugger.options.check_each:
            self.session.check(node)
        self.post_message(self.StepApplied(node))

    def _apply_once(self, p: Pass) -> None:
        try:
            node = self.session.apply(p)
        except PassFailed as exc:
            self.post_message(self.StepApplied(None, str(exc) + self._clear_queue()))
            return
        if self.debugger.options.check_each:
            self.session.check(node)
        self.post_message(self.StepApplied(node))

    def _clear_queue(self, keep_moves: bool = False) -> str:
        """Drop what is queued after a failure (only further `next`s when `keep_moves`:
        the end of the pipeline does not make a queued undo pointless); returns a note
        for the status bar ("" when nothing was dropped)."""
        with self._queue_lock:
            kept = [op for op in self._queue if keep_moves and op[0] != "next"]
            dropped = len(self._queue) - len(kept)
            self._queue = deque(kept)
        return f"; dropped {dropped} queued action(s)" if dropped and not keep_moves else ""

    def _enqueue(self, kind: str, p: Pass | None = None) -> bool:
        """Queue an operation for the pipeline worker; starts it when idle (and the plan
        is known). Returns whether it had to wait behind a running one."""
        with self._queue_lock:
            self._queue.append((kind, p))
            waiting = self._stepping or not self._ready
            self._stepping = self._stepping or self._ready
            ahead = len(self._queue)
        if not self._ready:
            self.set_status(f"planning the pipeline…; {ahead} action(s) queued")
        elif waiting:
            label = {"next": "next", "undo": "undo", "redo": "redo"}.get(
                kind, f"apply {p.spec if p is not None else ''}")
            self.set_status(f"busy: queued {label} ({ahead} waiting)")
        else:
            self.run_queue()
        return waiting

    @work(thread=True, exclusive=True, group="render")
    def render_step(self, node: Node) -> None:
        """Diff the step against its parent and index its text."""
        after = node.computation_texts()
        before = node.parent.computation_texts() if node.parent is not None else after
        names = changed_computations(before, after)
        if node.parent is None:
            note = "the input module; step forward (n) to see what each pass changes"
        elif node.label:
            note = (f"{node.spec} against step {node.parent.depth} {node.parent.spec}: "
                    f"{len(names)} computation(s) differ")
        elif not names:
            note = f"{node.spec} changed nothing"
        else:
            note = f"{node.spec}: {len(names)} computation(s) changed"
        text = node.text()
        self.post_message(self.Rendered(node, unified(before, after), side_by_side(before, after),
                                        text, IRIndex.build(text), note))

    @work(thread=True, group="numerics")
    def run_check(self, node: Node) -> None:
        """Run the step and the input on the seeded inputs."""
        self.post_message(self.Status(f"checking {_step_name(node)}…"))
        self.post_message(self.Checked(node, self.session.check(node)))

    @work(thread=True, exclusive=True, group="bisect")
    def run_bisect(self) -> None:
        """Bisect the path and the pending plan; write the reproducer."""
        from hlotool.bisect import write_reproducer

        result = self.session.bisect(lambda text: self.post_message(self.Status(f"bisect: {text}")))
        path = ""
        if result.found:
            options = self.debugger.options
            target = options.export_dir / f"{self._file_stem()}.reproducer.hlo"
            path = str(write_reproducer(result, target))
        self.post_message(self.BisectDone(result, path))

    @work(thread=True, group="export")
    def run_export(self, node: Node, kind: str) -> None:
        """Write the step as .hlo or .svg."""
        options = self.debugger.options
        name = f"{self._file_stem()}.step{node.depth:03d}-{_pass_name(node)}"
        path = options.export_dir / f"{name}.{kind}"
        try:
            if kind == "hlo":
                atomic_write(path, node.text())
            else:
                _write_svg(node, path)
        except Exception as exc:
            self.post_message(self.Status(f"export failed: {exc}", "error"))
            return
        self.post_message(self.Status(f"wrote {path}"))

    @work(thread=True, exclusive=True, group="graph-diff")
    def run_graph_diff(self, node: Node) -> None:
        """Diff the step's graph against the previous step's: shown in the Graph tab as
        text, and written as SVG into the export directory (its path is said)."""
        parent = node.parent
        if parent is None:
            return
        try:
            from hlotool.graph import GraphOptions, draw_diff, write
        except ImportError:
            self.post_message(self.Status("the graph package (hlotool.graph) is not available",
                                          "error"))
            return
        names = (_step_name(parent), _step_name(node))
        what = f"graph diff of {names[1]} against {names[0]}"
        try:
            graph = draw_diff(parent.module, node.module, GraphOptions(), names)
        except Exception as exc:
            self.post_message(self.Status(f"graph diff failed: {exc}", "error"))
            return
        lines = graph_diff_lines(_diff_rows(graph), what)
        name = f"{self._file_stem()}.step{node.depth:03d}-{_pass_name(node)}.diff.svg"
        path = self.debugger.options.export_dir / name
        try:
            write(graph, path)
        except Exception as exc:
            note = f"{what}; SVG not written: {exc}"
            self.post_message(self.GraphDiff(node, lines + [Text(note, style="yellow")], note))
            return
        shown = _shown_path(path)
        saved = f"{what}; SVG written to {shown}"
        self.post_message(self.GraphDiff(node, lines + [Text(f"SVG: {shown}", style="dim")],
                                         saved))

    @work(thread=True, group="export")
    def run_export_all(self, nodes: list[Node]) -> None:
        """Write every step as NNN-<pass>.hlo into the export directory."""
        directory = self.debugger.options.export_dir
        try:
            directory.mkdir(parents=True, exist_ok=True)
            for node in nodes:
                atomic_write(directory / f"{node.depth:03d}-{_pass_name(node)}.hlo", node.text())
        except Exception as exc:
            self.post_message(self.Status(f"export failed: {exc}", "error"))
            return
        last = f"{nodes[-1].depth:03d}-{_pass_name(nodes[-1])}.hlo"
        self.post_message(self.Status(f"wrote {len(nodes)} steps to {directory} "
                                      f"(000-input.hlo … {last})"))

    # -- messages --------------------------------------------------------------------------
    @on(PlanProgress)
    def _plan_progress(self, message: PlanProgress) -> None:
        if not self._ready:
            self.set_status(f"planning the pipeline: {message.count} pass applications, "
                            f"last {message.spec}…")

    @on(PlanReady)
    def _plan_ready(self, message: PlanReady) -> None:
        with self.session.lock:
            self.session.plan = message.plan
            self.session.precomputed = message.kept
        if message.error:
            self.set_status(message.error, "error")
        else:
            self.set_status(f"{len(message.plan)} pass applications planned; n or space to step")
        self.refresh_steps()
        with self._queue_lock:
            self._ready = True
            start = bool(self._queue) and not self._stepping
            self._stepping = self._stepping or start
        if start:
            self.run_queue()

    @on(StepApplied)
    def _step_applied(self, message: StepApplied) -> None:
        if message.error:
            self.set_status(message.error, "warning")
            self.notify(message.error, severity="warning")
        self.refresh_steps(select=message.node or self.session.head)
        if message.node is not None:
            self.set_status(self._describe(message.node))

    @on(Moved)
    def _moved_message(self, message: Moved) -> None:
        self._moved(message.node, message.text, message.severity)

    def _moved(self, node: Node | None, text: str, severity: str) -> None:
        self.set_status(text, severity)
        if node is not None:
            self.refresh_steps(select=node)

    @on(Rendered)
    def _rendered(self, message: Rendered) -> None:
        if message.node is not self.selected:
            return
        self.query_one(DiffView).show_diff(message.unified, message.rows, message.note)
        ir = self.query_one(IRView)
        ir.show(message.text, message.index, keep=ir.index.defined_at(ir.cursor))
        self._update_graph(ir.index.defined_at(ir.cursor))

    @on(Checked)
    def _checked(self, message: Checked) -> None:
        ok = "ok" if message.result.ok else "MISMATCH"
        self.set_status(f"{_step_name(message.node)}: {ok}, "
                        f"{message.result.summary}", "information" if message.result.ok
                        else "error")
        self.refresh_steps()

    @on(Status)
    def _status(self, message: Status) -> None:
        self.set_status(message.text, message.severity)

    @on(GraphDiff)
    def _graph_diff(self, message: GraphDiff) -> None:
        self.query_one(TabbedContent).active = "graph"
        self.query_one(GraphView).show_lines(message.lines)
        self.set_status(message.note)

    @on(BisectDone)
    def _bisect_done(self, message: BisectDone) -> None:
        result = message.result
        steps = self.query_one(StepList)
        steps.bad_spec = result.pass_spec if result.found else ""
        text = result.summary + (f"; reproducer: {message.path}" if message.path else "")
        self.set_status(text, "error" if result.found else "information")
        self.notify(text, title="bisect", severity="error" if result.found else "information",
                    timeout=8)
        path = self.session.path()
        culprit = path[result.index + 1] if result.found and result.index + 1 < len(path) else None
        self.refresh_steps(select=culprit)

    @on(StepList.StepHighlighted)
    def _highlighted(self, message: StepList.StepHighlighted) -> None:
        node = message.node
        if node is None:
            if message.pending_index >= 0:
                self.query_one(DiffView).show_message("not applied yet: press n to apply "
                                                      "the passes up to here")
                spec = self.query_one(StepList).spec_at_cursor()
                self.query_one("#details", Static).update(Text(f"planned: {spec}", style="dim"))
            return
        if node is not self.selected:
            self.selected = node
            self.render_step(node)
        self.query_one("#details", Static).update(self._details(node))

    @on(StepList.WidthChanged)
    def _steps_resized(self) -> None:
        self.refresh_steps()

    @on(IRView.ValueSelected)
    def _value_selected(self, message: IRView.ValueSelected) -> None:
        self._update_graph(message.name)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_one(StepList).filter_text = event.value
        self.refresh_steps()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        self.query_one(StepList).focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        ir = self.query_one(IRView)
        if not ir.search(event.value):
            self.set_status(f"not found: {event.value}", "warning")

    # -- actions ---------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`f` and `/` type themselves while a box has the focus."""
        if action in ("filter", "search") and isinstance(self.app.focused, Input):
            return False
        return True

    def action_next(self) -> None:
        """Apply the next pass at the head, wherever the view is (the view then shows the
        new head); pressed while a pass runs, it queues."""
        with self._queue_lock:
            idle = not self._stepping and self._ready
        if idle:
            self.set_status(f"applying {self._next_spec()}…")
        self._enqueue("next")

    def _next_spec(self) -> str:
        p = self.session.next_pass()
        return p.spec if p is not None else "nothing (the pipeline is done)"

    def action_previous(self) -> None:
        """Show the step before the selected one."""
        path = self.session.path()
        if self.selected in path and self.selected is not path[0]:
            self.refresh_steps(select=path[path.index(self.selected) - 1])

    def _busy(self) -> bool:
        with self._queue_lock:
            return self._stepping or bool(self._queue)

    def action_undo(self) -> None:
        """Undo the last applied pass (queued behind a running pass)."""
        if self._busy():
            self._enqueue("undo")
            return
        self._moved(*_undo_text(self.session.undo()))

    def action_redo(self) -> None:
        """Redo the most recently undone pass (queued behind a running pass)."""
        if self._busy():
            self._enqueue("redo")
            return
        self._moved(*_redo_text(self.session.redo()))

    def apply_pass(self, p: Pass) -> None:
        """Apply `p` to the head (from the command palette), after anything queued."""
        with self._queue_lock:
            idle = not self._stepping
        if idle:
            self.set_status(f"applying {p.spec}…")
        self._enqueue("apply", p)

    def action_toggle_diff(self) -> None:
        """Unified or side-by-side diff."""
        view = self.query_one(DiffView)
        view.toggle_layout()
        self.set_status("side-by-side diff" if view.side_by_side else "unified diff")

    def action_toggle_hidden(self) -> None:
        """Hide or show steps that changed nothing."""
        steps = self.query_one(StepList)
        steps.hide_unchanged = not steps.hide_unchanged
        self.refresh_steps()
        self.set_status("hiding unchanged steps" if steps.hide_unchanged else "showing all steps")

    def action_check(self) -> None:
        """Check the selected step's numerics."""
        if self.selected is not None:
            self.run_check(self.selected)

    def action_toggle_check_each(self) -> None:
        """Check numerics after every step (or stop doing so)."""
        options = self.debugger.options
        options.check_each = not options.check_each
        self.set_status(f"numeric check after each step: {'on' if options.check_each else 'off'}")

    def action_bisect(self) -> None:
        """Bisect the pipeline for the first bad pass."""
        if not self._ready:
            self.set_status("still planning the pipeline…; press b again when it is planned",
                            "warning")
            return
        self.set_status("bisect: starting…")
        self.run_bisect()

    def action_export_svg(self) -> None:
        """Export the selected step's graph as SVG."""
        if self.selected is not None:
            self.run_export(self.selected, "svg")

    def action_graph_diff(self) -> None:
        """Show the graph diff between the selected step and the previous one."""
        node = self.selected
        if node is None:
            return
        if node.parent is None:
            self.set_status("the input has no previous step to diff against; select a "
                            "step (n, p)", "warning")
            return
        self.set_status(f"drawing the graph diff of step {node.depth} {node.spec}…")
        self.run_graph_diff(node)

    def action_export_all(self) -> None:
        """Export every step from the input to the head as NNN-<pass>.hlo."""
        nodes = self.session.path()
        self.set_status(f"exporting {len(nodes)} steps…")
        self.run_export_all(nodes)

    def action_export_hlo(self) -> None:
        """Export the selected step as .hlo."""
        if self.selected is not None:
            self.run_export(self.selected, "hlo")

    def action_search(self) -> None:
        """Open the IR search box."""
        self.query_one(TabbedContent).active = "ir"
        box = self.query_one("#search", Input)
        box.display = True
        self.app.set_focus(box)

    def action_filter(self) -> None:
        """Focus the filter box (the only way into it: Tab skips it)."""
        self.query_one(FilterBox).open()

    def action_tab(self, tab: str) -> None:
        """Show one of the right-hand tabs."""
        self.query_one(TabbedContent).active = tab
        views = {"diff": DiffView, "ir": IRView, "graph": GraphView}
        self.query_one(views[tab]).focus()

    def action_leave_input(self) -> None:
        """Leave the search box, or clear the filter and leave it."""
        search = self.query_one("#search", Input)
        if search.has_focus:
            search.display = False
            self.query_one(IRView).focus()
            return
        box = self.query_one(FilterBox)
        if box.value:
            box.value = ""
            self.set_status("filter cleared")
        self.query_one(StepList).focus()

    # -- drawing ---------------------------------------------------------------------------
    def refresh_steps(self, select: Node | None = None) -> None:
        """Redraw the step list (selecting `select` when given)."""
        session = self.session
        with session.lock:
            path, pending, head = session.path(), session.pending(), session.head
        self.query_one(StepList).show(path, pending, head, select, session.reference_node())
        if self.selected is not None:
            self.query_one("#details", Static).update(self._details(self.selected))

    def set_status(self, text: str, severity: str = "information") -> None:
        """Show one line in the status bar."""
        style = {"error": "bold red", "warning": "yellow"}.get(severity, "")
        self.query_one("#status", Static).update(Text(text, style=style, no_wrap=True,
                                                      overflow="ellipsis"))

    def _update_graph(self, name: str | None) -> None:
        """Draw `name`'s neighbourhood; without one, the last drawn instruction's, else
        the entry's ROOT's (so the Graph tab is never blank)."""
        if self.selected is None:
            return
        module = self.selected.module
        for candidate in (name, self._graph_focus):
            if candidate and find_instruction(module, candidate) is not None:
                name = candidate
                break
        else:
            root = module.entry.root
            name = root.name if root is not None else ""
        if not name:
            return
        self._graph_focus = name
        view = self.query_one(GraphView)
        width = max(40, view.size.width - 2)
        head = Text(f"neighbourhood of {name} · move the cursor in the IR tab (2) to draw "
                    "another; G: graph diff", style="dim")
        view.show_lines([head, *neighbourhood(module, name, width)])

    def _file_stem(self) -> str:
        """The base name of files this screen writes: the module's name."""
        return _stem(self.session.root.module.name)

    def _describe(self, node: Node) -> str:
        change = "changed" if node.changed else "no change"
        return f"step {node.depth}: {node.spec} ({change}); next: {self._next_spec()}"

    def _details(self, node: Node) -> Text:
        text = Text()
        count = node.module.instruction_count
        before = node.parent.module.instruction_count if node.parent else count
        text.append(f"{'xla' if node.label else f'#{node.depth}'} {node.spec}\n", style="bold")
        text.append(f"{before} → {count} instructions")
        delta = format_delta(node.delta(), limit=6)
        text.append(f"  Δ {delta}\n" if delta else "\n")
        text.append("verifier: " + (node.verify_error or "ok") + "\n",
                    style="red" if node.verify_error else "")
        text.append(_numeric_text(node.numeric))
        if len(node.children) > 1:
            text.append(f"\n{len(node.children)} branches from here", style="magenta")
        return text


def _undo_text(node: Node | None) -> tuple[Node | None, str, str]:
    """The status line after an undo that left the head at `node`."""
    if node is None:
        return None, "nothing to undo", "warning"
    undone = node.redo_child.spec if node.redo_child else ""
    return node, f"undid {undone}; ctrl+r redoes it", "information"


def _redo_text(node: Node | None) -> tuple[Node | None, str, str]:
    """The status line after a redo that moved the head to `node`."""
    if node is None:
        return None, "nothing to redo", "warning"
    return node, f"redid {node.spec}", "information"


def _numeric_text(result: NumericResult | None) -> Text:
    if result is None:
        return Text("numerics: unchecked (v)", style="dim")
    style = "green" if result.ok else "bold red"
    return Text(f"numerics: {'ok' if result.ok else 'MISMATCH'} {result.summary}", style=style)


def _stem(name: str) -> str:
    """`name` with only the characters that are safe in a file name."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name) or "module"


def _step_name(node: Node) -> str:
    """`step 3 cse`, or the label of XLA's module."""
    return node.spec if node.label else f"step {node.depth} {node.spec}"


def _pass_name(node: Node) -> str:
    """The step's pass name (no options), safe in a file name; "input" for the root."""
    return _stem(node.spec.split("{")[0])


def _shown_path(path: Path) -> str:
    """`./x.svg` under the directory the debugger runs in, else the absolute path."""
    full = path.resolve()
    try:
        return f"./{full.relative_to(Path.cwd().resolve())}"
    except ValueError:
        return str(full)


def _diff_rows(graph: Any) -> list[tuple[str, str, str, str]]:
    """(status, name, opcode, note) of every instruction node of a diff drawing."""
    rows = []
    for n in graph.instruction_nodes():
        if n.instruction is not None and n.diff is not None:
            rows.append((n.diff.value, n.instruction.name, n.instruction.opcode.value,
                         n.diff_note))
    return rows


def _write_svg(node: Node, path: Any) -> None:
    """Draw the step with hlotool.graph (lazily imported: it may not be installed)."""
    try:
        from hlotool.graph import draw, write
    except ImportError:
        raise RuntimeError("the graph package (hlotool.graph) is not available") from None
    write(draw(node.module), path)
