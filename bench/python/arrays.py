"""The CuPy and PyTorch side of the array measures (bench/README.md, "Arrays and builders"), as JSON lines in the
suite's format, contenders `python-cupy` and `python-torch`:

  array.saxpy.1GiB   GB/s  z = a*x + y over 1 GiB float32 arrays, in place (3 GiB moved), GPU time from events:
                           CuPy's ElementwiseKernel; PyTorch's torch.add(y, x, alpha=a, out=y)
  array.sum.1GiB     GB/s  cupy.sum / torch.sum of 1 GiB float32, GPU time from events

Each measure: a warm-up, then R = 21 repetitions of M calls (M chosen so a repetition takes about 20 ms), the
median per-call time reported with min and max, as bench/ts/harness.ts does. A library that is not installed, or a
measure that fails, gives a `missing` line.

    python3 bench/python/arrays.py
"""

import json
import sys

R = 21
GIB = 2**30


def emit(contender, measure, per_call_s, lo_s, hi_s, nbytes, reps, iters, note=None):
    line = {
        "contender": contender,
        "measure": measure,
        "value": float(f"{nbytes / per_call_s / 1e9:.6g}"),
        "unit": "GB/s",
        "min": float(f"{nbytes / hi_s / 1e9:.6g}"),
        "max": float(f"{nbytes / lo_s / 1e9:.6g}"),
        "reps": reps,
        "iters": iters,
    }
    if note:
        line["note"] = note
    print(json.dumps(line), flush=True)


def missing(contender, measure, why):
    print(json.dumps({"contender": contender, "measure": measure, "missing": why}), flush=True)
    print(f"arrays.py: {contender} {measure} not measured: {why}", file=sys.stderr)


def run(contender, measure, nbytes, one, start_event, end_event, sync, note=None):
    """Times `one` with events: calibrate M, then R repetitions; reports GB/s."""
    try:
        def rep(m):
            start_event.record()
            for _ in range(m):
                one()
            end_event.record()
            end_event.synchronize()
            return elapsed(start_event, end_event) / 1000.0

        m = 1
        t = rep(m)
        while t < 0.002 and m < 100000:
            m *= 10
            t = rep(m)
        m = max(1, int(0.020 / (t / m)))
        rep(m)
        per = sorted(rep(m) / m for _ in range(R))
        emit(contender, measure, per[R // 2], per[0], per[-1], nbytes, R, m, note)
    except Exception as e:  # noqa: BLE001 - a failing measure is reported and skipped
        missing(contender, measure, f"failed: {type(e).__name__}: {e}")
    finally:
        sync()


elapsed = None


def cupy_side():
    global elapsed
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001
        for m in ("array.saxpy.1GiB", "array.sum.1GiB"):
            missing("python-cupy", m, f"cupy not importable: {e}")
        return
    n = GIB // 4
    x = cp.full(n, 1, dtype=cp.float32)
    y = cp.full(n, 2, dtype=cp.float32)
    saxpy = cp.ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "saxpy")
    a = cp.float32(0.5)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    elapsed = cp.cuda.get_elapsed_time
    sync = cp.cuda.Device().synchronize
    run("python-cupy", "array.saxpy.1GiB", 3 * GIB, lambda: saxpy(a, x, y, y), start, end, sync, "ElementwiseKernel, in place")
    run("python-cupy", "array.sum.1GiB", GIB, lambda: cp.sum(x), start, end, sync, "cupy.sum")
    del x, y
    cp.get_default_memory_pool().free_all_blocks()


def torch_side():
    global elapsed
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
    except Exception as e:  # noqa: BLE001
        for m in ("array.saxpy.1GiB", "array.sum.1GiB"):
            missing("python-torch", m, f"torch not usable: {e}")
        return
    n = GIB // 4
    x = torch.full((n,), 1.0, dtype=torch.float32, device="cuda")
    y = torch.full((n,), 2.0, dtype=torch.float32, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    elapsed = lambda s, e: s.elapsed_time(e)  # noqa: E731
    sync = torch.cuda.synchronize
    run("python-torch", "array.saxpy.1GiB", 3 * GIB, lambda: torch.add(y, x, alpha=0.5, out=y), start, end, sync, "torch.add(y, x, alpha, out=y)")
    run("python-torch", "array.sum.1GiB", GIB, lambda: torch.sum(x), start, end, sync, "torch.sum")
    del x, y
    torch.cuda.empty_cache()


if __name__ == "__main__":
    cupy_side()
    torch_side()
