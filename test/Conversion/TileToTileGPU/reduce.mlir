// RUN: warpforge-opt %s --convert-tile-to-tilegpu -split-input-file | FileCheck %s

// Reductions and scans, and the shape ops around them.

// A rank-1 reduction returns a scalar; its combiner works on scalars.
// CHECK-LABEL: tile.func public @reduce_to_scalar(
// CHECK-NEXT: tile.reduce %{{.*}} axis = 0 : tensor<1024xf32, #{{blocked[0-9]*}}> -> f32 {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
tile.func public @reduce_to_scalar(%x: tensor<1024xf32>) -> f32 {
  %s = tile.reduce %x axis = 0 : tensor<1024xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return %s : f32
}

// -----

// A reduction's result is the slice of its source's layout along the axis;
// it reaches a user that needs the default layout through a conversion.
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[ROWS:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #[[B2]]>
// CHECK-DAG: #[[COLS:slice[0-9]*]] = #tilegpu.slice<dim = 0, parent = #[[B2]]>
// CHECK-LABEL: tile.func public @reduce_rows_and_columns(
// CHECK: %[[R:.*]] = tile.reduce %{{.*}} axis = 1 : tensor<64x128xf32, #[[B2]]> -> tensor<64xf32, #[[ROWS]]>
// CHECK: %[[RC:.*]] = tilegpu.convert_layout %[[R]] : tensor<64xf32, #[[ROWS]]> -> tensor<64xf32, #[[B1]]>
// CHECK: %[[C:.*]] = tile.reduce %{{.*}} axis = 0 : tensor<64x128xf32, #[[B2]]> -> tensor<128xf32, #[[COLS]]>
// CHECK: %[[CC:.*]] = tilegpu.convert_layout %[[C]] : tensor<128xf32, #[[COLS]]> -> tensor<128xf32, #[[B1]]>
// CHECK: tile.return %[[RC]], %[[CC]]
tile.func public @reduce_rows_and_columns(%x: tensor<64x128xf32>) -> (tensor<64xf32>, tensor<128xf32>) {
  %rows = tile.reduce %x axis = 1 : tensor<64x128xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.maxnumf %l, %r : f32
    tile.reduce.return %a : f32
  }
  %cols = tile.reduce %x axis = 0 : tensor<64x128xf32> -> tensor<128xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return %rows, %cols : tensor<64xf32>, tensor<128xf32>
}

// -----

// Several operands reduce in one layout.
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[S:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #[[B2]]>
// CHECK-LABEL: tile.func public @argmax(
// CHECK: tile.reduce %{{.*}}, %{{.*}} axis = 1 : tensor<32x32xf32, #[[B2]]>, tensor<32x32xi32, #[[B2]]> -> tensor<32xf32, #[[S]]>, tensor<32xi32, #[[S]]>
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
tile.func public @argmax(%x: tensor<32x32xf32>, %i: tensor<32x32xi32>) -> tensor<32xi32> {
  %r:2 = tile.reduce %x, %i axis = 1 : tensor<32x32xf32>, tensor<32x32xi32> -> tensor<32xf32>, tensor<32xi32> {
  ^bb0(%lv: f32, %li: i32, %rv: f32, %ri: i32):
    %gt = arith.cmpf ogt, %lv, %rv : f32
    %v = arith.select %gt, %lv, %rv : f32
    %j = arith.select %gt, %li, %ri : i32
    tile.reduce.return %v, %j : f32, i32
  }
  tile.return %r#1 : tensor<32xi32>
}

// -----

// As in a softmax: the row maximum, expanded then broadcast back.  The
// expansion takes the slice of its result's layout and the broadcast its
// result's layout; conversions go where these differ from the default ones
// (tilegpu-remove-layout-conversions removes them).
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[COL:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[ROWS:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #[[B2]]>
// CHECK-DAG: #[[COLROWS:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #[[COL]]>
// CHECK-LABEL: tile.func public @softmax_rows(
// CHECK-SAME: %[[X:[^:]*]]: tensor<64x128xf32, #[[B2]]>
// CHECK: %[[M:.*]] = tile.reduce %[[X]] axis = 1 : tensor<64x128xf32, #[[B2]]> -> tensor<64xf32, #[[ROWS]]>
// CHECK: %[[M1:.*]] = tilegpu.convert_layout %[[M]] : tensor<64xf32, #[[ROWS]]> -> tensor<64xf32, #[[B1]]>
// CHECK-NEXT: %[[M2:.*]] = tilegpu.convert_layout %[[M1]] : tensor<64xf32, #[[B1]]> -> tensor<64xf32, #[[COLROWS]]>
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[M2]] {axis = 1 : i32} : tensor<64xf32, #[[COLROWS]]> -> tensor<64x1xf32, #[[COL]]>
// CHECK-NEXT: %[[E2:.*]] = tilegpu.convert_layout %[[E]] : tensor<64x1xf32, #[[COL]]> -> tensor<64x1xf32, #[[B2]]>
// CHECK-NEXT: %[[BC:.*]] = tile.broadcast %[[E2]] : tensor<64x1xf32, #[[B2]]> -> tensor<64x128xf32, #[[B2]]>
// CHECK-NEXT: arith.subf %[[X]], %[[BC]] : tensor<64x128xf32, #[[B2]]>
tile.func public @softmax_rows(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %m = tile.reduce %x axis = 1 : tensor<64x128xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.maxnumf %l, %r : f32
    tile.reduce.return %a : f32
  }
  %e = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %b = tile.broadcast %e : tensor<64x1xf32> -> tensor<64x128xf32>
  %d = arith.subf %x, %b : tensor<64x128xf32>
  tile.return %d : tensor<64x128xf32>
}

// -----

// An element-wise op takes a reduction's result in the default layout.
// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[S:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #{{blocked[0-9]*}}>
// CHECK-LABEL: tile.func public @reduce_then_elementwise(
// CHECK-SAME: %[[Y:[^:]*]]: tensor<64xf32, #[[B1]]>)
// CHECK: %[[SUM:.*]] = tile.reduce %{{.*}} axis = 1 : {{.*}} -> tensor<64xf32, #[[S]]>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[SUM]] : tensor<64xf32, #[[S]]> -> tensor<64xf32, #[[B1]]>
// CHECK-NEXT: arith.addf %[[C]], %[[Y]] : tensor<64xf32, #[[B1]]>
tile.func public @reduce_then_elementwise(%x: tensor<64x128xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %s = tile.reduce %x axis = 1 : tensor<64x128xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  %z = arith.addf %s, %y : tensor<64xf32>
  tile.return %z : tensor<64xf32>
}

// -----

// A scan keeps its source's layout.
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: tile.func public @scan(
// CHECK-NEXT: tile.scan %{{.*}} axis = 1 reverse : tensor<16x64xi32, #[[B2]]> -> tensor<16x64xi32, #[[B2]]> {
// CHECK-NEXT: ^bb0(%{{.*}}: i32, %{{.*}}: i32):
tile.func public @scan(%x: tensor<16x64xi32>) -> tensor<16x64xi32> {
  %c = tile.scan %x axis = 1 reverse : tensor<16x64xi32> -> tensor<16x64xi32> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.addi %l, %r : i32
    tile.scan.return %a : i32
  }
  tile.return %c : tensor<16x64xi32>
}
