/* A stand-in for libcuda.so.1, for testing warpforge's runtime without a GPU
 * (test_driver_mock.py builds it and points WARPFORGE_LIBCUDA at it).
 *
 * Two devices, "Mock GPU 0" and "Mock GPU 1", with Hopper's limits ($MOCK_SM80:
 * compute capability 8.0 instead of 9.0). Memory:
 *   [0x10000000, 0x20000000) device 0     [0x20000000, 0x30000000) device 1
 *   [0x30000000, 0x40000000) pinned host  [0x40000000, 0x50000000) managed
 * and every other address is unknown to the driver (pageable host memory);
 * cuPointerGetAttributes fails on [0x50000000, 0x60000000).
 *
 * A module image is text: "MOCK name=K regs=R local=L shared=S maxthreads=T
 * nparams=N psizes=S0,S1,..." (keys optional); an image starting "BAD" is
 * invalid. Launches are recorded in the mock_* variables, read by the test
 * through ctypes: the first 8 bytes of each parameter in mock_params, and
 * its first psizes[i] bytes (default 8, at most 128: a CUtensorMap) in
 * mock_param_bytes, with the address it was passed at in mock_param_addrs.
 *
 * cuLaunchKernelEx launches as cuLaunchKernel does and records its
 * attributes: mock_attr_ids[i] and the first int of each value in
 * mock_attr_values[i] (mock_attr_count of them), the first three in
 * mock_attr_words[i] (a cluster dimension's x, y, z). A cooperative launch
 * of more than 264 programs (132 SMs x 2) fails with
 * CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (720), as the device would. A
 * cluster launch (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) whose grid is not
 * a multiple of the cluster, or of a cluster over 8 CTAs, fails with
 * CUDA_ERROR_INVALID_CLUSTER_SIZE (912); any other fails with
 * mock_cluster_result when a test sets it (a cluster the device cannot
 * place).
 *
 * cuTensorMapEncodeTiled records its arguments in mock_tma_* (the calls in
 * mock_tma_encodes) and writes a map whose 128 bytes are: "TMAP", the call's
 * serial number (u32), the address (u64), the dims (5 x u64), the byte
 * strides (4 x u64), the box (5 x u32), then data type, rank, swizzle and
 * fill as bytes. It returns mock_tma_result (0 unless a test sets it) and
 * CUDA_ERROR_INVALID_VALUE for arguments the real driver rejects.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef struct {
  char name[64];
  int regs, local, shared, maxthreads, nparams, maxdynamic;
  int psizes[64];
} Module;

static Module modules[64];
static int moduleCount;
static __thread void *current;
static char contexts[2];

int mock_launches;
unsigned long long mock_params[64];
unsigned char mock_param_bytes[64][128];
unsigned long long mock_param_addrs[64];
unsigned mock_grid[3], mock_block[3], mock_shared;
void *mock_stream, *mock_context;
int mock_unloads;

/* $MOCK_NO_DEVICE: a machine with the driver but no GPU. */
CUresult cuInit(unsigned flags) {
  if (getenv("MOCK_NO_DEVICE")) return 100; /* CUDA_ERROR_NO_DEVICE */
  return flags ? 1 : 0;
}
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 2; return 0; }
CUresult cuDeviceGet(int *d, int i) {
  if (i < 0 || i > 1) return 101; /* CUDA_ERROR_INVALID_DEVICE */
  *d = i;
  return 0;
}
CUresult cuDeviceGetName(char *name, int len, int d) {
  snprintf(name, len, "Mock GPU %d", d);
  return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
  (void)d;
  switch (attr) {
  case 1: *v = 1024; break;        /* max threads per block */
  case 5: *v = 2147483647; break;  /* max grid x */
  case 6: case 7: *v = 65535; break;
  case 8: *v = 49152; break;       /* shared per block */
  case 10: *v = 32; break;
  case 12: *v = 65536; break;      /* registers per block */
  case 13: *v = 1980000; break;
  case 16: *v = 132; break;
  case 36: *v = 2619000; break;
  case 37: *v = 5120; break;
  case 38: *v = 52428800; break;
  case 39: *v = 2048; break;
  case 75: *v = getenv("MOCK_SM80") ? 8 : 9; break;
  case 76: *v = 0; break;
  case 81: *v = 233472; break;
  case 82: *v = 65536; break;
  case 97: *v = 232448; break;     /* opt-in shared per block */
  default: return 1;               /* CUDA_ERROR_INVALID_VALUE */
  }
  return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, int d) {
  (void)d;
  *bytes = (size_t)80 << 30;
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) {
  *ctx = &contexts[d];
  return 0;
}
CUresult cuCtxGetCurrent(void **ctx) { *ctx = current; return 0; }
void *mock_current(void) { return current; }
void *mock_context_of(int d) { return &contexts[d]; }
CUresult cuCtxSetCurrent(void *ctx) { current = ctx; return 0; }

static int field(const char *image, const char *key, int fallback) {
  const char *at = strstr(image, key);
  int value;
  if (at && sscanf(at + strlen(key), "%d", &value) == 1) return value;
  return fallback;
}

CUresult cuModuleLoadData(void **module, const void *image) {
  const char *text = image;
  if (!current) return 201;                      /* CUDA_ERROR_INVALID_CONTEXT */
  if (strncmp(text, "BAD", 3) == 0) return 200;  /* CUDA_ERROR_INVALID_IMAGE */
  Module *m = &modules[moduleCount++ % 64];
  memset(m, 0, sizeof *m);
  const char *name = strstr(text, "name=");
  if (name) sscanf(name + 5, "%63s", m->name);
  m->regs = field(text, "regs=", 32);
  m->local = field(text, "local=", 0);
  m->shared = field(text, "shared=", 0);
  m->maxthreads = field(text, "maxthreads=", 1024);
  m->nparams = field(text, "nparams=", 0);
  for (int i = 0; i < 64; ++i) m->psizes[i] = 8;
  const char *sizes = strstr(text, "psizes=");
  if (sizes) {
    sizes += 7;
    for (int i = 0; i < 64; ++i) {
      char *end;
      long v = strtol(sizes, &end, 10);
      if (end == sizes) break;
      m->psizes[i] = v < 1 ? 1 : v > 128 ? 128 : (int)v;
      if (*end != ',') break;
      sizes = end + 1;
    }
  }
  *module = m;
  return 0;
}
CUresult cuModuleUnload(void *module) { (void)module; mock_unloads++; return 0; }
CUresult cuModuleGetFunction(void **f, void *module, const char *name) {
  Module *m = module;
  if (strcmp(m->name, name) != 0) return 500;    /* CUDA_ERROR_NOT_FOUND */
  *f = m;
  return 0;
}
CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
  Module *m = f;
  switch (attr) {
  case 0: *v = m->maxthreads; break;
  case 1: *v = m->shared; break;
  case 3: *v = m->local; break;
  case 4: *v = m->regs; break;
  default: return 1;
  }
  return 0;
}
CUresult cuFuncSetAttribute(void *f, int attr, int value) {
  Module *m = f;
  if (attr != 8 || value > 232448 - m->shared) return 1;
  m->maxdynamic = value;
  return 0;
}
int mock_max_dynamic(void) { return modules[(moduleCount - 1) % 64].maxdynamic; }

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  Module *m = f;
  if (extra) return 1;
  if (shared > 49152 - (unsigned)m->shared &&
      shared > (unsigned)m->maxdynamic) return 1;
  mock_launches++;
  mock_grid[0] = gx, mock_grid[1] = gy, mock_grid[2] = gz;
  mock_block[0] = bx, mock_block[1] = by, mock_block[2] = bz;
  mock_shared = shared;
  mock_stream = stream;
  mock_context = current;
  for (int i = 0; i < m->nparams && i < 64; ++i) {
    memcpy(&mock_params[i], params[i], 8);
    memset(mock_param_bytes[i], 0, 128);
    memcpy(mock_param_bytes[i], params[i], m->psizes[i]);
    mock_param_addrs[i] = (unsigned long long)(uintptr_t)params[i];
  }
  return 0;
}

/* cuda.h's CUlaunchAttribute (an id, padding, a 64-byte union) and
 * CUlaunchConfig. */
typedef struct {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int first;
  } value;
} MockLaunchAttribute;
typedef struct {
  unsigned gx, gy, gz, bx, by, bz, shared;
  void *stream;
  MockLaunchAttribute *attrs;
  unsigned numAttrs;
} MockLaunchConfig;

int mock_attr_count, mock_attr_ids[8], mock_attr_values[8];
unsigned mock_attr_words[8][3];
int mock_cluster_result;

CUresult cuLaunchKernelEx(const MockLaunchConfig *config, void *f, void **params,
                          void **extra) {
  int cooperative = 0;
  unsigned cluster[3] = {0, 0, 0};
  mock_attr_count = 0;
  for (unsigned i = 0; i < config->numAttrs && i < 8; ++i) {
    mock_attr_ids[i] = config->attrs[i].id;
    mock_attr_values[i] = config->attrs[i].value.first;
    memcpy(mock_attr_words[i], config->attrs[i].value.bytes, sizeof mock_attr_words[i]);
    mock_attr_count++;
    if (config->attrs[i].id == 2 && config->attrs[i].value.first) cooperative = 1;
    if (config->attrs[i].id == 4) memcpy(cluster, config->attrs[i].value.bytes, sizeof cluster);
  }
  if (cooperative &&
      (unsigned long long)config->gx * config->gy * config->gz > 132ull * 2)
    return 720; /* CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE */
  if (cluster[0] || cluster[1] || cluster[2]) {
    if (!cluster[0] || !cluster[1] || !cluster[2] ||
        cluster[0] * cluster[1] * cluster[2] > 8 || config->gx % cluster[0] ||
        config->gy % cluster[1] || config->gz % cluster[2])
      return 912; /* CUDA_ERROR_INVALID_CLUSTER_SIZE */
    if (mock_cluster_result) return mock_cluster_result;
  }
  return cuLaunchKernel(f, config->gx, config->gy, config->gz, config->bx, config->by,
                        config->bz, config->shared, config->stream, params, extra);
}

int mock_tma_encodes, mock_tma_result;
int mock_tma_dtype, mock_tma_interleave, mock_tma_swizzle, mock_tma_l2;
int mock_tma_fill;
unsigned mock_tma_rank;
unsigned long long mock_tma_address, mock_tma_map_addr;
unsigned long long mock_tma_dims[5], mock_tma_strides[5];
unsigned mock_tma_box[5], mock_tma_elem_strides[5];

CUresult cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank,
                                void *address, const unsigned long long *dims,
                                const unsigned long long *strides,
                                const unsigned *box,
                                const unsigned *elementStrides, int interleave,
                                int swizzle, int l2, int fill) {
  static const int bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2};
  unsigned i;
  mock_tma_encodes++;
  mock_tma_dtype = dtype, mock_tma_rank = rank;
  mock_tma_address = (unsigned long long)(uintptr_t)address;
  mock_tma_map_addr = (unsigned long long)(uintptr_t)map;
  memset(mock_tma_dims, 0, sizeof mock_tma_dims);
  memset(mock_tma_strides, 0, sizeof mock_tma_strides);
  memset(mock_tma_box, 0, sizeof mock_tma_box);
  memset(mock_tma_elem_strides, 0, sizeof mock_tma_elem_strides);
  for (i = 0; i < rank && i < 5; ++i) {
    mock_tma_dims[i] = dims[i];
    mock_tma_box[i] = box[i];
    mock_tma_elem_strides[i] = elementStrides[i];
    if (i + 1 < rank) mock_tma_strides[i] = strides[i];
  }
  mock_tma_interleave = interleave, mock_tma_swizzle = swizzle;
  mock_tma_l2 = l2, mock_tma_fill = fill;
  if (mock_tma_result) return mock_tma_result;
  /* The real driver's rules (interleave none). */
  if (((uintptr_t)map & 63) || rank < 1 || rank > 5 || dtype < 0 ||
      dtype > 9 || ((uintptr_t)address & 15) || interleave != 0 ||
      swizzle < 0 || swizzle > 3 || l2 < 0 || l2 > 3 || fill < 0 || fill > 1)
    return 1;
  if (fill == 1 && dtype < 6) return 1; /* NaN fill: floats only */
  for (i = 0; i < rank; ++i) {
    if (dims[i] == 0 || dims[i] > (1ull << 32)) return 1;
    if (box[i] == 0 || box[i] > 256 || elementStrides[i] != 1) return 1;
    if (i + 1 < rank && (strides[i] % 16 || strides[i] >= (1ull << 40)))
      return 1;
  }
  if (box[0] * bytes[dtype] % 16) return 1;
  if (swizzle && box[0] * bytes[dtype] > (16u << swizzle)) return 1;
  unsigned char *out = map;
  memset(out, 0, 128);
  memcpy(out, "TMAP", 4);
  memcpy(out + 4, &mock_tma_encodes, 4);
  memcpy(out + 8, &mock_tma_address, 8);
  memcpy(out + 16, mock_tma_dims, 40);
  memcpy(out + 56, mock_tma_strides, 32);
  memcpy(out + 88, mock_tma_box, 20);
  out[108] = (unsigned char)dtype, out[109] = (unsigned char)rank;
  out[110] = (unsigned char)swizzle, out[111] = (unsigned char)fill;
  return 0;
}

int mock_pointer_queries; /* cuPointerGetAttributes calls */

CUresult cuPointerGetAttributes(unsigned n, int *attrs, void **data,
                                unsigned long long ptr) {
  unsigned type = 0;
  int ordinal = -2;
  int managed = 0;
  ++mock_pointer_queries;
  if (ptr >= 0x50000000ull && ptr < 0x60000000ull) return 201;
  if (ptr >= 0x10000000ull && ptr < 0x20000000ull) type = 2, ordinal = 0;
  else if (ptr >= 0x20000000ull && ptr < 0x30000000ull) type = 2, ordinal = 1;
  else if (ptr >= 0x30000000ull && ptr < 0x40000000ull) type = 1, ordinal = 0;
  else if (ptr >= 0x40000000ull && ptr < 0x50000000ull)
    type = 2, ordinal = 1, managed = 1;
  for (unsigned i = 0; i < n; ++i) {
    if (attrs[i] == 2) *(unsigned *)data[i] = type;
    else if (attrs[i] == 9) *(int *)data[i] = ordinal;
    else if (attrs[i] == 8) *(char *)data[i] = (char)managed;
    /* Allocations of 1 MiB, aligned; none for unknown memory. */
    else if (attrs[i] == 11)
      *(unsigned long long *)data[i] = type ? ptr & ~0xFFFFFull : 0;
    else if (attrs[i] == 12) *(size_t *)data[i] = type ? 0x100000 : 0;
    else return 1;
  }
  return 0;
}

CUresult cuGetErrorName(CUresult code, const char **name) {
  switch (code) {
  case 1: *name = "CUDA_ERROR_INVALID_VALUE"; return 0;
  case 100: *name = "CUDA_ERROR_NO_DEVICE"; return 0;
  case 200: *name = "CUDA_ERROR_INVALID_IMAGE"; return 0;
  case 201: *name = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
  case 500: *name = "CUDA_ERROR_NOT_FOUND"; return 0;
  case 720: *name = "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"; return 0;
  case 912: *name = "CUDA_ERROR_INVALID_CLUSTER_SIZE"; return 0;
  default: *name = NULL; return 1;
  }
}
CUresult cuGetErrorString(CUresult code, const char **text) {
  switch (code) {
  case 1: *text = "invalid argument"; return 0;
  case 100: *text = "no CUDA-capable device is detected"; return 0;
  case 200: *text = "device kernel image is invalid"; return 0;
  case 201: *text = "invalid device context"; return 0;
  case 500: *text = "named symbol not found"; return 0;
  case 720: *text = "too many blocks in cooperative launch"; return 0;
  case 912: *text = "invalid cluster size"; return 0;
  default: *text = NULL; return 1;
  }
}
