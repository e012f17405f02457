#!/usr/bin/env bash
# The gemm measures side by side on the GPU machine (bench/README.md, "cuBLAS gemm"): builds bench/c/blas.c against
# cuBLAS, then runs, BLAS_ROUNDS rounds (default 2), interleaved: C calling cuBLAS (c-cublas), cuda-ts's Blas on
# RUNTIME (RUNTIME-blas), PyTorch's torch.matmul (python-torch); every JSON line tagged with its round. Ends with a
# table: the median of the rounds per contender, cuda-ts against C and PyTorch, and the share of the H200's dense
# peak (NVIDIA's H200 SXM figures, sparsity halved: FP16/BF16 989.4, TF32 494.7, FP32 66.9 TFLOP/s).
#
#   bash bench/blas-run.sh bun|deno OUTDIR
#
# Through the device tool, after `../shared/gpu/pack.sh RUNTIME` here:
#   bash .device/remote.sh bun -- bash bench/blas-run.sh bun "$OUT"
#
# Writes OUTDIR/blas-RUNTIME.jsonl (the JSON lines), OUTDIR/blas-RUNTIME.log (everything) and
# OUTDIR/blas-RUNTIME.md (the table). Environment: CUDA_HOME (default /usr/local/cuda), PYTHON (default python3),
# BLAS_ROUNDS, BENCH_SKIP_PYTHON=1 (no PyTorch).
set -u -o pipefail

RT=${1:-}
OUTDIR=${2:-}
case "$RT" in
  bun | deno) ;;
  *)
    echo "usage: bash bench/blas-run.sh bun|deno OUTDIR" >&2
    exit 2
    ;;
esac
[ -n "$OUTDIR" ] || { echo "usage: bash bench/blas-run.sh bun|deno OUTDIR" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd) || exit 1
RES=$OUTDIR/blas-$RT.jsonl
LOG=$OUTDIR/blas-$RT.log
MD=$OUTDIR/blas-$RT.md
START=$SECONDS
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PY=${PYTHON:-python3}
ROUNDS=${BLAS_ROUNDS:-2}
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "BLAS_ROUNDS must be a positive integer, got '$ROUNDS'" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuda-ts-blas.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

log() { echo "[blas-run.sh $(date -u +%H:%M:%S) +$((SECONDS - START))s] $*" | tee -a "$LOG" >&2; }

# run_json LABEL LIMIT_S ROUND CMD...: CMD's JSON lines (tagged with the round) to RES, everything to the log.
run_json() {
  local label=$1 limit=$2 round=$3
  shift 3
  log "start $label (round $round): $*"
  timeout --kill-after=10 "$limit" "$@" 2>>"$LOG" | tee -a "$LOG" | { grep '^{' || true; } | sed -e "s/^{/{\"round\": $round, /" >>"$RES"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then log "done $label"; else log "FAILED $label: exit status $rc"; fi
  return "$rc"
}

log "gemm benchmarks, runtime $RT, $ROUNDS rounds, results in $RES"
printf '{"meta": true, "what": "gemm", "commit": "%s", "rounds": %d, "runtime": "%s", "host": "%s"}\n' \
  "${BENCH_COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}" "$ROUNDS" "$RT" "$(hostname 2>/dev/null || echo '?')" >>"$RES"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv >>"$LOG" 2>&1 || true

# ---- build the C contender: cuBLAS headers need CCCL's <nv/target> (CUDA 13 keeps it in include/cccl)
BLAS_C=$WORK/blas-c
INC=(-I"$CUDA_HOME/include")
[ -d "$CUDA_HOME/include/cccl" ] && INC+=(-I"$CUDA_HOME/include/cccl")
LIBDIRS=(-L"$CUDA_HOME/lib64" -L"$CUDA_HOME/targets/x86_64-linux/lib" -L/usr/local/nvidia/lib64 -L"$CUDA_HOME/lib64/stubs")
C_OK=0
for libs in "-lcublas -lcuda" "-l:libcublas.so.13 -l:libcuda.so.1"; do
  # shellcheck disable=SC2086 # $libs is a list of flags
  if gcc -O2 -std=gnu11 -Wall "${INC[@]}" -o "$BLAS_C" bench/c/blas.c "${LIBDIRS[@]}" $libs -lm >>"$LOG" 2>&1; then
    C_OK=1
    log "gcc -O2 bench/c/blas.c ($libs)"
    break
  fi
done
[ "$C_OK" = 1 ] || log "FAILED: gcc could not build bench/c/blas.c; the C contender will not run"
export LD_LIBRARY_PATH="$CUDA_HOME/lib64:$CUDA_HOME/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

case "$RT" in
  bun) TS=(bun bench/ts/blas.ts) ;;
  deno) TS=(deno run -A bench/ts/blas.ts) ;;
esac

for ((round = 1; round <= ROUNDS; round++)); do
  [ "$C_OK" = 1 ] && run_json "C calling cuBLAS" 300 "$round" "$BLAS_C"
  run_json "cuda-ts Blas on $RT" 300 "$round" "${TS[@]}"
  [ "${BENCH_SKIP_PYTHON:-0}" = 1 ] || run_json "PyTorch torch.matmul" 300 "$round" "$PY" bench/python/blas.py
done

# ---- the table
"$PY" - "$RES" "$RT" >"$MD" 2>>"$LOG" <<'EOF'
import json, statistics, sys
res, rt = sys.argv[1], sys.argv[2]
PEAK = {"f16": 989.4, "bf16": 989.4, "tf32": 494.7, "f32": 66.9}  # H200 SXM dense (NVIDIA's figures, sparsity halved)
vals, units = {}, {}
for line in open(res):
    o = json.loads(line)
    if "value" not in o:
        continue
    vals.setdefault(o["measure"], {}).setdefault(o["contender"], []).append(o["value"])
    units[o["measure"]] = o["unit"]
ts, c, torch = f"{rt}-blas", "c-cublas", "python-torch"
print(f"| measure | unit | C (cuBLAS) | cuda-ts ({rt}) | PyTorch | cuda-ts / C | cuda-ts / PyTorch | cuda-ts, share of H200 dense peak |")
print("|---|---|---|---|---|---|---|---|")
for m in sorted(vals, key=lambda s: (s.split(".")[1].zfill(5), s)):
    med = {k: statistics.median(v) for k, v in vals[m].items()}
    def cell(k):
        return f"{med[k]:.4g}" if k in med else "-"
    def ratio(k):
        return f"{med[ts] / med[k]:.3f}" if ts in med and k in med and med[k] else "-"
    tag = m.split(".")[-1]
    peak = f"{100 * med[ts] / PEAK[tag]:.1f}% of {PEAK[tag]}" if units[m] == "TFLOP/s" and tag in PEAK and ts in med else "-"
    print(f"| {m} | {units[m]} | {cell(c)} | {cell(ts)} | {cell(torch)} | {ratio(c)} | {ratio(torch)} | {peak} |")
print()
print("Higher is better for TFLOP/s, lower for ns (there, cuda-ts / C above 1 is the extra CPU cost per call). Medians of the rounds.")
EOF
cat "$MD" | tee -a "$LOG"
log "finished in $((SECONDS - START))s"
