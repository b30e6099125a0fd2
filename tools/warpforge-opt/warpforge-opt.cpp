//===- warpforge-opt.cpp - The warpforge optimizer driver -----------------===//
//
// mlir-opt with warpforge's dialects, passes and named pipelines: every stage
// the JIT runs can be reproduced and inspected from the command line.  The
// test passes (test/lib) print analysis results for lit tests.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Pipelines/Pipelines.h"

#include "TestPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  warpforge::registerWarpforgePassesAndPipelines();
  warpforge::test::registerWarpforgeTestPasses();
  mlir::DialectRegistry registry;
  warpforge::registerWarpforgeDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "warpforge optimizer driver\n", registry));
}
