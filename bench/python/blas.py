"""The PyTorch side of the gemm measures (bench/README.md, "cuBLAS gemm"), as JSON lines in the suite's format,
contender `python-torch`, the same measures as bench/ts/blas.ts and bench/c/blas.c:

  gemm.N.{f16,bf16}  TFLOP/s  torch.matmul(a, b, out=c) of N x N matrices (N = 4096, 8192) in the dtype (PyTorch's
                              cuBLAS call accumulates in float32), GPU time from events
  gemm.N.tf32        TFLOP/s  float32 with torch.backends.cuda.matmul.allow_tf32 = True
  gemm.N.f32         TFLOP/s  float32 with allow_tf32 = False
  gemm.64.f32.call   ns       the CPU cost of one 64^3 float32 torch.matmul(a, b, out=c) (bursts of 256, synchronised
                              between bursts, untimed)

A and B are torch.rand * 2 - 1 (uniform in [-1, 1), as the other contenders' LCG). Method: a warm-up that
calibrates M, then R = 21 repetitions of M calls, the median with min and max. A measure that fails, or PyTorch
missing, gives a `missing` line.

    python3 bench/python/blas.py
"""

import json
import sys
import time

R = 21
TARGET_S = 0.020
BURST = 256
C = "python-torch"


def missing(measure, why):
    print(json.dumps({"contender": C, "measure": measure, "missing": why}), flush=True)
    print(f"blas.py: {C} {measure} not measured: {why}", file=sys.stderr)


def sig(x):
    return float(f"{x:.6g}")


def main():
    sizes = (4096, 8192)
    tags = ("f16", "bf16", "tf32", "f32")
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        for n in sizes:
            for t in tags:
                missing(f"gemm.{n}.{t}", f"torch not importable: {e}")
        missing("gemm.64.f32.call", f"torch not importable: {e}")
        return
    dev = torch.device("cuda", 0)
    stream = torch.cuda.Stream(device=dev)
    print(f"blas.py: {C} on {torch.cuda.get_device_name(dev)}, torch {torch.__version__}, CUDA {torch.version.cuda}", file=sys.stderr)
    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32, "f32": torch.float32}
    with torch.cuda.stream(stream):
        for n in sizes:
            for tag in tags:
                name = f"gemm.{n}.{tag}"
                try:
                    torch.backends.cuda.matmul.allow_tf32 = tag == "tf32"
                    g = torch.Generator(device=dev).manual_seed(1)
                    a = (torch.rand((n, n), device=dev, generator=g) * 2 - 1).to(dtypes[tag])
                    b = (torch.rand((n, n), device=dev, generator=g) * 2 - 1).to(dtypes[tag])
                    c = torch.empty((n, n), device=dev, dtype=dtypes[tag])
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)

                    def rep(m):
                        start.record(stream)
                        for _ in range(m):
                            torch.matmul(a, b, out=c)
                        end.record(stream)
                        end.synchronize()
                        return start.elapsed_time(end) / 1e3

                    m = 1
                    t = rep(m)
                    while t < 0.002 and m < 1000000:
                        m *= 10
                        t = rep(m)
                    # Twice more at the M the last time suggests: the first call of a shape pays for cuBLAS's
                    # heuristics and kernel loading, and an M chosen from it alone can be 1.
                    for _ in range(2):
                        m = max(1, int(TARGET_S / (t / m) + 0.999))
                        t = rep(m)
                    m = max(1, int(TARGET_S / (t / m) + 0.999))
                    per = sorted(rep(m) / m for _ in range(R))
                    flops = 2.0 * n * n * n
                    note = f"torch.matmul, {str(dtypes[tag]).replace('torch.', '')}, allow_tf32={tag == 'tf32'}, GPU time from events"
                    print(json.dumps({"contender": C, "measure": name, "value": sig(flops / per[R // 2] / 1e12), "unit": "TFLOP/s",
                                      "min": sig(flops / per[-1] / 1e12), "max": sig(flops / per[0] / 1e12), "reps": R, "iters": m,
                                      "note": note}), flush=True)
                    del a, b, c
                    torch.cuda.empty_cache()
                except Exception as e:  # noqa: BLE001
                    missing(name, f"failed: {type(e).__name__}: {e}")
        torch.backends.cuda.matmul.allow_tf32 = False
        name = "gemm.64.f32.call"
        try:
            g = torch.Generator(device=dev).manual_seed(3)
            a = torch.rand((64, 64), device=dev, generator=g) * 2 - 1
            b = torch.rand((64, 64), device=dev, generator=g) * 2 - 1
            c = torch.empty((64, 64), device=dev)

            def calls(m):
                t = 0.0
                while m > 0:
                    k = min(BURST, m)
                    t0 = time.perf_counter()
                    for _ in range(k):
                        torch.matmul(a, b, out=c)
                    t += time.perf_counter() - t0
                    m -= k
                    stream.synchronize()
                return t

            m = 1
            t = calls(m)
            while t < 0.002 and m < 100000000:
                m *= 10
                t = calls(m)
            for _ in range(2):
                m = max(1, int(TARGET_S / (t / m) + 0.999))
                t = calls(m)
            m = max(1, int(TARGET_S / (t / m) + 0.999))
            per = sorted(calls(m) / m for _ in range(R))
            print(json.dumps({"contender": C, "measure": name, "value": sig(per[R // 2] * 1e9), "unit": "ns", "min": sig(per[0] * 1e9),
                              "max": sig(per[-1] * 1e9), "reps": R, "iters": m,
                              "note": f"wall time per call in bursts of {BURST}, the stream synchronised between bursts (untimed)"}), flush=True)
        except Exception as e:  # noqa: BLE001
            missing(name, f"failed: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
