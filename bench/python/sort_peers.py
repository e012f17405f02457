"""The CuPy and PyTorch side of bench/ts/sort.ts: cupy.sort and torch.sort (values only) of 2^28 random uint32 keys
and of 2^28 random float32 keys (uniform in [0, 1)), and cupy.argsort / torch.argsort(stable=True) of the float32
keys, one JSON line each, { name, ms, keysPerSecond, runs, min, max, n, device, library }: `ms` is the median GPU time
(events around one call, the output's allocation included) of several runs after a warm-up. A library that is not
installed gives a line with `missing`.

    python3 bench/python/sort_peers.py
    SORT_LOG2=24 python3 bench/python/sort_peers.py
"""

import json
import os
import sys

LOG2 = int(os.environ.get("SORT_LOG2", "28"))
N = 2**LOG2
RUNS = 11


def report(library, name, times_ms, device):
    times_ms = sorted(times_ms)
    median = times_ms[len(times_ms) // 2]
    print(
        json.dumps(
            {
                "name": name,
                "ms": round(median, 4),
                "keysPerSecond": float(f"{N / (median / 1e3):.6g}"),
                "runs": len(times_ms),
                "min": round(times_ms[0], 4),
                "max": round(times_ms[-1], 4),
                "n": N,
                "device": device,
                "library": library,
            }
        ),
        flush=True,
    )


def missing(library, why):
    print(json.dumps({"library": library, "missing": why}), flush=True)
    print(f"sort_peers.py: {library} not measured: {why}", file=sys.stderr)


def cupy_side():
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001
        missing("cupy", f"not importable: {e}")
        return
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    start, end = cp.cuda.Event(), cp.cuda.Event()

    def time(one):
        one()
        cp.cuda.Device().synchronize()
        out = []
        for _ in range(RUNS):
            start.record()
            r = one()
            end.record()
            end.synchronize()
            out.append(cp.cuda.get_elapsed_time(start, end))
            del r
        return out

    rs = cp.random.RandomState(12345)
    keys_u32 = rs.randint(0, 2**32, size=N, dtype=cp.uint64).astype(cp.uint32)
    report("cupy", f"sort.uint32.2^{LOG2}", time(lambda: cp.sort(keys_u32)), device)
    del keys_u32
    keys_f32 = rs.random_sample(N, dtype=cp.float32)
    report("cupy", f"sort.float32.2^{LOG2}", time(lambda: cp.sort(keys_f32)), device)
    report("cupy", f"argsort.float32.2^{LOG2}", time(lambda: cp.argsort(keys_f32)), device)
    del keys_f32
    cp.get_default_memory_pool().free_all_blocks()


def torch_side():
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        missing("torch", f"not importable: {e}")
        return
    device = torch.cuda.get_device_name(0)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def time(one):
        one()
        torch.cuda.synchronize()
        out = []
        for _ in range(RUNS):
            start.record()
            r = one()
            end.record()
            end.synchronize()
            out.append(start.elapsed_time(end))
            del r
        return out

    g = torch.Generator(device="cuda").manual_seed(12345)
    keys_u32 = torch.randint(0, 2**32, (N,), dtype=torch.int64, device="cuda", generator=g).to(torch.uint32)
    try:
        report("torch", f"sort.uint32.2^{LOG2}", time(lambda: torch.sort(keys_u32).values), device)
    except Exception as e:  # noqa: BLE001 - older PyTorch has no uint32 sort
        missing("torch", f"sort.uint32: {type(e).__name__}: {e}")
    del keys_u32
    keys_f32 = torch.rand((N,), dtype=torch.float32, device="cuda", generator=g)
    report("torch", f"sort.float32.2^{LOG2}", time(lambda: torch.sort(keys_f32).values), device)
    report("torch", f"argsort.float32.2^{LOG2}", time(lambda: torch.argsort(keys_f32, stable=True)), device)
    del keys_f32
    torch.cuda.empty_cache()


if __name__ == "__main__":
    cupy_side()
    torch_side()
