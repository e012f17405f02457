#!/usr/bin/env bash
# Issue 21's several-GPU benchmark, side by side in one run on a machine with two GPUs (kind nvidia-h200-x2):
# C calling cuMemcpyPeerAsync and NCCL directly (bench/c/multi_gpu.c, built here against the PyTorch wheel's nccl.h and
# libnccl), cuda-ts on RUNTIME (bench/ts/multi-gpu.ts: Buffer.copyTo between devices, Communicator.initAll +
# allReduce in a group) and PyTorch (bench/python/nccl_allreduce.py: torch.distributed.all_reduce, two processes),
# BENCH_ROUNDS rounds (default 2) of the three in turn, every JSON line tagged with its round.
#
#   bash bench/multi-gpu-run.sh bun|deno OUTDIR
#
# Writes OUTDIR/multi-gpu-RUNTIME.jsonl and .log. Environment: CUDA_HOME (default /usr/local/cuda), PYTHON (default
# python3), NCCL_HOME (default: the wheel's nvidia/nccl beside PYTHON's torch), BENCH_ROUNDS.
set -u -o pipefail
RT=${1:-}
OUTDIR=${2:-}
case "$RT" in bun | deno) ;; *) echo "usage: bash bench/multi-gpu-run.sh bun|deno OUTDIR" >&2; exit 2 ;; esac
[ -n "$OUTDIR" ] || { echo "usage: bash bench/multi-gpu-run.sh bun|deno OUTDIR" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd) || exit 1
RES=$OUTDIR/multi-gpu-$RT.jsonl
LOG=$OUTDIR/multi-gpu-$RT.log
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PY=${PYTHON:-python3}
NCCL_HOME=${NCCL_HOME:-$("$PY" -c 'import os, nvidia.nccl as n; print(os.path.dirname(n.__file__) if n.__file__ else list(n.__path__)[0])' 2>/dev/null)}
ROUNDS=${BENCH_ROUNDS:-2}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuda-ts-multi-gpu.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
: > "$RES"
log() { echo "[multi-gpu] $*" | tee -a "$LOG" >&2; }
tag() { local round=$1; while IFS= read -r line; do case "$line" in "{"*) echo "${line%\}},\"round\":$round}" ;; *) echo "$line" >> "$LOG" ;; esac; done; }

log "NCCL_HOME=$NCCL_HOME"
if gcc -O2 -o "$WORK/multi_gpu" bench/c/multi_gpu.c -I"$CUDA_HOME/include" -I"$NCCL_HOME/include" -L"$NCCL_HOME/lib" -l:libnccl.so.2 -lcuda -Wl,-rpath,"$NCCL_HOME/lib" >> "$LOG" 2>&1; then C_OK=1; else C_OK=0; log "FAILED: gcc could not build bench/c/multi_gpu.c"; fi
case "$RT" in bun) TS=(bun bench/ts/multi-gpu.ts) ;; deno) TS=(deno run -A bench/ts/multi-gpu.ts) ;; esac
for round in $(seq 1 "$ROUNDS"); do
  [ "$C_OK" = 1 ] && { log "round $round: C"; LD_LIBRARY_PATH="$NCCL_HOME/lib:${LD_LIBRARY_PATH:-}" "$WORK/multi_gpu" 2>> "$LOG" | tag "$round" >> "$RES"; }
  log "round $round: cuda-ts on $RT"; "${TS[@]}" 2>> "$LOG" | tag "$round" >> "$RES"
  log "round $round: PyTorch"; "$PY" bench/python/nccl_allreduce.py 2>> "$LOG" | tag "$round" >> "$RES"
done
log "finished: $(grep -c '"measure"' "$RES") results in $RES"
