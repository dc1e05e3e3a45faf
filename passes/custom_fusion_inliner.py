"""Custom fusions as plain instructions again, for hlotool's own fusion passes."""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.ir.computation import Computation
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    Builder,
    NameTable,
    clone_into,
    non_fusion_computations,
    remove_unreferenced,
    replace_instruction,
)


@dataclass(frozen=True)
class CustomFusionInlinerPass(Pass):
    """Inline the body of every kCustom fusion into its caller.

    XLA:CPU wraps the work it hands to its libraries in kCustom fusions (`__ynn_fusion`
    for YNNPACK: dots, convolutions and the elementwise ops and reductions around them).
    hlotool has no such libraries, so in a module XLA already compiled, those
    instructions would each run as a kernel of their own; given back to the caller,
    the fusion passes that follow fuse them for hlotool's kernels (the softmax between
    attention's two dots becomes one row kernel). With `all-kinds`, every fusion is
    inlined: the module as plain HLO, as XLA's HLO->StableHLO import needs it (XLA:CPU
    compiles no kInput or kLoop fusion it is given)."""

    name = "custom-fusion-inliner"
    summary = "give the instructions of kCustom (library) fusions back to the fusion passes"
    xla = ""
    all_kinds: bool = False

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        inlined: list[Computation] = []
        found = True
        while found:  # a custom fusion inside one surfaces when the outer one is inlined
            found = False
            for comp in non_fusion_computations(module):
                for ins in list(comp.instructions):
                    if ins.opcode is not Opcode.FUSION or (
                            not self.all_kinds and ins.attrs.get("kind") != "kCustom"):
                        continue
                    body = ins.attrs["calls"]
                    root = clone_into(body, Builder.before(ins, names), ins.operands)
                    replace_instruction(ins, root)
                    if ins.parent is not None:
                        comp.remove_instruction(ins)
                    inlined.append(body)
                    found = True
        remove_unreferenced(module, inlined)
        return bool(inlined)
