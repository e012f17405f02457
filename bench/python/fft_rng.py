"""CuPy's side of the cuFFT bench (bench/ts/fft-rng.ts has the measures' table), as JSON lines in the suite's
format, contender `python-cupy`:

  fft.c2c.1d.2^24.f32          ms  one 2^24-point complex64 FFT, in place (a cached cuFFT plan), GPU time from events
  fft.c2c.2d.256x512x512.f32   ms  256 batched 512x512 complex64 2D FFTs, in place, GPU time from events
  fft.c2c.1d.256.call          ns  the CPU cost of one call of a cached 256-point plan (bursts of 256, synchronised
                                   between bursts, untimed)

CuPy has no direct counterpart of 10^9 cuRAND normals into a given array through the host API's generator object
(cupy.random's generators are its own kernels), so the normals are compared with C only. Method: a warm-up that
calibrates M, then R = 21 repetitions of M calls, the median per-call time reported with min and max. A library that
is not installed, or a measure that fails, gives a `missing` line.

    python3 bench/python/fft_rng.py
"""

import json
import sys
import time

R = 21
TARGET_S = 0.02
MIN_M_FAST = 100_000
BURST = 256
C = "python-cupy"


def emit(measure, unit, per, m, note):
    k = 1e9 if unit == "ns" else 1e3
    line = {"contender": C, "measure": measure, "value": float(f"{per[R // 2] * k:.6g}"), "unit": unit,
            "min": float(f"{per[0] * k:.6g}"), "max": float(f"{per[-1] * k:.6g}"), "reps": R, "iters": m, "note": note}
    print(json.dumps(line), flush=True)


def missing(measure, why):
    print(json.dumps({"contender": C, "measure": measure, "missing": why}), flush=True)
    print(f"fft_rng.py: {C} {measure} not measured: {why}", file=sys.stderr)


def choose_m(per_s):
    m = max(1, int(-(-TARGET_S // per_s))) if per_s > 0 else 1_000_000_000
    if per_s < 1e-6:
        m = max(m, MIN_M_FAST)
    return min(m, 1_000_000_000)


def calibrate(rep):
    m = 1
    t = rep(m)
    while t < 0.002 and m < 100_000_000:
        m *= 10
        t = rep(m)
    for _ in range(2):
        m = choose_m(t / m)
        t = rep(m)
    return choose_m(t / m)


def run(measure, unit, rep, note):
    try:
        m = calibrate(rep)
        per = sorted(rep(m) / m for _ in range(R))
        emit(measure, unit, per, m, note)
    except Exception as e:  # noqa: BLE001 - a failing measure is reported and skipped
        missing(measure, f"failed: {type(e).__name__}: {e}")


def main():
    try:
        import cupy as cp
        import cupyx.scipy.fft as cfft
        from cupyx.scipy.fftpack import get_fft_plan
    except Exception as e:  # noqa: BLE001
        for m in ("fft.c2c.1d.2^24.f32", "fft.c2c.2d.256x512x512.f32", "fft.c2c.1d.256.call"):
            missing(m, f"cupy not importable: {e}")
        return
    stream = cp.cuda.Stream(non_blocking=True)
    start, end = cp.cuda.Event(), cp.cuda.Event()

    def gpu_rep(one):
        def rep(m):
            start.record(stream)
            for _ in range(m):
                one()
            end.record(stream)
            end.synchronize()
            return cp.cuda.get_elapsed_time(start, end) / 1000.0
        return rep

    def burst_rep(one):
        def rep(m):
            t = 0.0
            while m > 0:
                n = min(BURST, m)
                t0 = time.perf_counter()
                for _ in range(n):
                    one()
                t += time.perf_counter() - t0
                m -= n
                stream.synchronize()
            return t
        return rep

    with stream:
        x = cp.zeros(1 << 24, dtype=cp.complex64)
        plan = get_fft_plan(x, value_type="C2C")
        run("fft.c2c.1d.2^24.f32", "ms", gpu_rep(lambda: cfft.fft(x, overwrite_x=True, plan=plan)), "cupyx.scipy.fft.fft, overwrite_x, a cached plan")
        del x, plan
        x = cp.zeros((256, 512, 512), dtype=cp.complex64)
        plan = get_fft_plan(x, axes=(1, 2), value_type="C2C")
        run("fft.c2c.2d.256x512x512.f32", "ms", gpu_rep(lambda: cfft.fft2(x, axes=(1, 2), overwrite_x=True, plan=plan)), "cupyx.scipy.fft.fft2, overwrite_x, a cached plan")
        del x, plan
        x = cp.zeros(256, dtype=cp.complex64)
        plan = get_fft_plan(x, value_type="C2C")
        run("fft.c2c.1d.256.call", "ns", burst_rep(lambda: cfft.fft(x, overwrite_x=True, plan=plan)), "cupyx.scipy.fft.fft, overwrite_x, a cached plan")
        del x, plan
    cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
