//===- TestPasses.td - Passes for testing analyses ---------*- tablegen -*-===//

#ifndef WARPFORGE_TEST_PASSES
#define WARPFORGE_TEST_PASSES

include "mlir/Pass/PassBase.td"

def TestPrintAxisInfo : Pass<"test-print-axis-info", "mlir::ModuleOp"> {
  let summary = "Report the axis analysis of every integer and pointer value";
  let description = [{
    Runs ModuleAxisInfoAnalysis over the module and emits a remark at each
    integer or pointer value (scalar or tensor), op results and block
    arguments alike:

    ```
    contiguity = [128], divisibility = [128], constancy = [1], constant_value = <none>
    ```

    Results of an op with several such results are prefixed with
    `result #N: `, block arguments with `argument #N: `.  Loads, stores and
    atomics through tensors of pointers also get what the coalescing pass
    asks of ModuleAxisInfoAnalysis:

    ```
    access: order = [0], alignment = 4, mask alignment = 16, vector width = 4
    ```

    Lit tests check them with `-verify-diagnostics` and `expected-remark`.
  }];
}

#endif // WARPFORGE_TEST_PASSES
