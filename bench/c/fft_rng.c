/*
 * The C side of the cuFFT and cuRAND bench (bench/ts/fft-rng.ts has the measures' table): cuFFT and cuRAND
 * called directly through the runtime API, gcc -O2, -lcufft -lcurand -lcudart. Contender "c-mathlibs".
 *
 *   gcc -O2 -std=gnu11 -I$CUDA_HOME/include -o fft_rng bench/c/fft_rng.c \
 *       -L$CUDA_HOME/targets/x86_64-linux/lib -lcufft -lcurand -lcudart -lm
 *   ./fft_rng
 *
 * Method (bench/README.md): a warm-up that calibrates M, then R = 21 repetitions of M iterations, the median
 * per-iteration time reported with min and max; GPU measures timed with events on the stream, the per-call measures
 * with the monotonic clock in bursts of 256 calls (the stream synchronised between bursts, untimed). The plans are made
 * as cuda-ts makes them: cufftMakePlanMany64 with auto-allocation off and a work area from cudaMallocAsync.
 */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>
#include <curand.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define R 21
#define TARGET_S 0.02
#define MIN_M_FAST 100000
#define BURST 256

static const char *CONTENDER = "c-mathlibs";
static cudaStream_t stream;
static cudaEvent_t ev0, ev1;
static int failed;

#define CHECK(call, what)                                                               \
  do {                                                                                  \
    int _s = (int)(call);                                                               \
    if (_s != 0) {                                                                      \
      fprintf(stderr, "fft_rng.c: %s failed with status %d\n", what, _s);               \
      failed = 1;                                                                       \
    }                                                                                   \
  } while (0)

typedef int64_t (*rep_fn)(long m); /* nanoseconds for m iterations, or -1 */

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static long choose_m(double per_s) {
  double m = per_s > 0 ? TARGET_S / per_s : 1e9;
  m = m < 1 ? 1 : (double)(long)(m + 0.999999);
  if (per_s < 1e-6 && m < MIN_M_FAST) m = MIN_M_FAST;
  if (m > 1e9) m = 1e9;
  return (long)m;
}

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

static void measure(const char *name, const char *unit, rep_fn fn, const char *note) {
  failed = 0;
  long m = calibrate(fn);
  if (m < 0 || failed) goto fail;
  double per[R];
  for (int i = 0; i < R; i++) {
    int64_t t = fn(m);
    if (t < 0 || failed) goto fail;
    per[i] = (double)t * 1e-9 / (double)m;
  }
  qsort(per, R, sizeof per[0], cmp_double);
  double k = strcmp(unit, "ns") == 0 ? 1e9 : 1e3;
  printf("{\"contender\": \"%s\", \"measure\": \"%s\", \"value\": %.6g, \"unit\": \"%s\", \"min\": %.6g, \"max\": %.6g, "
         "\"reps\": %d, \"iters\": %ld, \"note\": \"%s\"}\n",
         CONTENDER, name, per[R / 2] * k, unit, per[0] * k, per[R - 1] * k, R, m, note);
  fflush(stdout);
  return;
fail:
  fprintf(stderr, "fft_rng.c: %s failed; skipped\n", name);
  printf("{\"contender\": \"%s\", \"measure\": \"%s\", \"missing\": \"failed\"}\n", CONTENDER, name);
}

/* ---- the work of one iteration of each measure ---- */
static cufftHandle plan_big, plan_2d, plan_small;
static void *x_big, *x_2d, *x_small;
static curandGenerator_t gen;
static float *normals, *uniforms;

static void fft_big(void) { CHECK(cufftExecC2C(plan_big, x_big, x_big, CUFFT_FORWARD), "cufftExecC2C 2^24"); }
static void fft_2d(void) { CHECK(cufftExecC2C(plan_2d, x_2d, x_2d, CUFFT_FORWARD), "cufftExecC2C 2d"); }
static void fft_small(void) { CHECK(cufftExecC2C(plan_small, x_small, x_small, CUFFT_FORWARD), "cufftExecC2C 256"); }
static void rng_normal(void) { CHECK(curandGenerateNormal(gen, normals, 1000000000ull, 0.0f, 1.0f), "curandGenerateNormal"); }
static void rng_uniform(void) { CHECK(curandGenerateUniform(gen, uniforms, 1024), "curandGenerateUniform"); }

static void (*one)(void);

/* GPU time from events. */
static int64_t gpu_rep(long m) {
  cudaEventRecord(ev0, stream);
  for (long i = 0; i < m; i++) one();
  cudaEventRecord(ev1, stream);
  if (cudaEventSynchronize(ev1) != cudaSuccess) return -1;
  float ms = 0;
  cudaEventElapsedTime(&ms, ev0, ev1);
  return (int64_t)((double)ms * 1e6);
}

/* CPU time of the calls, in bursts; the stream synchronised between bursts, untimed. */
static int64_t burst_rep(long m) {
  int64_t t = 0;
  while (m > 0) {
    long n = m < BURST ? m : BURST;
    int64_t t0 = now_ns();
    for (long i = 0; i < n; i++) one();
    t += now_ns() - t0;
    m -= n;
    if (cudaStreamSynchronize(stream) != cudaSuccess) return -1;
  }
  return t;
}

/* A plan as cuda-ts makes it: auto-allocation off, cufftMakePlanMany64, the work area from the stream-ordered pool. */
static cufftHandle make_plan(int rank, long long *n, long long batch, size_t *work_size) {
  cufftHandle p;
  long long dist = 1;
  for (int i = 0; i < rank; i++) dist *= n[i];
  CHECK(cufftCreate(&p), "cufftCreate");
  CHECK(cufftSetAutoAllocation(p, 0), "cufftSetAutoAllocation");
  CHECK(cufftMakePlanMany64(p, rank, n, n, 1, dist, n, 1, dist, CUFFT_C2C, batch, work_size), "cufftMakePlanMany64");
  CHECK(cufftSetStream(p, stream), "cufftSetStream");
  if (*work_size > 0) {
    void *work;
    CHECK(cudaMallocAsync(&work, *work_size, stream), "cudaMallocAsync");
    CHECK(cufftSetWorkArea(p, work), "cufftSetWorkArea");
  }
  return p;
}

int main(void) {
  CHECK(cudaSetDevice(0), "cudaSetDevice");
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  CHECK(cudaEventCreate(&ev0), "cudaEventCreate");
  CHECK(cudaEventCreate(&ev1), "cudaEventCreate");
  struct cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  fprintf(stderr, "fft_rng.c: %s on %s\n", CONTENDER, prop.name);
  if (failed) return 1;

  size_t ws;
  char note[160];
  long long n_big[1] = {1 << 24};
  CHECK(cudaMalloc(&x_big, (size_t)(1 << 24) * 8), "cudaMalloc");
  CHECK(cudaMemset(x_big, 0, (size_t)(1 << 24) * 8), "cudaMemset");
  plan_big = make_plan(1, n_big, 1, &ws);
  snprintf(note, sizeof note, "in place, work area %zu B from cudaMallocAsync", ws);
  one = fft_big;
  measure("fft.c2c.1d.2^24.f32", "ms", gpu_rep, note);
  cufftDestroy(plan_big);
  cudaFree(x_big);

  long long n_2d[2] = {512, 512};
  CHECK(cudaMalloc(&x_2d, (size_t)256 * 512 * 512 * 8), "cudaMalloc");
  CHECK(cudaMemset(x_2d, 0, (size_t)256 * 512 * 512 * 8), "cudaMemset");
  plan_2d = make_plan(2, n_2d, 256, &ws);
  one = fft_2d;
  measure("fft.c2c.2d.256x512x512.f32", "ms", gpu_rep, "in place, batched");
  cufftDestroy(plan_2d);
  cudaFree(x_2d);

  long long n_small[1] = {256};
  CHECK(cudaMalloc(&x_small, 256 * 8), "cudaMalloc");
  CHECK(cudaMemset(x_small, 0, 256 * 8), "cudaMemset");
  plan_small = make_plan(1, n_small, 1, &ws);
  one = fft_small;
  measure("fft.c2c.1d.256.call", "ns", burst_rep, "cufftExecC2C");
  cufftDestroy(plan_small);
  cudaFree(x_small);

  CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10), "curandCreateGenerator");
  CHECK(curandSetStream(gen, stream), "curandSetStream");
  CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234), "curandSetPseudoRandomGeneratorSeed");
  CHECK(cudaMalloc((void **)&normals, (size_t)1000000000 * 4), "cudaMalloc");
  one = rng_normal;
  measure("rng.normal.1e9.f32", "ms", gpu_rep, "Philox4_32_10, curandGenerateNormal");
  cudaFree(normals);
  CHECK(cudaMalloc((void **)&uniforms, 1024 * 4), "cudaMalloc");
  one = rng_uniform;
  measure("rng.uniform.1024.call", "ns", burst_rep, "curandGenerateUniform");
  cudaFree(uniforms);
  curandDestroyGenerator(gen);
  cudaStreamSynchronize(stream);
  return 0;
}
