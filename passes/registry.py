"""The lazy pass registry: pass classes are found (by importing the pass modules of this
package) only when a pass or pipeline is first asked for, so that commands which do not
optimize never import them."""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from typing import Any

import hlotool.passes as _package
from hlotool.passes.base import Pass, PassError

#: Modules of this package that hold infrastructure, not passes.
_NOT_PASSES = {"base", "pipeline", "registry", "pipelines", "utils"}


@functools.cache
def all_passes() -> dict[str, type[Pass]]:
    """Pass name -> class, for every pass module in the package."""
    found: dict[str, type[Pass]] = {}
    for info in pkgutil.iter_modules(_package.__path__):
        if info.name in _NOT_PASSES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{_package.__name__}.{info.name}")
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Pass) and obj is not Pass and obj.name:
                if obj.name in found and found[obj.name] is not obj:
                    raise RuntimeError(f"two passes are named {obj.name}")
                found[obj.name] = obj
    return dict(sorted(found.items()))


_SPEC = re.compile(r"\s*([A-Za-z0-9_\-]+)\s*(?:\{([^{}]*)\})?\s*")


def parse_pass_list(text: str) -> list[Pass]:
    """`a,b{opt=v,opt2=w},c` -> pass instances (PassError on unknown names/options)."""
    out: list[Pass] = []
    pos = 0
    while pos < len(text):
        m = _SPEC.match(text, pos)
        if m is None or not m.group(1):
            raise PassError(f"cannot read the pass list at {text[pos:]!r}")
        out.append(make_pass(m.group(1), _options(m.group(2) or "", m.group(1))))
        pos = m.end()
        if pos < len(text):
            if text[pos] != ",":
                raise PassError(f"expected ',' between passes at {text[pos:]!r}")
            pos += 1
    return out


def _options(text: str, name: str) -> dict[str, str]:
    opts: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise PassError(f"pass {name}: option {item!r} needs a value (key=value)")
        opts[key.strip()] = value.strip()
    return opts


def make_pass(name: str, options: dict[str, str] | None = None) -> Pass:
    """Instantiate a pass by name with string options converted to the field types."""
    classes = all_passes()
    cls = classes.get(name)
    if cls is None:
        import difflib

        close = difflib.get_close_matches(name, list(classes), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise PassError(f"unknown pass {name}{hint}")
    defaults = cls.options()
    kwargs: dict[str, Any] = {}
    for key, raw in (options or {}).items():
        if key not in defaults:
            raise PassError(f"pass {name} has no option {key} (has: {', '.join(defaults) or 'none'})")
        kwargs[key.replace("-", "_")] = _convert(raw, defaults[key], name, key)
    return cls(**kwargs)


def _convert(raw: str, default: Any, name: str, key: str) -> Any:
    try:
        if isinstance(default, bool):
            if raw.lower() not in ("true", "false", "1", "0"):
                raise ValueError(raw)
            return raw.lower() in ("true", "1")
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError:
        raise PassError(f"pass {name}: option {key}={raw!r} is not a {type(default).__name__}") from None
    return raw
