/*
 * The C contender of the several-GPU benchmark (bench/multi-gpu-run.sh): peer-copy bandwidth through
 * cuMemcpyPeerAsync and NCCL all-reduce bus bandwidth with two ranks in one process (ncclCommInitAll), timed the way
 * nccl-tests times them (host clock around `iters` calls, streams synchronised before and after).
 *
 *   gcc -O2 -o multi_gpu bench/c/multi_gpu.c -I/usr/local/cuda/include -I$NCCL/include \
 *       -L$NCCL/lib -l:libnccl.so.2 -lcuda -Wl,-rpath,$NCCL/lib
 *   ./multi_gpu [--min-bytes 8] [--max-bytes 1073741824] [--iters 20] [--warmup 5]
 *
 * Prints JSON lines in bench/README.md's format (contender "c"): `p2p.256MiB` (GB/s, GPU 0 → GPU 1),
 * `nccl.allreduce.<bytes>` (bus bandwidth GB/s: for all-reduce, algorithm bandwidth × 2(n−1)/n) and
 * `nccl.allreduce.8B.latency` (µs per call). Needs two GPUs.
 */
#include <cuda.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CU(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_; cuGetErrorName(r_, &s_); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_); exit(1); } } while (0)
#define NC(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, ncclGetErrorString(r_)); exit(1); } } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static long long option(int argc, char** argv, const char* name, long long fallback) {
  for (int i = 1; i + 1 < argc; i++) if (strcmp(argv[i], name) == 0) return atoll(argv[i + 1]);
  return fallback;
}

int main(int argc, char** argv) {
  const long long minBytes = option(argc, argv, "--min-bytes", 8);
  const long long maxBytes = option(argc, argv, "--max-bytes", 1LL << 30);
  const int iters = (int)option(argc, argv, "--iters", 20);
  const int warmup = (int)option(argc, argv, "--warmup", 5);
  CU(cuInit(0));
  int count = 0;
  CU(cuDeviceGetCount(&count));
  if (count < 2) { fprintf(stderr, "multi_gpu: needs two GPUs, found %d\n", count); return 2; }
  CUcontext ctx[2];
  CUstream stream[2];
  CUdeviceptr send[2], recv[2];
  for (int d = 0; d < 2; d++) {
    CUdevice dev;
    CU(cuDeviceGet(&dev, d));
    CU(cuDevicePrimaryCtxRetain(&ctx[d], dev));
    CU(cuCtxSetCurrent(ctx[d]));
    CU(cuStreamCreate(&stream[d], CU_STREAM_NON_BLOCKING));
    CU(cuMemAlloc(&send[d], (size_t)maxBytes));
    CU(cuMemAlloc(&recv[d], (size_t)maxBytes));
    CU(cuMemsetD8(send[d], 1, (size_t)maxBytes));
  }
  int access = 0;
  CU(cuDeviceCanAccessPeer(&access, 0, 1));
  printf("{\"contender\":\"c\",\"measure\":\"p2p.canAccessPeer\",\"value\":%d,\"unit\":\"bool\"}\n", access);

  /* Peer copies, 256 MiB, GPU 0 → GPU 1 on GPU 0's stream. */
  if (access) {
    CU(cuCtxSetCurrent(ctx[0]));
    if (cuCtxEnablePeerAccess(ctx[1], 0) != CUDA_SUCCESS) {}
    CU(cuCtxSetCurrent(ctx[1]));
    if (cuCtxEnablePeerAccess(ctx[0], 0) != CUDA_SUCCESS) {}
    CU(cuCtxSetCurrent(ctx[0]));
  }
  const size_t peerBytes = 256u << 20;
  if ((long long)peerBytes <= maxBytes) {
    for (int i = 0; i < warmup; i++) CU(cuMemcpyPeerAsync(recv[1], ctx[1], send[0], ctx[0], peerBytes, stream[0]));
    CU(cuStreamSynchronize(stream[0]));
    double best = 0, samples[32];
    int n = 0;
    for (int round = 0; round < 11 && n < 32; round++) {
      double t0 = now();
      for (int i = 0; i < iters; i++) CU(cuMemcpyPeerAsync(recv[1], ctx[1], send[0], ctx[0], peerBytes, stream[0]));
      CU(cuStreamSynchronize(stream[0]));
      double gbs = (double)peerBytes * iters / (now() - t0) / 1e9;
      samples[n++] = gbs;
      if (gbs > best) best = gbs;
    }
    /* median */
    for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) if (samples[j] < samples[i]) { double t = samples[i]; samples[i] = samples[j]; samples[j] = t; }
    printf("{\"contender\":\"c\",\"measure\":\"p2p.256MiB\",\"value\":%.3f,\"unit\":\"GB/s\",\"min\":%.3f,\"max\":%.3f,\"note\":\"cuMemcpyPeerAsync GPU 0 -> GPU 1, %d per sample\"}\n", samples[n / 2], samples[0], samples[n - 1], iters);
  }

  /* NCCL all-reduce, float32 sum, out of place, two ranks in this process. */
  ncclComm_t comms[2];
  int devs[2] = {0, 1};
  NC(ncclCommInitAll(comms, 2, devs));
  int version = 0;
  NC(ncclGetVersion(&version));
  for (long long bytes = minBytes; bytes <= maxBytes; bytes *= 2) {
    size_t countF = (size_t)bytes / 4;
    if (countF == 0) continue;
    for (int i = 0; i < warmup; i++) {
      NC(ncclGroupStart());
      for (int r = 0; r < 2; r++) NC(ncclAllReduce((void*)send[r], (void*)recv[r], countF, ncclFloat32, ncclSum, comms[r], (cudaStream_t)stream[r]));
      NC(ncclGroupEnd());
    }
    for (int r = 0; r < 2; r++) CU(cuStreamSynchronize(stream[r]));
    double samples[16];
    int n = 0;
    for (int round = 0; round < 5; round++) {
      double t0 = now();
      for (int i = 0; i < iters; i++) {
        NC(ncclGroupStart());
        for (int r = 0; r < 2; r++) NC(ncclAllReduce((void*)send[r], (void*)recv[r], countF, ncclFloat32, ncclSum, comms[r], (cudaStream_t)stream[r]));
        NC(ncclGroupEnd());
      }
      for (int r = 0; r < 2; r++) CU(cuStreamSynchronize(stream[r]));
      samples[n++] = (now() - t0) / iters;
    }
    for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) if (samples[j] < samples[i]) { double t = samples[i]; samples[i] = samples[j]; samples[j] = t; }
    double sec = samples[n / 2];
    double busbw = (double)countF * 4 / sec / 1e9 * (2.0 * (2 - 1) / 2);
    printf("{\"contender\":\"c\",\"measure\":\"nccl.allreduce.%lld\",\"value\":%.4f,\"unit\":\"GB/s\",\"us\":%.3f,\"note\":\"bus bandwidth, float32 sum, out of place, 2 ranks in one process, NCCL %d\"}\n", (long long)countF * 4, busbw, sec * 1e6, version);
    if (countF * 4 == 8) printf("{\"contender\":\"c\",\"measure\":\"nccl.allreduce.8B.latency\",\"value\":%.3f,\"unit\":\"us\"}\n", sec * 1e6);
  }
  for (int r = 0; r < 2; r++) NC(ncclCommDestroy(comms[r]));
  return 0;
}
