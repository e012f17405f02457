#!/usr/bin/env bash
# Runs the benchmarks of bench/README.md on the GPU machine, from the repository root, in one go: the in-process
# measures interleaved, BENCH_ROUNDS rounds (default 5) of C, cuda-python, cuda-ts on RUNTIME, one process each,
# every result line tagged with its "round" (bench/report.ts pairs round i with C's round i); then the startup
# measures (each mode 5 separate processes after one untimed warm-up, timed with a monotonic clock, median).
# Every process is pinned to the CPUs BENCH_CPUS (default 2-3 where the machine has 4 or more) with taskset
# where taskset exists; BENCH_CPUS=none turns pinning off. The meta lines record the commit, the rounds and the
# pinning.
#
#   bash bench/run.sh bun|deno OUTDIR
#
# The runtime must be on PATH: through the device tool, after `../shared/gpu/pack.sh RUNTIME` here,
#   bash .device/remote.sh bun  -- bash bench/run.sh bun  "$OUT"
#   bash .device/remote.sh deno -- bash bench/run.sh deno "$OUT"
#
# Appends every JSON line to OUTDIR/results-RUNTIME.jsonl (a {"meta": ...} line first) and all output to
# OUTDIR/bench-RUNTIME.log. A failing contender is logged and the others go on. Environment: CUDA_HOME (default
# /usr/local/cuda), PYTHON (default python3), BENCH_BUDGET_S (default 420: steps that would start later are
# skipped), BENCH_COMMIT (recorded in the meta line when git is not available), BENCH_ROUNDS, BENCH_CPUS,
# BENCH_PACKAGE=0 (no start-up rows of the built package, contenders RUNTIME-core-pkg and RUNTIME-raw-pkg).
set -u -o pipefail

RT=${1:-}
OUTDIR=${2:-}
case "$RT" in
  bun | deno) ;;
  *)
    echo "usage: bash bench/run.sh bun|deno OUTDIR" >&2
    exit 2
    ;;
esac
[ -n "$OUTDIR" ] || { echo "usage: bash bench/run.sh bun|deno OUTDIR" >&2; exit 2; }

cd "$(dirname "$0")/.." || exit 1
mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd) || exit 1
RES=$OUTDIR/results-$RT.jsonl
LOG=$OUTDIR/bench-$RT.log
START=$SECONDS
BUDGET=${BENCH_BUDGET_S:-420}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PY=${PYTHON:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuda-ts-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

log() { echo "[run.sh $(date -u +%H:%M:%S) +$((SECONDS - START))s] $*" | tee -a "$LOG" >&2; }

ROUNDS=${BENCH_ROUNDS:-5}
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_ROUNDS must be a positive integer, got '$ROUNDS'" >&2; exit 2; }
# PIN: the command prefix that pins a process to BENCH_CPUS (empty: not pinned).
PIN=()
PINNED=""
if [ "${BENCH_CPUS:-}" != none ] && command -v taskset >/dev/null 2>&1; then
  if [ -n "${BENCH_CPUS:-}" ]; then
    PINNED=$BENCH_CPUS
  elif [ "$(nproc 2>/dev/null || echo 1)" -ge 4 ]; then
    PINNED=2-3
  fi
  if [ -n "$PINNED" ] && taskset -c "$PINNED" true 2>/dev/null; then
    PIN=(taskset -c "$PINNED")
  else
    PINNED=""
  fi
fi
# ROUND: when set, run_json tags each JSON line with it.
ROUND=""

# run_json LABEL LIMIT_S CMD...: runs CMD; its stdout goes to the log and its JSON lines to RES, its stderr to
# the log. Returns CMD's status; nothing stops the script.
run_json() {
  local label=$1 limit=$2
  shift 2
  if ((SECONDS - START > BUDGET)); then
    log "SKIP $label: past the time budget (${BUDGET}s)"
    return 1
  fi
  log "start $label${ROUND:+ (round $ROUND)}${PINNED:+ (CPUs $PINNED)}: $*"
  timeout --kill-after=10 "$limit" ${PIN[@]+"${PIN[@]}"} "$@" 2>>"$LOG" | tee -a "$LOG" | { grep '^{' || true; } |
    if [ -n "$ROUND" ]; then sed -e "s/^{/{\"round\": $ROUND, /"; else cat; fi >>"$RES"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then
    log "done $label"
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    log "FAILED $label: timed out after ${limit}s"
  else
    log "FAILED $label: exit status $rc"
  fi
  return "$rc"
}

log "cuda-ts benchmarks, runtime $RT, results in $RES"

# ---------------------------------------------------------------------------- what runs it
case "$RT" in
  bun) TS=(bun bench/ts/bench.ts) STARTUP=(bun bench/ts/startup.ts) ;;
  deno) TS=(deno run -A bench/ts/bench.ts) STARTUP=(deno run -A bench/ts/startup.ts) ;;
esac
if command -v "$RT" >/dev/null 2>&1; then
  RT_VERSION=$("$RT" --version 2>/dev/null | head -n1)
else
  RT_VERSION="not on PATH"
  log "FAILED: $RT is not on PATH (run through .device/remote.sh $RT -- ...); the cuda-ts contenders will not run"
fi
BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}
BENCH_COMMIT=$BENCH_COMMIT "$PY" bench/python/bench.py --meta --runtime "$RT" --runtime-version "$RT_VERSION" 2>>"$LOG" | tee -a "$LOG" >>"$RES"
# A second meta line (bench/report.ts merges them): how this run was taken.
printf '{"meta": true, "commit": "%s", "rounds": %d, "pinned": "%s", "host": "%s", "cpus": %d}\n' \
  "$BENCH_COMMIT" "$ROUNDS" "${PINNED:-no}" "$(hostname 2>/dev/null || echo '?')" "$(nproc 2>/dev/null || echo 0)" | tee -a "$LOG" >>"$RES"

# ---------------------------------------------------------------------------- build: the cubin and the C bench
CC_ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .\r')
if ! [[ "$CC_ARCH" =~ ^[0-9]+$ ]]; then
  CC_ARCH=$("$PY" -c 'from cuda.bindings import driver as d; d.cuInit(0); A=d.CUdevice_attribute; print("%d%d" % (d.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0)[1], d.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0)[1]))' 2>>"$LOG")
fi
if ! [[ "$CC_ARCH" =~ ^[0-9]+$ ]]; then
  log "could not read the compute capability; assuming sm_90 (H200)"
  CC_ARCH=90
fi
NVCC=$(command -v nvcc || echo "$CUDA_HOME/bin/nvcc")
CUBIN=$WORK/kernels.cubin
log "nvcc -cubin -arch=sm_$CC_ARCH bench/kernels.cu"
if ! "$NVCC" -cubin -arch="sm_$CC_ARCH" -O3 -o "$CUBIN" bench/kernels.cu >>"$LOG" 2>&1; then
  log "FAILED: nvcc could not compile bench/kernels.cu; no contender can run"
  exit 1
fi

BENCH_C=$WORK/bench-c
C_OK=0
for libcuda in "-L$CUDA_HOME/lib64/stubs -L$CUDA_HOME/targets/x86_64-linux/lib/stubs -lcuda" "-L/usr/local/nvidia/lib64 -lcuda" "-l:libcuda.so.1"; do
  # shellcheck disable=SC2086 # $libcuda is a list of flags
  if gcc -O2 -std=gnu11 -Wall -I"$CUDA_HOME/include" -o "$BENCH_C" bench/c/bench.c $libcuda -ldl -lm >>"$LOG" 2>&1; then
    C_OK=1
    log "gcc -O2 bench/c/bench.c ($libcuda)"
    break
  fi
done
[ "$C_OK" = 1 ] || log "FAILED: gcc could not build bench/c/bench.c; the C contender and its startup measures will not run"
for nv in "$CUDA_HOME/lib64/libnvrtc.so.13" "$CUDA_HOME/targets/x86_64-linux/lib/libnvrtc.so.13"; do
  if [ -z "${BENCH_NVRTC:-}" ] && [ -e "$nv" ]; then export BENCH_NVRTC=$nv; fi
done
log "C's NVRTC: ${BENCH_NVRTC:-libnvrtc.so.13 through the system loader}"

# ---------------------------------------------------------------------------- the in-process measures
# Interleaved: C, cuda-python, cuda-ts, C, cuda-python, cuda-ts, ... so that drift (clocks, other load) falls on
# every contender alike; bench/report.ts divides each round by C's round and reports the spread of those ratios.
for ((r = 1; r <= ROUNDS; r++)); do
  ROUND=$r
  [ "$C_OK" = 1 ] && run_json "c" 150 "$BENCH_C" "$CUBIN"
  # BENCH_SKIP_PYTHON=1 leaves cuda-python out (measure it in one of the two runs only, to save GPU time).
  [ "${BENCH_SKIP_PYTHON:-0}" = 1 ] || run_json "python (cuda.bindings, cuda.core)" 200 "$PY" bench/python/bench.py --cubin "$CUBIN"
  run_json "cuda-ts on $RT" 200 "${TS[@]}" --cubin "$CUBIN"
done
ROUND=""

# ---------------------------------------------------------------------------- startup: whole processes
startup() { # CONTENDER MEASURE CMD...
  local contender=$1 measure=$2
  shift 2
  run_json "$contender $measure" 90 "$PY" bench/python/bench.py --time-runs --contender "$contender" --measure "$measure" --runs 5 -- "$@"
}
if [ "$C_OK" = 1 ]; then
  startup c startup.import "$BENCH_C" --startup-import
  startup c startup.setCurrent "$BENCH_C" --startup-set-current
  startup c startup.firstKernel "$BENCH_C" --startup-first-kernel "$CUBIN"
fi
for layer in bindings core; do
  [ "${BENCH_SKIP_PYTHON:-0}" = 1 ] && break
  startup "python-$layer" startup.import "$PY" bench/python/bench.py --startup import --layer "$layer"
  startup "python-$layer" startup.setCurrent "$PY" bench/python/bench.py --startup setCurrent --layer "$layer"
  startup "python-$layer" startup.firstKernel "$PY" bench/python/bench.py --startup firstKernel --layer "$layer" --cubin "$CUBIN"
done
# The runtime's own start (bench/ts/startup.ts importing nothing), then cuda-ts's paths through the same small file.
startup "$RT" startup.empty "${STARTUP[@]}" empty
for layer in raw core; do
  startup "$RT-$layer" startup.import "${STARTUP[@]}" import --layer "$layer"
  startup "$RT-$layer" startup.setCurrent "${STARTUP[@]}" setCurrent --layer "$layer"
  startup "$RT-$layer" startup.firstKernel "${STARTUP[@]}" firstKernel --layer "$layer" --cubin "$CUBIN"
done

# The same paths through the npm package's compiled JavaScript (dist/: built here by scripts/build.ts with the
# node_modules tools where dist/src/index.js is missing): what `import "cuda-ts"` loads from an installed package.
# BENCH_PACKAGE=0 leaves them out.
if [ "${BENCH_PACKAGE:-1}" = 1 ] && ((SECONDS - START <= BUDGET)); then
  if [ -f dist/src/index.js ]; then
    log "the package start-up rows use the dist/ already here"
  else
    log "building the package's dist/ for the package start-up rows"
    node_modules/.bin/bun scripts/build.ts >>"$LOG" 2>&1 || true
  fi
  if [ -f dist/src/index.js ]; then
    for layer in raw core; do
      startup "$RT-$layer-pkg" startup.import env BENCH_DIST=1 "${STARTUP[@]}" import --layer "$layer"
      startup "$RT-$layer-pkg" startup.setCurrent env BENCH_DIST=1 "${STARTUP[@]}" setCurrent --layer "$layer"
      startup "$RT-$layer-pkg" startup.firstKernel env BENCH_DIST=1 "${STARTUP[@]}" firstKernel --layer "$layer" --cubin "$CUBIN"
    done
  else
    log "FAILED: no dist/ (scripts/build.ts did not build it); the package start-up rows will not run"
  fi
fi

run_json "$RT in-process startup" 90 "${TS[@]}" --inprocess-startup

# ---------------------------------------------------------------------------- arrays and builders (opt-in)
# BENCH_ARRAYS=1: typed arrays and the kernel builders against CuPy and PyTorch (bench/README.md, "Arrays and
# builders"), one round each, into OUTDIR/arrays-RUNTIME.jsonl (bench/report.ts does not read them: no C counterpart).
if [ "${BENCH_ARRAYS:-0}" = 1 ]; then
  MAIN_RES=$RES
  RES=$OUTDIR/arrays-$RT.jsonl
  case "$RT" in
    bun) ARRAYS=(bun bench/ts/arrays.ts) ;;
    deno) ARRAYS=(deno run -A bench/ts/arrays.ts) ;;
  esac
  run_json "arrays and builders on $RT" 240 "${ARRAYS[@]}"
  [ "${BENCH_SKIP_PYTHON:-0}" = 1 ] || run_json "arrays: CuPy and PyTorch" 240 "$PY" bench/python/arrays.py
  RES=$MAIN_RES
fi

log "finished in $((SECONDS - START)) s: $(grep -c '"measure"' "$RES" 2>/dev/null || echo 0) results in $RES"
exit 0
