import sys, torch
sys.path.insert(0, "python/test")
import pointer_matmul_kernels as pk
import warpforge
M = N = K = 4096
a = torch.randn((M, K), device="cuda").half(); b = torch.randn((K, N), device="cuda").half(); c = torch.empty((M, N), device="cuda").half()
tiles = (M // 128) * (N // 256)
for ws in [False, True]:
    meta = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, WARP_SPECIALIZE=ws, num_warps=8, num_stages=3)
    for _ in range(3):
        pk.masked_matmul[(tiles,)](a, b, c, M, N, K, K, 1, N, 1, N, 1, **meta)
torch.cuda.synchronize()
