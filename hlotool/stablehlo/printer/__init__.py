"""IR -> StableHLO MLIR text, in the style JAX 0.10 and `stablehlo-opt` print.

The entry computation becomes `func.func public @main`; computations that are called
(`call`, fusions, custom-call `called_computations`) become private functions, named after
the computation without its `.N` suffix; computations applied by an op (reducers,
comparators, while/case bodies) are printed inline as the op's regions. Layouts are
dropped (StableHLO has none; bitcasts become transposes and reshapes that give the same
values, and custom calls keep theirs in `operand_layouts`/`result_layouts`); metadata is
not printed.

    print_stablehlo(parse_stablehlo(print_stablehlo(m))) == print_stablehlo(m)

holds for modules the StableHLO front end reads back (see `block`).
"""

from __future__ import annotations

import re

# Importing the op tables registers their converters.
from hlotool.stablehlo.printer import control, ops  # noqa: F401
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape
from hlotool.stablehlo.printer.asm import Function, Region, Symbol, prune, render_function, symbols
from hlotool.stablehlo.printer.block import Block, is_side_effecting, result_shapes
from hlotool.stablehlo.printer.text import quote, value_type


def print_stablehlo(module: Module) -> str:
    """The module as StableHLO text (ends with a newline)."""
    return ModulePrinter(module).text()


class ModulePrinter:
    """The functions of one module: the entry, and every computation it calls."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self._functions: dict[int, Function] = {}
        self._symbols: dict[int, Symbol] = {}
        self._live: dict[int, list[Instruction]] = {}

    def text(self) -> str:
        """Convert from the entry, drop unused ops, then print the functions still called,
        in the order they are first called (depth first, as JAX emits them)."""
        main = self.function(self.module.entry)
        for func in self._functions.values():
            prune(func.body)
        order = self._reachable(main)
        taken: set[str] = set()
        for func in order:
            func.symbol.name = _unique(func.symbol.base, taken)
        attrs = self._module_attrs()
        head = f"module @{symbol_base(self.module.name)} attributes {{{attrs}}} {{"
        return "\n".join([head, *(render_function(f) for f in order), "}"]) + "\n"

    def _reachable(self, main: Symbol) -> list[Function]:
        by_symbol = {id(f.symbol): f for f in self._functions.values()}
        order: list[Function] = []
        seen: set[int] = set()

        def visit(symbol: Symbol) -> None:
            if id(symbol) in seen:
                return
            seen.add(id(symbol))
            func = by_symbol[id(symbol)]
            order.append(func)
            for used in symbols(func.body):
                visit(used)

        visit(main)
        return order

    def _module_attrs(self) -> str:
        cfg = self.module.config
        items = [f"mhlo.num_partitions = {cfg.num_partitions} : i32",
                 f"mhlo.num_replicas = {cfg.replica_count} : i32"]  # fmt: skip
        if cfg.frontend_attributes:
            fe = ", ".join(f"{k} = {quote(v)}" for k, v in sorted(cfg.frontend_attributes.items()))
            items.insert(0, f"mhlo.frontend_attributes = {{{fe}}}")
        return ", ".join(items)

    # -- functions --------------------------------------------------------------------------
    def function(self, comp: Computation) -> Symbol:
        """The symbol of the function for `comp`, converting it on first use."""
        symbol = self._symbols.get(id(comp))
        if symbol is None:
            is_entry = comp is self.module.entry
            symbol = Symbol("main" if is_entry else symbol_base(comp.name))
            self._symbols[id(comp)] = symbol
            self._functions[id(comp)] = self._convert(comp, symbol, is_entry)
        return symbol

    def _convert(self, comp: Computation, symbol: Symbol, is_entry: bool) -> Function:
        """The function of `comp`. The entry's tuple arguments and results are flattened
        to their leaves (as JAX's are): XLA runs StableHLO entries with array arguments
        only."""
        block = Block(self, comp, Region(), is_function=True, flat=is_entry)
        if is_entry:
            block.bind_leaves(comp.parameters)
        else:
            block.bind_arguments(comp.parameters)
        body = block.convert()
        assert comp.root is not None
        shapes = comp.root.shape.leaves() if is_entry else result_shapes(comp.root.shape)
        results = [value_type(s) for s in shapes]
        attrs = self._entry_arg_attrs(comp) if is_entry else [""] * len(body.args)
        return Function(symbol, "public" if is_entry else "private", body, attrs, results)

    def _entry_arg_attrs(self, entry: Computation) -> list[str]:
        """Attribute dictionaries of the entry's (leaf) arguments: aliasing, donation,
        sharding."""
        assert entry.root is not None
        cfg = self.module.config
        params = entry.parameters
        offsets = [0]
        for p in params:
            offsets.append(offsets[-1] + len(p.shape.leaves()))
        items: list[list[str]] = [[] for _ in range(offsets[-1])]

        def arg_of(number: int, index: tuple[int, ...]) -> int | None:
            if not 0 <= number < len(params):
                return None
            pos = leaf_position(params[number].shape, index)
            return None if pos is None else offsets[number] + pos

        for alias in cfg.input_output_alias:
            arg = arg_of(alias.parameter_number, alias.parameter_index)
            out = leaf_position(entry.root.shape, alias.output_index)
            if arg is not None and out is not None:
                items[arg].append(f"tf.aliasing_output = {out} : i32")
        for donor in cfg.buffer_donor:
            arg = arg_of(donor.parameter_number, donor.parameter_index)
            if arg is not None:
                items[arg].append("jax.buffer_donor = true")
        for p, offset in zip(params, offsets, strict=False):
            if p.sharding is not None and not p.shape.is_tuple:
                items[offset].append(f"mhlo.sharding = {quote('{' + p.sharding.text + '}')}")
        return ["{" + ", ".join(sorted(i)) + "}" if i else "" for i in items]

    # -- liveness ---------------------------------------------------------------------------
    def live_instructions(self, comp: Computation) -> list[Instruction]:
        """Instructions in dependency order that the root needs, or that have side effects
        (parameters always)."""
        cached = self._live.get(id(comp))
        if cached is not None:
            return cached
        live: set[int] = set()
        stack = [i for i in comp.instructions if is_side_effecting(i)]
        if comp.root is not None:
            stack.append(comp.root)
        while stack:
            ins = stack.pop()
            if id(ins) in live:
                continue
            live.add(id(ins))
            stack.extend(ins.operands)
        order = [i for i in comp.post_order()
                 if id(i) in live or i.opcode is Opcode.PARAMETER]  # fmt: skip
        self._live[id(comp)] = order
        return order


def _unique(base: str, taken: set[str]) -> str:
    """`base`, or `base_0`, `base_1`, ... (JAX's spelling) when it is taken."""
    name, i = base, 0
    while name in taken:
        name = f"{base}_{i}"
        i += 1
    taken.add(name)
    return name


def leaf_position(shape: Shape, index: tuple[int, ...]) -> int | None:
    """Where the leaf at tuple index `index` comes in `shape.leaves()` (None: no leaf)."""
    position = 0
    for i in index:
        if not shape.is_tuple or not 0 <= i < len(shape.tuple_shapes):
            return None
        position += sum(len(s.leaves()) for s in shape.tuple_shapes[:i])
        shape = shape.tuple_shapes[i]
    return None if shape.is_tuple else position


_SUFFIX = re.compile(r"\.\d+$")
_BAD = re.compile(r"[^A-Za-z0-9_.]")


def symbol_base(name: str) -> str:
    """A function or module symbol for an HLO name: without the `.N` uniquing suffix, with
    characters MLIR and HLO both accept (what the front end gives back unchanged)."""
    base = _BAD.sub("_", _SUFFIX.sub("", name)).strip(".") or "f"
    if not (base[0].isalpha() or base[0] == "_"):
        base = "_" + base
    return re.sub(r"^_+", "_", base)


__all__ = ["ModulePrinter", "print_stablehlo", "symbol_base"]
