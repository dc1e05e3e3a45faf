"""Lark grammars for HLO text and StableHLO (MLIR) text, installed as `hlotool.grammar`."""
