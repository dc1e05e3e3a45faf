"""The op table of the StableHLO printer: one converter per HLO opcode.

Converters use StableHLO's pretty forms where MLIR has them (`stablehlo.add %a, %b : T`,
`stablehlo.dot_general ... contracting_dims = [1] x [0]`, compact `stablehlo.reduce`)
and the generic form `"stablehlo.sort"(...) <{...}> ({...}) : (...) -> ...` elsewhere.
Elementwise ops are data (`_SAME_TYPE`, `_FUNCTIONAL`); the rest register with `@handles`.
Attribute defaults are printed the way the StableHLO front end reads them back, so that
printing is a fixed point (e.g. `precision = [DEFAULT, DEFAULT]` is always written).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.ir.attributes import (
    ConvDimensionNumbers,
    ResultAccuracy,
    Window,
    WindowDimension,
)
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.literal import Literal
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Layout, PrimitiveType, Shape
from hlotool.stablehlo.printer.asm import Newline, Part, Region, Value
from hlotool.stablehlo.printer.block import (
    HANDLERS,
    Block,
    Entry,
    Ref,
    TupleRef,
    commas,
    handles,
    result_shapes,
)
from hlotool.stablehlo.printer.text import (
    bool_text,
    bools,
    dense_i64,
    element_type,
    float_text,
    function_type,
    i64_array,
    ints,
    value_type,
)

O = Opcode
P = PrimitiveType

# -- signatures and common shapes -----------------------------------------------------------


def same_or_functional(values: Sequence[Value], ins: Instruction) -> str:
    """`T` when every operand has the result's type (SameOperandsAndResultType), else
    `(A, B) -> R`."""
    rt = value_type(ins.shape)
    if all(v.type == rt for v in values):
        return rt
    return functional(values, ins)


def functional(values: Sequence[Value], ins: Instruction) -> str:
    """`(A, B) -> R` or `(A) -> (R1, R2)` for the instruction's results."""
    results = [value_type(s) for s in result_shapes(ins.shape)]
    return function_type([v.type for v in values], results)


def pretty(
    b: Block,
    ins: Instruction,
    head: list[Part],
    signature: str,
    attrs: Sequence[Entry] = (),
    names: Sequence[str] = (),
) -> Ref:
    """`head {attrs} : signature`."""
    return b.emit_for(ins, [*head, *b.attr_dict(ins, attrs), " : " + signature], names)


def generic(
    b: Block,
    ins: Instruction,
    name: str,
    operands: Sequence[Value],
    props: Sequence[str],
    regions: Sequence[Region] = (),
    names: Sequence[str] = (),
) -> Ref:
    """`"name"(operands) <{props}> ({regions}) {attrs} : (types) -> types`."""
    parts: list[Part] = [f'"{name}"(', *commas(operands), ")"]
    if props:
        parts.append(" <{" + ", ".join(sorted(props, key=key_of)) + "}>")
    if regions:
        parts.append(" (")
        for i, region in enumerate(regions):
            parts += [", " if i else "", region]
        parts.append(")")
    parts += [*b.attr_dict(ins), " : " + functional(operands, ins)]
    return b.emit_for(ins, parts, names)


def key_of(entry: str) -> str:
    """The key of a `key = value` dictionary entry."""
    return entry.split(" = ", 1)[0]


def region(b: Block, comp: Computation) -> Region:
    """A region of `comp` whose parameters are the block arguments (reducers, comparators)."""
    child = b.child(comp)
    child.bind_arguments(comp.parameters)
    return child.convert()


# -- elementwise ----------------------------------------------------------------------------

#: Ops printed `name %a, %b : T` (or `: (A, B) -> R` when the types differ).
_SAME_TYPE: dict[Opcode, str] = {
    O.ABS: "stablehlo.abs", O.CBRT: "stablehlo.cbrt", O.CEIL: "stablehlo.ceil",
    O.COS: "stablehlo.cosine", O.CLZ: "stablehlo.count_leading_zeros",
    O.EXP: "stablehlo.exponential", O.EXPM1: "stablehlo.exponential_minus_one",
    O.FLOOR: "stablehlo.floor", O.IMAG: "stablehlo.imag", O.IS_FINITE: "stablehlo.is_finite",
    O.LOG: "stablehlo.log", O.LOG1P: "stablehlo.log_plus_one", O.LOGISTIC: "stablehlo.logistic",
    O.NEGATE: "stablehlo.negate", O.NOT: "stablehlo.not", O.POPCNT: "stablehlo.popcnt",
    O.REAL: "stablehlo.real", O.ROUND_AFZ: "stablehlo.round_nearest_afz",
    O.ROUND_EVEN: "stablehlo.round_nearest_even", O.RSQRT: "stablehlo.rsqrt",
    O.SIGN: "stablehlo.sign", O.SIN: "stablehlo.sine", O.SQRT: "stablehlo.sqrt",
    O.TAN: "stablehlo.tan", O.TANH: "stablehlo.tanh",
    O.ADD: "stablehlo.add", O.AND: "stablehlo.and", O.ATAN2: "stablehlo.atan2",
    O.DIVIDE: "stablehlo.divide",
    O.MAXIMUM: "stablehlo.maximum", O.MINIMUM: "stablehlo.minimum",
    O.MULTIPLY: "stablehlo.multiply", O.OR: "stablehlo.or", O.POWER: "stablehlo.power",
    O.REMAINDER: "stablehlo.remainder", O.SHIFT_LEFT: "stablehlo.shift_left",
    O.SHIFT_RIGHT_ARITHMETIC: "stablehlo.shift_right_arithmetic",
    O.SHIFT_RIGHT_LOGICAL: "stablehlo.shift_right_logical",
    O.SUBTRACT: "stablehlo.subtract", O.XOR: "stablehlo.xor", O.CLAMP: "stablehlo.clamp",
    O.CONVERT: "stablehlo.convert",
}  # fmt: skip
#: Ops whose type is always written `(A) -> R`.
_FUNCTIONAL: dict[Opcode, str] = {
    O.BITCAST_CONVERT: "stablehlo.bitcast_convert", O.RESHAPE: "stablehlo.reshape",
    O.DYNAMIC_UPDATE_SLICE: "stablehlo.dynamic_update_slice",
}  # fmt: skip
#: CHLO ops (XLA opcodes StableHLO lacks), printed `chlo.erf %x : T -> T`.
_CHLO: dict[Opcode, str] = {
    O.ERF: "chlo.erf", O.MULHI: "chlo.mulhi", O.ACOS: "chlo.acos", O.ACOSH: "chlo.acosh",
    O.ASIN: "chlo.asin", O.ASINH: "chlo.asinh", O.ATAN: "chlo.atan", O.ATANH: "chlo.atanh",
    O.COSH: "chlo.cosh", O.SINH: "chlo.sinh",
}  # fmt: skip
#: Reducer ops that the compact `applies` form of stablehlo.reduce can name.
COMPACT_REDUCERS = frozenset({
    O.ADD, O.AND, O.ATAN2, O.DIVIDE, O.MAXIMUM, O.MINIMUM, O.MULTIPLY, O.OR, O.POWER,
    O.REMAINDER, O.SHIFT_LEFT, O.SHIFT_RIGHT_ARITHMETIC, O.SHIFT_RIGHT_LOGICAL, O.SUBTRACT,
    O.XOR,
})  # fmt: skip


def _same_type(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    head: list[Part] = [_SAME_TYPE[ins.opcode], " ", *commas(values)]
    return pretty(b, ins, head, same_or_functional(values, ins), _accuracy(ins))


def _functional(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    return pretty(b, ins, [_FUNCTIONAL[ins.opcode], " ", *commas(values)], functional(values, ins))


def _chlo(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    sig = ", ".join(v.type for v in values) + " -> " + value_type(ins.shape)
    return pretty(b, ins, [_CHLO[ins.opcode], " ", *commas(values)], sig)


for _op in _SAME_TYPE:
    HANDLERS[_op] = _same_type
for _op in _FUNCTIONAL:
    HANDLERS[_op] = _functional
for _op in _CHLO:
    HANDLERS[_op] = _chlo


def _accuracy(ins: Instruction) -> list[str]:
    ra = ins.result_accuracy
    if ra is None or ra == ResultAccuracy():
        return []
    fields = []
    if ra.is_tolerance:
        fields += [f"{k} = {float_text(v, P.F64)}" for k, v in (("atol", ra.atol),
                   ("rtol", ra.rtol)) if v]  # fmt: skip
        fields += [f"ulps = {ra.ulps}"] if ra.ulps else []
    mode = "TOLERANCE" if ra.is_tolerance else ra.mode.upper()
    fields.append(f"mode = #stablehlo.result_accuracy_mode<{mode}>")
    return [f"result_accuracy = #stablehlo.result_accuracy<{', '.join(fields)}>"]


def default_compare_type(t: PrimitiveType) -> str:
    """The comparison type XLA uses when HLO text does not write one."""
    if t.is_float or t.is_complex:
        return "FLOAT"
    return "SIGNED" if t.is_signed_int else "UNSIGNED"


@handles(O.COMPLEX)
def _complex(b: Block, ins: Instruction) -> Ref:
    """`: tensor<4xcomplex<f32>>` when the parts have the result's dims (ComplexOpType)."""
    re_part, im_part = b.operands(ins)
    part = value_type(Shape.array(ins.shape.element_type.component_type, ins.shape.dimensions))
    same = re_part.type == im_part.type == part
    sig = value_type(ins.shape) if same else functional([re_part, im_part], ins)
    return pretty(b, ins, ["stablehlo.complex ", re_part, ", ", im_part], sig)


@handles(O.COMPARE)
def _compare(b: Block, ins: Instruction) -> Ref:
    lhs, rhs = b.operands(ins)
    ctype = ins.attrs.get("type") or default_compare_type(ins.operand(0).shape.element_type)
    direction = ins.attrs["direction"]
    head: list[Part] = [f"stablehlo.compare {direction}, ", lhs, ", ", rhs, f", {ctype}"]
    return pretty(b, ins, head, functional([lhs, rhs], ins))


@handles(O.SELECT)
def _select(b: Block, ins: Instruction) -> Ref:
    pred, on_true, on_false = b.operands(ins)
    if ins.operand(0).shape.rank == 0 and ins.shape.rank > 0:
        # The front end broadcasts a scalar predicate; doing it here keeps the fixed point.
        shape = Shape.array(P.PRED, ins.shape.dimensions)
        template = "stablehlo.broadcast_in_dim {}, dims = []"
        pred = b.value(step(b, b.ref(ins.operand(0)), shape, template))
    rt = value_type(ins.shape)
    same = on_true.type == on_false.type == rt
    sig = f"{pred.type}, {rt}" if same else functional([pred, on_true, on_false], ins)
    return pretty(b, ins, ["stablehlo.select ", *commas([pred, on_true, on_false])], sig)


@handles(O.REDUCE_PRECISION)
def _reduce_precision(b: Block, ins: Instruction) -> Ref:
    (x,) = b.operands(ins)
    fmt = f", format = e{ins.attrs['exponent_bits']}m{ins.attrs['mantissa_bits']}"
    return pretty(b, ins, ["stablehlo.reduce_precision ", x, fmt], same_or_functional([x], ins))


# -- leaves ---------------------------------------------------------------------------------


@handles(O.CONSTANT)
def _constant(b: Block, ins: Instruction) -> Ref:
    lit = ins.literal
    if lit is None:
        raise HloError(f"constant {ins.name} has no value")
    if lit.shape.is_tuple:
        return TupleRef([_constant_leaf(b, e) for e in lit.elements], lit.shape)
    return b.constant(lit, b.attr_dict(ins))


def _constant_leaf(b: Block, lit: Literal) -> Ref:
    if lit.shape.is_tuple:
        return TupleRef([_constant_leaf(b, e) for e in lit.elements], lit.shape)
    return b.constant(lit)


@handles(O.IOTA)
def _iota(b: Block, ins: Instruction) -> Ref:
    return pretty(b, ins, [f"stablehlo.iota dim = {ins.attrs['iota_dimension']}"],
                  value_type(ins.shape))  # fmt: skip


@handles(O.PARTITION_ID, O.REPLICA_ID)
def _ids(b: Block, ins: Instruction) -> Ref:
    name = "stablehlo.partition_id" if ins.opcode is O.PARTITION_ID else "stablehlo.replica_id"
    return pretty(b, ins, [name], value_type(ins.shape))


@handles(O.RNG)
def _rng(b: Block, ins: Instruction) -> Ref:
    lo, hi = b.operands(ins)
    dims = np.array(ins.shape.dimensions, np.int64)
    shape = b.constant(Literal.from_array(dims, P.S64)).value
    dist = ins.attrs["distribution"].removeprefix("rng_").upper()
    head: list[Part] = ["stablehlo.rng ", *commas([lo, hi, shape]), f", distribution = {dist}"]
    return pretty(b, ins, head, functional([lo, hi, shape], ins))


_RNG_ALGORITHMS = {"rng_default": "DEFAULT", "rng_three_fry": "THREE_FRY", "rng_philox": "PHILOX"}


@handles(O.RNG_BIT_GENERATOR)
def _rng_bit_generator(b: Block, ins: Instruction) -> Ref:
    (state,) = b.operands(ins)
    algo = _RNG_ALGORITHMS[ins.attrs["algorithm"]]
    head: list[Part] = ["stablehlo.rng_bit_generator ", state, f", algorithm = {algo}"]
    return pretty(b, ins, head, functional([state], ins), names=("output_state", "output"))


@handles(O.AFTER_ALL)
def _after_all(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    head: list[Part] = ["stablehlo.after_all", *([" ", *commas(values)] if values else [])]
    return pretty(b, ins, head, "!stablehlo.token")


# -- tuples, identities and layout changes -------------------------------------------------


@handles(O.TUPLE)
def _tuple(b: Block, ins: Instruction) -> Ref:
    return TupleRef([b.ref(o) for o in ins.operands], ins.shape)


@handles(O.GET_TUPLE_ELEMENT)
def _get_tuple_element(b: Block, ins: Instruction) -> Ref:
    ref = b.ref(ins.operand(0))
    index = ins.attrs["index"]
    if isinstance(ref, TupleRef):
        return ref.elements[index]
    return b.get_element(ref, index)


@handles(O.COPY, O.DOMAIN, O.ADD_DEPENDENCY, O.ASYNC_UPDATE, O.ALL_REDUCE_DONE)
def _identity(b: Block, ins: Instruction) -> Ref:
    """Ops that only change layouts, placement or scheduling: the operand itself."""
    return b.ref(ins.operand(0))


@handles(O.COPY_START)
def _copy_start(b: Block, ins: Instruction) -> Ref:
    """(destination, source, context): the copy is the operand itself."""
    x = b.ref(ins.operand(0))
    context = [b.constant(Literal.zeros(s)) for s in ins.shape.tuple_shapes[2:]]
    return TupleRef([x, x, *context], ins.shape)


@handles(O.COPY_DONE)
def _copy_done(b: Block, ins: Instruction) -> Ref:
    return _element(b, ins.operand(0), 0)


@handles(O.ALL_GATHER_DONE, O.COLLECTIVE_PERMUTE_DONE, O.ASYNC_DONE)
def _second_element(b: Block, ins: Instruction) -> Ref:
    return _element(b, ins.operand(0), 1)


def _element(b: Block, tup: Instruction, index: int) -> Ref:
    ref = b.ref(tup)
    if isinstance(ref, TupleRef):
        return ref.elements[index]
    return b.get_element(ref, index)


def _major_to_minor(shape: Shape) -> list[int]:
    layout = shape.layout or Layout.default_for_rank(shape.rank)
    return list(reversed(layout.minor_to_major))


@handles(O.BITCAST)
def _bitcast(b: Block, ins: Instruction) -> Ref:
    """A bitcast reinterprets the buffer: into physical order, reshape (and retype),
    back to logical order. Steps that change nothing are left out."""
    src, dst = ins.operand(0).shape, ins.shape
    ref = b.ref(ins.operand(0))
    order_in, order_out = _major_to_minor(src), _major_to_minor(dst)
    physical_in = Shape.array(src.element_type, [src.dimensions[d] for d in order_in])
    physical_out = Shape.array(dst.element_type, [dst.dimensions[d] for d in order_out])
    if order_in != sorted(order_in):
        ref = step(b, ref, physical_in, f"stablehlo.transpose {{}}, dims = {ints(order_in)}")
    if src.element_type is not dst.element_type:
        if src.element_type.bits != dst.element_type.bits:
            raise HloError(f"bitcast {ins.name} changes the element width; no StableHLO form")
        retyped = Shape.array(dst.element_type, physical_in.dimensions)
        ref = step(b, ref, retyped, "stablehlo.bitcast_convert {}")
    if physical_in.dimensions != physical_out.dimensions:
        ref = step(b, ref, physical_out, "stablehlo.reshape {}")
    if order_out != sorted(order_out):
        inverse = [int(i) for i in np.argsort(order_out)]
        ref = step(b, ref, Shape.array(dst.element_type, dst.dimensions),
                    f"stablehlo.transpose {{}}, dims = {ints(inverse)}")  # fmt: skip
    return ref


def step(b: Block, ref: Ref, shape: Shape, template: str) -> Ref:
    """One unary op from a `"name {} attrs"` template (`{}` is the operand)."""
    x = b.value(ref)
    before, after = template.split("{}")
    sig = function_type([x.type], [value_type(shape)])
    return b.emit([before, x, after + " : " + sig], [shape])[0]


# -- data movement --------------------------------------------------------------------------


@handles(O.BROADCAST)
def _broadcast(b: Block, ins: Instruction) -> Ref:
    (x,) = b.operands(ins)
    dims = ins.attrs.get("dimensions", ())
    return pretty(b, ins, ["stablehlo.broadcast_in_dim ", x, f", dims = {ints(dims)}"],
                  functional([x], ins))  # fmt: skip


@handles(O.TRANSPOSE)
def _transpose(b: Block, ins: Instruction) -> Ref:
    (x,) = b.operands(ins)
    head: list[Part] = ["stablehlo.transpose ", x, f", dims = {ints(ins.attrs['dimensions'])}"]
    return pretty(b, ins, head, functional([x], ins))


@handles(O.REVERSE)
def _reverse(b: Block, ins: Instruction) -> Ref:
    (x,) = b.operands(ins)
    head: list[Part] = ["stablehlo.reverse ", x, f", dims = {ints(ins.attrs['dimensions'])}"]
    return pretty(b, ins, head, same_or_functional([x], ins))


@handles(O.CONCATENATE)
def _concatenate(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    head: list[Part] = ["stablehlo.concatenate ", *commas(values),
                        f", dim = {ins.attrs['dimensions'][0]}"]  # fmt: skip
    return pretty(b, ins, head, functional(values, ins))


@handles(O.SLICE)
def _slice(b: Block, ins: Instruction) -> Ref:
    (x,) = b.operands(ins)
    ranges = ", ".join(f"{r.start}:{r.limit}" + (f":{r.stride}" if r.stride != 1 else "")
                       for r in ins.attrs["slice"])  # fmt: skip
    return pretty(b, ins, ["stablehlo.slice ", x, f" [{ranges}]"], functional([x], ins))


@handles(O.DYNAMIC_SLICE)
def _dynamic_slice(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    sizes = ints(ins.attrs["dynamic_slice_sizes"])
    head: list[Part] = ["stablehlo.dynamic_slice ", *commas(values), f", sizes = {sizes}"]
    return pretty(b, ins, head, functional(values, ins))


@handles(O.PAD)
def _pad(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    pads = ins.attrs["padding"]
    text = (f", low = {ints([p.low for p in pads])}, high = {ints([p.high for p in pads])}, "
            f"interior = {ints([p.interior for p in pads])}")  # fmt: skip
    return pretty(b, ins, ["stablehlo.pad ", *commas(values), text], functional(values, ins))


@handles(O.GET_DIMENSION_SIZE)
def _get_dimension_size(b: Block, ins: Instruction) -> Ref:
    (x,) = b.operands(ins)
    head: list[Part] = ["stablehlo.get_dimension_size ", x, f", dim = {ins.attrs['dimensions'][0]}"]
    return pretty(b, ins, head, functional([x], ins))


@handles(O.SET_DIMENSION_SIZE)
def _set_dimension_size(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    head: list[Part] = ["stablehlo.set_dimension_size ", *commas(values),
                        f", dim = {ins.attrs['dimensions'][0]}"]  # fmt: skip
    return pretty(b, ins, head, functional(values, ins))


def dims_attr(kind: str, fields: Sequence[tuple[str, Sequence[int]]], index_vector_dim: int) -> str:
    """`#stablehlo.gather<offset_dims = [1], ..., index_vector_dim = 1>`: empty lists and
    `index_vector_dim = 0` are left out, as MLIR prints them."""
    items = [f"{name} = {ints(v)}" for name, v in fields if v]
    if index_vector_dim:
        items.append(f"index_vector_dim = {index_vector_dim}")
    return f"#stablehlo.{kind}<{', '.join(items)}>"


_GATHER_FIELDS = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                  "start_indices_batching_dims", "start_index_map")  # fmt: skip
_SCATTER_FIELDS = ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                   "scatter_indices_batching_dims", "scatter_dims_to_operand_dims")  # fmt: skip


@handles(O.GATHER)
def _gather(b: Block, ins: Instruction) -> Ref:
    a = ins.attrs
    dims = dims_attr("gather", [(f, a.get(f, ())) for f in _GATHER_FIELDS], a["index_vector_dim"])
    props = [
        f"dimension_numbers = {dims}",
        f"indices_are_sorted = {bool_text(a.get('indices_are_sorted', False))}",
        f"slice_sizes = {i64_array(a['slice_sizes'])}",
    ]
    return generic(b, ins, "stablehlo.gather", b.operands(ins), props)


@handles(O.SCATTER)
def _scatter(b: Block, ins: Instruction) -> Ref:
    a = ins.attrs
    dims = dims_attr("scatter", [(f, a.get(f, ())) for f in _SCATTER_FIELDS], a["index_vector_dim"])
    props = [
        f"indices_are_sorted = {bool_text(a.get('indices_are_sorted', False))}",
        f"scatter_dimension_numbers = {dims}",
        f"unique_indices = {bool_text(a.get('unique_indices', False))}",
    ]
    values = b.operands(ins)
    return generic(b, ins, "stablehlo.scatter", values, props, [region(b, a["to_apply"])])


# -- reductions and windows -----------------------------------------------------------------


@handles(O.REDUCE)
def _reduce(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    n = len(values) // 2
    comp = ins.attrs["to_apply"]
    head: list[Part] = ["stablehlo.reduce"]
    for i in range(n):
        head += [", " if i else "", "(", values[i], " init: ", values[n + i], ")"]
    dims = f" across dimensions = {ints(ins.attrs['dimensions'])}"
    reducer = compact_reducer(comp, ins.operand(0).shape.element_type) if n == 1 else None
    if reducer is not None:
        return pretty(b, ins, [*head, f" applies {reducer}", dims], functional(values, ins))
    body = b.child(comp, header=False)
    body.bind_arguments(comp.parameters)
    block = body.convert()
    tail: list[Part] = [Newline(1), "reducer"]
    for i in range(n):
        lhs, rhs = block.args[i], block.args[n + i]
        tail += ["(" if not i else " (", lhs, f": {lhs.type}, ", rhs, f": {rhs.type})"]
    tail += ["  ", block]
    sig = " : " + functional(values, ins)
    return b.emit_for(ins, [*head, dims, *b.attr_dict(ins), sig, *tail])


def compact_reducer(comp: Computation, et: PrimitiveType) -> str | None:
    """`stablehlo.add` when the reducer is exactly `root = add(p0, p1)` on scalars of the
    input's element type (MLIR's condition for `applies`), else None."""
    root = comp.root
    params = comp.parameters
    if root is None or root.opcode not in COMPACT_REDUCERS or len(params) != 2:
        return None
    scalar = Shape.scalar(et)
    if root.operands != tuple(params) or any(
        not s.compatible(scalar) or s.dimensions for s in (root.shape, *(p.shape for p in params))
    ):
        return None
    live = [i for i in comp.instructions if i.opcode is not Opcode.PARAMETER]
    if live != [root]:
        return None
    return _SAME_TYPE[root.opcode]


def window_props(w: Window | None, rank: int, *, dilations: bool = True) -> list[str]:
    """The reduce_window / select_and_scatter window attributes, all written out."""
    dims = w.dimensions if w is not None and w.dimensions else None
    size = [d.size for d in dims] if dims else [1] * rank
    props = [f"window_dimensions = {i64_array(size)}"]
    props.append(f"window_strides = {i64_array([d.stride for d in dims] if dims else [1] * rank)}")
    pads = [(d.padding_low, d.padding_high) for d in dims] if dims else [(0, 0)] * rank
    props.append(f"padding = {dense_i64(pads, 2)}")
    if dilations:
        base = [d.base_dilation for d in dims] if dims else [1] * rank
        win = [d.window_dilation for d in dims] if dims else [1] * rank
        props += [f"base_dilations = {i64_array(base)}", f"window_dilations = {i64_array(win)}"]
    return props


@handles(O.REDUCE_WINDOW)
def _reduce_window(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    rank = ins.operand(0).shape.rank
    props = window_props(ins.attrs.get("window"), rank)
    body = region(b, ins.attrs["to_apply"])
    return generic(b, ins, "stablehlo.reduce_window", values, props, [body])


@handles(O.SELECT_AND_SCATTER)
def _select_and_scatter(b: Block, ins: Instruction) -> Ref:
    values = b.operands(ins)
    w = ins.attrs.get("window")
    if w is not None and any(d.base_dilation != 1 or d.window_dilation != 1 for d in w.dimensions):
        raise HloError(f"select-and-scatter {ins.name} has window dilations; no StableHLO form")
    props = window_props(w, ins.operand(0).shape.rank, dilations=False)
    regions = [region(b, ins.attrs["select"]), region(b, ins.attrs["scatter"])]
    return generic(b, ins, "stablehlo.select_and_scatter", values, props, regions)


@handles(O.SORT)
def _sort(b: Block, ins: Instruction) -> Ref:
    props = [f"dimension = {ins.attrs['dimensions'][0]} : i64",
             f"is_stable = {bool_text(ins.attrs.get('is_stable', False))}"]  # fmt: skip
    values = b.operands(ins)
    return generic(b, ins, "stablehlo.sort", values, props, [region(b, ins.attrs["to_apply"])])


@handles(O.MAP)
def _map(b: Block, ins: Instruction) -> Ref:
    dims = ins.attrs.get("dimensions")
    dims = tuple(range(ins.shape.rank)) if dims is None else dims
    values = b.operands(ins)
    body = region(b, ins.attrs["to_apply"])
    return generic(b, ins, "stablehlo.map", values, [f"dimensions = {i64_array(dims)}"], [body])


@handles(O.TOPK)
def _topk(b: Block, ins: Instruction) -> Ref:
    if ins.attrs.get("largest") is False:
        raise HloError(f"topk {ins.name} selects the smallest values; chlo.top_k cannot")
    (x,) = b.operands(ins)
    head: list[Part] = ["chlo.top_k(", x, f", k = {ins.attrs['k']})"]
    sig = f"{x.type} -> (" + ", ".join(value_type(s) for s in ins.shape.tuple_shapes) + ")"
    return pretty(b, ins, head, sig, names=("values", "indices"))


# -- contractions ---------------------------------------------------------------------------

#: HLO dot algorithm -> (lhs, rhs, accumulation, primitive operations).
_DOT_ALGORITHMS = {
    "dot_f32_f32_f32": ("f32", "f32", "f32", 1), "dot_f64_f64_f64": ("f64", "f64", "f64", 1),
    "dot_tf32_tf32_f32": ("tf32", "tf32", "f32", 1),
    "dot_tf32_tf32_f32_x3": ("tf32", "tf32", "f32", 3),
    "dot_bf16_bf16_f32": ("bf16", "bf16", "f32", 1),
    "dot_bf16_bf16_f32_x3": ("bf16", "bf16", "f32", 3),
    "dot_bf16_bf16_f32_x6": ("bf16", "bf16", "f32", 6),
    "dot_bf16_bf16_f32_x9": ("bf16", "bf16", "f32", 9),
    "dot_bf16_bf16_bf16": ("bf16", "bf16", "bf16", 1),
    "dot_f16_f16_f16": ("f16", "f16", "f16", 1), "dot_f16_f16_f32": ("f16", "f16", "f32", 1),
}  # fmt: skip


def _dot_algorithm(ins: Instruction) -> str:
    name = ins.attrs.get("algorithm")
    if name is None:
        return ""
    if name.startswith("dot_any_f8_any_f8_f32"):
        lhs = element_type(ins.operand(0).shape.element_type)
        rhs = element_type(ins.operand(1).shape.element_type)
        row = (lhs, rhs, "f32", 1)
    else:
        row = _DOT_ALGORITHMS[name]
    fields = [
        f"lhs_precision_type = {row[0]}", f"rhs_precision_type = {row[1]}",
        f"accumulation_type = {row[2]}", "lhs_component_count = 1", "rhs_component_count = 1",
        f"num_primitive_operations = {row[3]}",
        f"allow_imprecise_accumulation = {bool_text(name.endswith('_fast_accum'))}",
    ]  # fmt: skip
    return f", algorithm = <{', '.join(fields)}>"


def _precisions(ins: Instruction) -> list[str]:
    return [p.upper() for p in ins.attrs.get("operand_precision") or ("default", "default")]


@handles(O.DOT)
def _dot(b: Block, ins: Instruction) -> Ref:
    lhs, rhs = b.operands(ins)
    a = ins.attrs
    text = ""
    if a.get("lhs_batch_dims"):
        text += f", batching_dims = {ints(a['lhs_batch_dims'])} x {ints(a['rhs_batch_dims'])}"
    text += (f", contracting_dims = {ints(a['lhs_contracting_dims'])} x "
             f"{ints(a['rhs_contracting_dims'])}")  # fmt: skip
    text += f", precision = [{', '.join(_precisions(ins))}]" + _dot_algorithm(ins)
    head: list[Part] = ["stablehlo.dot_general ", lhs, ", ", rhs, text]
    return pretty(b, ins, head, functional([lhs, rhs], ins))


@handles(O.RAGGED_DOT)
def _ragged_dot(b: Block, ins: Instruction) -> Ref:
    a = ins.attrs
    fields = [("lhs_batching_dimensions", "lhs_batch_dims"),
              ("rhs_batching_dimensions", "rhs_batch_dims"),
              ("lhs_contracting_dimensions", "lhs_contracting_dims"),
              ("rhs_contracting_dimensions", "rhs_contracting_dims"),
              ("lhs_ragged_dimensions", "lhs_ragged_dims"),
              ("rhs_group_dimensions", "rhs_group_dims")]  # fmt: skip
    dims = ", ".join(f"{name} = {ints(a.get(key, ()))}" for name, key in fields)
    precision = ", ".join(f"#chlo<precision {p}>" for p in _precisions(ins))
    props = [f"precision_config = [{precision}]",
             f"ragged_dot_dimension_numbers = #chlo.ragged_dot<{dims}>"]  # fmt: skip
    return generic(b, ins, "chlo.ragged_dot", b.operands(ins), props)


def conv_dims_text(d: ConvDimensionNumbers) -> str:
    """`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`."""

    def labels(a: tuple[int, str], c: tuple[int, str], spatial: tuple[int, ...]) -> str:
        chars = [""] * (len(spatial) + 2)
        chars[a[0]], chars[c[0]] = a[1], c[1]
        for i, pos in enumerate(spatial):
            chars[pos] = str(i)
        return "[" + ", ".join(chars) + "]"

    lhs = labels((d.input_batch_dimension, "b"), (d.input_feature_dimension, "f"),
                 d.input_spatial_dimensions)  # fmt: skip
    rhs = labels((d.kernel_input_feature_dimension, "i"),
                 (d.kernel_output_feature_dimension, "o"), d.kernel_spatial_dimensions)  # fmt: skip
    out = labels((d.output_batch_dimension, "b"), (d.output_feature_dimension, "f"),
                 d.output_spatial_dimensions)  # fmt: skip
    return f"{lhs}x{rhs}->{out}"


def conv_window_text(w: Window | None, spatial: int) -> str:
    """`{stride = [..], pad = [[..]], lhs_dilate = [..], rhs_dilate = [..], reverse = [..]}`."""
    if not spatial:
        return "{}"
    dims = w.dimensions if w is not None and w.dimensions else (WindowDimension(),) * spatial
    pads = ", ".join(f"[{d.padding_low}, {d.padding_high}]" for d in dims)
    return (f"{{stride = {ints([d.stride for d in dims])}, pad = [{pads}], "
            f"lhs_dilate = {ints([d.base_dilation for d in dims])}, "
            f"rhs_dilate = {ints([d.window_dilation for d in dims])}, "
            f"reverse = {bools([d.window_reversal for d in dims])}}}")  # fmt: skip


@handles(O.CONVOLUTION)
def _convolution(b: Block, ins: Instruction) -> Ref:
    lhs, rhs = b.operands(ins)
    a = ins.attrs
    dn: ConvDimensionNumbers = a["dim_labels"]
    window = conv_window_text(a.get("window"), len(dn.input_spatial_dimensions))
    head: list[Part] = ["stablehlo.convolution(", lhs, ", ", rhs,
                        f") dim_numbers = {conv_dims_text(dn)}, window = {window}"]  # fmt: skip
    precision = ", ".join(f"#stablehlo<precision {p}>" for p in _precisions(ins))
    attrs = [f"batch_group_count = {a.get('batch_group_count', 1)} : i64",
             f"feature_group_count = {a.get('feature_group_count', 1)} : i64",
             f"precision_config = [{precision}]"]  # fmt: skip
    return pretty(b, ins, head, functional([lhs, rhs], ins), attrs)


@handles(O.FFT)
def _fft(b: Block, ins: Instruction) -> Ref:
    (x,) = b.operands(ins)
    text = f", type = {ins.attrs['fft_type']}, length = {ints(ins.attrs['fft_length'])}"
    return pretty(b, ins, ["stablehlo.fft ", x, text], functional([x], ins))


@handles(O.CHOLESKY)
def _cholesky(b: Block, ins: Instruction) -> Ref:
    (x,) = b.operands(ins)
    lower = ", lower = true" if ins.attrs.get("lower") else ""
    return pretty(b, ins, ["stablehlo.cholesky ", x, lower], same_or_functional([x], ins))


@handles(O.TRIANGULAR_SOLVE)
def _triangular_solve(b: Block, ins: Instruction) -> Ref:
    a = ins.attrs
    props = [f"left_side = {bool_text(a.get('left_side', False))}",
             f"lower = {bool_text(a.get('lower', False))}",
             f"transpose_a = #stablehlo<transpose {a.get('transpose_a') or 'NO_TRANSPOSE'}>",
             f"unit_diagonal = {bool_text(a.get('unit_diagonal', False))}"]  # fmt: skip
    return generic(b, ins, "stablehlo.triangular_solve", b.operands(ins), props)


_BATCH_NORM = {
    O.BATCH_NORM_TRAINING: ("stablehlo.batch_norm_training", ("output", "batch_mean", "batch_var")),
    O.BATCH_NORM_INFERENCE: ("stablehlo.batch_norm_inference", ()),
    O.BATCH_NORM_GRAD: ("stablehlo.batch_norm_grad",
                        ("grad_operand", "grad_scale", "grad_offset")),
}  # fmt: skip


@handles(*_BATCH_NORM)
def _batch_norm(b: Block, ins: Instruction) -> Ref:
    name, names = _BATCH_NORM[ins.opcode]
    props = [f"epsilon = {float_text(ins.attrs['epsilon'], P.F32)} : f32",
             f"feature_index = {ins.attrs['feature_index']} : i64"]  # fmt: skip
    return generic(b, ins, name, b.operands(ins), props, names=names)


def unsupported_opcodes() -> list[Opcode]:
    """Opcodes with no StableHLO form (printing them raises HloError); complete once
    `control` is imported too."""
    return [op for op in Opcode if op not in HANDLERS and op is not Opcode.PARAMETER]
