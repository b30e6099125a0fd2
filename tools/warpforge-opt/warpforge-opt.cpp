//===- warpforge-opt.cpp - The warpforge optimizer driver -----------------===//
//
// mlir-opt with warpforge's dialects, passes and named pipelines: every stage
// the JIT runs can be reproduced and inspected from the command line.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace warpforge::test {
void registerTestSimulateCTAPass();
} // namespace warpforge::test

int main(int argc, char **argv) {
  warpforge::registerWarpforgePassesAndPipelines();
  warpforge::test::registerTestSimulateCTAPass();
  mlir::DialectRegistry registry;
  warpforge::registerWarpforgeDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "warpforge optimizer driver\n", registry));
}
