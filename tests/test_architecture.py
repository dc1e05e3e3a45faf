"""The package layout stays readable: modules of different concepts import each other in one
direction only, and the CPU target's internals stay behind its entry points.

The import graph is built from the sources with `ast`: every `import` counts, also those
inside functions and under `TYPE_CHECKING` (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import functools
import tomllib
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).parents[1]

#: Groups of modules that form one concept split over several files, so that importing each
#: other is allowed inside the group (a module matches an entry ending in "." by prefix).
CONCEPTS: dict[str, tuple[str, ...]] = {
    # Instructions call computations, computations belong to a module, and all three
    # print themselves as HLO text (`str(module)`, as XLA's ToString).
    "the IR graph": ("hlotool.ir.computation", "hlotool.ir.instruction", "hlotool.ir.module",
                     "hlotool.ir.printer"),
    # Kernels register into the evaluator's table and evaluate called computations with it.
    "the interpreter": ("hlotool.interpreter.",),
    # Screens are pushed by the app and push each other through it.
    "the debugger": ("hlotool.tui.",),
    # The elemental emitter generates indexed reads (gather, dynamic-slice) through the
    # indexing emitter, which computes their operands elementally.
    "the elemental emitter": ("hlotool.targets.llvm.elemental", "hlotool.targets.llvm.indexing"),
    # The registry in targets/base.py names the targets, which implement its interface.
    "the targets": ("hlotool.targets.base", "hlotool.targets.cpu", "hlotool.targets.cpu.",
                    "hlotool.targets.gpu", "hlotool.targets.gpu.runtime", "hlotool.targets.tpu",
                    "hlotool.targets.tpu.target"),
}

#: The CPU target's entry point, and the only modules outside it that may import it.
CPU_ENTRY = "hlotool.targets.cpu"
CPU_IMPORTERS = ("hlotool.targets", "hlotool.targets.base", "hlotool.commands.")


def _matches(module: str, patterns: tuple[str, ...]) -> bool:
    return any(module.startswith(p) if p.endswith(".") else module == p for p in patterns)


@functools.cache
def _modules() -> dict[str, Path]:
    """Every module of the installed package, by dotted name (from pyproject's package-dir)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    out: dict[str, Path] = {}
    for package, folder in config["package-dir"].items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The modules `name` imports (a `from package import submodule` names the submodule)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield sub if sub in modules else base


@functools.cache
def _graph() -> dict[str, frozenset[str]]:
    modules = _modules()
    return {name: frozenset(m for m in _imports(name, path, modules) if m in modules and m != name)
            for name, path in modules.items()}


def _cycles(graph: Mapping[str, Collection[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: set[str] = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(component)
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on_stack.add(nxt)
                work.append((nxt, iter(sorted(graph[nxt]))))
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
    return out


def test_the_graph_sees_the_packages() -> None:
    graph = _graph()
    assert "hlotool.hlo.parser" in graph["hlotool.frontend"]
    assert "hlotool.stablehlo.lowering" in graph["hlotool.stablehlo"]
    assert "hlotool.ir.opcodes" in graph["hlotool.passes.dce"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_no_import_cycle_between_concepts() -> None:
    bad = []
    for cycle in _cycles(_graph()):
        if not any(all(_matches(m, group) for m in cycle) for group in CONCEPTS.values()):
            bad.append(sorted(cycle))
    assert not bad, "import cycles across concepts:\n" + "\n".join(map(str, bad))


def test_cpu_internals_stay_behind_the_entry_point() -> None:
    inside = (CPU_ENTRY, CPU_ENTRY + ".")
    bad = [f"{importer} imports {target}"
           for importer, targets in sorted(_graph().items()) if not _matches(importer, inside)
           for target in sorted(targets) if _matches(target, inside)
           if target != CPU_ENTRY or not _matches(importer, CPU_IMPORTERS)]
    assert not bad, "\n".join(bad)


def test_modules_are_not_named_after_their_language() -> None:
    """Each language has its package (hlotool.hlo, hlotool.stablehlo); no flat prefixes."""
    bad = [m for m in _modules() if m.rpartition(".")[2].startswith(("hlo_", "stablehlo_"))]
    assert not bad, bad
