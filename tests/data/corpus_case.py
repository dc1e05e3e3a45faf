"""Write one corpus case in the layout of tests/data/corpus (used by the TensorFlow and
PyTorch/XLA generators beside it, each run in its producer's own virtual environment).

A case folder holds the producer's texts (module.hlo, module.opt.hlo,
module.stablehlo.mlir), inputs.npz (arg0, arg1, ... in the entry's parameter order),
expected.npz (out0, out1, ...: the producer's own XLA:CPU outputs, tuples flattened;
bfloat16 and other ml_dtypes arrays as bits named in a `.dtypes.json` sidecar) and case.json (description, tolerance, shapes, producer versions).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

#: Absolute paths of the generating machine inside metadata, replaced to keep the data portable.
_SITE = re.compile(r'(source_file=|loc\()"[^"]*?/(site-packages|tests/data)/')


def portable(text: str) -> str:
    """`text` with the generating machine's install paths cut to `.../site-packages/...`."""
    return _SITE.sub(lambda m: f'{m.group(1)}".../{m.group(2)}/', text)


def _savez(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """np.savez, with ml_dtypes arrays (bfloat16...) stored as their bits and named in
    the `NAME.dtypes.json` sidecar that hlotool and the conformance tool read."""
    names = {k: a.dtype.name for k, a in arrays.items() if a.dtype.kind == "V"}
    np.savez(path, **{k: a.view(f"u{a.dtype.itemsize}") if k in names else a
                      for k, a in arrays.items()})
    if names:
        path.with_name(path.stem + ".dtypes.json").write_text(json.dumps(names) + "\n")


def write_case(root: Path, name: str, description: str, texts: dict[str, str],
               inputs: list[np.ndarray], outputs: list[np.ndarray],
               tolerance: tuple[float, float], producer: dict[str, Any]) -> None:
    """Write the folder `root/name` (texts keyed by file name)."""
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    for old in d.iterdir():
        old.unlink()
    for fname, text in texts.items():
        (d / fname).write_text(portable(text))
    _savez(d / "inputs.npz", {f"arg{i}": np.asarray(a) for i, a in enumerate(inputs)})
    _savez(d / "expected.npz", {f"out{i}": np.asarray(o) for i, o in enumerate(outputs)})
    case = {"name": name, "description": description,
            "tolerance": {"rtol": tolerance[0], "atol": tolerance[1]},
            "inputs": [[list(np.shape(a)), str(np.asarray(a).dtype)] for a in inputs],
            "outputs": [[list(np.shape(o)), str(np.asarray(o).dtype)] for o in outputs],
            "backend": "cpu", **producer}
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
