#!/usr/bin/env python3
"""cuda-python contenders of the benchmarks (bench/README.md): "python-bindings" (cuda.bindings.driver and
cuda.bindings.nvrtc) and "python-core" (cuda.core), with the measure names every contender shares.

    bench.py --cubin CUBIN [--only bindings|core]     every measure, JSON lines on stdout
    bench.py --startup import|setCurrent|firstKernel --layer bindings|core [--cubin CUBIN]
                                                      one startup path, then exit (timed by the caller)
    bench.py --time-runs --contender C --measure M [--runs 5] -- CMD ARGS...
                                                      runs CMD once untimed, then RUNS times, each a separate
                                                      process timed with a monotonic clock; prints the median
    bench.py --meta --runtime NAME [--runtime-version V]  a {"meta": ...} line describing the machine and run

Method: a warm-up that calibrates M, then R = 21 repetitions of M iterations; the median per-iteration time
(min and max kept). Timed loops allocate only where the measure is about it. Only the standard library is
imported at the top, so that the startup modes measure what they say.
"""
import ctypes
import json
import math
import os
import subprocess
import sys
import time

R = 21
TARGET_S = 0.02
MIN_M_FAST = 100_000
BURST = 256
BURSTS = 10
GRAPH_BURST = 16
GRAPH_BURSTS = 8
BIG = 256 << 20
# The same pageable buffer in every contender (bench/ts/harness.ts PAGEABLE_ALIGN): BIG bytes on a 2 MiB boundary.
PAGEABLE_ALIGN = 2 << 20
PAGEABLE_NOTE = "pageable host buffer starting on a 2 MiB boundary"

# The same text as k4 in bench/kernels.cu (every contender compiles this string).
K4_SOURCE = (
    'extern "C" __global__ void k4(float a, const float* x, float* y, int n) {\n'
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
)

now_ns = time.perf_counter_ns


def note(msg):
    print(f"bench.py: {msg}", file=sys.stderr, flush=True)


def emit(line):
    print(json.dumps(line), flush=True)


def sig(x):
    return float(f"{x:.6g}")


def choose_m(per_s):
    """M for a per-iteration time: a repetition of about TARGET_S, at least MIN_M_FAST for sub-microsecond calls."""
    m = math.ceil(TARGET_S / (per_s if per_s > 0 else 1e-9))
    if per_s < 1e-6:
        m = max(m, MIN_M_FAST)
    return min(max(1, m), 1_000_000_000)


def calibrate(rep):
    """The warm-up: m grows tenfold until a repetition takes 2 ms, then two more repetitions at the M that time
    suggests (the first ones pay for first-call costs); returns the M of the last."""
    m = 1
    t = rep(m)
    while t < 2_000_000 and m < 100_000_000:
        m *= 10
        t = rep(m)
    for _ in range(2):
        m = choose_m(t * 1e-9 / m)
        t = rep(m)
    return choose_m(t * 1e-9 / m)


def measure(contender, name, unit, rep, fixed_m=0, nbytes=0.0, remark=None):
    """rep(m) runs m iterations and returns the timed nanoseconds. A failure is reported and skipped."""
    try:
        m = fixed_m
        if m > 0:
            rep(m)
        else:
            m = calibrate(rep)
        per_iter = sorted(rep(m) * 1e-9 / m for _ in range(R))
        med, lo, hi = per_iter[R // 2], per_iter[0], per_iter[-1]
        if unit == "GB/s":
            v, vmin, vmax = nbytes / med * 1e-9, nbytes / hi * 1e-9, nbytes / lo * 1e-9
        else:
            k = {"ns": 1e9, "ms": 1e3, "s": 1.0}[unit]
            v, vmin, vmax = med * k, lo * k, hi * k
        line = {"contender": contender, "measure": name, "value": sig(v), "unit": unit, "min": sig(vmin), "max": sig(vmax), "reps": R, "iters": m}
        if remark:
            line["note"] = remark
        emit(line)
    except Exception as e:  # noqa: BLE001 - one failing measure must not stop the others
        note(f"{contender} {name} failed: {type(e).__name__}: {e}; skipped")
        emit({"contender": contender, "measure": name, "missing": f"failed: {type(e).__name__}: {e}"})


def skip(contender, name, why):
    note(f"{contender} {name} not measured: {why}")
    emit({"contender": contender, "measure": name, "missing": f"not measured: {why}"})


def burst_rep(one, burst, sync):
    """A repetition of m calls of one() in bursts of `burst`, timed together; sync() between bursts, untimed."""

    def rep(m):
        t = 0
        while m > 0:
            n = min(burst, m)
            t0 = now_ns()
            for _ in range(n):
                one()
            t += now_ns() - t0
            m -= n
            sync()
        return t

    return rep


# --------------------------------------------------------------------------------------------- bindings


def bindings_suite(cubin):
    from cuda.bindings import driver as cu

    C = "python-bindings"

    def check(res, what):
        err = res[0] if isinstance(res, tuple) else res
        if int(err) != 0:
            raise RuntimeError(f"{what} failed: {err!r}")
        if isinstance(res, tuple):
            return res[1] if len(res) == 2 else (res[1:] if len(res) > 2 else None)
        return None

    check(cu.cuInit(0), "cuInit")
    dev = check(cu.cuDeviceGet(0), "cuDeviceGet")
    ctx = check(cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    A = cu.CUdevice_attribute
    major = check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute")
    minor = check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute")
    stream = check(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate")
    mod = check(cu.cuModuleLoad(cubin.encode()), "cuModuleLoad")
    fn = {k: check(cu.cuModuleGetFunction(mod, k.encode()), "cuModuleGetFunction") for k in ("k0", "k1", "k4", "k16", "k256")}
    dX = check(cu.cuMemAlloc(1024), "cuMemAlloc")
    dY = check(cu.cuMemAlloc(1024), "cuMemAlloc")
    d8 = check(cu.cuMemAlloc(8), "cuMemAlloc")

    def sync():
        cu.cuStreamSynchronize(stream)

    # call.*
    get_current = cu.cuCtxGetCurrent

    def rep_ctx(m):
        t0 = now_ns()
        for _ in range(m):
            get_current()
        return now_ns() - t0

    check(get_current(), "cuCtxGetCurrent")
    measure(C, "call.cuCtxGetCurrent", "ns", rep_ctx)

    get_attr = cu.cuDeviceGetAttribute
    sm_count = A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT

    def rep_attr(m):
        t0 = now_ns()
        for _ in range(m):
            get_attr(sm_count, dev)
        return now_ns() - t0

    check(get_attr(sm_count, dev), "cuDeviceGetAttribute")
    measure(C, "call.cuDeviceGetAttribute", "ns", rep_attr)

    ev_create, ev_destroy = cu.cuEventCreate, cu.cuEventDestroy
    no_timing = cu.CUevent_flags.CU_EVENT_DISABLE_TIMING

    def rep_event(m):
        t0 = now_ns()
        for _ in range(m):
            _, e = ev_create(no_timing)
            ev_destroy(e)
        return now_ns() - t0

    check(ev_destroy(check(ev_create(no_timing), "cuEventCreate")), "cuEventDestroy")
    measure(C, "call.cuEventCreateDestroy", "ns", rep_event)

    query = cu.cuStreamQuery

    def rep_query(m):
        t0 = now_ns()
        for _ in range(m):
            query(stream)
        return now_ns() - t0

    check(query(stream), "cuStreamQuery")
    measure(C, "call.cuStreamQuery", "ns", rep_query)

    # launch.*: kernelParams as ((values), (ctypes types)), made once outside the timed loop
    lk = cu.cuLaunchKernel
    x, y = int(dX), int(dY)
    vp, ci, cf = ctypes.c_void_p, ctypes.c_int, ctypes.c_float
    params = {
        "k0": 0,
        "k1": ((x,), (vp,)),
        "k4": ((2.0, x, y, 0), (cf, vp, vp, ci)),
        "k16": (tuple(range(1, 17)), (ci,) * 16),
        "k256": (tuple(range(1, 257)), (ci,) * 256),
    }
    how = "kernelParams as ((values), (ctypes types)), built once"
    for n, k in (("0", "k0"), ("1", "k1"), ("4", "k4"), ("16", "k16"), ("256", "k256")):
        f, p = fn[k], params[k]
        check(lk(f, 1, 1, 1, 32, 1, 1, 0, stream, p, 0), f"cuLaunchKernel {k}")
        sync()
        measure(C, f"launch.{n}", "ns", burst_rep(lambda f=f, p=p: lk(f, 1, 1, 1, 32, 1, 1, 0, stream, p, 0), BURST, sync), BURST * BURSTS, remark=None if n == "0" else how)

    f4 = fn["k4"]
    types4 = (cf, vp, vp, ci)

    def fresh():
        lk(f4, 1, 1, 1, 32, 1, 1, 0, stream, ((2.0, x, y, 0), types4), 0)

    measure(C, "launch.4.fresh", "ns", burst_rep(fresh, BURST, sync), BURST * BURSTS, remark="a new ((values), (types)) tuple every launch")

    # graph.launch100
    try:
        check(cu.cuStreamBeginCapture(stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED), "cuStreamBeginCapture")
        for _ in range(100):
            check(lk(fn["k0"], 1, 1, 1, 32, 1, 1, 0, stream, 0, 0), "cuLaunchKernel (capture)")
        graph = check(cu.cuStreamEndCapture(stream), "cuStreamEndCapture")
        exe = check(cu.cuGraphInstantiate(graph, 0), "cuGraphInstantiate")
        glaunch = cu.cuGraphLaunch
        measure(C, "graph.launch100", "ns", burst_rep(lambda: glaunch(exe, stream), GRAPH_BURST, sync), GRAPH_BURST * GRAPH_BURSTS)
    except Exception as e:  # noqa: BLE001
        note(f"{C} graph.launch100 failed: {e}; skipped")

    # alloc.*
    alloc, free = cu.cuMemAlloc, cu.cuMemFree

    def rep_alloc(m):
        t0 = now_ns()
        for _ in range(m):
            _, p = alloc(1024)
            free(p)
        return now_ns() - t0

    measure(C, "alloc.1KiB.sync", "ns", rep_alloc)

    pool = check(cu.cuDeviceGetDefaultMemPool(dev), "cuDeviceGetDefaultMemPool")
    try:
        check(cu.cuMemPoolSetAttribute(pool, cu.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, cu.cuuint64_t(2**64 - 1)), "cuMemPoolSetAttribute")
    except Exception as e:  # noqa: BLE001
        note(f"{C}: could not raise the default pool's release threshold ({e}); alloc.1KiB.pool measured as is")
    # From the default pool by name, as cuda.core and cuda-ts's core do (cuMemAllocFromPoolAsync).
    alloc_async, free_async = cu.cuMemAllocFromPoolAsync, cu.cuMemFreeAsync

    def rep_pool(m):
        t0 = now_ns()
        for _ in range(m):
            _, p = alloc_async(1024, pool, stream)
            free_async(p, stream)
        t = now_ns() - t0
        sync()
        return t

    measure(C, "alloc.1KiB.pool", "ns", rep_pool)

    # copy.*
    host8 = ctypes.create_string_buffer(8)
    h8 = ctypes.addressof(host8)
    htod, dtoh = cu.cuMemcpyHtoD, cu.cuMemcpyDtoH

    def rep_h2d8(m):
        t0 = now_ns()
        for _ in range(m):
            htod(d8, h8, 8)
        return now_ns() - t0

    def rep_d2h8(m):
        t0 = now_ns()
        for _ in range(m):
            dtoh(h8, d8, 8)
        return now_ns() - t0

    check(htod(d8, h8, 8), "cuMemcpyHtoD")
    measure(C, "copy.h2d.8B", "ns", rep_h2d8)
    measure(C, "copy.d2h.8B", "ns", rep_d2h8)

    try:
        dbig = check(cu.cuMemAlloc(BIG), "cuMemAlloc 256 MiB")
        pinned = int(check(cu.cuMemHostAlloc(BIG, 0), "cuMemHostAlloc 256 MiB"))
        ctypes.memset(pinned, 1, BIG)
        # The same pageable buffer in every contender: BIG bytes starting on a 2 MiB boundary (PAGEABLE_ALIGN).
        pageable_buf = ctypes.create_string_buffer(BIG + PAGEABLE_ALIGN)
        base = ctypes.addressof(pageable_buf)
        pageable = base + (-base) % PAGEABLE_ALIGN
        ctypes.memset(pageable, 1, BIG)
        ctx_sync = cu.cuCtxSynchronize

        def big(direction, host):
            def rep(m):
                t0 = now_ns()
                for _ in range(m):
                    if direction == "h2d":
                        htod(dbig, host, BIG)
                    else:
                        dtoh(host, dbig, BIG)
                ctx_sync()
                return now_ns() - t0

            return rep

        for kind, host in (("pinned", pinned), ("pageable", pageable)):
            for d in ("h2d", "d2h"):
                remark = PAGEABLE_NOTE if kind == "pageable" else None
                measure(C, f"copy.{d}.256MiB.{kind}", "GB/s", big(d, host), 1, float(BIG), remark)
        cu.cuMemFreeHost(pinned)
        cu.cuMemFree(dbig)
        del pageable_buf
    except Exception as e:  # noqa: BLE001
        note(f"{C} 256 MiB copies failed: {e}; skipped")

    # nvrtc.compile
    try:
        from cuda.bindings import nvrtc

        try:
            from cuda.pathfinder import load_nvidia_dynamic_lib

            note(f"{C}: libnvrtc from {load_nvidia_dynamic_lib('nvrtc').abs_path}")
        except Exception:  # noqa: BLE001 - only informative
            pass

        src = K4_SOURCE.encode()
        opts = [f"-arch=sm_{major}{minor}".encode()]

        def compile_once():
            err, prog = nvrtc.nvrtcCreateProgram(src, b"k4.cu", 0, [], [])
            check((err,), "nvrtcCreateProgram")
            check(nvrtc.nvrtcCompileProgram(prog, 1, opts), "nvrtcCompileProgram")
            n = check(nvrtc.nvrtcGetCUBINSize(prog), "nvrtcGetCUBINSize")
            buf = b" " * n
            check(nvrtc.nvrtcGetCUBIN(prog, buf), "nvrtcGetCUBIN")
            nvrtc.nvrtcDestroyProgram(prog)

        def rep_compile(m):
            t0 = now_ns()
            for _ in range(m):
                compile_once()
            return now_ns() - t0

        measure(C, "nvrtc.compile", "ms", rep_compile, 1)
    except Exception as e:  # noqa: BLE001
        note(f"{C} nvrtc.compile failed: {e}; skipped")
    skip(C, "nvrtc.cacheHit", "the bindings have no program cache (a core-layer measure)")

    cu.cuStreamDestroy(stream)
    cu.cuModuleUnload(mod)
    for d in (dX, dY, d8):
        cu.cuMemFree(d)
    cu.cuDevicePrimaryCtxRelease(dev)


# --------------------------------------------------------------------------------------------- core


def core_suite(cubin):
    import cuda.core as cc
    from cuda.core import Device, LaunchConfig, ObjectCode, Program, ProgramOptions, launch

    C = "python-core"
    try:
        import numpy as np

        f32, i32 = np.float32, np.int32
    except ImportError:
        f32, i32 = ctypes.c_float, ctypes.c_int
        note(f"{C}: numpy not importable; kernel scalars are ctypes values")

    dev = Device(0)
    dev.set_current()
    s = dev.create_stream()
    oc = ObjectCode.from_cubin(cubin)
    k = {n: oc.get_kernel(n) for n in ("k0", "k1", "k4", "k16", "k256")}
    bx = dev.allocate(1024, stream=s)
    by = dev.allocate(1024, stream=s)
    cfg = LaunchConfig(grid=1, block=32)
    s.sync()

    def sync():
        s.sync()

    skip(C, "call.cuCtxGetCurrent", "cuda.core has no such call (a bindings measure)")
    skip(C, "call.cuDeviceGetAttribute", "cuda.core caches device properties (a bindings measure)")

    def rep_event(m):
        create = dev.create_event
        t0 = now_ns()
        for _ in range(m):
            create().close()
        return now_ns() - t0

    measure(C, "call.cuEventCreateDestroy", "ns", rep_event, remark="Device.create_event().close()")
    skip(C, "call.cuStreamQuery", "cuda.core's Stream has no query")

    a, n0 = f32(2.0), i32(0)
    ints16 = [i32(i + 1) for i in range(16)]
    ints256 = [i32(i + 1) for i in range(256)]
    args = {"0": (k["k0"], ()), "1": (k["k1"], (bx,)), "4": (k["k4"], (a, bx, by, n0)), "16": (k["k16"], tuple(ints16)), "256": (k["k256"], tuple(ints256))}
    for n, (kern, kargs) in args.items():
        launch(s, cfg, kern, *kargs)
        sync()
        measure(C, f"launch.{n}", "ns", burst_rep(lambda kern=kern, kargs=kargs: launch(s, cfg, kern, *kargs), BURST, sync), BURST * BURSTS)

    k4 = k["k4"]
    measure(C, "launch.4.fresh", "ns", burst_rep(lambda: launch(s, cfg, k4, f32(2.0), bx, by, i32(0)), BURST, sync), BURST * BURSTS, remark="new numpy scalars every launch")

    try:
        gb = s.create_graph_builder()
        gb.begin_building()
        for _ in range(100):
            launch(gb, cfg, k["k0"])
        gb.end_building()
        graph = gb.complete()
        graph.launch(s)
        sync()
        measure(C, "graph.launch100", "ns", burst_rep(lambda: graph.launch(s), GRAPH_BURST, sync), GRAPH_BURST * GRAPH_BURSTS, remark="GraphBuilder capture, Graph.launch")
    except Exception as e:  # noqa: BLE001
        note(f"{C} graph.launch100 failed: {e}; skipped")

    skip(C, "alloc.1KiB.sync", "cuda.core has no public synchronous device memory resource")

    def rep_pool(m):
        alloc = dev.allocate
        t0 = now_ns()
        for _ in range(m):
            alloc(1024, stream=s).close()
        t = now_ns() - t0
        sync()
        return t

    measure(C, "alloc.1KiB.pool", "ns", rep_pool, remark="Device.allocate(1024, stream=s).close()")

    # Buffer copies are buffer to buffer in cuda.core: host memory is a pinned Buffer.
    try:
        pmr = cc.LegacyPinnedMemoryResource()
        h8 = pmr.allocate(8)
        d8 = dev.allocate(8, stream=s)

        def rep_h2d8(m):
            t0 = now_ns()
            for _ in range(m):
                d8.copy_from(h8, stream=s)
                s.sync()
            return now_ns() - t0

        def rep_d2h8(m):
            t0 = now_ns()
            for _ in range(m):
                d8.copy_to(h8, stream=s)
                s.sync()
            return now_ns() - t0

        measure(C, "copy.h2d.8B", "ns", rep_h2d8, remark="pinned Buffer, copy_from + Stream.sync")
        measure(C, "copy.d2h.8B", "ns", rep_d2h8, remark="pinned Buffer, copy_to + Stream.sync")
        hbig = pmr.allocate(BIG)
        ctypes.memset(int(hbig.handle), 1, BIG)
        dbig = dev.allocate(BIG, stream=s)
        s.sync()

        def rep_h2d(m):
            t0 = now_ns()
            for _ in range(m):
                dbig.copy_from(hbig, stream=s)
            s.sync()
            return now_ns() - t0

        def rep_d2h(m):
            t0 = now_ns()
            for _ in range(m):
                dbig.copy_to(hbig, stream=s)
            s.sync()
            return now_ns() - t0

        measure(C, "copy.h2d.256MiB.pinned", "GB/s", rep_h2d, 1, float(BIG))
        measure(C, "copy.d2h.256MiB.pinned", "GB/s", rep_d2h, 1, float(BIG))
        hbig.close()
        dbig.close()
    except Exception as e:  # noqa: BLE001
        note(f"{C} copies failed: {e}; skipped")
    skip(C, "copy.*.256MiB.pageable", "cuda.core's Buffer copies take Buffers (no pageable host memory)")

    arch = f"sm_{dev.arch}"
    try:

        def rep_compile(m):
            t0 = now_ns()
            for _ in range(m):
                p = Program(K4_SOURCE, "c++", ProgramOptions(arch=arch))
                p.compile("cubin")
                p.close()
            return now_ns() - t0

        measure(C, "nvrtc.compile", "ms", rep_compile, 1)
    except Exception as e:  # noqa: BLE001
        note(f"{C} nvrtc.compile failed: {e}; skipped")

    try:
        from cuda.core import utils as cu_utils

        cache_cls = getattr(cu_utils, "InMemoryProgramCache", None)
        if cache_cls is None:
            skip(C, "nvrtc.cacheHit", f"cuda.core {getattr(cc, '__version__', '?')} has no utils.InMemoryProgramCache")
        else:
            cache = cache_cls()
            p = Program(K4_SOURCE, "c++", ProgramOptions(arch=arch))
            try:
                p.compile("cubin", cache=cache)
            except TypeError as e:
                skip(C, "nvrtc.cacheHit", f"Program.compile takes no cache= in cuda.core {getattr(cc, '__version__', '?')} ({e})")
                cache = None
            p.close()
            if cache is not None:

                def rep_hit(m):
                    t0 = now_ns()
                    for _ in range(m):
                        q = Program(K4_SOURCE, "c++", ProgramOptions(arch=arch))
                        q.compile("cubin", cache=cache)
                        q.close()
                    return now_ns() - t0

                measure(C, "nvrtc.cacheHit", "ms", rep_hit, remark="InMemoryProgramCache, Program + compile + close")
    except Exception as e:  # noqa: BLE001
        note(f"{C} nvrtc.cacheHit failed: {e}; skipped")

    bx.close()
    by.close()
    s.close()


# --------------------------------------------------------------------------------------------- startup, timing, meta


def startup(mode, layer, cubin):
    if layer == "bindings":
        from cuda.bindings import driver as cu

        if mode == "import":
            return 0
        cu.cuInit(0)
        _, dev = cu.cuDeviceGet(0)
        _, ctx = cu.cuDevicePrimaryCtxRetain(dev)
        (err,) = cu.cuCtxSetCurrent(ctx)
        if int(err) != 0:
            raise RuntimeError(f"cuCtxSetCurrent: {err!r}")
        if mode == "setCurrent":
            return 0
        err, mod = cu.cuModuleLoad(cubin.encode())
        if int(err) != 0:
            raise RuntimeError(f"cuModuleLoad: {err!r}")
        _, f = cu.cuModuleGetFunction(mod, b"k0")
        (err,) = cu.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0)
        (err2,) = cu.cuCtxSynchronize()
        if int(err) != 0 or int(err2) != 0:
            raise RuntimeError(f"cuLaunchKernel/cuCtxSynchronize: {err!r} {err2!r}")
        return 0
    import cuda.core

    if mode == "import":
        return 0
    dev = cuda.core.Device(0)
    dev.set_current()
    if mode == "setCurrent":
        return 0
    s = dev.create_stream()
    k0 = cuda.core.ObjectCode.from_cubin(cubin).get_kernel("k0")
    cuda.core.launch(s, cuda.core.LaunchConfig(grid=1, block=32), k0)
    s.sync()
    return 0


def time_runs(contender, measure_name, runs, cmd):
    """Runs cmd once untimed (warm caches), then `runs` times, each timed from spawn to exit."""
    times = []
    for i in range(runs + 1):
        t0 = now_ns()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        dt = (now_ns() - t0) * 1e-6
        if p.returncode != 0:
            note(f"{contender} {measure_name}: {' '.join(cmd)} exited with {p.returncode}: {p.stderr.decode(errors='replace')[-2000:]}")
            return 1
        if i > 0:
            times.append(dt)
    times.sort()
    emit({"contender": contender, "measure": measure_name, "value": sig(times[len(times) // 2]), "unit": "ms", "min": sig(times[0]), "max": sig(times[-1]), "reps": runs, "iters": 1})
    return 0


def meta(runtime, runtime_version):
    info = {"meta": True, "runtime": runtime, "runtime_version": runtime_version, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    info["python"] = sys.version.split()[0]
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"], capture_output=True, text=True, timeout=30).stdout
        name, driver_version, cc = [x.strip() for x in out.splitlines()[0].split(",")]
        info.update(gpu=name, driver=driver_version, compute_capability=cc)
    except Exception as e:  # noqa: BLE001
        note(f"nvidia-smi: {e}")
    for mod in ("cuda.bindings", "cuda.core"):
        try:
            m = __import__(mod, fromlist=["__version__"])
            info[mod.replace(".", "_")] = getattr(m, "__version__", "?")
        except Exception as e:  # noqa: BLE001
            info[mod.replace(".", "_")] = f"not importable: {e}"
    try:
        out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=30).stdout
        info["nvcc"] = out.strip().splitlines()[-1] if out.strip() else "?"
    except Exception:  # noqa: BLE001
        pass
    info["host"] = os.uname().nodename
    info["cpus"] = os.cpu_count()
    commit = os.environ.get("BENCH_COMMIT")
    if not commit:
        try:
            commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10).stdout.strip() or None
        except Exception:  # noqa: BLE001
            commit = None
    if commit:
        info["commit"] = commit
    emit(info)
    return 0


def main(argv):
    def opt(name, default=None):
        if name in argv:
            i = argv.index(name)
            if i + 1 < len(argv):
                return argv[i + 1]
        return default

    if "--time-runs" in argv:
        sep = argv.index("--")
        return time_runs(opt("--contender"), opt("--measure"), int(opt("--runs", "5")), argv[sep + 1 :])
    if "--meta" in argv:
        return meta(opt("--runtime", "?"), opt("--runtime-version", "?"))
    if "--startup" in argv:
        return startup(opt("--startup"), opt("--layer", "core"), opt("--cubin", ""))
    cubin = opt("--cubin")
    if not cubin:
        print(__doc__, file=sys.stderr)
        return 2
    only = opt("--only")
    rc = 0
    for layer, suite in (("bindings", bindings_suite), ("core", core_suite)):
        if only and only != layer:
            continue
        try:
            suite(cubin)
        except Exception as e:  # noqa: BLE001 - one failing contender must not stop the other
            note(f"python-{layer} stopped: {type(e).__name__}: {e}")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
