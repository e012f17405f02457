"""The CuPy and PyTorch side of the scan measures (bench/ts/scan.ts), as JSON lines in the suite's format,
contenders `python-cupy` and `python-torch`: cumsum of 2^28 float32 (2 GiB moved), of 2^28 int32 into int64
(3 GiB moved), along axis 0 and axis 1 of a 16384 x 16384 float32 (2 GiB moved), each into a given out, GPU time
from events, timed as bench/python/arrays.py times its measures.

    python3 bench/python/scan.py
"""

import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arrays  # noqa: E402 - the shared timing and output

GIB = 2**30
N = 2**28


def cupy_side():
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001
        for m in ("array.cumsum.2^28.f32", "array.cumsum.2^28.i32", "array.cumsum.axis0.16384x16384.f32", "array.cumsum.axis1.16384x16384.f32"):
            arrays.missing("python-cupy", m, f"cupy not importable: {e}")
        return
    arrays.elapsed = lambda s, e: cp.cuda.get_elapsed_time(s, e)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    sync = cp.cuda.Device().synchronize
    x = cp.ones(N, dtype=cp.float32)
    y = cp.empty(N, dtype=cp.float32)
    arrays.run("python-cupy", "array.cumsum.2^28.f32", 2 * GIB, lambda: cp.cumsum(x, out=y), start, end, sync, "cupy.cumsum (CUB)")
    xi = cp.ones(N, dtype=cp.int32)
    yi = cp.empty(N, dtype=cp.int64)
    arrays.run("python-cupy", "array.cumsum.2^28.i32", 3 * GIB, lambda: cp.cumsum(xi, out=yi), start, end, sync, "int32 into int64")
    del xi, yi
    m = x.reshape(16384, 16384)
    o = y.reshape(16384, 16384)
    arrays.run("python-cupy", "array.cumsum.axis0.16384x16384.f32", 2 * GIB, lambda: cp.cumsum(m, axis=0, out=o), start, end, sync)
    arrays.run("python-cupy", "array.cumsum.axis1.16384x16384.f32", 2 * GIB, lambda: cp.cumsum(m, axis=1, out=o), start, end, sync)


def torch_side():
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        for m in ("array.cumsum.2^28.f32", "array.cumsum.2^28.i32", "array.cumsum.axis0.16384x16384.f32", "array.cumsum.axis1.16384x16384.f32"):
            arrays.missing("python-torch", m, f"torch not importable: {e}")
        return
    arrays.elapsed = lambda s, e: s.elapsed_time(e)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    sync = torch.cuda.synchronize
    x = torch.ones(N, dtype=torch.float32, device="cuda")
    y = torch.empty(N, dtype=torch.float32, device="cuda")
    arrays.run("python-torch", "array.cumsum.2^28.f32", 2 * GIB, lambda: torch.cumsum(x, 0, out=y), start, end, sync, "torch.cumsum")
    xi = torch.ones(N, dtype=torch.int32, device="cuda")
    yi = torch.empty(N, dtype=torch.int64, device="cuda")
    arrays.run("python-torch", "array.cumsum.2^28.i32", 3 * GIB, lambda: torch.cumsum(xi, 0, out=yi), start, end, sync, "int32 into int64")
    del xi, yi
    m = x.view(16384, 16384)
    o = y.view(16384, 16384)
    arrays.run("python-torch", "array.cumsum.axis0.16384x16384.f32", 2 * GIB, lambda: torch.cumsum(m, 0, out=o), start, end, sync)
    arrays.run("python-torch", "array.cumsum.axis1.16384x16384.f32", 2 * GIB, lambda: torch.cumsum(m, 1, out=o), start, end, sync)


if __name__ == "__main__":
    cupy_side()
    torch_side()
