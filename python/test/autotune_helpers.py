"""Helpers shared by the autotuner's test files (test_autotune.py,
test_autotune_configs.py): random inputs, poisoned outputs, a stand-in for
do_bench, and configs over BLOCK with their fake times."""

import numpy as np

import warpforge as triton

N = 1000
RNG = np.random.default_rng(7)


def rand(n, dtype=np.float32):
    v = RNG.uniform(0.5, 2.0, n).astype(dtype)
    return np.where(RNG.random(n) < 0.5, -v, v).astype(dtype)


def poisoned(n, dtype=np.float32):
    return np.full(n, np.nan, dtype)


class FakeBench:
    """do_bench stand-in: runs `fn` once and returns `cost(meta)` for the
    META that the launch grid saw."""

    def __init__(self, cost):
        self.cost = cost
        self.metas = []  # every META a grid received, benchmarks and launches
        self.calls = 0

    def grid(self, meta):
        self.metas.append(dict(meta))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    def __call__(self, fn):
        self.calls += 1
        seen = len(self.metas)
        fn()
        assert len(self.metas) == seen + 1, "the benchmarked call launched nothing"
        return self.cost(self.metas[-1])


BLOCK_CONFIGS = [triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256}),
                 triton.Config({"BLOCK": 512})]
BLOCK_COST = {128: 2.0, 256: 1.0, 512: 3.0}
