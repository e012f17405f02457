"""The CuPy and PyTorch side of the array operation measures (bench/ts/array-ops.ts), as JSON lines in the suite's
format, contenders `python-cupy` and `python-torch`, on the same GPU:

  ops.add.broadcast.16384x16384  GB/s  m + row into out, m [16384, 16384] float32, row [16384] (2 GiB moved)
  ops.exp.1GiB                   GB/s  exp(x, out=y) of 1 GiB float32 (2 GiB moved)
  ops.astype.f32-f16.1GiB        GB/s  x.astype(float16) / x.to(float16) of 1 GiB float32 (1.5 GiB moved)
  ops.sum.axis0.16384x16384      GB/s  sum over axis 0 (1 GiB read)
  ops.sum.axis1.16384x16384      GB/s  sum over axis 1 (1 GiB read)
  ops.cumsum.2^28                GB/s  cumsum(x, out=y) of 2^28 float32 (2 GiB moved)
  ops.sort.uint32.2^28           ms    cupy.sort / torch.sort of 2^28 random uint32
  ops.sort.float32.2^28          ms    cupy.sort / torch.sort of 2^28 random float32 in [0, 1)
  ops.add.1024.call              ns    add(a, b, out=c) of 1,024 float32, wall time per call (bursts of 256, synchronised
                                       between bursts, untimed)

The method of bench/ts/harness.ts: a warm-up that calibrates M (a repetition of about 20 ms), then R = 21 repetitions,
the median per-call value reported with min and max. A library that is not installed, or a measure that fails, gives a
`missing` line.

    python3 bench/python/array_ops.py
"""

import json
import sys
import time

R = 21
GIB = 2**30
MEASURES = (
    "ops.add.broadcast.16384x16384",
    "ops.exp.1GiB",
    "ops.astype.f32-f16.1GiB",
    "ops.sum.axis0.16384x16384",
    "ops.sum.axis1.16384x16384",
    "ops.cumsum.2^28",
    "ops.sort.uint32.2^28",
    "ops.sort.float32.2^28",
    "ops.add.1024.call",
)


def sig(x):
    return float(f"{x:.6g}")


def emit(contender, measure, unit, per, m, nbytes=0, note=None):
    med, lo, hi = per[R // 2], per[0], per[-1]
    if unit == "GB/s":
        value, vmin, vmax = nbytes / med / 1e9, nbytes / hi / 1e9, nbytes / lo / 1e9
    else:
        k = 1e9 if unit == "ns" else 1e3
        value, vmin, vmax = med * k, lo * k, hi * k
    line = {"contender": contender, "measure": measure, "value": sig(value), "unit": unit, "min": sig(vmin), "max": sig(vmax), "reps": R, "iters": m}
    if note:
        line["note"] = note
    print(json.dumps(line), flush=True)


def missing(contender, measure, why):
    print(json.dumps({"contender": contender, "measure": measure, "missing": why}), flush=True)
    print(f"array_ops.py: {contender} {measure} not measured: {why}", file=sys.stderr)


def calibrate(rep):
    m = 1
    t = rep(m)
    while t < 0.002 and m < 100000000:
        m *= 10
        t = rep(m)
    for _ in range(2):
        m = max(1, int(0.020 / (t / m)))
        t = rep(m)
    return max(1, int(0.020 / (t / m)))


def measure(contender, name, unit, rep, sync, nbytes=0, note=None):
    try:
        m = calibrate(rep)
        per = sorted(rep(m) / m for _ in range(R))
        emit(contender, name, unit, per, m, nbytes, note)
    except Exception as e:  # noqa: BLE001 - a failing measure is reported and skipped
        missing(contender, name, f"failed: {type(e).__name__}: {e}")
    finally:
        sync()


def gpu_rep(one, start, end, elapsed_ms):
    def rep(m):
        start.record()
        for _ in range(m):
            one()
        end.record()
        end.synchronize()
        return elapsed_ms(start, end) / 1000.0

    return rep


def burst_rep(one, sync, burst=256):
    def rep(m):
        t = 0.0
        while m > 0:
            n = min(burst, m)
            t0 = time.perf_counter()
            for _ in range(n):
                one()
            t += time.perf_counter() - t0
            m -= n
            sync()
        return t

    return rep


def cupy_side():
    C = "python-cupy"
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001
        for m in MEASURES:
            missing(C, m, f"cupy not importable: {e}")
        return
    start, end = cp.cuda.Event(), cp.cuda.Event()
    el = cp.cuda.get_elapsed_time
    sync = cp.cuda.Device().synchronize
    pool = cp.get_default_memory_pool()
    n = GIB // 4
    x = cp.full(n, 1, dtype=cp.float32)
    y = cp.empty(n, dtype=cp.float32)
    measure(C, "ops.exp.1GiB", "GB/s", gpu_rep(lambda: cp.exp(x, out=y), start, end, el), sync, 2 * GIB, "cupy.exp(x, out=y)")
    measure(C, "ops.astype.f32-f16.1GiB", "GB/s", gpu_rep(lambda: x.astype(cp.float16), start, end, el), sync, 1.5 * GIB, "x.astype(cupy.float16)")
    measure(C, "ops.cumsum.2^28", "GB/s", gpu_rep(lambda: cp.cumsum(x, out=y), start, end, el), sync, 2 * GIB, "cupy.cumsum(x, out=y)")
    del x, y
    pool.free_all_blocks()
    r = 16384
    m = cp.full((r, r), 1, dtype=cp.float32)
    row = cp.full(r, 2, dtype=cp.float32)
    out = cp.empty((r, r), dtype=cp.float32)
    measure(C, "ops.add.broadcast.16384x16384", "GB/s", gpu_rep(lambda: cp.add(m, row, out=out), start, end, el), sync, 2 * GIB, "cupy.add(m, row, out=out)")
    measure(C, "ops.sum.axis0.16384x16384", "GB/s", gpu_rep(lambda: cp.sum(m, axis=0), start, end, el), sync, GIB, "cupy.sum(m, axis=0)")
    measure(C, "ops.sum.axis1.16384x16384", "GB/s", gpu_rep(lambda: cp.sum(m, axis=1), start, end, el), sync, GIB, "cupy.sum(m, axis=1)")
    del m, row, out
    pool.free_all_blocks()
    n = 2**28
    rs = cp.random.default_rng(1234)
    ku = rs.integers(0, 2**32, size=n, dtype=cp.uint64).astype(cp.uint32)
    kf = rs.random(n, dtype=cp.float32)
    measure(C, "ops.sort.uint32.2^28", "ms", gpu_rep(lambda: cp.sort(ku), start, end, el), sync, note="cupy.sort (CUB radix sort)")
    measure(C, "ops.sort.float32.2^28", "ms", gpu_rep(lambda: cp.sort(kf), start, end, el), sync, note="cupy.sort (CUB radix sort)")
    del ku, kf
    pool.free_all_blocks()
    a = cp.full(1024, 1, dtype=cp.float32)
    b = cp.full(1024, 2, dtype=cp.float32)
    c = cp.empty(1024, dtype=cp.float32)
    cp.add(a, b, out=c)
    sync()
    measure(C, "ops.add.1024.call", "ns", burst_rep(lambda: cp.add(a, b, out=c), sync), sync, note="cupy.add(a, b, out=c), wall time per call")


def torch_side():
    C = "python-torch"
    try:
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
    except Exception as e:  # noqa: BLE001
        for m in MEASURES:
            missing(C, m, f"torch not usable: {e}")
        return
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    el = lambda s, e: s.elapsed_time(e)  # noqa: E731
    sync = torch.cuda.synchronize
    n = GIB // 4
    x = torch.full((n,), 1.0, dtype=torch.float32, device="cuda")
    y = torch.empty((n,), dtype=torch.float32, device="cuda")
    measure(C, "ops.exp.1GiB", "GB/s", gpu_rep(lambda: torch.exp(x, out=y), start, end, el), sync, 2 * GIB, "torch.exp(x, out=y)")
    measure(C, "ops.astype.f32-f16.1GiB", "GB/s", gpu_rep(lambda: x.to(torch.float16), start, end, el), sync, 1.5 * GIB, "x.to(torch.float16)")
    measure(C, "ops.cumsum.2^28", "GB/s", gpu_rep(lambda: torch.cumsum(x, 0, out=y), start, end, el), sync, 2 * GIB, "torch.cumsum(x, 0, out=y)")
    del x, y
    torch.cuda.empty_cache()
    r = 16384
    m = torch.full((r, r), 1.0, dtype=torch.float32, device="cuda")
    row = torch.full((r,), 2.0, dtype=torch.float32, device="cuda")
    out = torch.empty((r, r), dtype=torch.float32, device="cuda")
    measure(C, "ops.add.broadcast.16384x16384", "GB/s", gpu_rep(lambda: torch.add(m, row, out=out), start, end, el), sync, 2 * GIB, "torch.add(m, row, out=out)")
    measure(C, "ops.sum.axis0.16384x16384", "GB/s", gpu_rep(lambda: torch.sum(m, 0), start, end, el), sync, GIB, "torch.sum(m, 0)")
    measure(C, "ops.sum.axis1.16384x16384", "GB/s", gpu_rep(lambda: torch.sum(m, 1), start, end, el), sync, GIB, "torch.sum(m, 1)")
    del m, row, out
    torch.cuda.empty_cache()
    n = 2**28
    g = torch.Generator(device="cuda").manual_seed(1234)
    ku = torch.randint(0, 2**32, (n,), dtype=torch.int64, device="cuda", generator=g).to(torch.uint32)
    kf = torch.rand((n,), dtype=torch.float32, device="cuda", generator=g)
    measure(C, "ops.sort.uint32.2^28", "ms", gpu_rep(lambda: torch.sort(ku), start, end, el), sync, note="torch.sort (values and indices)")
    measure(C, "ops.sort.float32.2^28", "ms", gpu_rep(lambda: torch.sort(kf), start, end, el), sync, note="torch.sort (values and indices)")
    del ku, kf
    torch.cuda.empty_cache()
    a = torch.full((1024,), 1.0, dtype=torch.float32, device="cuda")
    b = torch.full((1024,), 2.0, dtype=torch.float32, device="cuda")
    c = torch.empty((1024,), dtype=torch.float32, device="cuda")
    torch.add(a, b, out=c)
    sync()
    measure(C, "ops.add.1024.call", "ns", burst_rep(lambda: torch.add(a, b, out=c), sync), sync, note="torch.add(a, b, out=c), wall time per call")


if __name__ == "__main__":
    cupy_side()
    torch_side()
