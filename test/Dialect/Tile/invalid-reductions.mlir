// RUN: warpforge-opt %s -split-input-file -verify-diagnostics

// Errors of the tile dialect's op verifiers (lib/Dialect/Tile/IR/
// TileOps.cpp) for tile.reduce and tile.scan: operands, axes, results and
// the combiner region; one case each, plus a few of the ODS-generated
// constraint errors.  The other ops' errors are in invalid.mlir.

//===----------------------------------------------------------------------===//
// tile.reduce
//===----------------------------------------------------------------------===//

tile.func public @reduce_no_operands() {
  // expected-error @+1 {{'tile.reduce' op needs at least one operand}}
  %s = "tile.reduce"() <{axis = 0 : i32}> ({
  ^bb0:
    "tile.reduce.return"() : () -> ()
  }) : () -> f32
  tile.return
}

// -----

tile.func public @reduce_operand_shapes(%x: tensor<128xf32>, %y: tensor<64xi32>) {
  // expected-error @+1 {{'tile.reduce' op operand #1 has shape [64] but operand #0 has shape [128]}}
  %s:2 = tile.reduce %x, %y axis = 0 : tensor<128xf32>, tensor<64xi32> -> f32, i32 {
  ^bb0(%l0: f32, %l1: i32, %r0: f32, %r1: i32):
    tile.reduce.return %l0, %l1 : f32, i32
  }
  tile.return
}

// -----

tile.func public @reduce_axis_out_of_range(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 is out of range for rank 2 operands (expected 0 to 1)}}
  %s = tile.reduce %x axis = 2 : tensor<64x128xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return
}

// -----

tile.func public @reduce_axis_negative(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis -1 is out of range for rank 1 operands (expected 0 to 0)}}
  %s = tile.reduce %x axis = -1 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return
}

// -----

tile.func public @reduce_result_count(%x: tensor<128xf32>, %i: tensor<128xi32>) {
  // expected-error @+1 {{'tile.reduce' op has 2 operands but 1 results}}
  %s = tile.reduce %x, %i axis = 0 : tensor<128xf32>, tensor<128xi32> -> f32 {
  ^bb0(%l0: f32, %l1: i32, %r0: f32, %r1: i32):
    tile.reduce.return %l0, %l1 : f32, i32
  }
  tile.return
}

// -----

tile.func public @reduce_result_type_2d(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tile.reduce' op result #0 has type 'tensor<128xf32>'; reducing axis 1 of 'tensor<64x128xf32>' gives 'tensor<64xf32>'}}
  %s = tile.reduce %x axis = 1 : tensor<64x128xf32> -> tensor<128xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return
}

// -----

tile.func public @reduce_result_type_1d(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op result #0 has type 'tensor<1xf32>'; reducing axis 0 of 'tensor<128xf32>' gives 'f32'}}
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> tensor<1xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return
}

// -----

tile.func public @reduce_combiner_arg_count(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner takes 2 arguments (left and right values of 1 operands), got 1}}
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32):
    tile.reduce.return %l : f32
  }
  tile.return
}

// -----

tile.func public @reduce_combiner_arg_type(%x: tensor<128xf32>, %i: tensor<128xi32>) {
  // expected-error @+1 {{'tile.reduce' op combiner argument #3 has type 'f32'; expected 'i32'}}
  %s:2 = tile.reduce %x, %i axis = 0 : tensor<128xf32>, tensor<128xi32> -> f32, i32 {
  ^bb0(%l0: f32, %l1: i32, %r0: f32, %r1: f32):
    tile.reduce.return %l0, %l1 : f32, i32
  }
  tile.return
}

// -----

// The region must end with tile.reduce.return; ub.unreachable is a
// terminator that the generic region checks accept.
tile.func public @reduce_combiner_terminator(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner must end with tile.reduce.return}}
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    ub.unreachable
  }
  tile.return
}

// -----

tile.func public @reduce_combiner_result_count(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner returns 2 values; expected 1}}
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    tile.reduce.return %l, %r : f32, f32
  }
  tile.return
}

// -----

tile.func public @reduce_combiner_result_type(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner result #0 has type 'f64'; expected 'f32'}}
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    %a = arith.extf %l : f32 to f64
    tile.reduce.return %a : f64
  }
  tile.return
}

// -----

// ODS: tile.reduce.return lives in a tile.reduce.
tile.func public @reduce_return_outside(%x: f32) {
  // expected-error @+1 {{'tile.reduce.return' op expects parent op 'tile.reduce'}}
  tile.reduce.return %x : f32
}

//===----------------------------------------------------------------------===//
// tile.scan
//===----------------------------------------------------------------------===//

// -----

tile.func public @scan_no_operands() {
  // expected-error @+1 {{'tile.scan' op needs at least one operand}}
  "tile.scan"() <{axis = 0 : i32}> ({
  ^bb0:
    "tile.scan.return"() : () -> ()
  }) : () -> ()
  tile.return
}

// -----

tile.func public @scan_operand_shapes(%x: tensor<128xi32>, %y: tensor<4x32xi32>) {
  // expected-error @+1 {{'tile.scan' op operand #1 has shape [4, 32] but operand #0 has shape [128]}}
  %c:2 = tile.scan %x, %y axis = 0 : tensor<128xi32>, tensor<4x32xi32> -> tensor<128xi32>, tensor<4x32xi32> {
  ^bb0(%l0: i32, %l1: i32, %r0: i32, %r1: i32):
    tile.scan.return %l0, %l1 : i32, i32
  }
  tile.return
}

// -----

tile.func public @scan_axis_out_of_range(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op axis 1 is out of range for rank 1 operands (expected 0 to 0)}}
  %c = tile.scan %x axis = 1 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.addi %l, %r : i32
    tile.scan.return %a : i32
  }
  tile.return
}

// -----

tile.func public @scan_result_count(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op has 1 operands but 2 results}}
  %c:2 = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32>, tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.addi %l, %r : i32
    tile.scan.return %a : i32
  }
  tile.return
}

// -----

tile.func public @scan_result_type(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op result #0 has type 'tensor<128xi64>'; a scan keeps the operand type 'tensor<128xi32>'}}
  %c = tile.scan %x axis = 0 reverse : tensor<128xi32> -> tensor<128xi64> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.addi %l, %r : i32
    tile.scan.return %a : i32
  }
  tile.return
}

// -----

tile.func public @scan_result_shape(%x: tensor<4x32xi32>) {
  // expected-error @+1 {{'tile.scan' op result #0 has type 'tensor<4xi32>'; a scan keeps the operand type 'tensor<4x32xi32>'}}
  %c = tile.scan %x axis = 1 : tensor<4x32xi32> -> tensor<4xi32> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.addi %l, %r : i32
    tile.scan.return %a : i32
  }
  tile.return
}

// -----

tile.func public @scan_combiner_arg_count(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner takes 2 arguments (left and right values of 1 operands), got 3}}
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32, %e: i32):
    tile.scan.return %l : i32
  }
  tile.return
}

// -----

tile.func public @scan_combiner_arg_type(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner argument #0 has type 'tensor<128xi32>'; expected 'i32'}}
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: tensor<128xi32>, %r: i32):
    tile.scan.return %r : i32
  }
  tile.return
}

// -----

tile.func public @scan_combiner_terminator(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner must end with tile.scan.return}}
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    ub.unreachable
  }
  tile.return
}

// -----

// The custom form of tile.scan.return cannot spell zero values (its format
// always wants a type after ':'), hence the generic form.
tile.func public @scan_combiner_result_count(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner returns 0 values; expected 1}}
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    "tile.scan.return"() : () -> ()
  }
  tile.return
}

// -----

tile.func public @scan_combiner_result_type(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner result #0 has type 'i1'; expected 'i32'}}
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.cmpi slt, %l, %r : i32
    tile.scan.return %a : i1
  }
  tile.return
}

// -----

// ODS: a tile.reduce combiner cannot end with tile.scan.return.
tile.func public @reduce_with_scan_return(%x: tensor<128xi32>) {
  %s = tile.reduce %x axis = 0 : tensor<128xi32> -> i32 {
  ^bb0(%l: i32, %r: i32):
    // expected-error @+1 {{'tile.scan.return' op expects parent op 'tile.scan'}}
    tile.scan.return %l : i32
  }
  tile.return
}
