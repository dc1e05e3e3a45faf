"""Shardy (`sdy`) shardings as JAX 0.10 writes them into HLO frontend attributes and
StableHLO: meshes (`#sdy.mesh<["data"=2, "model"=4], device_ids=[...]>`) and per-dimension
axis lists (`#sdy.sharding<@mesh, [{"data"}, {}]>`, `#sdy.sharding_per_value<[...]>`),
turned into placements (every device's tile)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.spmd.placement import Placement


@dataclass(frozen=True, slots=True)
class Mesh:
    """Named axes (major to minor) and the device at each mesh position."""

    axes: tuple[tuple[str, int], ...]
    device_ids: tuple[int, ...]

    @property
    def size(self) -> int:
        return math.prod(n for _, n in self.axes)


_MESH = re.compile(r"(\w+)\s*=\s*#sdy\.mesh<\[([^\]]*)\](?:\s*,\s*device_ids=\[([\d,\s]*)\])?>")
_AXIS = re.compile(r'"([^"]+)"\s*=\s*(\d+)')


def parse_meshes(text: str) -> dict[str, Mesh]:
    """`{mesh = #sdy.mesh<["x"=4]>, other = ...}` (the `xla.sdy.meshes` attribute)."""
    meshes: dict[str, Mesh] = {}
    for name, axes_text, ids in _MESH.findall(text.replace('\\"', '"')):
        axes = tuple((a, int(n)) for a, n in _AXIS.findall(axes_text))
        size = math.prod(n for _, n in axes)
        devices = tuple(int(i) for i in ids.split(",")) if ids.strip() else tuple(range(size))
        meshes[name] = Mesh(axes, devices)
    return meshes


_ONE = re.compile(r"<\s*@(\w+)\s*,\s*\[(.*?)\]\s*(?:,\s*replicated=\{[^}]*\})?\s*>")
_DIM = re.compile(r"\{([^}]*)\}")


def parse_sharding_per_value(text: str, meshes: dict[str, Mesh],
                             ranks: list[int]) -> list[Placement]:
    """The placements of `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>` (or of one
    `#sdy.sharding<@mesh, [...]>`), for values of the given ranks."""
    text = text.replace('\\"', '"')
    found = _ONE.findall(text)
    if len(found) != len(ranks):
        raise HloError(f"shardy sharding {text!r}: {len(found)} values, expected {len(ranks)}")
    return [_placement(meshes, mesh, dims, rank) for (mesh, dims), rank in zip(found, ranks,
                                                                                strict=True)]


def _placement(meshes: dict[str, Mesh], name: str, dims_text: str, rank: int) -> Placement:
    mesh = meshes.get(name)
    if mesh is None:
        raise HloError(f"shardy sharding names mesh @{name}, which the module does not define")
    dims = [[a.strip().strip('"') for a in d.split(",") if a.strip()]
            for d in _DIM.findall(dims_text)]
    if len(dims) != rank:
        raise HloError(f"shardy sharding @{name} {dims_text!r}: {len(dims)} dims for rank {rank}")
    sizes = dict(mesh.axes)
    names = [a for a, _ in mesh.axes]
    grid = np.array(mesh.device_ids).reshape([n for _, n in mesh.axes])
    coords: list[tuple[int, ...]] = [()] * mesh.size
    for position in np.ndindex(*grid.shape):
        at = dict(zip(names, position, strict=True))
        tile = []
        for axes in dims:
            index = 0
            for a in axes:  # major to minor
                index = index * sizes[a] + at[a]
            tile.append(index)
        coords[int(grid[position])] = tuple(tile)
    tiles = tuple(math.prod(sizes[a] for a in axes) for axes in dims)
    return Placement(tiles, tuple(coords))
