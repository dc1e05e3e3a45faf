"""IR -> canonical HLO text, in the style of XLA's default `HloModule::ToString()`.

Printing is a fixed point (printing parsed printed text gives the same bytes). Unlike
XLA's default, constants are printed in full (an elided `{...}` would lose data) unless
they were elided in the input.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hlotool.diagnostics import HloError
from hlotool.syntax.strings import blob_pattern, quote
from hlotool.ir.attributes import (
    ConvDimensionNumbers,
    DomainAttr,
    LiteralAttr,
    Metadata,
    OperandAlias,
    PadDimension,
    ReplicaGroups,
    ResultAccuracy,
    SliceRange,
    Window,
)
from hlotool.ir.computation import Computation
from hlotool.ir.compare_order import order_attrs, type_attrs
from hlotool.ir.instruction import Instruction
from hlotool.ir.literal import LiteralError
from hlotool.ir.module import Module
from hlotool.ir.opcodes import OPS, AttrKind, AttrSpec, Opcode
from hlotool.ir.types import Shape, shape_to_text


@dataclass(frozen=True, slots=True)
class PrintOptions:
    """What to print; the defaults give the canonical form."""

    percent: bool = True
    metadata: bool = True
    backend_config: bool = True
    signatures: bool = True
    #: Print constants with more than 10 elements as `{...}` (not re-parseable to data).
    elide_large_constants: bool = False
    operand_index_comments: bool = True


CANONICAL = PrintOptions()
#: Like jax's `as_hlo_text()`: no `%`, no signatures, no metadata.
SHORT = PrintOptions(percent=False, metadata=False, signatures=False,
                     operand_index_comments=False)  # fmt: skip


def print_module(module: Module, options: PrintOptions = CANONICAL) -> str:
    """The whole module as text (ends with a newline)."""
    p = _Printer(options)
    parts = [p.header(module)]
    frames = p.stack_frames(module) if options.metadata else ""
    if frames:
        parts.append(frames)
    body = "\n\n".join(p.computation(c) for c in module.computations if not c.async_sugar)
    return "\n\n".join(parts) + "\n\n" + body + "\n\n"


def print_computation(comp: Computation, options: PrintOptions = CANONICAL) -> str:
    return _Printer(options).computation(comp)


def print_instruction(ins: Instruction, options: PrintOptions = CANONICAL) -> str:
    return _Printer(options).instruction(ins)


def print_attributes(ins: Instruction, options: PrintOptions = CANONICAL) -> list[str]:
    """The instruction's `key=value` attributes as the printer writes them, in order."""
    return _Printer(options).attributes(ins)


class _Printer:
    def __init__(self, options: PrintOptions) -> None:
        self.o = options
        self.pct = "%" if options.percent else ""

    # -- module ---------------------------------------------------------------------------
    def header(self, m: Module) -> str:
        cfg = m.config
        items = [f"HloModule {m.name}"]
        if cfg.is_scheduled:
            items.append("is_scheduled=true")
        if cfg.input_output_alias:
            entries = []
            for a in cfg.input_output_alias:
                kind = ", must-alias" if a.kind == "must-alias" else ", may-alias"
                entries.append(f"{_index(a.output_index)}: ({a.parameter_number}, "
                               f"{_index(a.parameter_index)}{kind})")
            items.append("input_output_alias={ " + ", ".join(entries) + " }")
        if cfg.buffer_donor:
            entries = [f"({d.parameter_number}, {_index(d.parameter_index)})" for d in cfg.buffer_donor]
            items.append("buffer_donor={ " + ", ".join(entries) + " }")
        if cfg.alias_passthrough_params:
            items.append("alias_passthrough_params=true")
        items.append("entry_computation_layout=" + _entry_layout(m))
        if cfg.allow_spmd_sharding_propagation_to_parameters:
            items.append("allow_spmd_sharding_propagation_to_parameters="
                         + _bools(cfg.allow_spmd_sharding_propagation_to_parameters))
        if cfg.allow_spmd_sharding_propagation_to_output:
            items.append("allow_spmd_sharding_propagation_to_output="
                         + _bools(cfg.allow_spmd_sharding_propagation_to_output))
        if cfg.replica_count != 1:
            items.append(f"replica_count={cfg.replica_count}")
        if cfg.num_partitions != 1:
            items.append(f"num_partitions={cfg.num_partitions}")
        if cfg.frontend_attributes:
            items.append("frontend_attributes=" + _fe_attrs(cfg.frontend_attributes))
        if cfg.origin_recovery_table:
            items.append("origin_recovery_table=" + cfg.origin_recovery_table)
        return ", ".join(items)

    def stack_frames(self, m: Module) -> str:
        sf = m.stack_frames
        if sf.is_empty:
            return ""
        sections = [
            "FileNames\n" + "".join(f"{i} {quote(s)}\n" for i, s in enumerate(sf.file_names, 1)),
            "FunctionNames\n"
            + "".join(f"{i} {quote(s)}\n" for i, s in enumerate(sf.function_names, 1)),
            "FileLocations\n" + "".join(
                f"{i} {{file_name_id={a} function_name_id={b} line={c} end_line={d} "
                f"column={e} end_column={f}}}\n"
                for i, (a, b, c, d, e, f) in enumerate(sf.file_locations, 1)
            ),
            "StackFrames\n" + "".join(
                f"{i} {{file_location_id={a} parent_frame_id={b}}}\n"
                for i, (a, b) in enumerate(sf.stack_frames, 1)
            ),
        ]
        return "\n".join(sections)

    # -- computations -------------------------------------------------------------------------
    def computation(self, c: Computation) -> str:
        head = ("ENTRY " if c.is_entry else "") + self.pct + c.name
        if self.o.signatures and c.root is not None:
            params = ", ".join(f"{p.name}: {shape_to_text(p.shape, False)}" for p in c.parameters)
            head += f" ({params}) -> {shape_to_text(c.root.shape, False)}"
        lines = [head + " {"]
        lines.extend("  " + self.instruction(i) for i in c.instructions)
        tail = "}"
        if c.execution_thread != "main":
            tail += f", execution_thread={quote(c.execution_thread)}"
        lines.append(tail)
        return "\n".join(lines)

    # -- instructions ---------------------------------------------------------------------
    def instruction(self, ins: Instruction) -> str:
        root = "ROOT " if ins.is_root else ""
        head = f"{root}{self.pct}{ins.name} = {shape_to_text(ins.shape)} {_opcode_text(ins)}"
        if ins.opcode is Opcode.PARAMETER:
            args = str(ins.parameter_number)
        elif ins.opcode is Opcode.CONSTANT:
            args = _constant_text(ins, print_large=not self.o.elide_large_constants)
        else:
            args = self.operands(ins)
        attrs = self.attributes(ins)
        return f"{head}({args})" + "".join(", " + a for a in attrs)

    def operands(self, ins: Instruction) -> str:
        parts = []
        for i, op in enumerate(ins.operands):
            text = self.pct + op.name
            if i and i % 5 == 0 and self.o.operand_index_comments:
                text = f"/*index={i}*/{text}"
            parts.append(text)
        return ", ".join(parts)

    def attributes(self, ins: Instruction) -> list[str]:
        out = self.opcode_attributes(ins)
        if ins.async_wrapped and ins.opcode is Opcode.ASYNC_START:
            out.extend(self.opcode_attributes(ins.attrs["calls"].root))
        return out + self.generic_attributes(ins)

    def opcode_attributes(self, ins: Instruction) -> list[str]:
        out = []
        for spec in OPS[ins.opcode].attrs:
            if ins.async_wrapped and spec.key == "calls":
                continue
            if spec.key == "type" and ins.opcode is Opcode.COMPARE:
                out.extend(_compare_ordering(ins))
                continue
            if spec.key not in ins.attrs:
                continue
            value = ins.attrs[spec.key]
            if _is_default(spec, value):
                continue
            out.append(f"{spec.key}={self.value(spec, value)}")
        return out

    def generic_attributes(self, ins: Instruction) -> list[str]:
        out = []
        if ins.sharding is not None:
            out.append(f"sharding={{{ins.sharding.text}}}")
        if ins.frontend_attributes:
            out.append("frontend_attributes=" + _fe_attrs(ins.frontend_attributes))
        if ins.control_predecessors:
            out.append("control-predecessors={"
                       + ", ".join(self.pct + p.name for p in ins.control_predecessors) + "}")
        if ins.statistics:
            out.append(f"statistics={{{ins.statistics}}}")
        if ins.result_accuracy is not None and ins.result_accuracy != ResultAccuracy():
            out.append("result_accuracy=" + _result_accuracy(ins.result_accuracy))
        if ins.origin:
            out.append(f"origin={{{ins.origin}}}")
        if self.o.metadata and ins.metadata is not None and not ins.metadata.is_empty:
            out.append("metadata=" + _metadata(ins.metadata))
        if self.o.backend_config and ins.backend_config:
            out.append("backend_config=" + _raw_or_quoted(ins.backend_config))
        return out

    def value(self, spec: AttrSpec, v: Any) -> str:
        if spec.kind is AttrKind.COMPUTATION:
            return self.pct + v.name
        if spec.kind is AttrKind.COMPUTATIONS:
            return "{" + ", ".join(self.pct + c.name for c in v) + "}"
        return _FORMATTERS[spec.kind](v)


def _opcode_text(ins: Instruction) -> str:
    """The opcode as written; async ops in sugar form show the op they wrap."""
    if ins.async_wrapped:
        return ins.async_wrapped + ins.opcode.value[len("async"):]
    return ins.opcode.value


def _compare_ordering(ins: Instruction) -> list[str]:
    """`type=...` or `order=...`, in the spelling of the module the compare is in."""
    ctype = ins.attrs.get("type")
    module = ins.parent.parent if ins.parent is not None else None
    if module is not None and module.config.compare_spelling == "order":
        return order_attrs(ctype, ins.operand(0).shape.element_type)
    return type_attrs(ctype)


def _is_default(spec: AttrSpec, value: Any) -> bool:
    if spec.kind is AttrKind.PRECISION:
        return all(p == "default" for p in value)
    return spec.default is not None and value == spec.default


# -- value formatting ---------------------------------------------------------------------------
def _index(idx: tuple[int, ...]) -> str:
    return "{" + ",".join(map(str, idx)) + "}"


def _bools(v: tuple[bool, ...]) -> str:
    return "{" + ",".join("true" if b else "false" for b in v) + "}"


def _entry_layout(m: Module) -> str:
    if m.entry_computation_layout is not None:
        params, result = m.entry_computation_layout.parameters, m.entry_computation_layout.result
    else:
        entry = m.entry
        params = tuple(p.shape for p in entry.parameters)
        result = entry.root_shape
    texts = [shape_to_text(s) for s in params]
    texts = [f"/*index={i}*/{t}" if i and i % 5 == 0 else t for i, t in enumerate(texts)]
    return "{(" + ", ".join(texts) + ")->" + shape_to_text(result) + "}"


_BLOB_RE: re.Pattern[str] | None = None


def _is_blob(text: str) -> bool:
    """True when the text lexes as one raw brace blob (then it is printed unquoted)."""
    global _BLOB_RE
    if _BLOB_RE is None:
        _BLOB_RE = re.compile(blob_pattern())
    return text.startswith("{") and _BLOB_RE.fullmatch(text) is not None


def _raw_or_quoted(text: str) -> str:
    return text if _is_blob(text) else quote(text)


def _fe_attrs(attrs: dict[str, str]) -> str:
    return "{" + ",".join(f"{k}={_raw_or_quoted(v)}" for k, v in sorted(attrs.items())) + "}"


def _metadata(md: Metadata) -> str:
    parts = []
    for name in ("op_type", "op_name", "source_file"):
        if getattr(md, name):
            parts.append(f"{name}={quote(getattr(md, name))}")
    for name in ("source_line", "source_end_line", "source_column", "source_end_column"):
        if getattr(md, name):
            parts.append(f"{name}={getattr(md, name)}")
    if md.profile_type:
        parts.append("profile_type=" + _index(md.profile_type))
    for name in ("deduplicated_name", "scheduling_name"):
        if getattr(md, name):
            parts.append(f"{name}={quote(getattr(md, name))}")
    if md.stack_frame_id:
        parts.append(f"stack_frame_id={md.stack_frame_id}")
    return "{" + " ".join(parts) + "}"


def _result_accuracy(ra: ResultAccuracy) -> str:
    if ra.is_tolerance:
        return (f"{{tolerance={{atol={_g(ra.atol)},rtol={_g(ra.rtol)},ulps={ra.ulps}}}}}")
    return f"{{mode={ra.mode}}}"


def _g(x: float) -> str:
    """absl::StrCat's float formatting (%g with 6 significant digits)."""
    return f"{x:g}"


def window_text(w: Window) -> str:
    """A window as XLA prints it (also an HloProto's Window, which has the same fields)."""
    dims = w.dimensions
    if not dims:
        return "{}"

    def join(values: list[Any]) -> str:
        return "x".join(str(v) for v in values)

    parts = [f"size={join([d.size for d in dims])}"]
    if any(d.stride != 1 for d in dims):
        parts.append(f"stride={join([d.stride for d in dims])}")
    if any(d.padding_low or d.padding_high for d in dims):
        parts.append("pad=" + "x".join(f"{d.padding_low}_{d.padding_high}" for d in dims))
    if any(d.base_dilation != 1 for d in dims):
        parts.append(f"lhs_dilate={join([d.base_dilation for d in dims])}")
    if any(d.window_dilation != 1 for d in dims):
        parts.append(f"rhs_dilate={join([d.window_dilation for d in dims])}")
    if any(d.window_reversal for d in dims):
        parts.append(f"rhs_reversal={join([int(d.window_reversal) for d in dims])}")
    return "{" + " ".join(parts) + "}"


def dim_labels_text(d: ConvDimensionNumbers) -> str:
    """`b01f_01io->b01f` from dimension numbers."""

    def labels(rank: int, a: tuple[int, str], b: tuple[int, str], spatial: tuple[int, ...]) -> str:
        chars = ["?"] * rank
        chars[a[0]] = a[1]
        chars[b[0]] = b[1]
        for i, pos in enumerate(spatial):
            chars[pos] = str(i)
        return "".join(chars)

    rank = len(d.input_spatial_dimensions) + 2
    lhs = labels(rank, (d.input_batch_dimension, "b"), (d.input_feature_dimension, "f"),
                 d.input_spatial_dimensions)
    rhs = labels(rank, (d.kernel_input_feature_dimension, "i"),
                 (d.kernel_output_feature_dimension, "o"), d.kernel_spatial_dimensions)
    out = labels(rank, (d.output_batch_dimension, "b"), (d.output_feature_dimension, "f"),
                 d.output_spatial_dimensions)
    return f"{lhs}_{rhs}->{out}"


def _slice(ranges: tuple[SliceRange, ...]) -> str:
    strided = any(r.stride != 1 for r in ranges)
    parts = [f"[{r.start}:{r.limit}:{r.stride}]" if strided else f"[{r.start}:{r.limit}]"
             for r in ranges]
    return "{" + ", ".join(parts) + "}"


def _padding(dims: tuple[PadDimension, ...]) -> str:
    interior = any(d.interior for d in dims)
    return "x".join(f"{d.low}_{d.high}_{d.interior}" if interior else f"{d.low}_{d.high}"
                    for d in dims)


def _replica_groups(rg: ReplicaGroups) -> str:
    if rg.iota_text:
        return rg.iota_text
    return "{" + ",".join(_index(g) for g in rg.groups) + "}"


def _aliasing(aliases: tuple[OperandAlias, ...]) -> str:
    return "{" + ", ".join(f"{_index(a.output_index)}: ({a.operand_number}, "
                           f"{_index(a.operand_index)})" for a in aliases) + "}"


def _domain(d: DomainAttr) -> str:
    parts = [f"kind={quote(d.kind)}"]
    if d.entry is not None:
        parts.append(f"entry={{{d.entry.text}}}")
    if d.exit is not None:
        parts.append(f"exit={{{d.exit.text}}}")
    return "{" + ", ".join(parts) + "}"


def _literal_attr(v: LiteralAttr) -> str:
    return f"{shape_to_text(v.shape)} {v.text}"


_FORMATTERS: dict[AttrKind, Callable[[Any], str]] = {
    AttrKind.BOOL: lambda v: "true" if v else "false",
    AttrKind.INT: str,
    AttrKind.FLOAT: _g,
    AttrKind.STRING: quote,
    AttrKind.ENUM: str,
    AttrKind.IDENT: str,
    AttrKind.INTS: _index,
    AttrKind.INTS_LIST: lambda v: "{" + ",".join(_index(x) for x in v) + "}",
    AttrKind.BOOLS: _bools,
    AttrKind.WINDOW: window_text,
    AttrKind.DIM_LABELS: dim_labels_text,
    AttrKind.SLICE: _slice,
    AttrKind.PADDING: _padding,
    AttrKind.SHAPE: shape_to_text,
    AttrKind.SHAPES: lambda v: "{" + ", ".join(shape_to_text(s) for s in v) + "}",
    AttrKind.PRECISION: lambda v: "{" + ",".join(v) + "}",
    AttrKind.REPLICA_GROUPS: _replica_groups,
    AttrKind.ALIASING: _aliasing,
    AttrKind.LITERAL: _literal_attr,
    AttrKind.DOMAIN: _domain,
    AttrKind.RAW: str,
}

__all__ = ["CANONICAL", "SHORT", "PrintOptions", "Shape", "print_attributes",
           "print_computation", "print_instruction", "print_module"]  # fmt: skip


def _constant_text(ins: Instruction, print_large: bool) -> str:
    """The literal inside `constant(...)`; one too long to write is an error naming it."""
    assert ins.literal is not None
    try:
        return ins.literal.to_text(print_large=print_large)
    except LiteralError as exc:
        raise HloError(f"{ins.name}: {exc.message}") from None
