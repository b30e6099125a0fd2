//===- TileGPUToLLVMPass.cpp - Lower tilegpu to LLVM and NVVM -------------===//

#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Analysis/AxisInfo.h"
#include "warpforge/Conversion/TileGPUToLLVM/Passes.h"
#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/TargetInfo.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/IR/TMA.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace warpforge {
#define GEN_PASS_DEF_CONVERTTILEGPUTOLLVM
#include "warpforge/Conversion/TileGPUToLLVM/Passes.h.inc"
} // namespace warpforge

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// Ops the backend has no lowering for yet, with what to say about them.
LogicalResult rejectUnsupportedOps(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    StringRef why;
    auto dot = dyn_cast<tile::DotOp>(op);
    if (dot &&
        !isFmaDotForm(dot.getA().getType(), dot.getB().getType(),
                      cast<RankedTensorType>(dot.getType())) &&
        !isMmaDotForm(dot.getA().getType(), dot.getB().getType(),
                      cast<RankedTensorType>(dot.getType())))
      why = "tl.dot reached the LLVM lowering neither as a wgmma product, "
            "nor in mma.sync layouts, nor with its operands in the FMA "
            "layouts of its accumulator: run tilegpu-accelerate-matmul first";
    else if (isa<tile::DescriptorLoadOp, tile::DescriptorStoreOp,
                 tile::DescriptorReduceOp>(op))
      why = "descriptor loads and stores reach the LLVM lowering only as TMA "
            "copies: run tilegpu-lower-tma first";
    else if (isa<tile::CallOp>(op))
      why = "calls must be inlined before GPU code generation (run "
            "tile-optimize)";
    if (why.empty())
      return WalkResult::advance();
    op->emitError(why);
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// The module-level array every shared-memory access indexes (the kernel's
/// dynamic shared memory).  1024-byte aligned: wgmma and TMA swizzle by the
/// absolute address bits 4-9, so the buffers (at multiples of 1024 in it)
/// must start at whole swizzle patterns.
void declareSharedMemory(ModuleOp module) {
  if (module.lookupSymbol("warpforge_smem"))
    return;
  OpBuilder b(module.getBodyRegion());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/false,
                         LLVM::Linkage::External, "warpforge_smem",
                         Attribute(), /*alignment=*/1024,
                         TargetInfo::kSharedAddressSpace);
}

/// Gives every tensor map the kernel makes a 128-byte slot in its
/// program's global scratch, and records the total on the module.
void assignGlobalScratch(ModuleOp module) {
  Builder b(module.getContext());
  int64_t bytes = 0;
  bool implicit = true;
  module.walk([&](tile::MakeTensorDescriptorOp op) {
    op->setAttr(kGlobalScratchOffsetAttr, b.getI64IntegerAttr(bytes));
    bytes += tma::kTensorMapBytes;
    implicit &= op->hasAttr(tilegpu::attr::kSynthesizedMap);
  });
  if (bytes == 0)
    return;
  if (implicit)
    module->setAttr(tilegpu::attr::kGlobalScratchImplicit, b.getI32IntegerAttr(1));
  module->setAttr(tilegpu::attr::kGlobalScratchBytes,
                  b.getI32IntegerAttr(bytes));
  module->setAttr(tilegpu::attr::kGlobalScratchAlign,
                  b.getI32IntegerAttr(tma::kTensorMapBytes));
}

struct ConvertTileGPUToLLVM
    : public warpforge::impl::ConvertTileGPUToLLVMBase<ConvertTileGPUToLLVM> {
  using ConvertTileGPUToLLVMBase::ConvertTileGPUToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (!tilegpu::hasCompileOptions(module)) {
      module.emitError("module has no ")
          << tilegpu::attr::kNumWarps
          << " attribute: run convert-tile-to-tilegpu first";
      return signalPassFailure();
    }
    // The target, read once: the patterns share it.
    FailureOr<TargetInfo> targetInfo = TargetInfo::fromModule(module);
    if (failed(targetInfo) || failed(rejectUnsupportedOps(module)) ||
        failed(tile::verifyNoEmptyTensors(module, "convert-tilegpu-to-llvm")))
      return signalPassFailure();
    declareSharedMemory(module);
    assignGlobalScratch(module);

    // Vector widths come from the axis analysis of the IR before lowering
    // (the patterns query the original ops' operands, which the conversion
    // keeps until it is done).
    ModuleAxisInfoAnalysis axisInfo(module);
    // The hints have done their work (in the axis analysis above); the
    // element-wise lowering would copy them onto scalar LLVM ops.
    module.walk([](Operation *op) {
      for (StringRef hint :
           {tile::TileDialect::kDivisibility, tile::TileDialect::kContiguity,
            tile::TileDialect::kConstancy})
        op->removeAttr(hint);
    });

    TileGPUToLLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    populateFuncOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateSPMDOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateElementwiseOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateViewOpToLLVMPatterns(converter, patterns, *targetInfo);
    // Along the dimension the layout gives each thread consecutive
    // elements: that is where a vector runs.
    VectorSizeQuery vectorSize = [&axisInfo](Value ptr,
                                             Value mask) -> unsigned {
      auto type = dyn_cast<RankedTensorType>(ptr.getType());
      if (!type || !isBlockedLike(type.getEncoding()))
        return 1;
      unsigned dim = tilegpu::getOrder(type.getEncoding())[0];
      int64_t vec = axisInfo.getPtrAlignment(ptr, dim);
      if (mask)
        vec = std::min(vec, axisInfo.getMaskAlignment(mask, dim));
      return unsigned(std::max<int64_t>(1, vec));
    };
    MaskConstancyQuery maskConstancy =
        [&axisInfo](Value mask) -> SmallVector<int64_t> {
      return llvm::to_vector(axisInfo.getAxisInfo(mask).getConstancy());
    };
    AccessQueries queries{vectorSize, maskConstancy};
    populateLoadStoreOpToLLVMPatterns(converter, patterns, *targetInfo,
                                      queries);
    populateAsyncCopyOpToLLVMPatterns(converter, patterns, *targetInfo,
                                      queries);
    populateReduceOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateScanOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateConvertLayoutOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateSharedMemoryOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateDotOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateFmaDotOpToLLVMPatterns(converter, patterns);
    populateMmaDotOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateDebugOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateBarrierOpToLLVMPatterns(converter, patterns, *targetInfo);
    populateTMAOpToLLVMPatterns(converter, patterns, *targetInfo);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    // libdevice for the math functions it has (accurate, and what CUDA C
    // uses); LLVM intrinsics for the rest.
    populateLibDeviceConversionPatterns(converter, patterns, /*benefit=*/10);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*context);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addLegalOp<ModuleOp>();
    populateWarpSpecializeOpToLLVMPatterns(converter, patterns, target);
    int32_t partitionWarps = getPartitionWarps(module);
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    lowerWarpSpecializeOps(module);
    // The launch needs every warp: the kernel's and its partitions'.
    if (partitionWarps > 0)
      module->setAttr(tilegpu::attr::kPartitionWarps,
                      Builder(context).getI32IntegerAttr(partitionWarps));
  }
};

} // namespace
