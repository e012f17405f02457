/*
 * The C contender of the gemm measures (bench/README.md, "cuBLAS gemm"): cuBLAS called directly, the CUDA driver for
 * the context, memory, stream and events. Compiled and run by bench/blas-run.sh:
 *
 *   gcc -O2 -I$CUDA_HOME/include bench/c/blas.c -L$CUDA_HOME/lib64 -lcublas -lcuda -lm -o blas-c && ./blas-c
 *
 * Prints JSON lines in the suite's format, contender "c-cublas", the same measures as bench/ts/blas.ts:
 *   gemm.N.{f16,bf16,tf32,f32}  TFLOP/s  C = A*B, N^3 (N = 4096, 8192), row-major as cuda-ts maps it (cuBLAS computes
 *                                        C^T = B^T * A^T: cublasGemmEx(N, N, n, n, n, B, A, C)), GPU time from events
 *   gemm.64.f32.call            ns       CPU cost of one 64^3 float32 cublasGemmEx call (bursts of 256, synchronised
 *                                        between bursts, untimed)
 * Method (bench/README.md): a warm-up that calibrates M, then R = 21 repetitions of M calls, the median reported with
 * min and max. A and B hold the values of the same LCG as bench/ts/blas.ts.
 */
#include <cublas_v2.h>
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define R 21
#define TARGET_MS 20.0
#define BURST 256

static const char *CONTENDER = "c-cublas";

#define CU(x)                                                                              \
  do {                                                                                     \
    CUresult r_ = (x);                                                                     \
    if (r_ != CUDA_SUCCESS) {                                                              \
      fprintf(stderr, "blas.c: %s failed: %d (line %d)\n", #x, (int)r_, __LINE__);          \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double sig6(double x) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.6g", x);
  return atof(buf);
}

/* float -> IEEE binary16 bits, round to nearest even (values here are in [-1, 1)). */
static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    mant |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - exp);
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

/* float -> bfloat16 bits, round to nearest even. */
static uint16_t to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  x += 0x7fffu + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

/* n*n values in [-1, 1): the LCG of bench/ts/blas.ts. */
static float *uniform(size_t count, uint32_t seed) {
  float *v = (float *)malloc(count * sizeof(float));
  uint32_t s = seed;
  for (size_t i = 0; i < count; i++) {
    s = s * 1664525u + 1013904223u;
    v[i] = (float)((double)s / 2147483648.0 - 1.0);
  }
  return v;
}

/* An n x n float32 matrix of uniform(seed) on the device. */
static CUdeviceptr device_matrix(size_t n, uint32_t seed) {
  float *v = uniform(n * n, seed);
  CUdeviceptr d;
  CU(cuMemAlloc(&d, n * n * 4));
  CU(cuMemcpyHtoD(d, v, n * n * 4));
  free(v);
  return d;
}

static CUdeviceptr device_matrix16(size_t n, int bf16, uint32_t seed) {
  float *v = uniform(n * n, seed);
  uint16_t *h = (uint16_t *)malloc(n * n * 2);
  for (size_t i = 0; i < n * n; i++) h[i] = bf16 ? to_bf16(v[i]) : to_half(v[i]);
  CUdeviceptr d;
  CU(cuMemAlloc(&d, n * n * 2));
  CU(cuMemcpyHtoD(d, h, n * n * 2));
  free(v);
  free(h);
  return d;
}

static CUstream stream;
static CUevent ev_start, ev_end;
static cublasHandle_t handle;

struct gemm_args {
  int n;
  cudaDataType type;
  cublasComputeType_t compute;
  CUdeviceptr a, b, c;
};

static int gemm_once(const struct gemm_args *g) {
  const float alpha = 1.0f, beta = 0.0f;
  /* Row-major C = A*B is column-major C^T = B^T * A^T: cuBLAS's A is B, its B is A (as cuda-ts's Blas maps it). */
  return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->n, g->n, &alpha, (const void *)(uintptr_t)g->b, g->type, g->n,
                      (const void *)(uintptr_t)g->a, g->type, g->n, &beta, (void *)(uintptr_t)g->c, g->type, g->n, g->compute,
                      CUBLAS_GEMM_DEFAULT);
}

/* GPU milliseconds of m calls. */
static double rep_gpu(const struct gemm_args *g, long m, int *status) {
  CU(cuEventRecord(ev_start, stream));
  for (long i = 0; i < m; i++) *status |= gemm_once(g);
  CU(cuEventRecord(ev_end, stream));
  CU(cuEventSynchronize(ev_end));
  float ms = 0;
  CU(cuEventElapsedTime(&ms, ev_start, ev_end));
  return ms;
}

static void measure_flops(const char *name, const char *note, const struct gemm_args *g) {
  int status = 0;
  long m = 1;
  double t = rep_gpu(g, m, &status);
  while (t < 2 && m < 1000000) {
    m *= 10;
    t = rep_gpu(g, m, &status);
  }
  /* Twice more at the M the last time suggests: the first call of a shape pays for cuBLAS's heuristics and kernel
     loading, and an M chosen from it alone can be 1, where each repetition would time the call's queueing too. */
  for (int pass = 0; pass < 3; pass++) {
    m = (long)(TARGET_MS / (t / m) + 0.999);
    if (m < 1) m = 1;
    if (pass < 2) t = rep_gpu(g, m, &status);
  }
  double per[R];
  for (int i = 0; i < R; i++) per[i] = rep_gpu(g, m, &status) / 1e3 / m;
  if (status != 0) {
    fprintf(stderr, "blas.c: %s: cublasGemmEx failed (status bits %d); skipped\n", name, status);
    printf("{\"contender\":\"%s\",\"measure\":\"%s\",\"missing\":\"failed: cublasGemmEx status %d\"}\n", CONTENDER, name, status);
    return;
  }
  qsort(per, R, sizeof(double), cmp);
  double flops = 2.0 * g->n * (double)g->n * g->n;
  printf("{\"contender\":\"%s\",\"measure\":\"%s\",\"value\":%g,\"unit\":\"TFLOP/s\",\"min\":%g,\"max\":%g,\"reps\":%d,\"iters\":%ld,\"note\":\"%s\"}\n",
         CONTENDER, name, sig6(flops / per[R / 2] / 1e12), sig6(flops / per[R - 1] / 1e12), sig6(flops / per[0] / 1e12), R, m, note);
  fflush(stdout);
}

/* Wall milliseconds of m calls in bursts of BURST, the stream synchronised between bursts (untimed). */
static double rep_calls(const struct gemm_args *g, long m, int *status) {
  double t = 0;
  while (m > 0) {
    long b = m < BURST ? m : BURST;
    double t0 = now_ms();
    for (long i = 0; i < b; i++) *status |= gemm_once(g);
    t += now_ms() - t0;
    m -= b;
    CU(cuStreamSynchronize(stream));
  }
  return t;
}

static void measure_call(const char *name, const struct gemm_args *g) {
  int status = 0;
  long m = 1;
  double t = rep_calls(g, m, &status);
  while (t < 2 && m < 100000000) {
    m *= 10;
    t = rep_calls(g, m, &status);
  }
  for (int pass = 0; pass < 2; pass++) {
    m = (long)(TARGET_MS / (t / m) + 0.999);
    if (m < 1) m = 1;
    t = rep_calls(g, m, &status);
  }
  m = (long)(TARGET_MS / (t / m) + 0.999);
  if (m < 1) m = 1;
  double per[R];
  for (int i = 0; i < R; i++) per[i] = rep_calls(g, m, &status) / 1e3 / m;
  if (status != 0) {
    printf("{\"contender\":\"%s\",\"measure\":\"%s\",\"missing\":\"failed: cublasGemmEx status %d\"}\n", CONTENDER, name, status);
    return;
  }
  qsort(per, R, sizeof(double), cmp);
  printf("{\"contender\":\"%s\",\"measure\":\"%s\",\"value\":%g,\"unit\":\"ns\",\"min\":%g,\"max\":%g,\"reps\":%d,\"iters\":%ld,\"note\":\"wall time per call in bursts of %d, the stream synchronised between bursts (untimed)\"}\n",
         CONTENDER, name, sig6(per[R / 2] * 1e9), sig6(per[0] * 1e9), sig6(per[R - 1] * 1e9), R, m, BURST);
  fflush(stdout);
}

int main(void) {
  CUdevice dev;
  CUcontext ctx;
  CU(cuInit(0));
  CU(cuDeviceGet(&dev, 0));
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CU(cuEventCreate(&ev_start, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&ev_end, CU_EVENT_DEFAULT));
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS || cublasSetStream(handle, (cudaStream_t)stream) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "blas.c: cublasCreate/cublasSetStream failed\n");
    return 1;
  }
  int version = 0;
  cublasGetVersion(handle, &version);
  char name[128];
  cuDeviceGetName(name, sizeof name, dev);
  fprintf(stderr, "blas.c: %s on %s, cuBLAS %d\n", CONTENDER, name, version);

  const int sizes[2] = {4096, 8192};
  for (int s = 0; s < 2; s++) {
    int n = sizes[s];
    struct {
      const char *tag;
      int elem;
      int bf16;
      cudaDataType type;
      cublasComputeType_t compute;
      const char *note;
    } cases[4] = {
        {"f16", 2, 0, CUDA_R_16F, CUBLAS_COMPUTE_32F, "float16, compute 32f, GPU time from events"},
        {"bf16", 2, 1, CUDA_R_16BF, CUBLAS_COMPUTE_32F, "bfloat16, compute 32f, GPU time from events"},
        {"tf32", 4, 0, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, "float32, compute 32f-fast-tf32, GPU time from events"},
        {"f32", 4, 0, CUDA_R_32F, CUBLAS_COMPUTE_32F, "float32, compute 32f, GPU time from events"},
    };
    for (int c = 0; c < 4; c++) {
      struct gemm_args g;
      g.n = n;
      g.type = cases[c].type;
      g.compute = cases[c].compute;
      if (cases[c].elem == 2) {
        g.a = device_matrix16((size_t)n, cases[c].bf16, 1);
        g.b = device_matrix16((size_t)n, cases[c].bf16, 2);
      } else {
        g.a = device_matrix((size_t)n, 1);
        g.b = device_matrix((size_t)n, 2);
      }
      CU(cuMemAlloc(&g.c, (size_t)n * n * cases[c].elem));
      char mname[64];
      snprintf(mname, sizeof mname, "gemm.%d.%s", n, cases[c].tag);
      measure_flops(mname, cases[c].note, &g);
      CU(cuMemFree(g.a));
      CU(cuMemFree(g.b));
      CU(cuMemFree(g.c));
    }
  }

  struct gemm_args small;
  small.n = 64;
  small.type = CUDA_R_32F;
  small.compute = CUBLAS_COMPUTE_32F;
  small.a = device_matrix(64, 3);
  small.b = device_matrix(64, 4);
  CU(cuMemAlloc(&small.c, 64 * 64 * 4));
  measure_call("gemm.64.f32.call", &small);

  cublasDestroy(handle);
  return 0;
}
