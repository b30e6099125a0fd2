// The CUDA driver's own launch cost, for bench/launch_overhead_gpu.py's
// floor: cuLaunchKernel of a cubin's kernel in a C++ loop, no Python.
// Usage: raw_launch CUBIN NAME NPARAMS [LAUNCHES ROUNDS]; every parameter
// is passed as an 8-byte zero (the empty kernel reads none).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef int CUdevice;

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s CUBIN NAME NPARAMS [LAUNCHES ROUNDS]\n", argv[0]);
    return 2;
  }
  int launches = argc > 4 ? std::atoi(argv[4]) : 200;
  int rounds = argc > 5 ? std::atoi(argv[5]) : 30;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) { std::fprintf(stderr, "no libcuda\n"); return 1; }
#define SYM(name, type) auto name = (type)dlsym(lib, #name)
  SYM(cuInit, CUresult (*)(unsigned));
  SYM(cuDeviceGet, CUresult (*)(CUdevice *, int));
  SYM(cuDevicePrimaryCtxRetain, CUresult (*)(CUcontext *, CUdevice));
  SYM(cuCtxSetCurrent, CUresult (*)(CUcontext));
  SYM(cuModuleLoadData, CUresult (*)(CUmodule *, const void *));
  SYM(cuModuleGetFunction, CUresult (*)(CUfunction *, CUmodule, const char *));
  SYM(cuCtxSynchronize, CUresult (*)());
  auto cuLaunchKernel = (CUresult(*)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, unsigned, unsigned, CUstream, void **,
                                     void **))dlsym(lib, "cuLaunchKernel");
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string image = ss.str();
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
      cuCtxSetCurrent(ctx) || cuModuleLoadData(&mod, image.data()) ||
      cuModuleGetFunction(&fn, mod, argv[2])) {
    std::fprintf(stderr, "driver setup failed\n");
    return 1;
  }
  int nparams = std::atoi(argv[3]);
  std::vector<unsigned long long> slots(nparams, 0);
  std::vector<void *> params(nparams);
  for (int i = 0; i < nparams; ++i) params[i] = &slots[i];
  double best = 1e9;
  for (int r = 0; r < rounds; ++r) {
    cuCtxSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i)
      if (cuLaunchKernel(fn, 4, 1, 1, 128, 1, 1, 0, nullptr, params.data(), nullptr)) {
        std::fprintf(stderr, "launch failed\n");
        return 1;
      }
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
  }
  cuCtxSynchronize();
  std::printf("cuLaunchKernel from C++: %.2f us per launch (best of %d x %d)\n", best, rounds,
              launches);
  return 0;
}
