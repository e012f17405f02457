#!/usr/bin/env bash
# Issue 17's cuFFT and cuRAND bench, side by side in one run on the GPU machine: C calling cuFFT and cuRAND directly
# (bench/c/fft_rng.c, built here with gcc against CUDA_HOME), cuda-ts's Fft and Rng on RUNTIME (bench/ts/fft-rng.ts)
# and CuPy (bench/python/fft_rng.py), BENCH_ROUNDS rounds (default 3) of the three in turn, one process each, every
# JSON line tagged with its round. The measures and their method are in bench/ts/fft-rng.ts.
#
#   bash bench/fft-rng-run.sh bun|deno OUTDIR
#
# Through the device tool, after `../shared/gpu/pack.sh RUNTIME` here:
#   bash .device/remote.sh bun  -- bash bench/fft-rng-run.sh bun  "$OUT"
#   bash .device/remote.sh deno -- bash bench/fft-rng-run.sh deno "$OUT"
#
# Writes OUTDIR/fft-rng-RUNTIME.jsonl (a meta line first) and OUTDIR/fft-rng-RUNTIME.log. A failing contender is
# logged and the others go on. Environment: CUDA_HOME (default /usr/local/cuda), PYTHON (default python3),
# BENCH_ROUNDS, BENCH_COMMIT (recorded when git is not available).
set -u -o pipefail

RT=${1:-}
OUTDIR=${2:-}
case "$RT" in bun | deno) ;; *) echo "usage: bash bench/fft-rng-run.sh bun|deno OUTDIR" >&2; exit 2 ;; esac
[ -n "$OUTDIR" ] || { echo "usage: bash bench/fft-rng-run.sh bun|deno OUTDIR" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd) || exit 1
RES=$OUTDIR/fft-rng-$RT.jsonl
LOG=$OUTDIR/fft-rng-$RT.log
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PY=${PYTHON:-python3}
ROUNDS=${BENCH_ROUNDS:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuda-ts-fft-rng.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
START=$SECONDS
log() { echo "[fft-rng-run.sh $(date -u +%H:%M:%S) +$((SECONDS - START))s] $*" | tee -a "$LOG" >&2; }

# run_json ROUND LABEL CMD...: CMD's JSON lines go to RES tagged with the round, everything to the log.
run_json() {
  local round=$1 label=$2
  shift 2
  log "start $label (round $round): $*"
  timeout --kill-after=10 300 "$@" 2>>"$LOG" | tee -a "$LOG" | { grep '^{' || true; } | sed -e "s/^{/{\"round\": $round, /" >>"$RES"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then log "done $label"; else log "FAILED $label: exit status $rc"; fi
}

COMMIT=${BENCH_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)
printf '{"meta": true, "bench": "fft-rng", "commit": "%s", "runtime": "%s", "runtime_version": "%s", "gpu": "%s", "rounds": %d}\n' \
  "$COMMIT" "$RT" "$("$RT" --version 2>/dev/null | head -n1)" "$GPU" "$ROUNDS" | tee -a "$LOG" >>"$RES"

LIBDIR=$CUDA_HOME/targets/x86_64-linux/lib
BIN=$WORK/fft_rng
C_OK=0
if gcc -O2 -std=gnu11 -Wall -I"$CUDA_HOME/include" -o "$BIN" bench/c/fft_rng.c -L"$LIBDIR" -L"$CUDA_HOME/lib64" -lcufft -lcurand -lcudart -lm -Wl,-rpath,"$LIBDIR" >>"$LOG" 2>&1; then
  C_OK=1
  log "gcc -O2 bench/c/fft_rng.c -lcufft -lcurand -lcudart"
else
  log "FAILED: gcc could not build bench/c/fft_rng.c; the C contender will not run"
fi
case "$RT" in
  bun) TS=(bun bench/ts/fft-rng.ts) ;;
  deno) TS=(deno run -A bench/ts/fft-rng.ts) ;;
esac

for ((round = 1; round <= ROUNDS; round++)); do
  [ "$C_OK" = 1 ] && run_json "$round" "C (cuFFT, cuRAND)" "$BIN"
  run_json "$round" "cuda-ts on $RT" "${TS[@]}"
  [ "${BENCH_SKIP_PYTHON:-0}" = 1 ] || run_json "$round" "CuPy" "$PY" bench/python/fft_rng.py
done
log "results in $RES"
# A side-by-side summary on stderr: the median over rounds of each contender's value per measure.
"$PY" - "$RES" <<'PYEOF' 2>&1 | tee -a "$LOG" >&2
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "value" in d:
        rows.setdefault(d["measure"], {}).setdefault(d["contender"], []).append(d["value"])
for m, by in sorted(rows.items()):
    c = statistics.median(by["c-mathlibs"]) if "c-mathlibs" in by else None
    cells = []
    for who, vals in sorted(by.items()):
        v = statistics.median(vals)
        ratio = f" ({c / v:.3f}x C's speed)" if c and who != "c-mathlibs" and not m.endswith(".call") else (f" ({v / c:.2f}x C's time)" if c and who != "c-mathlibs" else "")
        cells.append(f"{who} {v:.4g}{ratio}")
    print(f"{m}: " + "; ".join(cells))
PYEOF
