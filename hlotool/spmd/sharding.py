"""HloSharding text (`sharding={...}`) as a value: tiled, replicated, maximal, manual or a
tuple of those, with the tile assignment as a device-id array (XLA's HloSharding)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from hlotool.diagnostics import HloError


@dataclass(frozen=True, slots=True)
class TileSharding:
    """One array's sharding. `tiles[i0, ..., ik]` is the device (partition id) holding
    tile (i0, ...) of the array's first `rank` dims; trailing dims of `tiles` beyond the
    array's rank replicate (last_tile_dim_replicate / last_tile_dims)."""

    kind: str  # "tiled", "replicated", "maximal", "manual"
    tiles: np.ndarray | None = None
    device: int = 0
    subgroups: tuple[str, ...] = ()

    def tile_dims(self, rank: int) -> tuple[int, ...]:
        """Tiles per array dim (1 for dims not split)."""
        if self.kind != "tiled" or self.tiles is None:
            return (1,) * rank
        return tuple(self.tiles.shape[:rank])

    def tile_index(self, device: int, rank: int) -> tuple[int, ...] | None:
        """Which tile `device` holds (None when it holds no part of the array)."""
        if self.kind != "tiled" or self.tiles is None:
            return (0,) * rank if self.kind != "maximal" or device == self.device else None
        found = np.argwhere(self.tiles == device)
        return tuple(int(i) for i in found[0][:rank]) if len(found) else None


@dataclass(frozen=True, slots=True)
class ShardingTree:
    """A sharding per leaf of a (possibly tuple) shape, in leaf order."""

    leaves: tuple[TileSharding, ...]


_DEVICES = re.compile(r"devices=\[([\d,]+)\]")
_IOTA = re.compile(r"<=\[([\d,]+)\](?:T\(([\d,]+)\))?")
_SUBGROUPS = re.compile(r"last_tile_dims=\{([^}]*)\}")


def parse_sharding(text: str) -> ShardingTree:
    """Parse the text inside `sharding={...}` (XLA's HloSharding::ToString forms)."""
    text = _strip_metadata(text.strip())
    if text.startswith("{"):
        return ShardingTree(tuple(_one(part) for part in _split_tuple(text)))
    return ShardingTree((_one(text),))


def _strip_metadata(text: str) -> str:
    return re.sub(r"\s*metadata=\{[^{}]*\}", "", text)


def _split_tuple(text: str) -> list[str]:
    """`{a}, {b x}` -> ["a", "b x"] (top-level brace groups)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
            if depth == 1:
                start = i + 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                parts.append(text[start:i].strip())
    return parts


def _one(text: str) -> TileSharding:
    if text in ("replicated", "") or text.startswith("replicated"):
        return TileSharding("replicated")
    if text.startswith("manual") or text == "unknown":
        return TileSharding("manual")
    if text.startswith("maximal"):
        found = re.search(r"device=(\d+)", text)
        return TileSharding("maximal", device=int(found.group(1)) if found else 0)
    dims_m = _DEVICES.search(text)
    if dims_m is None:
        raise HloError(f"sharding {{{text}}}: expected replicated, maximal, manual or devices=[...]")
    dims = tuple(int(d) for d in dims_m.group(1).split(","))
    rest = text[dims_m.end():]
    iota = _IOTA.match(rest.lstrip())
    if iota is not None:
        shape = tuple(int(d) for d in iota.group(1).split(","))
        ids = np.arange(math.prod(shape)).reshape(shape)
        if iota.group(2):
            ids = ids.transpose(tuple(int(p) for p in iota.group(2).split(",")))
        tiles = ids.reshape(dims)
    else:
        listed = re.match(r"\s*([\d,\s]+)", rest)
        if listed is None:
            raise HloError(f"sharding {{{text}}}: expected the device list after devices=[...]")
        tiles = np.array([int(d) for d in listed.group(1).replace(" ", "").split(",") if d]
                         ).reshape(dims)
    subgroups: tuple[str, ...] = ()
    if "last_tile_dim_replicate" in text:
        subgroups = ("replicated",)
    found = _SUBGROUPS.search(text)
    if found:
        subgroups = tuple(s.strip() for s in found.group(1).split(","))
    return TileSharding("tiled", tiles=tiles, subgroups=subgroups)


def shard(global_value: np.ndarray, sharding: TileSharding, device: int,
          local_dims: tuple[int, ...]) -> np.ndarray:
    """The piece of a global array `device` holds, padded with zeros to `local_dims`."""
    rank = global_value.ndim
    index = sharding.tile_index(device, rank)
    if index is None:
        return np.zeros(local_dims, global_value.dtype)
    out = np.zeros(local_dims, global_value.dtype)
    src = tuple(slice(i * n, min((i + 1) * n, g))
                for i, n, g in zip(index, local_dims, global_value.shape, strict=True))
    piece = global_value[src]
    out[tuple(slice(0, s) for s in piece.shape)] = piece
    return out


def assemble(pieces: dict[int, np.ndarray], sharding: TileSharding,
             global_dims: tuple[int, ...]) -> np.ndarray:
    """The global array from every device's piece (the first holder of each tile)."""
    first = next(iter(pieces.values()))
    if sharding.kind != "tiled":
        return pieces.get(sharding.device, first) if sharding.kind == "maximal" else first
    out = np.zeros(global_dims, first.dtype)
    rank = len(global_dims)
    for device, piece in sorted(pieces.items()):
        index = sharding.tile_index(device, rank)
        if index is None:
            continue
        dst = tuple(slice(i * n, min((i + 1) * n, g))
                    for i, n, g in zip(index, piece.shape, global_dims, strict=True))
        out[dst] = piece[tuple(slice(0, s.stop - s.start) for s in dst)]
    return out


def global_dims(sharding: TileSharding, local_dims: tuple[int, ...]) -> tuple[int, ...]:
    """The global shape of an evenly tiled array whose per-device shape is `local_dims`."""
    return tuple(n * t for n, t in zip(local_dims, sharding.tile_dims(len(local_dims)), strict=True))
