"""The in-memory IR that both HLO text and StableHLO text land in."""

from hlotool.ir.attributes import (
    BufferDonor,
    ConvDimensionNumbers,
    DomainAttr,
    IoAlias,
    LiteralAttr,
    Metadata,
    ModuleConfig,
    OperandAlias,
    PadDimension,
    ReplicaGroups,
    ResultAccuracy,
    Sharding,
    SliceRange,
    StackFrameTables,
    Window,
    WindowDimension,
)
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import EntryLayout, Module
from hlotool.ir.opcodes import OPS, AttrKind, AttrSpec, Category, Opcode, OpSpec
from hlotool.ir.shape_rules import ProgramShape, ShapeContext, ShapeError
from hlotool.ir.types import UNBOUNDED, Layout, PrimitiveType, Shape, SplitConfig, Tile

__all__ = [
    "OPS",
    "UNBOUNDED",
    "AttrKind",
    "AttrSpec",
    "BufferDonor",
    "Category",
    "Computation",
    "ConvDimensionNumbers",
    "DomainAttr",
    "EntryLayout",
    "Instruction",
    "IoAlias",
    "Layout",
    "LiteralAttr",
    "Metadata",
    "Module",
    "ModuleConfig",
    "OpSpec",
    "Opcode",
    "OperandAlias",
    "PadDimension",
    "PrimitiveType",
    "ProgramShape",
    "ReplicaGroups",
    "ResultAccuracy",
    "Shape",
    "ShapeContext",
    "ShapeError",
    "Sharding",
    "SliceRange",
    "SplitConfig",
    "StackFrameTables",
    "Tile",
    "Window",
    "WindowDimension",
]
