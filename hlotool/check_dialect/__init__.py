"""The StableHLO interpreter's test dialect: `check.*` ops and `interpreter.probe`.

`ops` lowers them (importing it registers their converters and interpreter handlers),
`compare` holds StableHLO's comparison semantics, `runner` runs a test file.
"""

from __future__ import annotations

from hlotool.check_dialect.runner import CheckResult, FileReport, run_text

__all__ = ["CheckResult", "FileReport", "run_text"]
