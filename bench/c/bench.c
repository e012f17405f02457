/*
 * The C contender of the benchmarks (bench/README.md): the CUDA driver called directly, gcc -O2, -lcuda.
 *
 *   bench-c CUBIN                       every measure of the README that C has, as JSON lines on stdout
 *   bench-c --startup-import            exits at once (the process start with libcuda mapped: C's "import")
 *   bench-c --startup-set-current       cuInit + primary context retained and current, then exits
 *   bench-c --startup-phases            the same, printing cuInit's and the context's times (bench/start-phases.ts)
 *   bench-c --startup-first-kernel CUBIN  cuInit, primary context, load, launch k0, synchronise, exit
 *
 * CUBIN is bench/kernels.cu compiled by bench/run.sh (nvcc -cubin -arch=sm_XX). NVRTC is opened with dlopen
 * (BENCH_NVRTC, else libnvrtc.so.13, else libnvrtc.so) rather than linked with -lnvrtc, so that the startup
 * modes (C's reference for startup.*) do not map it; calling it through a function pointer costs nothing next
 * to a compilation. nvrtc.h is used when the include path has it, else the few declarations below.
 *
 * Method (the README's): a warm-up that also calibrates M, then R = 21 repetitions of M iterations, the
 * per-iteration time of each repetition, the median reported with min and max. Timed loops do not allocate;
 * they OR the CUresults together and check once per repetition (a failed measure is reported on stderr and
 * skipped, the others go on).
 */
#define _GNU_SOURCE
#include <cuda.h>
#if __has_include(<nvrtc.h>)
#include <nvrtc.h>
#else
/* Only the declarations the benchmark takes function types from (NVRTC itself is opened with dlopen). */
typedef struct _nvrtcProgram *nvrtcProgram;
typedef enum { NVRTC_SUCCESS = 0 } nvrtcResult;
nvrtcResult nvrtcCreateProgram(nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
nvrtcResult nvrtcCompileProgram(nvrtcProgram, int, const char *const *);
nvrtcResult nvrtcGetCUBINSize(nvrtcProgram, size_t *);
nvrtcResult nvrtcGetCUBIN(nvrtcProgram, char *);
nvrtcResult nvrtcDestroyProgram(nvrtcProgram *);
const char *nvrtcGetErrorString(nvrtcResult);
#endif
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define R 21
#define TARGET_S 0.02       /* one repetition of a calibrated measure takes about this long */
#define MIN_M_FAST 100000   /* at least this many iterations for sub-microsecond calls */
#define BURST 256           /* launches timed together; the stream is synchronised between bursts */
#define BURSTS 10
#define GRAPH_BURST 16
#define GRAPH_BURSTS 8
#define BIG ((size_t)256 << 20)
#define PAGEABLE_ALIGN ((size_t)2 << 20)
#define PAGEABLE_NOTE "pageable host buffer starting on a 2 MiB boundary"

/* The same text as k4 in bench/kernels.cu (every contender compiles this string). */
static const char *K4_SOURCE =
    "extern \"C\" __global__ void k4(float a, const float* x, float* y, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

static const char *CONTENDER = "c";

/* ---------------------------------------------------------------- timing and output */

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A repetition: runs m iterations, returns the timed nanoseconds, or -1 after a failure (g_err set). */
typedef int64_t (*rep_fn)(long m);

static CUresult g_err;
static const char *g_err_what = "";
static int g_err_nvrtc; /* g_err holds an nvrtcResult */

static int64_t failed(CUresult r, const char *what) {
  g_err = r;
  g_err_what = what;
  return -1;
}

static __typeof__(nvrtcGetErrorString) *p_nvrtcGetErrorString;

static const char *err_name(CUresult r) {
  const char *s = NULL;
  if (g_err_nvrtc) return p_nvrtcGetErrorString ? p_nvrtcGetErrorString((nvrtcResult)r) : "an nvrtcResult";
  if (cuGetErrorName(r, &s) != CUDA_SUCCESS || s == NULL) return "unknown CUresult";
  return s;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* M for a per-iteration time: a repetition of about TARGET_S, at least MIN_M_FAST for sub-microsecond calls. */
static long choose_m(double per_s) {
  double m = ceil(TARGET_S / (per_s > 0 ? per_s : 1e-9));
  if (per_s < 1e-6 && m < MIN_M_FAST) m = MIN_M_FAST;
  if (m < 1) m = 1;
  if (m > 1e9) m = 1e9;
  return (long)m;
}

/*
 * The warm-up: m grows tenfold until a repetition takes 2 ms, then two more repetitions at the M that time
 * suggests (the first ones pay for first-call costs); returns the M of the last, or -1 after a failure.
 */
static long calibrate(rep_fn fn) {
  long m = 1;
  int64_t t = fn(m);
  while (t >= 0 && t < 2000000 && m < 100000000) {
    m *= 10;
    t = fn(m);
  }
  for (int pass = 0; pass < 2 && t >= 0; pass++) {
    m = choose_m((double)t * 1e-9 / (double)m);
    t = fn(m);
  }
  return t < 0 ? -1 : choose_m((double)t * 1e-9 / (double)m);
}

/*
 * Runs one measure. fixed_m > 0: M is fixed (one warm-up repetition); otherwise M is calibrated so that a
 * repetition takes about TARGET_S. unit: "ns", "ms" or "s" (per-iteration time) or "GB/s" (bytes per iteration).
 */
static void measure(const char *name, const char *unit, rep_fn fn, long fixed_m, double bytes, const char *note) {
  long m = fixed_m;
  g_err = CUDA_SUCCESS;
  g_err_nvrtc = 0;
  if (m > 0) {
    if (fn(m) < 0) goto fail;
  } else {
    m = calibrate(fn);
    if (m < 0) goto fail;
  }
  double per_iter[R];
  for (int i = 0; i < R; i++) {
    int64_t t = fn(m);
    if (t < 0) goto fail;
    per_iter[i] = (double)t * 1e-9 / (double)m; /* seconds */
  }
  qsort(per_iter, R, sizeof per_iter[0], cmp_double);
  double med = per_iter[R / 2], lo = per_iter[0], hi = per_iter[R - 1];
  double v, vmin, vmax;
  if (strcmp(unit, "GB/s") == 0) {
    v = bytes / med * 1e-9;
    vmin = bytes / hi * 1e-9;
    vmax = bytes / lo * 1e-9;
  } else {
    double k = strcmp(unit, "ns") == 0 ? 1e9 : strcmp(unit, "ms") == 0 ? 1e3 : 1.0;
    v = med * k;
    vmin = lo * k;
    vmax = hi * k;
  }
  printf("{\"contender\": \"%s\", \"measure\": \"%s\", \"value\": %.6g, \"unit\": \"%s\", \"min\": %.6g, \"max\": %.6g, "
         "\"reps\": %d, \"iters\": %ld%s%s%s}\n",
         CONTENDER, name, v, unit, vmin, vmax, R, m, note ? ", \"note\": \"" : "", note ? note : "", note ? "\"" : "");
  fflush(stdout);
  return;
fail:
  fprintf(stderr, "bench.c: %s failed: %s gave %s (%d); skipped\n", name, g_err_what, err_name(g_err), (int)g_err);
}

/* ---------------------------------------------------------------- state */

static CUdevice dev;
static CUcontext ctx;
static CUstream stream;
/* The device's default memory pool: alloc.1KiB.pool allocates from it by name, as cuda.core and cuda-ts do. */
static CUmemoryPool default_pool;
static CUmodule mod;
static CUfunction k0, k1, k4, k16, k256;
static CUdeviceptr dX, dY, d8, dBig;
static void *params1[1], *params4[4], *params16[16], *params256[256];
static float a4 = 2.0f;
static int n4 = 0;
static int ints[256];
static unsigned char *host8;
static void *pinned, *pageable;
static CUgraphExec graph_exec;
static int arch_major, arch_minor;

#define CK(call)                                                                 \
  do {                                                                           \
    CUresult r_ = (call);                                                        \
    if (r_ != CUDA_SUCCESS) {                                                    \
      fprintf(stderr, "bench.c: %s failed: %s (%d)\n", #call, err_name(r_), r_); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

/* ---------------------------------------------------------------- call.* */

static int64_t rep_ctx_get_current(long m) {
  CUcontext c;
  CUresult bad = 0;
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) bad |= cuCtxGetCurrent(&c);
  int64_t t = now_ns() - t0;
  return bad ? failed(bad, "cuCtxGetCurrent") : t;
}

static int64_t rep_device_get_attribute(long m) {
  int v;
  CUresult bad = 0;
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) bad |= cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  int64_t t = now_ns() - t0;
  return bad ? failed(bad, "cuDeviceGetAttribute") : t;
}

static int64_t rep_event_create_destroy(long m) {
  CUevent e;
  CUresult bad = 0;
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) {
    bad |= cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
    bad |= cuEventDestroy(e);
  }
  int64_t t = now_ns() - t0;
  return bad ? failed(bad, "cuEventCreate/cuEventDestroy") : t;
}

static int64_t rep_stream_query(long m) {
  CUresult bad = 0;
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) bad |= cuStreamQuery(stream);
  int64_t t = now_ns() - t0;
  return bad ? failed(bad, "cuStreamQuery") : t;
}

/* ---------------------------------------------------------------- launch.* */

static CUfunction launch_fn;
static void **launch_params;

static int64_t rep_launch(long m) {
  CUresult bad = 0;
  int64_t t = 0;
  while (m > 0) {
    long n = m < BURST ? m : BURST;
    int64_t t0 = now_ns();
    for (long i = 0; i < n; i++) bad |= cuLaunchKernel(launch_fn, 1, 1, 1, 32, 1, 1, 0, stream, launch_params, NULL);
    t += now_ns() - t0;
    m -= n;
    bad |= cuStreamSynchronize(stream);
  }
  return bad ? failed(bad, "cuLaunchKernel") : t;
}

/* The arguments packed afresh for every launch, the way C code usually writes it. */
static int64_t rep_launch4_fresh(long m) {
  CUresult bad = 0;
  int64_t t = 0;
  while (m > 0) {
    long n = m < BURST ? m : BURST;
    int64_t t0 = now_ns();
    for (long i = 0; i < n; i++) {
      float a = 2.0f;
      CUdeviceptr x = dX, y = dY;
      int count = 0;
      void *args[4] = {&a, &x, &y, &count};
      bad |= cuLaunchKernel(k4, 1, 1, 1, 32, 1, 1, 0, stream, args, NULL);
    }
    t += now_ns() - t0;
    m -= n;
    bad |= cuStreamSynchronize(stream);
  }
  return bad ? failed(bad, "cuLaunchKernel") : t;
}

static int64_t rep_graph_launch(long m) {
  CUresult bad = 0;
  int64_t t = 0;
  while (m > 0) {
    long n = m < GRAPH_BURST ? m : GRAPH_BURST;
    int64_t t0 = now_ns();
    for (long i = 0; i < n; i++) bad |= cuGraphLaunch(graph_exec, stream);
    t += now_ns() - t0;
    m -= n;
    bad |= cuStreamSynchronize(stream);
  }
  return bad ? failed(bad, "cuGraphLaunch") : t;
}

/* ---------------------------------------------------------------- alloc.* */

static int64_t rep_alloc_sync(long m) {
  CUdeviceptr p;
  CUresult bad = 0;
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) {
    bad |= cuMemAlloc(&p, 1024);
    bad |= cuMemFree(p);
  }
  int64_t t = now_ns() - t0;
  return bad ? failed(bad, "cuMemAlloc/cuMemFree") : t;
}

static int64_t rep_alloc_pool(long m) {
  CUdeviceptr p;
  CUresult bad = 0;
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) {
    bad |= cuMemAllocFromPoolAsync(&p, 1024, default_pool, stream);
    bad |= cuMemFreeAsync(p, stream);
  }
  int64_t t = now_ns() - t0;
  bad |= cuStreamSynchronize(stream);
  return bad ? failed(bad, "cuMemAllocFromPoolAsync/cuMemFreeAsync") : t;
}

/* ---------------------------------------------------------------- copy.* */

static int64_t rep_h2d_8(long m) {
  CUresult bad = 0;
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) bad |= cuMemcpyHtoD(d8, host8, 8);
  int64_t t = now_ns() - t0;
  return bad ? failed(bad, "cuMemcpyHtoD") : t;
}

static int64_t rep_d2h_8(long m) {
  CUresult bad = 0;
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) bad |= cuMemcpyDtoH(host8, d8, 8);
  int64_t t = now_ns() - t0;
  return bad ? failed(bad, "cuMemcpyDtoH") : t;
}

static void *big_host;

/* The copy and a context synchronisation (a pageable H2D copy may return before its last DMA). */
static int64_t rep_h2d_big(long m) {
  CUresult bad = 0;
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) bad |= cuMemcpyHtoD(dBig, big_host, BIG);
  bad |= cuCtxSynchronize();
  int64_t t = now_ns() - t0;
  return bad ? failed(bad, "cuMemcpyHtoD") : t;
}

static int64_t rep_d2h_big(long m) {
  CUresult bad = 0;
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) bad |= cuMemcpyDtoH(big_host, dBig, BIG);
  bad |= cuCtxSynchronize();
  int64_t t = now_ns() - t0;
  return bad ? failed(bad, "cuMemcpyDtoH") : t;
}

/* ---------------------------------------------------------------- nvrtc.* */

static __typeof__(nvrtcCreateProgram) *p_nvrtcCreateProgram;
static __typeof__(nvrtcCompileProgram) *p_nvrtcCompileProgram;
static __typeof__(nvrtcGetCUBINSize) *p_nvrtcGetCUBINSize;
static __typeof__(nvrtcGetCUBIN) *p_nvrtcGetCUBIN;
static __typeof__(nvrtcDestroyProgram) *p_nvrtcDestroyProgram;
static char arch_option[32];

static int load_nvrtc(void) {
  const char *candidates[] = {getenv("BENCH_NVRTC"), "libnvrtc.so.13", "libnvrtc.so"};
  void *h = NULL;
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && h == NULL; i++) {
    if (candidates[i] != NULL && candidates[i][0] != '\0') h = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (h == NULL) {
    fprintf(stderr, "bench.c: NVRTC not found (set BENCH_NVRTC to libnvrtc.so.13): %s; nvrtc.compile skipped\n", dlerror());
    return 0;
  }
  p_nvrtcCreateProgram = (__typeof__(p_nvrtcCreateProgram))dlsym(h, "nvrtcCreateProgram");
  p_nvrtcCompileProgram = (__typeof__(p_nvrtcCompileProgram))dlsym(h, "nvrtcCompileProgram");
  p_nvrtcGetCUBINSize = (__typeof__(p_nvrtcGetCUBINSize))dlsym(h, "nvrtcGetCUBINSize");
  p_nvrtcGetCUBIN = (__typeof__(p_nvrtcGetCUBIN))dlsym(h, "nvrtcGetCUBIN");
  p_nvrtcDestroyProgram = (__typeof__(p_nvrtcDestroyProgram))dlsym(h, "nvrtcDestroyProgram");
  p_nvrtcGetErrorString = (__typeof__(p_nvrtcGetErrorString))dlsym(h, "nvrtcGetErrorString");
  if (!p_nvrtcCreateProgram || !p_nvrtcCompileProgram || !p_nvrtcGetCUBINSize || !p_nvrtcGetCUBIN || !p_nvrtcDestroyProgram) {
    fprintf(stderr, "bench.c: this NVRTC lacks a function the benchmark needs; nvrtc.compile skipped\n");
    return 0;
  }
  return 1;
}

static int64_t rep_nvrtc_compile(long m) {
  int64_t t0 = now_ns();
  for (long i = 0; i < m; i++) {
    nvrtcProgram prog;
    nvrtcResult r = p_nvrtcCreateProgram(&prog, K4_SOURCE, "k4.cu", 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
      g_err_nvrtc = 1;
      return failed((CUresult)r, "nvrtcCreateProgram");
    }
    const char *opts[1] = {arch_option};
    r = p_nvrtcCompileProgram(prog, 1, opts);
    size_t size = 0;
    if (r == NVRTC_SUCCESS) r = p_nvrtcGetCUBINSize(prog, &size);
    char *cubin = r == NVRTC_SUCCESS ? malloc(size) : NULL;
    if (r == NVRTC_SUCCESS) r = p_nvrtcGetCUBIN(prog, cubin);
    free(cubin);
    p_nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS) {
      g_err_nvrtc = 1;
      return failed((CUresult)r, "nvrtcCompileProgram/nvrtcGetCUBIN");
    }
  }
  return now_ns() - t0;
}

/* ---------------------------------------------------------------- setup and modes */

static int init_context(void) {
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  return 0;
}

/* --startup-phases: cuInit, then the primary context retained and current, in ms, as one JSON line (the C row of
 * bench/start-phases.ts, whose TypeScript children report the same phases). */
static int startup_phases(void) {
  int64_t t0 = now_ns();
  CK(cuInit(0));
  int64_t t1 = now_ns();
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  int64_t t2 = now_ns();
  printf("{\"runtime\":\"c\",\"cuInit\":%.2f,\"setCurrent\":%.2f}\n", (t1 - t0) / 1e6, (t2 - t1) / 1e6);
  return 0;
}

static int startup_first_kernel(const char *cubin) {
  if (init_context()) return 1;
  CK(cuModuleLoad(&mod, cubin));
  CK(cuModuleGetFunction(&k0, mod, "k0"));
  CK(cuLaunchKernel(k0, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
  CK(cuCtxSynchronize());
  return 0;
}

static int setup(const char *cubin) {
  if (init_context()) return 1;
  CK(cuDeviceGetAttribute(&arch_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CK(cuDeviceGetAttribute(&arch_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  snprintf(arch_option, sizeof arch_option, "-arch=sm_%d%d", arch_major, arch_minor);
  CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CK(cuModuleLoad(&mod, cubin));
  CK(cuModuleGetFunction(&k0, mod, "k0"));
  CK(cuModuleGetFunction(&k1, mod, "k1"));
  CK(cuModuleGetFunction(&k4, mod, "k4"));
  CK(cuModuleGetFunction(&k16, mod, "k16"));
  CK(cuModuleGetFunction(&k256, mod, "k256"));
  CK(cuMemAlloc(&dX, 1024));
  CK(cuMemAlloc(&dY, 1024));
  CK(cuMemAlloc(&d8, 8));
  params1[0] = &dX;
  params4[0] = &a4;
  params4[1] = &dX;
  params4[2] = &dY;
  params4[3] = &n4;
  for (int i = 0; i < 256; i++) {
    ints[i] = i + 1;
    params256[i] = &ints[i];
    if (i < 16) params16[i] = &ints[i];
  }
  host8 = malloc(8);
  memset(host8, 7, 8);
  /* As cuda.core and cuda-ts do: keep freed memory in the default pool. */
  CUmemoryPool pool;
  CK(cuDeviceGetDefaultMemPool(&pool, dev));
  cuuint64_t threshold = UINT64_MAX;
  CK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
  default_pool = pool;
  /* A graph of 100 k0 launches, captured. */
  CUgraph graph;
  CK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED));
  for (int i = 0; i < 100; i++) CK(cuLaunchKernel(k0, 1, 1, 1, 32, 1, 1, 0, stream, NULL, NULL));
  CK(cuStreamEndCapture(stream, &graph));
  CK(cuGraphInstantiate(&graph_exec, graph, 0));
  CK(cuGraphDestroy(graph));
  /* 256 MiB: device, pinned and pageable host memory, every page touched. */
  CK(cuMemAlloc(&dBig, BIG));
  CK(cuMemHostAlloc(&pinned, BIG, 0));
  memset(pinned, 1, BIG);
  /* The same pageable buffer in every contender: BIG bytes starting on a 2 MiB boundary (PAGEABLE_ALIGN). */
  if (posix_memalign(&pageable, PAGEABLE_ALIGN, BIG) != 0) {
    fprintf(stderr, "bench.c: cannot allocate 256 MiB of pageable memory\n");
    return 1;
  }
  memset(pageable, 1, BIG);
  CK(cuCtxSynchronize());
  return 0;
}

static void launch_measure(const char *name, CUfunction f, void **params) {
  launch_fn = f;
  launch_params = params;
  measure(name, "ns", rep_launch, (long)BURST * BURSTS, 0, NULL);
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "--startup-import") == 0) return 0;
  if (argc >= 2 && strcmp(argv[1], "--startup-set-current") == 0) return init_context();
  if (argc >= 2 && strcmp(argv[1], "--startup-phases") == 0) return startup_phases();
  if (argc >= 3 && strcmp(argv[1], "--startup-first-kernel") == 0) return startup_first_kernel(argv[2]);
  if (argc != 2 || argv[1][0] == '-') {
    fprintf(stderr,
            "usage: %s CUBIN | --startup-import | --startup-set-current | --startup-phases | --startup-first-kernel CUBIN\n"
            "  CUBIN: bench/kernels.cu compiled with nvcc -cubin -arch=sm_XX (bench/run.sh does it)\n",
            argv[0]);
    return 2;
  }
  if (setup(argv[1])) return 1;

  measure("call.cuCtxGetCurrent", "ns", rep_ctx_get_current, 0, 0, NULL);
  measure("call.cuDeviceGetAttribute", "ns", rep_device_get_attribute, 0, 0, NULL);
  measure("call.cuEventCreateDestroy", "ns", rep_event_create_destroy, 0, 0, NULL);
  measure("call.cuStreamQuery", "ns", rep_stream_query, 0, 0, NULL);

  launch_measure("launch.0", k0, NULL);
  launch_measure("launch.1", k1, params1);
  launch_measure("launch.4", k4, params4);
  launch_measure("launch.16", k16, params16);
  launch_measure("launch.256", k256, params256);
  measure("launch.4.fresh", "ns", rep_launch4_fresh, (long)BURST * BURSTS, 0, NULL);
  measure("graph.launch100", "ns", rep_graph_launch, (long)GRAPH_BURST * GRAPH_BURSTS, 0, NULL);

  measure("alloc.1KiB.sync", "ns", rep_alloc_sync, 0, 0, NULL);
  measure("alloc.1KiB.pool", "ns", rep_alloc_pool, 0, 0, NULL);

  measure("copy.h2d.8B", "ns", rep_h2d_8, 0, 0, NULL);
  measure("copy.d2h.8B", "ns", rep_d2h_8, 0, 0, NULL);
  big_host = pinned;
  measure("copy.h2d.256MiB.pinned", "GB/s", rep_h2d_big, 1, (double)BIG, NULL);
  measure("copy.d2h.256MiB.pinned", "GB/s", rep_d2h_big, 1, (double)BIG, NULL);
  big_host = pageable;
  measure("copy.h2d.256MiB.pageable", "GB/s", rep_h2d_big, 1, (double)BIG, PAGEABLE_NOTE);
  measure("copy.d2h.256MiB.pageable", "GB/s", rep_d2h_big, 1, (double)BIG, PAGEABLE_NOTE);

  if (load_nvrtc()) measure("nvrtc.compile", "ms", rep_nvrtc_compile, 1, 0, NULL);

  cuGraphExecDestroy(graph_exec);
  cuMemFreeHost(pinned);
  free(pageable);
  cuMemFree(dBig);
  cuStreamDestroy(stream);
  cuModuleUnload(mod);
  cuDevicePrimaryCtxRelease(dev);
  return 0;
}
