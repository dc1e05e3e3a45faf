"""HloSharding text -> tile assignments, and global arrays cut into pieces and back."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.spmd.sharding import assemble, global_dims, parse_sharding, shard


@pytest.mark.parametrize(("text", "tiles"), [
    ("devices=[2,2]0,1,2,3", [[0, 1], [2, 3]]),
    ("devices=[2,2]<=[4]", [[0, 1], [2, 3]]),
    ("devices=[2,2]<=[2,2]T(1,0)", [[0, 2], [1, 3]]),
    ("devices=[1,2,2]<=[4] last_tile_dim_replicate", [[[0, 1], [2, 3]]]),
    ("devices=[4,1]<=[4] metadata={op_name=\"x\"}", [[0], [1], [2], [3]]),
])
def test_tile_assignments(text: str, tiles: list) -> None:
    (leaf,) = parse_sharding(text).leaves
    assert leaf.kind == "tiled"
    np.testing.assert_array_equal(leaf.tiles, tiles)


def test_other_kinds_and_tuples() -> None:
    leaves = parse_sharding("{replicated}, {maximal device=3}, {devices=[2]0,1}, {manual}").leaves
    assert [s.kind for s in leaves] == ["replicated", "maximal", "tiled", "manual"]
    assert leaves[1].device == 3
    assert parse_sharding("{devices=[1,2,2]<=[4] last_tile_dims={manual}}").leaves[0].subgroups == (
        "manual",)


def test_shard_and_assemble_round_trip() -> None:
    """Every device holds its tile; with replication dims, several hold the same tile."""
    x = np.arange(6 * 8, dtype=np.float32).reshape(6, 8)
    for text in ("devices=[2,4]<=[8]", "devices=[2,2]<=[2,2]T(1,0)",
                 "devices=[3,1,2]<=[6] last_tile_dim_replicate"):
        (sh,) = parse_sharding(text).leaves
        tiles = sh.tile_dims(2)
        local = (6 // tiles[0], 8 // tiles[1])
        assert global_dims(sh, local) == x.shape
        pieces = {d: shard(x, sh, d, local) for d in np.unique(sh.tiles)}
        np.testing.assert_array_equal(assemble(pieces, sh, x.shape), x)
    (sh,) = parse_sharding("devices=[4,1]<=[4]").leaves
    np.testing.assert_array_equal(shard(x, sh, 2, (2, 8)), x[4:6])


def test_uneven_tiles_are_padded() -> None:
    """A global dim of 5 over 2 devices: pieces of 3, the last one padded with zeros."""
    x = np.arange(5, dtype=np.int32)
    (sh,) = parse_sharding("devices=[2]0,1").leaves
    np.testing.assert_array_equal(shard(x, sh, 1, (3,)), [3, 4, 0])
    pieces = {d: shard(x, sh, d, (3,)) for d in (0, 1)}
    np.testing.assert_array_equal(assemble(pieces, sh, (5,)), x)
