"""Typed values of instruction attributes (windows, dimension labels, metadata, ...).

Each is a frozen dataclass compared by value. The text form of each lives in the printer;
the parser builds them in `hlotool.hlo.lowering`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hlotool.ir.types import Shape


@dataclass(frozen=True, slots=True)
class WindowDimension:
    """One dimension of a `window={...}` attribute."""

    size: int = 1
    stride: int = 1
    padding_low: int = 0
    padding_high: int = 0
    window_dilation: int = 1
    base_dilation: int = 1
    window_reversal: bool = False


@dataclass(frozen=True, slots=True)
class Window:
    """`window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=... rhs_dilate=... rhs_reversal=...}`."""

    dimensions: tuple[WindowDimension, ...] = ()

    @property
    def rank(self) -> int:
        return len(self.dimensions)


@dataclass(frozen=True, slots=True)
class ConvDimensionNumbers:
    """`dim_labels=b01f_01io->b01f`: where batch/feature/spatial dims live per operand."""

    input_batch_dimension: int
    input_feature_dimension: int
    input_spatial_dimensions: tuple[int, ...]
    kernel_input_feature_dimension: int
    kernel_output_feature_dimension: int
    kernel_spatial_dimensions: tuple[int, ...]
    output_batch_dimension: int
    output_feature_dimension: int
    output_spatial_dimensions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SliceRange:
    """One `[start:limit:stride]` of a `slice={...}` attribute."""

    start: int
    limit: int
    stride: int = 1


@dataclass(frozen=True, slots=True)
class PadDimension:
    """One `low_high_interior` of a `padding=` attribute."""

    low: int
    high: int
    interior: int = 0


@dataclass(frozen=True, slots=True)
class Metadata:
    """`metadata={op_type=... op_name=... source_file=... ...}` (OpMetadata)."""

    op_type: str = ""
    op_name: str = ""
    source_file: str = ""
    source_line: int = 0
    source_end_line: int = 0
    source_column: int = 0
    source_end_column: int = 0
    profile_type: tuple[int, ...] = ()
    deduplicated_name: str = ""
    scheduling_name: str = ""
    stack_frame_id: int = 0

    @property
    def is_empty(self) -> bool:
        return self == Metadata()


@dataclass(frozen=True, slots=True)
class Sharding:
    """An HloSharding, kept as its canonical text (the part inside `sharding={...}`).

    The single-device executors ignore sharding; passes copy it; the printer writes it
    back in XLA's canonical spelling, which the parser produces.
    """

    text: str


@dataclass(frozen=True, slots=True)
class ReplicaGroups:
    """`replica_groups=`: explicit `{{0,1},{2,3}}`, iota `[2,2]<=[4]`, or mesh form (text)."""

    groups: tuple[tuple[int, ...], ...] = ()
    iota_text: str = ""


@dataclass(frozen=True, slots=True)
class OperandAlias:
    """One `{out_index}: (operand, {operand_index})` of output_to_operand_aliasing."""

    output_index: tuple[int, ...]
    operand_number: int
    operand_index: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ResultAccuracy:
    """`result_accuracy={mode=highest}` or `{tolerance={atol=...,rtol=...,ulps=...}}`."""

    mode: str = "default"
    atol: float = 0.0
    rtol: float = 0.0
    ulps: int = 0
    is_tolerance: bool = False


@dataclass(frozen=True, slots=True)
class LiteralAttr:
    """A `literal=` attribute of a custom-call (its shape plus the value's text)."""

    shape: Shape
    text: str


@dataclass(frozen=True, slots=True)
class DomainAttr:
    """`domain={kind="sharding", entry={...}, exit={...}}`."""

    kind: str
    entry: Sharding | None = None
    exit: Sharding | None = None


@dataclass(frozen=True, slots=True)
class StackFrameTables:
    """The FileNames / FunctionNames / FileLocations / StackFrames sections of a module."""

    file_names: tuple[str, ...] = ()
    function_names: tuple[str, ...] = ()
    #: (file_name_id, function_name_id, line, end_line, column, end_column)
    file_locations: tuple[tuple[int, int, int, int, int, int], ...] = ()
    #: (file_location_id, parent_frame_id) as printed
    stack_frames: tuple[tuple[int, int], ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.file_names or self.function_names or self.file_locations or self.stack_frames)


@dataclass(frozen=True, slots=True)
class IoAlias:
    """One entry of the module's `input_output_alias={ {out}: (param, {idx}, kind) }`."""

    output_index: tuple[int, ...]
    parameter_number: int
    parameter_index: tuple[int, ...]
    kind: str = "may-alias"


@dataclass(frozen=True, slots=True)
class BufferDonor:
    """One `(param, {idx})` of the module's `buffer_donor={...}`."""

    parameter_number: int
    parameter_index: tuple[int, ...]


@dataclass(slots=True)
class ModuleConfig:
    """Header attributes of an HloModule other than the name and entry layout."""

    is_scheduled: bool = False
    replica_count: int = 1
    num_partitions: int = 1
    input_output_alias: tuple[IoAlias, ...] = ()
    buffer_donor: tuple[BufferDonor, ...] = ()
    alias_passthrough_params: bool = False
    allow_spmd_sharding_propagation_to_parameters: tuple[bool, ...] = ()
    allow_spmd_sharding_propagation_to_output: tuple[bool, ...] = ()
    frontend_attributes: dict[str, str] = field(default_factory=dict)
    origin_recovery_table: str = ""
    #: How compares print their ordering: "type" (`type=TOTALORDER`, XLA up to jax 0.11)
    #: or "order" (`order=TOTAL`, current XLA); a module keeps the spelling it was read in.
    compare_spelling: str = "type"
