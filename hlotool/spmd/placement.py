"""Where each piece of an array lives: tiles per dimension plus every device's tile
coordinates. The SPMD partitioner reasons in these (a device's block of a dot is its
tile coordinates), and converts to and from HloSharding text at the module's edges."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from hlotool.spmd.sharding import TileSharding


@dataclass(frozen=True, slots=True)
class Placement:
    """`tiles[d]` tiles along dim d; `coords[p]` the tile device p holds (every device
    holds one, several holding the same tile when it is replicated)."""

    tiles: tuple[int, ...]
    coords: tuple[tuple[int, ...], ...]

    @staticmethod
    def replicated(rank: int, devices: int) -> Placement:
        return Placement((1,) * rank, ((0,) * rank,) * devices)

    @staticmethod
    def of(sharding: TileSharding, rank: int, devices: int) -> Placement | None:
        """From an HloSharding (None for manual or maximal ones, or other device counts)."""
        if sharding.kind == "replicated":
            return Placement.replicated(rank, devices)
        if sharding.kind != "tiled" or sharding.tiles is None or sharding.tiles.size != devices:
            return None
        if any(s != "replicated" for s in sharding.subgroups):
            return None
        coords: list[tuple[int, ...]] = [()] * devices
        for index, device in np.ndenumerate(sharding.tiles):
            coords[int(device)] = tuple(int(i) for i in index[:rank])
        return Placement(tuple(int(t) for t in sharding.tiles.shape[:rank]), tuple(coords))

    @property
    def devices(self) -> int:
        return len(self.coords)

    @property
    def is_replicated(self) -> bool:
        return all(t == 1 for t in self.tiles)

    def local(self, dims: tuple[int, ...]) -> tuple[int, ...] | None:
        """A device's piece of `dims` (None when a dim does not split evenly)."""
        if any(d % t for d, t in zip(dims, self.tiles, strict=True)):
            return None
        return tuple(d // t for d, t in zip(dims, self.tiles, strict=True))

    def holders(self) -> dict[tuple[int, ...], list[int]]:
        """Tile coordinates -> the devices holding that tile, in order."""
        out: dict[tuple[int, ...], list[int]] = defaultdict(list)
        for p, c in enumerate(self.coords):
            out[c].append(p)
        return dict(out)

    def is_valid(self) -> bool:
        """Every tile held by the same number of devices."""
        held = self.holders()
        return len(held) == math.prod(self.tiles) and len({len(v) for v in held.values()}) == 1

    def gather_groups(self, dim: int) -> list[list[int]]:
        """The all-gather groups along `dim`: devices holding the same other coordinates
        (and the same copy of a replicated tile), in tile order along `dim`."""
        rank_in_tile = {p: ps.index(p) for ps in self.holders().values() for p in ps}
        groups: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
        for p, c in enumerate(self.coords):
            key = (c[:dim] + c[dim + 1:], rank_in_tile[p])
            groups[key].append((c[dim], p))
        return [[p for _, p in sorted(g)] for _, g in sorted(groups.items())]

    def text(self) -> str:
        """As HloSharding text (inside `sharding={...}`)."""
        if self.is_replicated:
            return "replicated"
        held = self.holders()
        copies = len(next(iter(held.values())))
        ids = [p for c in np.ndindex(*self.tiles) for p in held[tuple(c)]]
        dims = [*self.tiles, copies] if copies > 1 else list(self.tiles)
        tail = " last_tile_dim_replicate" if copies > 1 else ""
        return f"devices=[{','.join(map(str, dims))}]{','.join(map(str, ids))}{tail}"
