"""Analyses of HLO modules: cost (flops, bytes), liveness over a schedule, and memory
(buffer lifetimes, peak bytes, an SVG chart).

Nothing here changes a module; passes and commands read the results.
"""
