// RUN: warpforge-opt %s -tile-combine | FileCheck %s

//===----------------------------------------------------------------------===//
// add(dot(a, b, 0), d) -> dot(a, b, d)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @dot_addf_rhs(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x64xf16>, %[[D:.*]]: tensor<64x64xf32>)
// CHECK-NOT: arith.constant
// CHECK-NEXT: %[[R:.*]] = tile.dot %[[A]], %[[B]], %[[D]] : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NOT: arith.addf
// CHECK-NEXT: tile.return %[[R]] : tensor<64x64xf32>
tile.func public @dot_addf_rhs(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %0 = tile.dot %a, %b, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %1 = arith.addf %0, %d : tensor<64x64xf32>
  tile.return %1 : tensor<64x64xf32>
}

// The dot may be either operand of the add; its attributes are kept.
// CHECK-LABEL: tile.func public @dot_addf_lhs(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<32x64xf32>, %[[D:.*]]: tensor<64x64xf32>)
// CHECK-NOT: arith.constant
// CHECK-NEXT: %[[R:.*]] = tile.dot %[[A]], %[[B]], %[[D]] inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
// CHECK-NOT: arith.addf
// CHECK-NEXT: tile.return %[[R]] : tensor<64x64xf32>
tile.func public @dot_addf_lhs(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %0 = tile.dot %a, %b, %zero inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  %1 = arith.addf %d, %0 : tensor<64x64xf32>
  tile.return %1 : tensor<64x64xf32>
}

// CHECK-LABEL: tile.func public @dot_addf_fp8_keeps_max_num_imprecise_acc(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xf8E4M3FN>, %[[B:.*]]: tensor<32x64xf8E5M2>, %[[D:.*]]: tensor<64x64xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.dot %[[A]], %[[B]], %[[D]] maxNumImpreciseAcc = 32 : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
// CHECK-NOT: arith.addf
// CHECK-NEXT: tile.return %[[R]] : tensor<64x64xf32>
tile.func public @dot_addf_fp8_keeps_max_num_imprecise_acc(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E5M2>, %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %0 = tile.dot %a, %b, %zero maxNumImpreciseAcc = 32 : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
  %1 = arith.addf %0, %d : tensor<64x64xf32>
  tile.return %1 : tensor<64x64xf32>
}

// A zero accumulator made by splatting a zero constant also matches.
// CHECK-LABEL: tile.func public @dot_addf_splat_zero(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x64xf16>, %[[D:.*]]: tensor<64x64xf32>)
// CHECK-NOT: tile.splat
// CHECK-NEXT: %[[R:.*]] = tile.dot %[[A]], %[[B]], %[[D]] : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NOT: arith.addf
// CHECK-NEXT: tile.return %[[R]] : tensor<64x64xf32>
tile.func public @dot_addf_splat_zero(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0.0 : f32
  %zero = tile.splat %c0 : f32 -> tensor<64x64xf32>
  %0 = tile.dot %a, %b, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %1 = arith.addf %0, %d : tensor<64x64xf32>
  tile.return %1 : tensor<64x64xf32>
}

// CHECK-LABEL: tile.func public @dot_addi_i8(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xi8>, %[[B:.*]]: tensor<32x64xi8>, %[[D:.*]]: tensor<64x64xi32>)
// CHECK-NOT: arith.constant
// CHECK-NEXT: %[[R:.*]] = tile.dot %[[A]], %[[B]], %[[D]] : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi32>
// CHECK-NOT: arith.addi
// CHECK-NEXT: tile.return %[[R]] : tensor<64x64xi32>
tile.func public @dot_addi_i8(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %d: tensor<64x64xi32>) -> tensor<64x64xi32> {
  %zero = arith.constant dense<0> : tensor<64x64xi32>
  %0 = tile.dot %a, %b, %zero : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi32>
  %1 = arith.addi %d, %0 : tensor<64x64xi32>
  tile.return %1 : tensor<64x64xi32>
}

// The product itself is still needed, so the add stays.
// CHECK-LABEL: tile.func public @dot_two_uses_stays(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x64xf16>, %[[D:.*]]: tensor<64x64xf32>)
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT: %[[P:.*]] = tile.dot %[[A]], %[[B]], %[[Z]] : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[D]] : tensor<64x64xf32>
// CHECK-NEXT: tile.return %[[S]], %[[P]]
tile.func public @dot_two_uses_stays(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %d: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %0 = tile.dot %a, %b, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %1 = arith.addf %0, %d : tensor<64x64xf32>
  tile.return %1, %0 : tensor<64x64xf32>, tensor<64x64xf32>
}

// CHECK-LABEL: tile.func public @dot_nonzero_acc_stays(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x64xf16>, %[[C:.*]]: tensor<64x64xf32>, %[[D:.*]]: tensor<64x64xf32>)
// CHECK-NEXT: %[[P:.*]] = tile.dot %[[A]], %[[B]], %[[C]] : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[D]] : tensor<64x64xf32>
// CHECK-NEXT: tile.return %[[S]]
tile.func public @dot_nonzero_acc_stays(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>, %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %1 = arith.addf %0, %d : tensor<64x64xf32>
  tile.return %1 : tensor<64x64xf32>
}

// CHECK-LABEL: tile.func public @dot_nonzero_constant_acc_stays(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x64xf16>, %[[D:.*]]: tensor<64x64xf32>)
// CHECK-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT: %[[P:.*]] = tile.dot %[[A]], %[[B]], %[[ONE]] : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[D]] : tensor<64x64xf32>
// CHECK-NEXT: tile.return %[[S]]
tile.func public @dot_nonzero_constant_acc_stays(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  %0 = tile.dot %a, %b, %one : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %1 = arith.addf %0, %d : tensor<64x64xf32>
  tile.return %1 : tensor<64x64xf32>
}

//===----------------------------------------------------------------------===//
// addptr(addptr(p, x), y) -> addptr(p, x + y)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @addptr_of_addptr_tensor(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[X:.*]]: tensor<128xi32>, %[[Y:.*]]: tensor<128xi32>)
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[X]], %[[Y]] : tensor<128xi32>
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[P]], %[[SUM]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
// CHECK-NOT: tile.addptr
// CHECK-NEXT: tile.return %[[Q]] : tensor<128x!tile.ptr<f32>>
tile.func public @addptr_of_addptr_tensor(%p: tensor<128x!tile.ptr<f32>>, %x: tensor<128xi32>, %y: tensor<128xi32>) -> tensor<128x!tile.ptr<f32>> {
  %0 = tile.addptr %p, %x : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %1 = tile.addptr %0, %y : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.return %1 : tensor<128x!tile.ptr<f32>>
}

// CHECK-LABEL: tile.func public @addptr_of_addptr_scalar(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<f32>, %[[X:.*]]: i64, %[[Y:.*]]: i64)
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[X]], %[[Y]] : i64
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[P]], %[[SUM]] : !tile.ptr<f32>, i64
// CHECK-NOT: tile.addptr
// CHECK-NEXT: tile.return %[[Q]] : !tile.ptr<f32>
tile.func public @addptr_of_addptr_scalar(%p: !tile.ptr<f32>, %x: i64, %y: i64) -> !tile.ptr<f32> {
  %0 = tile.addptr %p, %x : !tile.ptr<f32>, i64
  %1 = tile.addptr %0, %y : !tile.ptr<f32>, i64
  tile.return %1 : !tile.ptr<f32>
}

// A chain of three collapses to one addptr.
// CHECK-LABEL: tile.func public @addptr_chain_of_three(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<f32>, %[[X:.*]]: i32, %[[Y:.*]]: i32, %[[Z:.*]]: i32)
// CHECK-NEXT: %[[YZ:.*]] = arith.addi %[[Y]], %[[Z]] : i32
// CHECK-NEXT: %[[XYZ:.*]] = arith.addi %[[X]], %[[YZ]] : i32
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[P]], %[[XYZ]] : !tile.ptr<f32>, i32
// CHECK-NOT: tile.addptr
// CHECK-NEXT: tile.return %[[Q]] : !tile.ptr<f32>
tile.func public @addptr_chain_of_three(%p: !tile.ptr<f32>, %x: i32, %y: i32, %z: i32) -> !tile.ptr<f32> {
  %0 = tile.addptr %p, %x : !tile.ptr<f32>, i32
  %1 = tile.addptr %0, %y : !tile.ptr<f32>, i32
  %2 = tile.addptr %1, %z : !tile.ptr<f32>, i32
  tile.return %2 : !tile.ptr<f32>
}

// CHECK-LABEL: tile.func public @addptr_of_addptr_different_offset_types_stays(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<f32>, %[[X:.*]]: i32, %[[Y:.*]]: i64)
// CHECK-NEXT: %[[Q0:.*]] = tile.addptr %[[P]], %[[X]] : !tile.ptr<f32>, i32
// CHECK-NEXT: %[[Q1:.*]] = tile.addptr %[[Q0]], %[[Y]] : !tile.ptr<f32>, i64
// CHECK-NOT: arith.addi
// CHECK-NEXT: tile.return %[[Q1]] : !tile.ptr<f32>
tile.func public @addptr_of_addptr_different_offset_types_stays(%p: !tile.ptr<f32>, %x: i32, %y: i64) -> !tile.ptr<f32> {
  %0 = tile.addptr %p, %x : !tile.ptr<f32>, i32
  %1 = tile.addptr %0, %y : !tile.ptr<f32>, i64
  tile.return %1 : !tile.ptr<f32>
}

// CHECK-LABEL: tile.func public @addptr_of_addptr_different_tensor_offset_types_stays(
// CHECK-SAME: %[[P:.*]]: tensor<8x!tile.ptr<f16>>, %[[X:.*]]: tensor<8xi64>, %[[Y:.*]]: tensor<8xi32>)
// CHECK-NEXT: %[[Q0:.*]] = tile.addptr %[[P]], %[[X]] : tensor<8x!tile.ptr<f16>>, tensor<8xi64>
// CHECK-NEXT: %[[Q1:.*]] = tile.addptr %[[Q0]], %[[Y]] : tensor<8x!tile.ptr<f16>>, tensor<8xi32>
// CHECK-NOT: arith.addi
// CHECK-NEXT: tile.return %[[Q1]]
tile.func public @addptr_of_addptr_different_tensor_offset_types_stays(%p: tensor<8x!tile.ptr<f16>>, %x: tensor<8xi64>, %y: tensor<8xi32>) -> tensor<8x!tile.ptr<f16>> {
  %0 = tile.addptr %p, %x : tensor<8x!tile.ptr<f16>>, tensor<8xi64>
  %1 = tile.addptr %0, %y : tensor<8x!tile.ptr<f16>>, tensor<8xi32>
  tile.return %1 : tensor<8x!tile.ptr<f16>>
}

//===----------------------------------------------------------------------===//
// select(m, load(p, m), other) -> load(p, m, other)
//===----------------------------------------------------------------------===//

// The load's hints are kept.
// CHECK-LABEL: tile.func public @select_of_masked_load(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]], %[[O]] evictionPolicy = evict_first : tensor<128x!tile.ptr<f32>>
// CHECK-NOT: arith.select
// CHECK-NEXT: tile.return %[[L]] : tensor<128xf32>
tile.func public @select_of_masked_load(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>) -> tensor<128xf32> {
  %0 = tile.load %p, %m evictionPolicy = evict_first : tensor<128x!tile.ptr<f32>>
  %1 = arith.select %m, %0, %o : tensor<128xi1>, tensor<128xf32>
  tile.return %1 : tensor<128xf32>
}

// CHECK-LABEL: tile.func public @select_of_masked_load_scalar(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<f32>, %[[M:.*]]: i1, %[[O:.*]]: f32)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]], %[[O]] : !tile.ptr<f32>
// CHECK-NOT: arith.select
// CHECK-NEXT: tile.return %[[L]] : f32
tile.func public @select_of_masked_load_scalar(%p: !tile.ptr<f32>, %m: i1, %o: f32) -> f32 {
  %0 = tile.load %p, %m : !tile.ptr<f32>
  %1 = arith.select %m, %0, %o : f32
  tile.return %1 : f32
}

// CHECK-LABEL: tile.func public @select_of_load_different_masks_stays(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>, %[[M2:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[S:.*]] = arith.select %[[M2]], %[[L]], %[[O]] : tensor<128xi1>, tensor<128xf32>
// CHECK-NEXT: tile.return %[[S]]
tile.func public @select_of_load_different_masks_stays(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %m2: tensor<128xi1>, %o: tensor<128xf32>) -> tensor<128xf32> {
  %0 = tile.load %p, %m : tensor<128x!tile.ptr<f32>>
  %1 = arith.select %m2, %0, %o : tensor<128xi1>, tensor<128xf32>
  tile.return %1 : tensor<128xf32>
}

// The load is the false value: `other` would fill the wrong elements.
// CHECK-LABEL: tile.func public @select_with_load_as_false_value_stays(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[S:.*]] = arith.select %[[M]], %[[O]], %[[L]] : tensor<128xi1>, tensor<128xf32>
// CHECK-NEXT: tile.return %[[S]]
tile.func public @select_with_load_as_false_value_stays(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>) -> tensor<128xf32> {
  %0 = tile.load %p, %m : tensor<128x!tile.ptr<f32>>
  %1 = arith.select %m, %o, %0 : tensor<128xi1>, tensor<128xf32>
  tile.return %1 : tensor<128xf32>
}

// CHECK-LABEL: tile.func public @select_of_unmasked_load_stays(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[S:.*]] = arith.select %[[M]], %[[L]], %[[O]] : tensor<128xi1>, tensor<128xf32>
// CHECK-NEXT: tile.return %[[S]]
tile.func public @select_of_unmasked_load_stays(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>) -> tensor<128xf32> {
  %0 = tile.load %p : tensor<128x!tile.ptr<f32>>
  %1 = arith.select %m, %0, %o : tensor<128xi1>, tensor<128xf32>
  tile.return %1 : tensor<128xf32>
}

// CHECK-LABEL: tile.func public @select_of_load_with_other_stays(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf32>, %[[O2:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]], %[[O2]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[S:.*]] = arith.select %[[M]], %[[L]], %[[O]] : tensor<128xi1>, tensor<128xf32>
// CHECK-NEXT: tile.return %[[S]]
tile.func public @select_of_load_with_other_stays(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>, %o2: tensor<128xf32>) -> tensor<128xf32> {
  %0 = tile.load %p, %m, %o2 : tensor<128x!tile.ptr<f32>>
  %1 = arith.select %m, %0, %o : tensor<128xi1>, tensor<128xf32>
  tile.return %1 : tensor<128xf32>
}

// The loaded value is used elsewhere too.
// CHECK-LABEL: tile.func public @select_of_load_two_uses_stays(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[S:.*]] = arith.select %[[M]], %[[L]], %[[O]] : tensor<128xi1>, tensor<128xf32>
// CHECK-NEXT: tile.return %[[S]], %[[L]]
tile.func public @select_of_load_two_uses_stays(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>) -> (tensor<128xf32>, tensor<128xf32>) {
  %0 = tile.load %p, %m : tensor<128x!tile.ptr<f32>>
  %1 = arith.select %m, %0, %o : tensor<128xi1>, tensor<128xf32>
  tile.return %1, %0 : tensor<128xf32>, tensor<128xf32>
}

// The merged load stays where the load was: moving it below the store would
// make it read the stored values.
// CHECK-LABEL: tile.func public @select_of_load_across_store(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf32>, %[[V:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]], %[[O]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[P]], %[[V]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.return %[[L]]
tile.func public @select_of_load_across_store(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>, %v: tensor<128xf32>) -> tensor<128xf32> {
  %0 = tile.load %p, %m : tensor<128x!tile.ptr<f32>>
  tile.store %p, %v : tensor<128x!tile.ptr<f32>>
  %1 = arith.select %m, %0, %o : tensor<128xi1>, tensor<128xf32>
  tile.return %1 : tensor<128xf32>
}

// A load outside a loop is not moved into it.
// CHECK-LABEL: tile.func public @select_in_loop_of_load_outside(
// CHECK: %[[L:.*]] = tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: scf.for
// CHECK-NOT: tile.load
// CHECK: tile.store %{{.*}}, %[[L]]
tile.func public @select_in_loop_of_load_outside(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.load %p, %m : tensor<128x!tile.ptr<f32>>
  scf.for %i = %c0 to %n step %c1 {
    %1 = arith.select %m, %0, %o : tensor<128xi1>, tensor<128xf32>
    tile.store %p, %1 : tensor<128x!tile.ptr<f32>>
  }
  tile.return
}

// `other` computed after the load is not available where the load is.
// CHECK-LABEL: tile.func public @select_with_later_other_stays(
// CHECK: tile.load %{{[^,]*}}, %{{[^,]*}} : tensor<128x!tile.ptr<f32>>
// CHECK: arith.select
tile.func public @select_with_later_other_stays(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>) -> tensor<128xf32> {
  %0 = tile.load %p, %m : tensor<128x!tile.ptr<f32>>
  %o2 = arith.addf %o, %o : tensor<128xf32>
  %1 = arith.select %m, %0, %o2 : tensor<128xi1>, tensor<128xf32>
  tile.return %1 : tensor<128xf32>
}
