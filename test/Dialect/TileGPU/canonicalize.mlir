// RUN: warpforge-opt %s -canonicalize | FileCheck %s

// Folding of tilegpu.convert_layout.

#a = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#b = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#c = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
#s = #tilegpu.slice<dim = 1, parent = #a>
#d = #tilegpu.dot_op<opIdx = 0, parent = #a, kWidth = 1>

// CHECK-DAG: #[[A:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-DAG: #[[C:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>

// CHECK-LABEL: tile.func public @identity(
// CHECK-SAME: %[[X:.*]]: tensor<64x64xf32, #[[A]]>)
// CHECK-NEXT: tile.return %[[X]]
tile.func public @identity(%x: tensor<64x64xf32, #a>) -> tensor<64x64xf32, #a> {
  %0 = tilegpu.convert_layout %x : tensor<64x64xf32, #a> -> tensor<64x64xf32, #a>
  tile.return %0 : tensor<64x64xf32, #a>
}

// CHECK-LABEL: tile.func public @convert_of_convert(
// CHECK-SAME: %[[X:.*]]: tensor<64x64xf32, #[[A]]>)
// CHECK-NEXT: %[[Y:.*]] = tilegpu.convert_layout %[[X]] : tensor<64x64xf32, #[[A]]> -> tensor<64x64xf32, #[[C]]>
// CHECK-NEXT: tile.return %[[Y]]
tile.func public @convert_of_convert(%x: tensor<64x64xf32, #a>) -> tensor<64x64xf32, #c> {
  %0 = tilegpu.convert_layout %x : tensor<64x64xf32, #a> -> tensor<64x64xf32, #b>
  %1 = tilegpu.convert_layout %0 : tensor<64x64xf32, #b> -> tensor<64x64xf32, #c>
  tile.return %1 : tensor<64x64xf32, #c>
}

// A conversion there and back is no conversion.
// CHECK-LABEL: tile.func public @round_trip(
// CHECK-SAME: %[[X:.*]]: tensor<64x64xf32, #[[A]]>)
// CHECK-NEXT: tile.return %[[X]]
tile.func public @round_trip(%x: tensor<64x64xf32, #a>) -> tensor<64x64xf32, #a> {
  %0 = tilegpu.convert_layout %x : tensor<64x64xf32, #a> -> tensor<64x64xf32, #b>
  %1 = tilegpu.convert_layout %0 : tensor<64x64xf32, #b> -> tensor<64x64xf32, #a>
  tile.return %1 : tensor<64x64xf32, #a>
}

// The inner conversion stays while something else uses it.
// CHECK-LABEL: tile.func public @convert_of_shared_convert(
// CHECK-SAME: %[[X:.*]]: tensor<64x64xf32, #[[A]]>)
// CHECK-NEXT: %[[B1:.*]] = tilegpu.convert_layout %[[X]] : tensor<64x64xf32, #[[A]]> -> tensor<64x64xf32, #[[B]]>
// CHECK-NEXT: %[[C1:.*]] = tilegpu.convert_layout %[[X]] : tensor<64x64xf32, #[[A]]> -> tensor<64x64xf32, #[[C]]>
// CHECK-NEXT: tile.return %[[B1]], %[[C1]]
tile.func public @convert_of_shared_convert(%x: tensor<64x64xf32, #a>) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #c>) {
  %0 = tilegpu.convert_layout %x : tensor<64x64xf32, #a> -> tensor<64x64xf32, #b>
  %1 = tilegpu.convert_layout %0 : tensor<64x64xf32, #b> -> tensor<64x64xf32, #c>
  tile.return %0, %1 : tensor<64x64xf32, #b>, tensor<64x64xf32, #c>
}

// A splat constant is the same splat in any layout, slices and operand
// layouts included.
// CHECK-LABEL: tile.func public @constant_splat()
// CHECK-DAG: %[[F:.*]] = arith.constant dense<1.500000e+00> : tensor<64x64xf32, #[[B]]>
// CHECK-DAG: %[[I:.*]] = arith.constant dense<7> : tensor<64xi32, #{{slice[0-9]*}}>
// CHECK-DAG: %[[D:.*]] = arith.constant dense<2.000000e+00> : tensor<64x64xf16, #{{dot_op[0-9]*}}>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.return %[[F]], %[[I]], %[[D]]
tile.func public @constant_splat() -> (tensor<64x64xf32, #b>, tensor<64xi32, #s>, tensor<64x64xf16, #d>) {
  %cf = arith.constant dense<1.5> : tensor<64x64xf32, #a>
  %0 = tilegpu.convert_layout %cf : tensor<64x64xf32, #a> -> tensor<64x64xf32, #b>
  %ci = arith.constant dense<7> : tensor<64xi32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
  %1 = tilegpu.convert_layout %ci : tensor<64xi32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> -> tensor<64xi32, #s>
  %ch = arith.constant dense<2.0> : tensor<64x64xf16, #a>
  %2 = tilegpu.convert_layout %ch : tensor<64x64xf16, #a> -> tensor<64x64xf16, #d>
  tile.return %0, %1, %2 : tensor<64x64xf32, #b>, tensor<64xi32, #s>, tensor<64x64xf16, #d>
}

// A constant that is not a splat is left to tilegpu-remove-layout-conversions.
// CHECK-LABEL: tile.func public @constant_not_splat()
// CHECK-NEXT: %[[CST:.*]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32, #{{blocked[0-9]*}}>
// CHECK-NEXT: %[[CVT:.*]] = tilegpu.convert_layout %[[CST]]
// CHECK-NEXT: tile.return %[[CVT]]
tile.func public @constant_not_splat() -> tensor<4xi32, #s> {
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
  %0 = tilegpu.convert_layout %c : tensor<4xi32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> -> tensor<4xi32, #s>
  tile.return %0 : tensor<4xi32, #s>
}
