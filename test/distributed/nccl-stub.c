/* A stand-in libnccl.so.2 for the binding's tests on machines without NCCL or a GPU: the functions the tests call,
 * with the real signatures (compiled against the real nccl.h when it is here: -DSTUB_REAL_HEADER), recording what
 * arrives so that the test can compare it with what it sent. STUB_VERSION is what ncclGetVersion reports. */
#include <stdint.h>
#include <string.h>
#ifdef STUB_REAL_HEADER
#include <nccl.h>
#else
#include <stddef.h>
#include <limits.h>
typedef struct ncclComm* ncclComm_t;
typedef struct { char internal[128]; } ncclUniqueId;
typedef enum { ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3, ncclInvalidArgument = 4,
               ncclInvalidUsage = 5, ncclRemoteError = 6, ncclInProgress = 7, ncclNumResults = 8 } ncclResult_t;
typedef struct ncclConfig_v21700 { size_t size; unsigned int magic; unsigned int version; int blocking; int cgaClusterSize;
                                   int minCTAs; int maxCTAs; const char* netName; int splitShare; } ncclConfig_t;
#endif

static unsigned char lastId[128];
static int lastRank = -1, lastNranks = -1;
static unsigned char lastConfig[512];
static size_t lastConfigSize;
static char lastNetName[64];
static char lastError[128] = "";

ncclResult_t ncclGetVersion(int* version) { *version = STUB_VERSION; return ncclSuccess; }

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  for (int i = 0; i < 128; i++) id->internal[i] = (char)(i * 7 + 3);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank) {
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    strcpy(lastError, "stub: rank out of range");
    return ncclInvalidArgument;
  }
  memcpy(lastId, commId.internal, 128);
  lastRank = rank;
  lastNranks = nranks;
  *comm = (ncclComm_t)(uintptr_t)(0x1000 + rank);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t* config) {
  lastConfigSize = config->size < sizeof lastConfig ? config->size : sizeof lastConfig;
  memcpy(lastConfig, config, lastConfigSize);
  lastNetName[0] = 0;
  if (config->netName != NULL) strncpy(lastNetName, config->netName, sizeof lastNetName - 1);
  return ncclCommInitRank(comm, nranks, commId, rank);
}

const char* ncclGetErrorString(ncclResult_t result) {
  return result == ncclInvalidArgument ? "invalid argument (stub)" : "stub error";
}

const char* ncclGetLastError(ncclComm_t comm) { (void)comm; return lastError; }

/* What the last ncclCommInitRank received: the id's bytes into out; returns rank * 1000 + nranks. */
int stubLastInit(unsigned char* out) { memcpy(out, lastId, 128); return lastRank * 1000 + lastNranks; }

/* The last config's bytes into out; returns their count. The net name it pointed to into name. */
size_t stubLastConfig(unsigned char* out, char* name) { memcpy(out, lastConfig, lastConfigSize); strcpy(name, lastNetName); return lastConfigSize; }

#ifdef STUB_REAL_HEADER
/* The header's NCCL_CONFIG_INITIALIZER, for comparison with cuda-ts's; returns its size. */
size_t stubDefaultConfig(unsigned char* out) { ncclConfig_t c = NCCL_CONFIG_INITIALIZER; memcpy(out, &c, sizeof c); return sizeof c; }
#endif
