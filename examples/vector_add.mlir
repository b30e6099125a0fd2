// The tile IR of Triton's tutorial vector-add kernel, as warpforge's
// frontend emits it (with the Python source locations):
//
//   @warpforge.jit
//   def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
//       pid = tl.program_id(axis=0)
//       offsets = pid * BLOCK + tl.arange(0, BLOCK)
//       mask = offsets < n
//       x = tl.load(x_ptr + offsets, mask=mask)
//       y = tl.load(y_ptr + offsets, mask=mask)
//       tl.store(out_ptr + offsets, add(x, y), mask=mask)
//
//   @warpforge.jit
//   def add(a, b):
//       return a + b
//
// `warpforge-opt --tile-optimize` inlines the helper and simplifies.
module {
  tile.func public @add_kernel(%x_ptr: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                               %y_ptr: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                               %out_ptr: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                               %n: i32) {
    %pid = tile.get_program_id x : i32 loc(#pid)
    %c1024 = arith.constant 1024 : i32 loc(#offs)
    %start = arith.muli %pid, %c1024 : i32 loc(#offs)
    %range = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32> loc(#offs)
    %start_t = tile.splat %start : i32 -> tensor<1024xi32> loc(#offs)
    %offsets = arith.addi %start_t, %range : tensor<1024xi32> loc(#offs)
    %n_t = tile.splat %n : i32 -> tensor<1024xi32> loc(#mask)
    %mask = arith.cmpi slt, %offsets, %n_t : tensor<1024xi32> loc(#mask)
    %xp = tile.splat %x_ptr : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>> loc(#x)
    %xa = tile.addptr %xp, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32> loc(#x)
    %x = tile.load %xa, %mask : tensor<1024x!tile.ptr<f32>> loc(#x)
    %yp = tile.splat %y_ptr : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>> loc(#y)
    %ya = tile.addptr %yp, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32> loc(#y)
    %y = tile.load %ya, %mask : tensor<1024x!tile.ptr<f32>> loc(#y)
    %sum = tile.call @add(%x, %y) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32> loc(#st)
    %op = tile.splat %out_ptr : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>> loc(#st)
    %oa = tile.addptr %op, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32> loc(#st)
    tile.store %oa, %sum, %mask : tensor<1024x!tile.ptr<f32>> loc(#st)
    tile.return loc(#st)
  } loc(#k)
  tile.func private @add(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
    %s = arith.addf %a, %b : tensor<1024xf32> loc(#addl)
    tile.return %s : tensor<1024xf32> loc(#addl)
  } loc(#addf)
}
#k = loc("vector_add.py":2:0)
#pid = loc("vector_add.py":3:10)
#offs = loc("vector_add.py":4:14)
#mask = loc("vector_add.py":5:11)
#x = loc("vector_add.py":6:8)
#y = loc("vector_add.py":7:8)
#st = loc("vector_add.py":8:4)
#addf = loc("vector_add.py":11:0)
#addl = loc("vector_add.py":12:11)
