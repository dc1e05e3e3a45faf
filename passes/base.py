"""What a pass is: a small frozen dataclass with a name, options and `run(module)`.

`run` changes the module in place and returns whether it changed anything. The pass
manager (`pipeline.py`) cross-checks that claim against a structural fingerprint, runs
the verifier after each pass when asked, times passes and dumps changed modules.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from hlotool.ir.module import Module


@dataclass(frozen=True)
class Pass:
    """Base class of every pass. Subclasses set `name` (kebab-case, the CLI spelling),
    `summary` (one line for `hlotool passes`) and `xla` (the XLA pass it corresponds
    to), declare options as dataclass fields with defaults, and implement `run`."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    xla: ClassVar[str] = ""

    def run(self, module: Module) -> bool:
        """Transform `module` in place; return True when anything changed."""
        raise NotImplementedError

    @property
    def spec(self) -> str:
        """The pass as written on the command line: `name{opt=value,...}`."""
        opts = [
            f"{f.name.replace('_', '-')}={_format_option(getattr(self, f.name))}"
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        ]
        return self.name + ("{" + ",".join(opts) + "}" if opts else "")

    @classmethod
    def options(cls) -> dict[str, Any]:
        """Option names (CLI spelling) and their defaults."""
        return {f.name.replace("_", "-"): f.default for f in dataclasses.fields(cls)}


def _format_option(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class PassError(Exception):
    """A pass was asked for with a bad name or bad options (a usage error)."""
