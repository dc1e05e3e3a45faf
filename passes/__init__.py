"""HLO passes and the pass manager, installed as `hlotool.passes`.

One pass per module (`<verb>_<noun>.py`), each a frozen dataclass subclass of
`hlotool.passes.base.Pass`; `registry.all_passes()` finds them lazily and
`pipelines.PIPELINES` composes them.
"""
