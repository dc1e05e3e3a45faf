"""Text the debugger shows, built without any UI: highlighted HLO lines, per-computation
diffs (unified and side by side), the definition/user index of a printed module, and a
neighbourhood of one instruction drawn as boxes and arrows.

Everything returns `rich.text.Text` lines, so the widgets only scroll and style them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.text import Text

from hlotool.ir.opcodes import OPS, Category

if TYPE_CHECKING:
    from hlotool.ir.instruction import Instruction
    from hlotool.ir.module import Module

#: Definition lines: `  [ROOT] name = ...`.
DEFINITION = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=")
_NAME = re.compile(r"%?([A-Za-z_][\w.\-]*)")
_SHAPE = re.compile(r"\b(?:pred|[sufc]\d+|bf16|f8\w*|token)\[[^\]]*\](?:\{[^}]*\})?")
_OPCODE = re.compile(r"(?<=[\]}) ])([a-z][a-z0-9\-]*)(?=\()")
_HEADER = re.compile(r"^(?:ENTRY\s+)?%?[\w.\-]+\s*(?:\([^)]*\))?.*\{\s*$|^HloModule\b.*")

#: Styles of diff lines by kind.
DIFF_STYLES = {"+": "green", "-": "red", "@": "cyan", "#": "bold magenta", " ": ""}

#: Box styles of the terminal graph, by opcode category (XLA's colour families).
CATEGORY_STYLES: dict[Category, str] = {
    Category.ELEMENTWISE: "black on #fff9c4",
    Category.CONVERSION: "black on #fff9c4",
    Category.DATA_MOVEMENT: "black on #c8e6c9",
    Category.CONTRACTION: "white on #1565c0",
    Category.LINALG: "white on #1565c0",
    Category.REDUCTION: "black on #e1bee7",
    Category.COMMUNICATION: "black on #bcaaa4",
    Category.COLLECTIVE: "black on #bcaaa4",
    Category.CONTROL: "white on #2e7d32",
    Category.LEAF: "black on #ffe0b2",
}


def highlight(line: str) -> Text:
    """One line of HLO text, syntax highlighted."""
    text = Text(line, end="", no_wrap=True)
    if line.lstrip().startswith("//"):
        text.stylize("dim italic")
        return text
    if _HEADER.match(line) and "=" not in line.split("{")[0]:
        text.stylize("bold blue")
        return text
    text.highlight_regex(_SHAPE, "cyan")
    text.highlight_regex(_OPCODE, "bold yellow")
    text.highlight_regex(r"\bROOT\b", "bold magenta")
    m = DEFINITION.match(line)
    if m:
        text.stylize("bold green", m.start(1), m.end(1))
    return text


# -- diffs ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class DiffLine:
    """One line of a diff: kind is '+', '-', ' ', '@' (hunk) or '#' (computation)."""

    kind: str
    text: str

    def render(self, width: int | None = None) -> Text:
        """The line highlighted, with its diff marker (padded to `width` if given)."""
        if self.kind in "@#":
            out = Text(self.text, style=DIFF_STYLES[self.kind], end="", no_wrap=True)
        else:
            out = Text(self.kind + " ", end="", no_wrap=True)
            out.append_text(highlight(self.text))
            if self.kind in "+-":
                out.stylize("on #12361f" if self.kind == "+" else "on #3d1418")
                out.stylize(DIFF_STYLES[self.kind], 0, 1)
        if width is not None:
            out.truncate(width, pad=True)
        return out


def changed_computations(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Names of computations that differ, in the after module's order, removed last."""
    names = [n for n in after if before.get(n) != after[n]]
    return names + [n for n in before if n not in after]


def _status(name: str, before: dict[str, str], after: dict[str, str]) -> str:
    if name not in before:
        return "added"
    return "removed" if name not in after else "changed"


def unified(before: dict[str, str], after: dict[str, str], context: int = 3) -> list[DiffLine]:
    """A unified diff per changed computation, each under a '#' header line."""
    out: list[DiffLine] = []
    for name in changed_computations(before, after):
        out.append(DiffLine("#", f"── computation {name} ({_status(name, before, after)})"))
        a = before.get(name, "").splitlines()
        b = after.get(name, "").splitlines()
        for line in list(difflib.unified_diff(a, b, n=context, lineterm=""))[2:]:
            out.append(DiffLine("@", line) if line.startswith("@@") else DiffLine(line[0], line[1:]))
    return out


def side_by_side(before: dict[str, str], after: dict[str, str],
                 context: int = 3) -> list[tuple[DiffLine, DiffLine]]:
    """Rows of (before, after) per changed computation; blanks pad the shorter side."""
    rows: list[tuple[DiffLine, DiffLine]] = []
    blank = DiffLine(" ", "")
    for name in changed_computations(before, after):
        head = DiffLine("#", f"── {name} ({_status(name, before, after)})")
        rows.append((head, head))
        a = before.get(name, "").splitlines()
        b = after.get(name, "").splitlines()
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for group in matcher.get_grouped_opcodes(context):
            rows.append((DiffLine("@", "···"), DiffLine("@", "···")))
            for tag, i1, i2, j1, j2 in group:
                left = [DiffLine(" " if tag == "equal" else "-", x) for x in a[i1:i2]]
                right = [DiffLine(" " if tag == "equal" else "+", x) for x in b[j1:j2]]
                n = max(len(left), len(right))
                left += [blank] * (n - len(left))
                right += [blank] * (n - len(right))
                rows.extend(zip(left, right, strict=True))
    return rows


def render_unified(lines: Iterable[DiffLine]) -> list[Text]:
    """Unified diff lines as highlighted text."""
    return [line.render() for line in lines]


def render_side_by_side(rows: Iterable[tuple[DiffLine, DiffLine]], width: int) -> list[Text]:
    """Side-by-side rows as text, each half `width // 2 - 1` cells wide."""
    half = max(10, width // 2 - 1)
    out = []
    for left, right in rows:
        line = left.render(half)
        line.append(" │ " if left.kind != "#" else "   ", style="dim")
        line.append_text(right.render(half))
        out.append(line)
    return out


# -- the IR index --------------------------------------------------------------------------
@dataclass
class IRIndex:
    """Where each value is defined and used in a printed module."""

    lines: list[str]
    #: Value name -> line of its definition.
    definitions: dict[str, int] = field(default_factory=dict)
    #: Value name -> lines that use it as an operand.
    users: dict[str, list[int]] = field(default_factory=dict)
    #: Line -> the names on it: the defined one first, then operands.
    tokens: dict[int, list[str]] = field(default_factory=dict)

    @classmethod
    def build(cls, text: str) -> IRIndex:
        """Index `text` (two passes: definitions, then uses)."""
        index = cls(text.splitlines())
        for i, line in enumerate(index.lines):
            m = DEFINITION.match(line)
            if m:
                index.definitions[m.group(1)] = i
        for i, line in enumerate(index.lines):
            m = DEFINITION.match(line)
            if not m:
                continue
            used = [n for n in _operand_names(line[m.end():]) if n in index.definitions]
            index.tokens[i] = [m.group(1), *dict.fromkeys(used)]
            for name in dict.fromkeys(used):
                index.users.setdefault(name, []).append(i)
        return index

    def defined_at(self, line: int) -> str | None:
        """The value defined on `line`, if any."""
        names = self.tokens.get(line)
        return names[0] if names else None


def _operand_names(rhs: str) -> list[str]:
    """Names inside the operand parentheses and computation attributes of a line."""
    start = rhs.find("(")
    names = []
    if start >= 0:
        depth, end = 0, len(rhs)
        for j in range(start, len(rhs)):
            depth += {"(": 1, ")": -1}.get(rhs[j], 0)
            if depth == 0:
                end = j
                break
        names = _NAME.findall(rhs[start + 1:end])
    return names


# -- the terminal graph --------------------------------------------------------------------
BOX_WIDTH = 22
#: Operands or users drawn per row before "+N more".
MAX_PER_ROW = 4


def neighbourhood(module: Module, name: str, width: int = 80) -> list[Text]:
    """The instruction `name`, its operands above and its users below, as boxes."""
    ins = find_instruction(module, name)
    if ins is None:
        return [Text(f"no instruction named {name}", style="dim")]
    per_row = max(1, min(MAX_PER_ROW, width // (BOX_WIDTH + 1)))
    out: list[Text] = []
    operands = list(dict.fromkeys(ins.operands))
    if operands:
        out.append(Text("operands", style="dim"))
        out += _row([_box(o) for o in operands[:per_row]], width, len(operands) - per_row)
        out.append(_centered(Text("▼", style="bold"), width))
    out += _row([_box(ins, focus=True)], width, 0)
    users = list(dict.fromkeys(ins.users))
    if users:
        out.append(_centered(Text("▼", style="bold"), width))
        out += _row([_box(u) for u in users[:per_row]], width, len(users) - per_row)
        out.append(Text("users", style="dim"))
    parent = ins.parent.name if ins.parent is not None else "?"
    out.append(Text(f"in computation {parent}; {len(operands)} operands, {len(users)} users",
                    style="dim"))
    return out


def find_instruction(module: Module, name: str) -> Instruction | None:
    """The instruction called `name` anywhere in the module."""
    for comp in module.computations:
        for ins in comp.instructions:
            if ins.name == name:
                return ins
    return None


def _box(ins: Instruction, focus: bool = False) -> list[Text]:
    inner = BOX_WIDTH - 2
    style = CATEGORY_STYLES.get(OPS[ins.opcode].category, "black on #eceff1")
    border = "bold red" if focus else "dim"
    top, bottom, side = ("╔", "╗", "║") if focus else ("┌", "┐", "│")
    low = ("╚", "╝") if focus else ("└", "┘")
    horizontal = "═" if focus else "─"
    body = [ins.name, ins.opcode.value, str(ins.shape)]
    lines = [Text(top + horizontal * inner + bottom, style=border)]
    for item in body:
        line = Text(side, style=border)
        line.append(_fit(item, inner), style=style)
        line.append(side, style=border)
        lines.append(line)
    lines.append(Text(low[0] + horizontal * inner + low[1], style=border))
    return lines


def _fit(text: str, width: int) -> str:
    return (text if len(text) <= width else text[: width - 1] + "…").center(width)


def _row(boxes: list[list[Text]], width: int, more: int) -> list[Text]:
    lines = []
    note = f" +{more} more" if more > 0 else ""
    for k in range(len(boxes[0])):
        line = Text(" ").join(box[k] for box in boxes)
        # every line as wide as the one with the note, so that the boxes stay aligned
        line.append(note if k == len(boxes[0]) // 2 else " " * len(note), style="dim")
        lines.append(_centered(line, width))
    return lines


def _centered(line: Text, width: int) -> Text:
    pad = max(0, (width - line.cell_len) // 2)
    out = Text(" " * pad, no_wrap=True, overflow="crop")
    out.append_text(line)
    return out


#: How the terminal graph diff colours each status (the SVG's colours, roughly).
DIFF_TEXT_STYLES: dict[str, str] = {"added": "green", "removed": "red",
                                    "fused into": "blue", "changed": "dark_orange"}


def graph_diff_lines(nodes: Iterable[tuple[str, str, str, str]], title: str,
                     limit: int = 40) -> list[Text]:
    """The graph diff as text: per status (added, removed, fused into, changed), the
    instructions `(status, name, opcode, note)` with what happened to them."""
    groups: dict[str, list[tuple[str, str, str]]] = {k: [] for k in DIFF_TEXT_STYLES}
    unchanged = 0
    for status, name, opcode, note in nodes:
        if status in groups:
            groups[status].append((name, opcode, note))
        else:
            unchanged += 1
    out = [Text(title, style="bold")]
    counts = ", ".join(f"{len(v)} {k}" for k, v in groups.items())
    out.append(Text(f"{counts}, {unchanged} unchanged", style="dim"))
    for status, items in groups.items():
        if not items:
            continue
        out.append(Text(f"{status} ({len(items)})", style=f"bold {DIFF_TEXT_STYLES[status]}"))
        for name, opcode, note in items[:limit]:
            line = Text("  ")
            line.append(name, style=DIFF_TEXT_STYLES[status])
            line.append(f"  {opcode}", style="dim")
            if note and note != status:
                line.append(f"  ({note})")
            out.append(line)
        if len(items) > limit:
            out.append(Text(f"  … {len(items) - limit} more", style="dim"))
    return out
