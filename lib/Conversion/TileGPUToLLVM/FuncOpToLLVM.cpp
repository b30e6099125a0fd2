//===- FuncOpToLLVM.cpp - Kernels to NVVM kernel functions ----------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/IR/TMA.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace warpforge;

namespace {

/// A kernel becomes an `llvm.func` marked `nvvm.kernel`, launched with
/// exactly num-warps * 32 threads (`nvvm.reqntid`), so ptxas may assume
/// the block shape.
///
/// A host tensor descriptor argument is its 128-byte tensor map passed by
/// value (`byval`, 64-byte aligned) and `nvvm.grid_constant`: the kernel
/// uses the parameter's own address, which the TMA instructions take, with
/// no copy to local memory.  A kernel that makes descriptors on the device
/// takes one more, last, parameter: the global scratch their maps go in
/// (`tilegpu.global-scratch-bytes` per program).
struct FuncOpConversion : public OpConversionPattern<tile::FuncOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::FuncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.isKernel())
      return rewriter.notifyMatchFailure(op, "device functions are inlined");
    FunctionType type = op.getFunctionType();
    if (type.getNumResults() != 0)
      return op.emitError("kernels return no values");
    TypeConverter::SignatureConversion signature(type.getNumInputs());
    SmallVector<Type> inputs;
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      Type converted = getTypeConverter()->convertType(input);
      if (!converted)
        return op.emitError("kernel argument ")
               << i << " has type " << input << ", which has no lowering";
      signature.addInputs(i, converted);
      inputs.push_back(converted);
    }
    auto module = op->getParentOfType<ModuleOp>();
    bool needsScratch = tilegpu::getGlobalScratchBytes(module).has_value();
    if (needsScratch) {
      auto global = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
      signature.addInputs(global);
      inputs.push_back(global);
    }
    auto llvmType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(rewriter.getContext()), inputs);
    auto func = LLVM::LLVMFuncOp::create(rewriter, op.getLoc(), op.getName(),
                                         llvmType, LLVM::Linkage::External);
    // The kernel's warps and those its warp_specialize partitions add.
    int32_t partitionWarps = getPartitionWarps(op);
    bool movesRegisters = hasRegisterRequests(op);
    int32_t threads =
        (getNumWarps(module) + partitionWarps) * TargetInfo::kWarpSize;
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    if (failed(rewriter.convertRegionTypes(&func.getBody(), *getTypeConverter(),
                                           &signature)))
      return failure();

    func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                  rewriter.getUnitAttr());
    func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                  rewriter.getDenseI32ArrayAttr({threads, 1, 1}));
    // num_ctas: the kernel runs as clusters of that many CTAs along x
    // (.reqnctapercluster; the launcher passes the same shape).
    if (int ctas = tilegpu::getNumCtas(module); ctas > 1)
      func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                    rewriter.getDenseI32ArrayAttr({ctas, 1, 1}));
    // setmaxnreg moves registers between warpgroups from an even start:
    // each thread's share of the SM's 64K, in steps of 8.
    if (movesRegisters)
      func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                    rewriter.getI32IntegerAttr(getEvenRegisterShare(threads)));
    // The author's cap (maxnreg=), on the kernel only (as Triton's: not on
    // device functions).  setmaxnreg's start above takes precedence.
    else if (int maxnreg = tilegpu::getMaxnreg(module); maxnreg > 0)
      func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                    rewriter.getI32IntegerAttr(maxnreg));
    // Pointer arguments specialized as 16-byte aligned tell LLVM so.
    for (unsigned i = 0; i < type.getNumInputs(); ++i) {
      if (!isa<tile::PointerType>(type.getInput(i)))
        continue;
      if (auto div = op.getArgAttrOfType<IntegerAttr>(
              i, tile::TileDialect::kDivisibility))
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        rewriter.getI64IntegerAttr(div.getInt()));
    }
    for (unsigned i = 0; i < type.getNumInputs(); ++i) {
      auto desc = dyn_cast<tile::TensorDescType>(type.getInput(i));
      if (!desc)
        continue;
      func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(LLVM::LLVMArrayType::get(
                          rewriter.getI8Type(), tilegpu::tma::kTensorMapBytes)));
      func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      rewriter.getI64IntegerAttr(tilegpu::tma::kTensorMapAlign));
      func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                      rewriter.getUnitAttr());
    }
    if (needsScratch)
      func.setArgAttr(inputs.size() - 1,
                      LLVM::LLVMDialect::getNoAliasAttrName(),
                      rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReturnOpConversion : public OpConversionPattern<tile::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getNumOperands() != 0)
      return op.emitError("kernels return no values");
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange{});
    return success();
  }
};

} // namespace

void warpforge::populateFuncOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<FuncOpConversion, ReturnOpConversion>(converter,
                                                     patterns.getContext());
}
