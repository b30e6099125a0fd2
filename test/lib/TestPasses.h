//===- TestPasses.h - Passes for testing analyses ---------------*- C++ -*-===//

#ifndef WARPFORGE_TEST_TESTPASSES_H
#define WARPFORGE_TEST_TESTPASSES_H

#include "mlir/Pass/Pass.h"

namespace warpforge::test {

#define GEN_PASS_DECL
#include "TestPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

} // namespace warpforge::test

#endif // WARPFORGE_TEST_TESTPASSES_H
