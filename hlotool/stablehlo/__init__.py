"""The StableHLO front end: MLIR text as JAX and StableHLO's tools print it -> the IR.

`parse_stablehlo` keeps `?` dimensions (UNBOUNDED in the IR); `specialize` lowers a
shape-polymorphic module again with the entry's argument shapes fixed, so that every
dimension is static and the module runs like any HLO module.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from hlotool.diagnostics import HloError

# Importing the op tables registers their converters.
from hlotool.stablehlo import chlo, control, dynamic, legacy, mhlo, ops  # noqa: F401
from hlotool.stablehlo.ast import FileAst, ModuleAst
from hlotool.stablehlo.lowering import ModuleLowering
from hlotool.stablehlo.parser import parse_stablehlo_ast
from hlotool.ir.module import Module
from hlotool.ir.types import Shape

#: Syntax trees of recently parsed modules, so that `specialize` can take a Module.
_SOURCES: OrderedDict[int, tuple[Module, FileAst, str | None]] = OrderedDict()
_MAX_SOURCES = 16


def parse_stablehlo(text: str, *, entry: str | None = None) -> Module:
    """Parse and lower StableHLO text; `entry` names the function to make ENTRY
    (default: @main, else the only public function)."""
    file = parse_stablehlo_ast(text)
    module = lower_stablehlo(file, entry=entry)
    _SOURCES[id(module)] = (module, file, entry)
    while len(_SOURCES) > _MAX_SOURCES:
        _SOURCES.popitem(last=False)
    return module


def lower_stablehlo(
    file: FileAst, *, entry: str | None = None, arg_shapes: Sequence[Shape] | None = None
) -> Module:
    """Lower a parsed file's module (refining `?` dimensions when arg_shapes is given)."""
    module = _single_module(file)
    lowering = ModuleLowering(file, module, refine=arg_shapes is not None)
    return lowering.lower(entry, arg_shapes)


def specialize(
    source: str | FileAst | Module,
    arg_shapes: Sequence[Shape | Sequence[int]],
    *,
    entry: str | None = None,
) -> Module:
    """The module with its entry's parameters fixed to `arg_shapes` (Shapes, or plain
    dimension lists for array parameters) and every `?` dimension refined from them.

    `source` is StableHLO text, its syntax tree, or a Module that `parse_stablehlo`
    returned recently (its syntax tree is kept for this)."""
    file, entry = _source(source, entry)
    unrefined = lower_stablehlo(file, entry=entry)
    params = unrefined.entry.parameters
    if len(arg_shapes) != len(params):
        raise HloError(
            f"the entry takes {len(params)} arguments, but {len(arg_shapes)} shapes are given"
        )
    shapes = [_as_shape(s, p.shape) for s, p in zip(arg_shapes, params, strict=True)]
    return lower_stablehlo(file, entry=entry, arg_shapes=shapes)


def specialize_for_values(
    source: str | FileAst | Module, args: Sequence[Any], *, entry: str | None = None
) -> Module:
    """`specialize` with the shapes of actual argument values (arrays, tuples of them,
    tokens), e.g. what `values_io.entry_arguments` returns for the unspecialized module."""
    file, entry = _source(source, entry)
    params = lower_stablehlo(file, entry=entry).entry.parameters
    if len(args) != len(params):
        raise HloError(f"the entry takes {len(params)} arguments, but {len(args)} are given")
    shapes = [_value_shape(a, p.shape) for a, p in zip(args, params, strict=True)]
    return lower_stablehlo(file, entry=entry, arg_shapes=shapes)


def _value_shape(value: Any, declared: Shape) -> Shape:
    if declared.is_tuple:
        return Shape.tuple_of(
            [_value_shape(v, s) for v, s in zip(value, declared.tuple_shapes, strict=True)]
        )
    if not declared.is_array:
        return declared
    return _as_shape(np.shape(value), declared)


def _source(source: str | FileAst | Module, entry: str | None) -> tuple[FileAst, str | None]:
    if isinstance(source, str):
        return parse_stablehlo_ast(source), entry
    if isinstance(source, FileAst):
        return source, entry
    known = _SOURCES.get(id(source))
    if known is None or known[0] is not source:
        raise HloError(
            "specialize needs the StableHLO text of this module (it was not "
            "parsed by parse_stablehlo, or too long ago)"
        )
    return known[1], entry if entry is not None else known[2]


def is_dynamic(module: Module) -> bool:
    """True when the entry has a parameter with a `?` dimension (then `specialize`)."""
    return any(p.shape.is_dynamic for p in module.entry.parameters)


def _as_shape(given: Shape | Sequence[int], declared: Shape) -> Shape:
    if not declared.is_array and not isinstance(given, Shape):
        return declared
    if isinstance(given, Shape):
        shape = given
    else:
        shape = Shape.array(declared.element_type, tuple(int(d) for d in given))
    if declared.is_array and (
        shape.element_type is not declared.element_type or shape.rank != declared.rank
    ):
        raise HloError(f"argument shape {shape} does not fit the declared {declared}")
    for want, got in zip(declared.dimensions, shape.dimensions, strict=False):
        if want >= 0 and want != got and not declared.dynamic:
            raise HloError(f"argument shape {shape} does not fit the declared {declared}")
    return shape


def _single_module(file: FileAst) -> ModuleAst:
    if not file.modules:
        raise HloError("no module or function in the input", 1, 1, ("module", "func.func"))
    if len(file.modules) > 1:
        second = file.modules[1].tok
        line = getattr(second, "line", 0) or 0
        raise HloError(
            f"the input holds {len(file.modules)} modules; split it at the "
            "`// -----` lines and parse each part",
            line,
            1,
        )
    return file.modules[0]


__all__ = [
    "is_dynamic",
    "lower_stablehlo",
    "parse_stablehlo",
    "specialize",
    "specialize_for_values",
]
