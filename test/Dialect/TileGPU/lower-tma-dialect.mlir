// Regression test (a bug found by review, fixed): see the comments below.
// RUN: not warpforge-opt %s --tilegpu-lower-tma -o /dev/null

// tilegpu-lower-tma creates tilegpu attributes and ops but does not
// declare the tilegpu dialect as a dependent dialect (Passes.td: no
// `dependentDialects`, unlike tilegpu-coalesce).  On a module in which
// nothing has loaded the dialect yet, it crashes (SIGSEGV in
// StorageUniquerImpl::getOrCreate from NVMMASharedEncodingAttr::get or
// SharedEncodingAttr::get in getTMASharedEncoding) instead of reporting
// the input's problem (here: the load's result has no layout).  With any
// tilegpu attribute in the input, the same function gets
//   'tilegpu.local_load' op tensor must have a distributed layout
// Expected: an error, exit status 1 (`not` fails on a crash).

tile.func public @no_tilegpu_attribute_yet(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32) {
  %x = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tile.return
}
