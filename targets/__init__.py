"""Code-generating targets for hlotool (`hlotool.targets`).

Each target is a small class behind the `Target` interface of `base.py`; `get_target`
returns one by name. The reference interpreter (`hlotool.interpreter`) defines the
semantics every target must reproduce.
"""

from __future__ import annotations

from hlotool.targets.base import Executable, Target, get_target

__all__ = ["Executable", "Target", "get_target"]
