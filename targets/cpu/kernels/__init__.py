"""Kernel emitters of the CPU target: elemental values, loop fusions, math functions."""
