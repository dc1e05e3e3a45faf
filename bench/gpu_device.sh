#!/usr/bin/env bash
# The GPU target's one device check: the corpus on an NVIDIA GPU, then bench/cpu.py's
# cases against XLA:GPU, printed as tables, within 8 minutes.
#
# On the GPU machine, from the repository root:   bash bench/gpu_device.sh [OUT_DIR]
# Needs Python 3.12 with jax (CUDA), numpy, ml_dtypes, rich, llvmlite (LLVM >= 20 for the
# ptx_kernel convention; older ones get the nvvm.annotations form) and cuda-bindings
# there. Packages that machine lacks come as wheels in .whl/, fetched on a machine
# with network access by `bash bench/gpu_device.sh --download` (lark; add others with
# EXTRA_WHEELS="name==version ..."). hlotool itself is installed from this tree.
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--download" ]]; then
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
    lark ${EXTRA_WHEELS:-}
  exit $?
fi

OUT_DIR=${1:-${OUT:-/tmp/hlotool-gpu}}
mkdir -p "$OUT_DIR"
SITE=${SITE:-/tmp/hlotool-site}
PY=${PYTHON:-python3}
START=$(date +%s)

if compgen -G ".whl/*.whl" >/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$SITE" .whl/*.whl || { echo "gpu_device: installing .whl/ failed"; exit 2; }
fi
# hlotool from this tree, laid out as pyproject.toml's package-dir maps it (no build step).
mkdir -p "$SITE" && rm -rf "$SITE/hlotool" && cp -r hlotool "$SITE/hlotool" &&
  cp -r grammar "$SITE/hlotool/grammar" && cp -r passes "$SITE/hlotool/passes" &&
  cp -r targets "$SITE/hlotool/targets" || { echo "gpu_device: copying hlotool failed"; exit 2; }
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
export HLOTOOL_CACHE_DIR="$OUT_DIR/cache" PYTHONUNBUFFERED=1

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
"$PY" - <<'PY'
import sys, llvmlite, llvmlite.binding as llvm, numpy
import jax
from hlotool.targets.gpu import ptxas
print(f"python {sys.version.split()[0]}, llvmlite {llvmlite.__version__} (LLVM "
      f"{'.'.join(map(str, llvm.llvm_version_info))}), numpy {numpy.__version__}, "
      f"jax {jax.__version__} on {jax.devices()[0].device_kind}, ptxas {ptxas.find()}")
PY

LEFT=$(( 470 - ($(date +%s) - START) ))
timeout "$LEFT" "$PY" bench/gpu_device.py --deadline $(( LEFT - 40 )) \
  --markdown "$OUT_DIR/gpu_device.md" 2>&1 | tee "$OUT_DIR/gpu_device.log"
rc=${PIPESTATUS[0]}
echo "gpu_device: exit $rc after $(( $(date +%s) - START )) s; tables in $OUT_DIR/gpu_device.md"
exit "$rc"
