"""The ONE opcode table: every opcode XLA's HLO parser accepts, with its arity, its
attributes (in XLA's printing order), its category and its shape rule.

The parser, verifier, printer, interpreter and code generators all read `OPS`.
Adding an op means adding a row here, a shape rule and its kernels.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hlotool.ir import shape_rules as R


class Opcode(enum.Enum):
    """HLO opcodes, spelled as in HLO text."""

    #: Identity hash in C (Enum's own hashes the name in Python: slow in hot dicts).
    __hash__ = object.__hash__

    # -- elementwise unary ---------------------------------------------------------------
    ABS = "abs"
    ACOS = "acos"
    ACOSH = "acosh"
    ASIN = "asin"
    ASINH = "asinh"
    ATAN = "atan"
    ATANH = "atanh"
    CBRT = "cbrt"
    CEIL = "ceil"
    COS = "cosine"
    COSH = "cosh"
    CLZ = "count-leading-zeros"
    ERF = "erf"
    EXP = "exponential"
    EXPM1 = "exponential-minus-one"
    FLOOR = "floor"
    IMAG = "imag"
    IS_FINITE = "is-finite"
    LOG = "log"
    LOG1P = "log-plus-one"
    LOGISTIC = "logistic"
    NEGATE = "negate"
    NOT = "not"
    POPCNT = "popcnt"
    REAL = "real"
    ROUND_AFZ = "round-nearest-afz"
    ROUND_EVEN = "round-nearest-even"
    RSQRT = "rsqrt"
    SIGN = "sign"
    SIN = "sine"
    SINH = "sinh"
    SQRT = "sqrt"
    TAN = "tan"
    TANH = "tanh"
    # -- elementwise binary ----------------------------------------------------------------
    ADD = "add"
    AND = "and"
    ATAN2 = "atan2"
    COMPLEX = "complex"
    DIVIDE = "divide"
    MAXIMUM = "maximum"
    MINIMUM = "minimum"
    MULHI = "mulhi"
    MULTIPLY = "multiply"
    OR = "or"
    POWER = "power"
    REMAINDER = "remainder"
    SHIFT_LEFT = "shift-left"
    SHIFT_RIGHT_ARITHMETIC = "shift-right-arithmetic"
    SHIFT_RIGHT_LOGICAL = "shift-right-logical"
    SUBTRACT = "subtract"
    XOR = "xor"
    COMPARE = "compare"
    STOCHASTIC_CONVERT = "stochastic-convert"
    # -- elementwise ternary -------------------------------------------------------------
    CLAMP = "clamp"
    SELECT = "select"
    # -- conversions -------------------------------------------------------------------
    CONVERT = "convert"
    BITCAST_CONVERT = "bitcast-convert"
    REDUCE_PRECISION = "reduce-precision"
    # -- leaves --------------------------------------------------------------------------
    PARAMETER = "parameter"
    CONSTANT = "constant"
    IOTA = "iota"
    PARTITION_ID = "partition-id"
    REPLICA_ID = "replica-id"
    RNG = "rng"
    RNG_BIT_GENERATOR = "rng-bit-generator"
    RNG_GET_AND_UPDATE_STATE = "rng-get-and-update-state"
    # -- data movement -------------------------------------------------------------------
    BITCAST = "bitcast"
    BROADCAST = "broadcast"
    CONCATENATE = "concatenate"
    COPY = "copy"
    DYNAMIC_RESHAPE = "dynamic-reshape"
    DYNAMIC_SLICE = "dynamic-slice"
    DYNAMIC_UPDATE_SLICE = "dynamic-update-slice"
    GATHER = "gather"
    PAD = "pad"
    RESHAPE = "reshape"
    REVERSE = "reverse"
    SCATTER = "scatter"
    SLICE = "slice"
    TRANSPOSE = "transpose"
    GET_DIMENSION_SIZE = "get-dimension-size"
    SET_DIMENSION_SIZE = "set-dimension-size"
    # -- reductions and windows --------------------------------------------------------
    REDUCE = "reduce"
    REDUCE_WINDOW = "reduce-window"
    SELECT_AND_SCATTER = "select-and-scatter"
    SCAN = "scan"
    SORT = "sort"
    TOPK = "topk"
    MAP = "map"
    # -- contractions ----------------------------------------------------------------------
    DOT = "dot"
    RAGGED_DOT = "ragged-dot"
    SCALED_DOT = "scaled-dot"
    CONVOLUTION = "convolution"
    FFT = "fft"
    CHOLESKY = "cholesky"
    TRIANGULAR_SOLVE = "triangular-solve"
    BATCH_NORM_TRAINING = "batch-norm-training"
    BATCH_NORM_INFERENCE = "batch-norm-inference"
    BATCH_NORM_GRAD = "batch-norm-grad"
    # -- tuples and control flow -----------------------------------------------------------
    TUPLE = "tuple"
    GET_TUPLE_ELEMENT = "get-tuple-element"
    CALL = "call"
    CONDITIONAL = "conditional"
    WHILE = "while"
    FUSION = "fusion"
    CUSTOM_CALL = "custom-call"
    OPT_BARRIER = "opt-barrier"
    DOMAIN = "domain"
    ADD_DEPENDENCY = "add-dependency"
    AFTER_ALL = "after-all"
    ASYNC_START = "async-start"
    ASYNC_UPDATE = "async-update"
    ASYNC_DONE = "async-done"
    COPY_START = "copy-start"
    COPY_DONE = "copy-done"
    # -- host communication --------------------------------------------------------------
    INFEED = "infeed"
    OUTFEED = "outfeed"
    SEND = "send"
    SEND_DONE = "send-done"
    RECV = "recv"
    RECV_DONE = "recv-done"
    # -- collectives -------------------------------------------------------------------------
    ALL_GATHER = "all-gather"
    ALL_GATHER_START = "all-gather-start"
    ALL_GATHER_DONE = "all-gather-done"
    ALL_REDUCE = "all-reduce"
    ALL_REDUCE_START = "all-reduce-start"
    ALL_REDUCE_DONE = "all-reduce-done"
    ALL_TO_ALL = "all-to-all"
    RAGGED_ALL_TO_ALL = "ragged-all-to-all"
    COLLECTIVE_BROADCAST = "collective-broadcast"
    COLLECTIVE_REDUCE = "collective-reduce"
    COLLECTIVE_PERMUTE = "collective-permute"
    COLLECTIVE_PERMUTE_START = "collective-permute-start"
    COLLECTIVE_PERMUTE_DONE = "collective-permute-done"
    REDUCE_SCATTER = "reduce-scatter"


class Category(enum.Enum):
    """Opcode families, used by passes, the graph colours and statistics."""

    #: Identity hash in C (Enum's own hashes the name in Python: slow in hot dicts).
    __hash__ = object.__hash__

    ELEMENTWISE = "elementwise"
    CONVERSION = "conversion"
    LEAF = "leaf"
    DATA_MOVEMENT = "data-movement"
    REDUCTION = "reduction"
    CONTRACTION = "contraction"
    LINALG = "linalg"
    TUPLE = "tuple"
    CONTROL = "control"
    CUSTOM = "custom"
    ASYNC = "async"
    COMMUNICATION = "communication"
    COLLECTIVE = "collective"


class AttrKind(enum.Enum):
    """How an attribute value is written in text and held in the IR."""

    #: Identity hash in C (Enum's own hashes the name in Python: slow in hot dicts).
    __hash__ = object.__hash__

    BOOL = "bool"  # true|false -> bool
    INT = "int"  # INT -> int
    FLOAT = "float"  # decimal -> float
    STRING = "string"  # "..." -> str
    ENUM = "enum"  # bare identifier from `choices` -> str (canonical spelling)
    IDENT = "ident"  # any bare identifier (proto enums) -> str
    INTS = "ints"  # {1,2} -> tuple[int, ...]
    INTS_LIST = "ints-list"  # {{0,1},{2}} -> tuple[tuple[int, ...], ...]
    BOOLS = "bools"  # {true,false} -> tuple[bool, ...]
    COMPUTATION = "computation"  # name or inline body -> Computation
    COMPUTATIONS = "computations"  # {a, b} -> tuple[Computation, ...]
    WINDOW = "window"  # -> Window
    DIM_LABELS = "dim-labels"  # -> ConvDimensionNumbers
    SLICE = "slice"  # -> tuple[SliceRange, ...]
    PADDING = "padding"  # -> tuple[PadDimension, ...]
    SHAPE = "shape"  # -> Shape
    SHAPES = "shapes"  # {s, s} -> tuple[Shape, ...]
    PRECISION = "precision"  # {default, high} -> tuple[str, ...]
    REPLICA_GROUPS = "replica-groups"  # -> ReplicaGroups
    ALIASING = "aliasing"  # {{0}: (0, {})} -> tuple[OperandAlias, ...]
    LITERAL = "literal"  # shape literal -> LiteralAttr
    DOMAIN = "domain"  # -> DomainAttr
    RAW = "raw"  # anything brace-balanced, kept as canonical text -> str


@dataclass(frozen=True, slots=True)
class AttrSpec:
    """One attribute an opcode accepts."""

    key: str
    kind: AttrKind
    required: bool = False
    #: Value that is not printed (None: printed whenever present).
    default: Any = None
    #: For ENUM: the accepted spellings (matched case-sensitively unless `fold_case`).
    choices: tuple[str, ...] = ()
    fold_case: bool = False


@dataclass(frozen=True, slots=True)
class OpSpec:
    """Everything the tool knows about one opcode."""

    opcode: Opcode
    category: Category
    #: Exact operand count, or None for variadic (then `min_operands` applies).
    arity: int | None
    attrs: tuple[AttrSpec, ...]
    shape_rule: Callable[[R.ShapeContext], Any]
    #: The result shape may be omitted in text (XLA infers it).
    shape_optional: bool = True
    min_operands: int = 0
    accepts_result_accuracy: bool = False
    #: Has side effects: never removed by DCE, never folded, never duplicated.
    side_effecting: bool = False

    @property
    def name(self) -> str:
        return self.opcode.value

    def attr(self, key: str) -> AttrSpec | None:
        for a in self.attrs:
            if a.key == key:
                return a
        return None


K = AttrKind
O = Opcode


def _a(key: str, kind: AttrKind, required: bool = False, default: Any = None, **kw: Any) -> AttrSpec:
    return AttrSpec(key, kind, required, default, **kw)


def _enum(key: str, choices: str, required: bool = False, default: Any = None, fold: bool = False) -> AttrSpec:
    return AttrSpec(key, K.ENUM, required, default, tuple(choices.split()), fold)


# -- attribute groups shared by several opcodes -------------------------------------------
_PRECISION = _a("operand_precision", K.PRECISION)
_DOT_ALGORITHMS = (
    "dot_any_f8_any_f8_f32 dot_any_f8_any_f8_f32_fast_accum dot_f16_f16_f16 dot_f16_f16_f32 "
    "dot_bf16_bf16_bf16 dot_bf16_bf16_f32 dot_bf16_bf16_f32_x3 dot_bf16_bf16_f32_x6 "
    "dot_bf16_bf16_f32_x9 dot_tf32_tf32_f32 dot_tf32_tf32_f32_x3 dot_f32_f32_f32 dot_f64_f64_f64"
)
_DOT_DIMS = (
    _a("lhs_batch_dims", K.INTS, default=()),
    _a("lhs_contracting_dims", K.INTS),
    _a("rhs_batch_dims", K.INTS, default=()),
    _a("rhs_contracting_dims", K.INTS),
)
_DOT_TAIL = (_PRECISION, _enum("algorithm", _DOT_ALGORITHMS))
_COLLECTIVE_HEAD = (
    _a("channel_id", K.INT),
    _a("replica_groups", K.REPLICA_GROUPS),
    _a("constrain_layout", K.BOOL, default=False),
)
_GLOBAL_IDS = _a("use_global_device_ids", K.BOOL, default=False)
_MODE = _a("mode", K.IDENT)
_HOST = (_a("channel_id", K.INT), _a("is_host_transfer", K.BOOL, default=False))
_TO_APPLY = _a("to_apply", K.COMPUTATION, required=True)
_CONV_COMMON = (
    _a("window", K.WINDOW),
    _a("dim_labels", K.DIM_LABELS),
    _a("feature_group_count", K.INT, default=1),
    _a("batch_group_count", K.INT, default=1),
    _PRECISION,
)

# Ops that accept `result_accuracy=` (XLA's transcendental unary ops).
_ACCURACY_OPS = {
    O.ACOS, O.ACOSH, O.ASIN, O.ASINH, O.ATANH, O.CBRT, O.COS, O.COSH, O.ERF, O.EXP,
    O.EXPM1, O.LOG, O.LOG1P, O.LOGISTIC, O.RSQRT, O.SIN, O.SINH, O.SQRT, O.TAN, O.TANH,
}  # fmt: skip

_UNARY = [
    O.ABS, O.ACOS, O.ACOSH, O.ASIN, O.ASINH, O.ATAN, O.ATANH, O.CBRT, O.CEIL, O.COS,
    O.COSH, O.CLZ, O.ERF, O.EXP, O.EXPM1, O.FLOOR, O.IMAG, O.IS_FINITE, O.LOG, O.LOG1P,
    O.LOGISTIC, O.NEGATE, O.NOT, O.POPCNT, O.REAL, O.ROUND_AFZ, O.ROUND_EVEN, O.RSQRT,
    O.SIGN, O.SIN, O.SINH, O.SQRT, O.TAN, O.TANH,
]  # fmt: skip
_BINARY = [
    O.ADD, O.AND, O.ATAN2, O.COMPLEX, O.DIVIDE, O.MAXIMUM, O.MINIMUM, O.MULHI, O.MULTIPLY,
    O.OR, O.POWER, O.REMAINDER, O.SHIFT_LEFT, O.SHIFT_RIGHT_ARITHMETIC,
    O.SHIFT_RIGHT_LOGICAL, O.SUBTRACT, O.XOR,
]  # fmt: skip

C = Category
_ROWS: list[OpSpec] = [
    *(OpSpec(op, C.ELEMENTWISE, 1, (), R.elementwise_unary,
             accepts_result_accuracy=op in _ACCURACY_OPS) for op in _UNARY),
    *(OpSpec(op, C.ELEMENTWISE, 2, (), R.elementwise_binary) for op in _BINARY),
    OpSpec(O.COMPARE, C.ELEMENTWISE, 2,
           (_enum("direction", "EQ NE GE GT LE LT", required=True),
            _enum("type", "FLOAT TOTALORDER SIGNED UNSIGNED"),
            _enum("order", "TOTAL PARTIAL WEAK")), R.compare),
    OpSpec(O.STOCHASTIC_CONVERT, C.CONVERSION, 2, (), R.stochastic_convert, shape_optional=False),
    OpSpec(O.CLAMP, C.ELEMENTWISE, 3, (), R.clamp),
    OpSpec(O.SELECT, C.ELEMENTWISE, 3, (), R.select),
    OpSpec(O.CONVERT, C.CONVERSION, 1, (), R.convert, shape_optional=False),
    OpSpec(O.BITCAST_CONVERT, C.CONVERSION, 1, (), R.bitcast_convert, shape_optional=False),
    OpSpec(O.REDUCE_PRECISION, C.ELEMENTWISE, 1,
           (_a("exponent_bits", K.INT, required=True), _a("mantissa_bits", K.INT, required=True)),
           R.same_as_operand, shape_optional=False),
    # -- leaves --------------------------------------------------------------------------
    OpSpec(O.PARAMETER, C.LEAF, 0, (_a("parameter_replication", K.BOOLS),), R.declared,
           shape_optional=False),
    OpSpec(O.CONSTANT, C.LEAF, 0, (), R.declared, shape_optional=False),
    OpSpec(O.IOTA, C.LEAF, 0, (_a("iota_dimension", K.INT, required=True),), R.iota,
           shape_optional=False),
    OpSpec(O.PARTITION_ID, C.LEAF, 0, (), R.u32_scalar),
    OpSpec(O.REPLICA_ID, C.LEAF, 0, (), R.u32_scalar),
    OpSpec(O.RNG, C.LEAF, None, (_enum("distribution", "rng_uniform rng_normal", required=True),),
           R.rng, shape_optional=False, side_effecting=True),
    OpSpec(O.RNG_BIT_GENERATOR, C.LEAF, 1,
           (_enum("algorithm", "rng_default rng_three_fry rng_philox", required=True),),
           R.rng_bit_generator, shape_optional=False),
    OpSpec(O.RNG_GET_AND_UPDATE_STATE, C.LEAF, 0, (_a("delta", K.INT, required=True),),
           R.rng_get_and_update_state, shape_optional=False, side_effecting=True),
    # -- data movement -------------------------------------------------------------------
    OpSpec(O.BITCAST, C.DATA_MOVEMENT, 1, (), R.bitcast, shape_optional=False),
    OpSpec(O.BROADCAST, C.DATA_MOVEMENT, 1, (_a("dimensions", K.INTS),), R.broadcast),
    OpSpec(O.CONCATENATE, C.DATA_MOVEMENT, None, (_a("dimensions", K.INTS, required=True),),
           R.concatenate, min_operands=1),
    OpSpec(O.COPY, C.DATA_MOVEMENT, 1, (), R.same_as_operand),
    OpSpec(O.DYNAMIC_RESHAPE, C.DATA_MOVEMENT, None, (), R.dynamic_reshape,
           shape_optional=False, min_operands=1),
    OpSpec(O.DYNAMIC_SLICE, C.DATA_MOVEMENT, None,
           (_a("dynamic_slice_sizes", K.INTS, required=True),), R.dynamic_slice,
           shape_optional=False, min_operands=2),
    OpSpec(O.DYNAMIC_UPDATE_SLICE, C.DATA_MOVEMENT, None, (), R.dynamic_update_slice,
           shape_optional=False, min_operands=3),
    OpSpec(O.GATHER, C.DATA_MOVEMENT, 2,
           (_a("offset_dims", K.INTS, required=True),
            _a("collapsed_slice_dims", K.INTS, required=True),
            _a("start_index_map", K.INTS, required=True),
            _a("operand_batching_dims", K.INTS, default=()),
            _a("start_indices_batching_dims", K.INTS, default=()),
            _a("index_vector_dim", K.INT, required=True),
            _a("slice_sizes", K.INTS, required=True),
            _a("indices_are_sorted", K.BOOL, default=False)), R.gather),
    OpSpec(O.PAD, C.DATA_MOVEMENT, 2, (_a("padding", K.PADDING, required=True),), R.pad),
    OpSpec(O.RESHAPE, C.DATA_MOVEMENT, 1, (_a("inferred_dimension", K.INT),), R.reshape,
           shape_optional=False),
    OpSpec(O.REVERSE, C.DATA_MOVEMENT, 1, (_a("dimensions", K.INTS, required=True),),
           R.reverse),
    OpSpec(O.SCATTER, C.DATA_MOVEMENT, None,
           (_a("update_window_dims", K.INTS, required=True),
            _a("inserted_window_dims", K.INTS, required=True),
            _a("scatter_dims_to_operand_dims", K.INTS, required=True),
            _a("input_batching_dims", K.INTS, default=()),
            _a("scatter_indices_batching_dims", K.INTS, default=()),
            _a("index_vector_dim", K.INT, required=True),
            _a("indices_are_sorted", K.BOOL, default=False),
            _a("unique_indices", K.BOOL, default=False),
            _TO_APPLY), R.scatter, min_operands=3),
    OpSpec(O.SLICE, C.DATA_MOVEMENT, 1, (_a("slice", K.SLICE, required=True),), R.slice_,
           shape_optional=False),
    OpSpec(O.TRANSPOSE, C.DATA_MOVEMENT, 1, (_a("dimensions", K.INTS, required=True),),
           R.transpose),
    OpSpec(O.GET_DIMENSION_SIZE, C.DATA_MOVEMENT, 1, (_a("dimensions", K.INTS, required=True),),
           R.get_dimension_size),
    OpSpec(O.SET_DIMENSION_SIZE, C.DATA_MOVEMENT, 2, (_a("dimensions", K.INTS, required=True),),
           R.set_dimension_size),
    # -- reductions and windows ----------------------------------------------------------
    OpSpec(O.REDUCE, C.REDUCTION, None, (_a("dimensions", K.INTS, required=True), _TO_APPLY),
           R.reduce, min_operands=2),
    OpSpec(O.REDUCE_WINDOW, C.REDUCTION, None, (_a("window", K.WINDOW), _TO_APPLY),
           R.reduce_window, min_operands=2),
    OpSpec(O.SELECT_AND_SCATTER, C.REDUCTION, 3,
           (_a("window", K.WINDOW), _a("select", K.COMPUTATION, required=True),
            _a("scatter", K.COMPUTATION, required=True)), R.select_and_scatter),
    OpSpec(O.SCAN, C.REDUCTION, None,
           (_a("dimensions", K.INTS, required=True), _a("num_carries", K.INT, required=True),
            _a("is_reverse", K.BOOL, default=False), _a("is_associative", K.BOOL),
            _TO_APPLY), R.scan, min_operands=1),
    OpSpec(O.SORT, C.REDUCTION, None,
           (_a("dimensions", K.INTS, required=True), _a("is_stable", K.BOOL, default=False),
            _TO_APPLY), R.sort, min_operands=1),
    OpSpec(O.TOPK, C.REDUCTION, 1, (_a("k", K.INT, required=True), _a("largest", K.BOOL),
                                    _a("is_stable", K.BOOL)), R.topk),
    OpSpec(O.MAP, C.ELEMENTWISE, None, (_a("dimensions", K.INTS), _TO_APPLY), R.map_,
           min_operands=1),
    # -- contractions --------------------------------------------------------------------
    OpSpec(O.DOT, C.CONTRACTION, 2, (*_DOT_DIMS, *_DOT_TAIL), R.dot),
    OpSpec(O.RAGGED_DOT, C.CONTRACTION, 3,
           (*_DOT_DIMS, _a("lhs_ragged_dims", K.INTS, default=()),
            _a("rhs_group_dims", K.INTS, default=()), _PRECISION), R.ragged_dot),
    OpSpec(O.SCALED_DOT, C.CONTRACTION, 4, (*_DOT_DIMS, *_DOT_TAIL), R.scaled_dot),
    OpSpec(O.CONVOLUTION, C.CONTRACTION, 2,
           (*_CONV_COMMON, _enum("algorithm", _DOT_ALGORITHMS),
            _enum("convolution_kind", "fprop wgrad dgrad unset"),
            _a("sparsity_config", K.RAW)), R.convolution),
    OpSpec(O.FFT, C.CONTRACTION, 1,
           (_enum("fft_type", "FFT IFFT RFFT IRFFT", required=True),
            _a("fft_length", K.INTS, required=True)), R.fft),
    OpSpec(O.CHOLESKY, C.LINALG, 1, (_a("lower", K.BOOL, default=False),), R.cholesky),
    OpSpec(O.TRIANGULAR_SOLVE, C.LINALG, 2,
           (_a("left_side", K.BOOL, default=False), _a("lower", K.BOOL, default=False),
            _a("unit_diagonal", K.BOOL, default=False),
            _enum("transpose_a", "TRANSPOSE_INVALID NO_TRANSPOSE TRANSPOSE ADJOINT")),
           R.triangular_solve),
    OpSpec(O.BATCH_NORM_TRAINING, C.LINALG, 3,
           (_a("epsilon", K.FLOAT, required=True), _a("feature_index", K.INT, required=True)),
           R.batch_norm),
    OpSpec(O.BATCH_NORM_INFERENCE, C.LINALG, 5,
           (_a("epsilon", K.FLOAT, required=True), _a("feature_index", K.INT, required=True)),
           R.batch_norm),
    OpSpec(O.BATCH_NORM_GRAD, C.LINALG, 5,
           (_a("epsilon", K.FLOAT, required=True), _a("feature_index", K.INT, required=True)),
           R.batch_norm),
    # -- tuples and control flow -------------------------------------------------------
    OpSpec(O.TUPLE, C.TUPLE, None, (), R.tuple_),
    OpSpec(O.GET_TUPLE_ELEMENT, C.TUPLE, 1, (_a("index", K.INT, required=True),),
           R.get_tuple_element),
    OpSpec(O.CALL, C.CONTROL, None, (_TO_APPLY, _a("is_composite", K.BOOL, default=False)),
           R.call),
    OpSpec(O.CONDITIONAL, C.CONTROL, None,
           (_a("true_computation", K.COMPUTATION), _a("false_computation", K.COMPUTATION),
            _a("branch_computations", K.COMPUTATIONS)), R.conditional, min_operands=1),
    OpSpec(O.WHILE, C.CONTROL, 1,
           (_a("condition", K.COMPUTATION, required=True),
            _a("body", K.COMPUTATION, required=True)), R.while_),
    OpSpec(O.FUSION, C.CONTROL, None,
           (_enum("kind", "kLoop kInput kOutput kCustom", required=True),
            _a("output_to_operand_aliasing", K.ALIASING),
            _a("calls", K.COMPUTATION, required=True)), R.fusion, shape_optional=False),
    OpSpec(O.CUSTOM_CALL, C.CUSTOM, None,
           (*_CONV_COMMON,
            _enum("padding_type", "PADDING_INVALID PADDING_VALID PADDING_SAME"),
            _a("custom_call_target", K.STRING, required=True),
            _a("operand_layout_constraints", K.SHAPES),
            _a("custom_call_has_side_effect", K.BOOL, default=False),
            _a("literal", K.LITERAL),
            _a("output_to_operand_aliasing", K.ALIASING),
            _enum("schedule", "SCHEDULE_NONE SCHEDULE_LATEST SCHEDULE_EARLIEST",
                  default="SCHEDULE_NONE"),
            _enum("api_version", "API_VERSION_ORIGINAL API_VERSION_STATUS_RETURNING "
                  "API_VERSION_STATUS_RETURNING_UNIFIED API_VERSION_TYPED_FFI",
                  default="API_VERSION_ORIGINAL"),
            _a("to_apply", K.COMPUTATION),
            _a("called_computations", K.COMPUTATIONS)), R.custom_call, shape_optional=False),
    OpSpec(O.OPT_BARRIER, C.CONTROL, 1, (), R.same_as_operand),
    OpSpec(O.DOMAIN, C.CONTROL, 1, (_a("domain", K.DOMAIN, required=True),), R.same_as_operand),
    OpSpec(O.ADD_DEPENDENCY, C.CONTROL, 2, (), R.add_dependency),
    OpSpec(O.AFTER_ALL, C.CONTROL, None, (), R.token),
    OpSpec(O.ASYNC_START, C.ASYNC, None,
           (_a("async_execution_thread", K.STRING, default="main"),
            _a("output_to_operand_aliasing", K.ALIASING),
            _a("calls", K.COMPUTATION, required=True)), R.async_start, shape_optional=False),
    OpSpec(O.ASYNC_UPDATE, C.ASYNC, 1,
           (_a("async_execution_thread", K.STRING, default="main"),
            _a("calls", K.COMPUTATION)), R.same_as_operand, shape_optional=False),
    OpSpec(O.ASYNC_DONE, C.ASYNC, 1,
           (_a("async_execution_thread", K.STRING, default="main"),
            _a("calls", K.COMPUTATION)), R.async_done, shape_optional=False),
    OpSpec(O.COPY_START, C.ASYNC, 1, (_a("cross_program_prefetch_index", K.INT),),
           R.copy_start, shape_optional=False),
    OpSpec(O.COPY_DONE, C.ASYNC, 1, (), R.copy_done, shape_optional=False),
    # -- host communication ----------------------------------------------------------
    OpSpec(O.INFEED, C.COMMUNICATION, 1, (_a("infeed_config", K.STRING, default=""),),
           R.infeed, shape_optional=False, side_effecting=True),
    OpSpec(O.OUTFEED, C.COMMUNICATION, 2,
           (_a("outfeed_shape", K.SHAPE), _a("outfeed_config", K.STRING, default="")),
           R.outfeed, shape_optional=False, side_effecting=True),
    OpSpec(O.SEND, C.COMMUNICATION, 2, _HOST, R.send, shape_optional=False,
           side_effecting=True),
    OpSpec(O.SEND_DONE, C.COMMUNICATION, 1, _HOST, R.send_done, shape_optional=False,
           side_effecting=True),
    OpSpec(O.RECV, C.COMMUNICATION, 1, _HOST, R.recv, shape_optional=False,
           side_effecting=True),
    OpSpec(O.RECV_DONE, C.COMMUNICATION, 1, _HOST, R.recv_done, shape_optional=False,
           side_effecting=True),
    # -- collectives ---------------------------------------------------------------------
    OpSpec(O.ALL_GATHER, C.COLLECTIVE, None,
           (*_COLLECTIVE_HEAD, _a("dimensions", K.INTS, required=True), _GLOBAL_IDS),
           R.all_gather, shape_optional=False, min_operands=1),
    OpSpec(O.ALL_GATHER_START, C.COLLECTIVE, None,
           (*_COLLECTIVE_HEAD, _a("dimensions", K.INTS, required=True), _GLOBAL_IDS),
           R.all_gather_start, shape_optional=False, min_operands=1),
    OpSpec(O.ALL_GATHER_DONE, C.COLLECTIVE, 1, (), R.tuple_element_1, shape_optional=False),
    OpSpec(O.ALL_REDUCE, C.COLLECTIVE, None, (*_COLLECTIVE_HEAD, _GLOBAL_IDS, _MODE, _TO_APPLY),
           R.all_reduce, shape_optional=False, min_operands=1),
    OpSpec(O.ALL_REDUCE_START, C.COLLECTIVE, None,
           (*_COLLECTIVE_HEAD, _GLOBAL_IDS, _MODE, _TO_APPLY),
           R.all_reduce, shape_optional=False, min_operands=1),
    OpSpec(O.ALL_REDUCE_DONE, C.COLLECTIVE, 1, (), R.all_reduce_done, shape_optional=False),
    OpSpec(O.ALL_TO_ALL, C.COLLECTIVE, None, (*_COLLECTIVE_HEAD, _a("dimensions", K.INTS)),
           R.all_to_all, shape_optional=False, min_operands=1),
    OpSpec(O.RAGGED_ALL_TO_ALL, C.COLLECTIVE, 6, (*_COLLECTIVE_HEAD, _a("dimensions", K.INTS)),
           R.ragged_all_to_all, shape_optional=False),
    OpSpec(O.COLLECTIVE_REDUCE, C.COLLECTIVE, None,
           (*_COLLECTIVE_HEAD, _a("has_dynamic_root", K.BOOL, default=False), _TO_APPLY),
           R.collective_reduce, shape_optional=False, min_operands=1),
    OpSpec(O.COLLECTIVE_BROADCAST, C.COLLECTIVE, None, _COLLECTIVE_HEAD, R.collective_broadcast,
           shape_optional=False, min_operands=1),
    OpSpec(O.COLLECTIVE_PERMUTE, C.COLLECTIVE, None,
           (_a("channel_id", K.INT), _a("source_target_pairs", K.INTS_LIST, required=True),
            _a("slice_sizes", K.INTS_LIST)), R.collective_permute, shape_optional=False, min_operands=1),
    OpSpec(O.COLLECTIVE_PERMUTE_START, C.COLLECTIVE, None,
           (_a("channel_id", K.INT), _a("source_target_pairs", K.INTS_LIST, required=True),
            _a("slice_sizes", K.INTS_LIST)), R.collective_permute_start, shape_optional=False, min_operands=1),
    OpSpec(O.COLLECTIVE_PERMUTE_DONE, C.COLLECTIVE, 1, (), R.tuple_element_1, shape_optional=False),
    OpSpec(O.REDUCE_SCATTER, C.COLLECTIVE, None,
           (*_COLLECTIVE_HEAD, _GLOBAL_IDS, _a("dimensions", K.INTS, required=True), _MODE,
            _TO_APPLY), R.reduce_scatter, shape_optional=False, min_operands=1),
]  # fmt: skip

#: The table, keyed by opcode.
OPS: dict[Opcode, OpSpec] = {row.opcode: row for row in _ROWS}
assert len(OPS) == len(Opcode), sorted(set(Opcode) - set(OPS), key=str)

#: Opcode by its text spelling.
BY_NAME: dict[str, Opcode] = {op.value: op for op in Opcode}

#: Attributes every instruction accepts (held in dedicated Instruction fields).
GENERIC_ATTRIBUTES = (
    "sharding",
    "frontend_attributes",
    "control-predecessors",
    "statistics",
    "result_accuracy",
    "origin",
    "metadata",
    "backend_config",
)

ELEMENTWISE = frozenset(op for op, s in OPS.items() if s.category is Category.ELEMENTWISE) - {
    O.MAP
}
UNARY = frozenset(_UNARY)
BINARY = frozenset(_BINARY) | {O.COMPARE}
TRANSCENDENTAL = frozenset(
    {O.EXP, O.EXPM1, O.LOG, O.LOG1P, O.LOGISTIC, O.TANH, O.SIN, O.COS, O.TAN, O.ATAN2,
     O.POWER, O.RSQRT, O.SQRT, O.CBRT, O.ERF, O.ACOS, O.ACOSH, O.ASIN, O.ASINH, O.ATAN,
     O.ATANH, O.COSH, O.SINH}
)  # fmt: skip
#: Opcodes whose called computation is applied per element or per window (reducers).
CALLS_REDUCER = frozenset(
    {O.REDUCE, O.REDUCE_WINDOW, O.SCATTER, O.SELECT_AND_SCATTER, O.SORT, O.MAP, O.ALL_REDUCE,
     O.ALL_REDUCE_START, O.REDUCE_SCATTER, O.SCAN, O.COLLECTIVE_REDUCE}
)  # fmt: skip
SIDE_EFFECTING = frozenset(op for op, s in OPS.items() if s.side_effecting)


def spec(opcode: Opcode) -> OpSpec:
    return OPS[opcode]
