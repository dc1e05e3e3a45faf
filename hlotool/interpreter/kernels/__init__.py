"""Per-opcode implementations; importing this package registers them all."""

from hlotool.interpreter.kernels import (  # noqa: F401
    collectives,
    contraction,
    control,
    convolution,
    custom_call,
    data_movement,
    elementwise,
    fft,
    indexing,
    linalg,
    reduction,
    rng,
    sort,
)
