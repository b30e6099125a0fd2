//===- TMAOpToLLVM.cpp - TMA copies and tensor maps to NVVM ---------------===//
//
// A tensor descriptor lowers to the generic address of its 128-byte tensor
// map: a `__grid_constant__` kernel parameter for a host descriptor (see
// FuncOpToLLVM.cpp), or a map the kernel writes into global scratch for one
// made on the device (`tile.make_tensor_descriptor`, below).
//
// How a block sits in shared memory is `tma::encodingFor`'s rule, shared
// with the launcher: a 2-D block with rows of 32 bytes or more is NVMMA-
// swizzled and moved as `copies()` boxes `swizzle` bytes wide, box j
// covering columns [j * boxInner, (j+1) * boxInner) and landing at byte
// j * rows * swizzle of the buffer (the layout's column blocks); any other
// block is one dense box.  An outermost dimension over 256 elements is
// further cut into pieces of 256, piece k at k * 256 rows into each column
// block.  TMA coordinates run innermost first.
//
// Thread 0 issues every copy: a copy's bytes complete on the barrier the
// same thread armed with `barrier_expect`, and its TMA stores form one bulk
// group per `async_tma_copy_local_to_global`, which only the issuing thread
// can wait for (`async_tma_store_wait`, executed by all threads: for the
// others it has nothing to wait for).
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/PTXBuilder.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/IR/TMA.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

tma::Encoding getEncoding(tile::TensorDescType desc) {
  RankedTensorType block = desc.getBlockType();
  return tma::encodingFor(
      block.getElementType().getIntOrFloatBitWidth(),
      std::vector<int64_t>(block.getShape().begin(), block.getShape().end()));
}

/// Per copy of one block: (the byte offset in the buffer, the coordinates
/// innermost first).  With `ctas` > 1 (multicast), the copies of this
/// CTA's slice of the rows, `rank` (the CTA's in the cluster) of `ctas`:
/// the boxes are the slice's (what the launcher encoded the map for), at
/// the slice's rows in each column block, and `sliceOffset` is set to the
/// slice's byte offset, to be added to every copy's.
SmallVector<std::pair<int64_t, SmallVector<Value>>>
getCopies(OpBuilder &b, Location loc, tile::TensorDescType desc,
          ValueRange indices, int64_t ctas = 1, Value rank = Value(),
          Value *sliceOffset = nullptr) {
  RankedTensorType block = desc.getBlockType();
  ArrayRef<int64_t> shape = block.getShape();
  tma::Encoding e = getEncoding(desc);
  if (ctas > 1) {
    std::vector<int64_t> slice(shape.begin(), shape.end());
    slice[0] /= ctas;
    e = tma::encodingFor(block.getElementTypeBitWidth(), slice);
  }
  int64_t elemBytes = block.getElementTypeBitWidth() / 8;
  int64_t rows = 1;
  for (int64_t d : shape.drop_back())
    rows *= d;
  // Bytes between consecutive outer indices within a column block: a
  // swizzled row of the column block, or the dense block's inner extent.
  int64_t outerStride = e.swizzleBytes;
  if (!e.swizzleBytes) {
    outerStride = elemBytes;
    for (int64_t d : shape.drop_front())
      outerStride *= d;
  }
  auto shifted = [&](Value v, int64_t by) -> Value {
    return by == 0 ? v : LLVM::AddOp::create(b, loc, v, i32Val(b, loc, by));
  };
  SmallVector<Value> first = llvm::to_vector(llvm::reverse(indices));
  if (ctas > 1) {
    // Rows [rank * R / C, ...) of the block: at that outer coordinate, and
    // that many rows into each column block (swizzle atoms stay whole: the
    // verifier wants slices of 8-row multiples).
    int64_t sliceRows = shape[0] / ctas;
    Value row = LLVM::MulOp::create(b, loc, rank, i32Val(b, loc, sliceRows));
    first.back() = LLVM::AddOp::create(b, loc, first.back(), row);
    *sliceOffset =
        LLVM::MulOp::create(b, loc, row, i32Val(b, loc, outerStride));
  }
  SmallVector<std::pair<int64_t, SmallVector<Value>>> copies;
  for (int64_t k = 0; k < e.outerPieces; ++k)
    for (int64_t j = 0; j < e.copiesPerBlock; ++j) {
      SmallVector<Value> coords = first;
      coords.front() = shifted(coords.front(), j * e.box.back());
      coords.back() = shifted(coords.back(), k * e.box.front());
      copies.push_back({j * rows * e.swizzleBytes +
                            k * e.box.front() * outerStride,
                        coords});
    }
  return copies;
}

Value offsetShared(OpBuilder &b, Location loc, Value base, int64_t bytes) {
  if (bytes == 0)
    return base;
  return gep(b, loc, b.getI8Type(), base, i32Val(b, loc, bytes));
}

struct AsyncTMACopyGlobalToLocalOpConversion
    : public TargetOpConversionPattern<AsyncTMACopyGlobalToLocalOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(AsyncTMACopyGlobalToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireFeature(op, targetInfo.supportsTMA(), "TMA")))
      return failure();
    Location loc = op.getLoc();
    Value pred = LLVM::AndOp::create(rewriter, loc,
                                     emitIsThreadZero(rewriter, loc),
                                     adaptor.getPred());
    // Multicast: this CTA's slice, to every CTA of the cluster (mask of
    // all C ranks).
    int64_t ctas = op.getMulticast().value_or(1);
    Value rank, sliceOffset, mask;
    Value result = adaptor.getResult();
    if (ctas > 1) {
      // The slices' images side by side must be the block's: the same
      // swizzle.
      tile::TensorDescType desc = op.getDesc().getType();
      std::vector<int64_t> slice(desc.getBlockType().getShape().begin(),
                                 desc.getBlockType().getShape().end());
      slice[0] /= ctas;
      if (tma::encodingFor(desc.getBlockType().getElementTypeBitWidth(), slice)
              .swizzleBytes != getEncoding(desc).swizzleBytes)
        return op.emitOpError("multicast = ")
               << ctas << ": a slice of the block is swizzled unlike the block";
      rank = NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type());
      mask = LLVM::ConstantOp::create(
          rewriter, loc, rewriter.getI16Type(),
          rewriter.getI16IntegerAttr((1 << ctas) - 1));
    }
    auto copies = getCopies(rewriter, loc, op.getDesc().getType(),
                            adaptor.getIndices(), ctas, rank, &sliceOffset);
    if (sliceOffset)
      result = gep(rewriter, loc, rewriter.getI8Type(), result, sliceOffset);
    for (auto &[offset, coords] : copies)
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc,
          offsetShared(rewriter, loc, result, offset),
          adaptor.getDesc(), coords, adaptor.getBarrier(),
          /*im2colOffsets=*/ValueRange(), /*multicastMask=*/mask,
          /*l2CacheHint=*/Value(),
          NVVM::TMALoadModeAttr::get(getContext(), NVVM::TMALoadMode::TILE),
          rewriter.getBoolAttr(false), /*group=*/nullptr, pred);
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncTMACopyLocalToGlobalOpConversion
    : public TargetOpConversionPattern<AsyncTMACopyLocalToGlobalOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(AsyncTMACopyLocalToGlobalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireFeature(op, targetInfo.supportsTMA(), "TMA")))
      return failure();
    Location loc = op.getLoc();
    Value pred = emitIsThreadZero(rewriter, loc);
    if (std::optional<tile::DescriptorReduceKind> kind = op.getReduce()) {
      // nvvm.cp.async.bulk.tensor.reduce takes no predicate: thread 0
      // alone issues the PTX.
      for (auto &[offset, coords] :
           getCopies(rewriter, loc, op.getDesc().getType(),
                     adaptor.getIndices())) {
        PTXBuilder ptx;
        PTXBuilder::Operand desc = ptx.addInput(adaptor.getDesc(), "l");
        PTXBuilder::Operand src = ptx.addInput(
            offsetShared(rewriter, loc, adaptor.getSrc(), offset),
            kSharedPointerConstraint);
        SmallVector<PTXBuilder::Operand> cs;
        for (Value c : coords)
          cs.push_back(ptx.addInput(c, "r"));
        PTXBuilder::Operand p = ptx.addInput(pred, "b");
        std::string opcode =
            "cp.reduce.async.bulk.tensor." + std::to_string(coords.size()) +
            "d.global.shared::cta." +
            tile::stringifyDescriptorReduceKind(*kind).str() +
            ".tile.bulk_group";
        ptx.instr(opcode,
                  {"[" + desc.str() + ", " + PTXBuilder::vector(cs) + "]",
                   PTXBuilder::address(src)},
                  p);
        ptx.launch(rewriter, loc);
      }
      NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
      rewriter.eraseOp(op);
      return success();
    }
    for (auto &[offset, coords] :
         getCopies(rewriter, loc, op.getDesc().getType(),
                   adaptor.getIndices()))
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, adaptor.getDesc(),
          offsetShared(rewriter, loc, adaptor.getSrc(), offset), coords,
          /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE, pred);
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncTMAStoreWaitOpConversion
    : public OpConversionPattern<AsyncTMAStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AsyncTMAStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, op.getLoc(),
                                         op.getPendings(),
                                         rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The `elemtype` field of a tensor map as `tensormap.replace` numbers it
/// (PTX's order, which is not CUtensorMapDataType's past f32: .f32.ftz is
/// 8, .f64 9, .bf16 10): the TMA moves bits, so integers and fp8 go as
/// unsigned of their width.
std::optional<int> getTensorMapElementType(Type t) {
  if (t.isF16())
    return 6;
  if (t.isF32())
    return 7;
  if (t.isF64())
    return 9;
  if (t.isBF16())
    return 10;
  switch (t.getIntOrFloatBitWidth()) {
  case 8:
    return 0;
  case 16:
    return 1;
  case 32:
    return 3;
  case 64:
    return 5;
  default:
    return std::nullopt;
  }
}

/// `tile.make_tensor_descriptor`: thread 0 writes a tensor map into this
/// program's slot of the global scratch (the kernel's last parameter,
/// `tilegpu.global-scratch-bytes` per program; the op's own offset in it
/// from the conversion's set-up), field by field with `tensormap.replace`
/// on a zeroed map, then releases it to the tensormap proxy and acquires
/// it there: the same thread issues every TMA copy through it.
struct MakeTensorDescriptorOpConversion
    : public TargetOpConversionPattern<tile::MakeTensorDescriptorOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::MakeTensorDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireFeature(op, targetInfo.supportsTMA(), "TMA")))
      return failure();
    Location loc = op.getLoc();
    auto descType = op.getType();
    RankedTensorType block = descType.getBlockType();
    Type elem = block.getElementType();
    std::optional<int> elemType = getTensorMapElementType(elem);
    if (!elemType)
      return op.emitError("the TMA cannot move ") << elem << " elements";
    auto offset = op->getAttrOfType<IntegerAttr>(kGlobalScratchOffsetAttr);
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    auto module = op->getParentOfType<ModuleOp>();
    std::optional<int64_t> perProgram = getGlobalScratchBytes(module);
    if (!offset || !func || !perProgram)
      return op.emitError("tensor descriptor has no global scratch; the "
                          "conversion assigns it");
    Block &entry = func.getBody().front();
    Value scratch = entry.getArgument(entry.getNumArguments() - 1);

    // This program's slot: x + gx * (y + gy * z).
    Type i64 = rewriter.getI64Type();
    auto id = [&](auto blockId) -> Value {
      using Op = decltype(blockId);
      return Op::create(rewriter, loc, rewriter.getI32Type());
    };
    Value x = id(NVVM::BlockIdXOp()), y = id(NVVM::BlockIdYOp()),
          z = id(NVVM::BlockIdZOp());
    Value gx = id(NVVM::GridDimXOp()), gy = id(NVVM::GridDimYOp());
    Value program = LLVM::AddOp::create(
        rewriter, loc, x,
        LLVM::MulOp::create(
            rewriter, loc, gx,
            LLVM::AddOp::create(rewriter, loc, y,
                                LLVM::MulOp::create(rewriter, loc, gy, z))));
    Value byteOffset = LLVM::AddOp::create(
        rewriter, loc,
        LLVM::MulOp::create(rewriter, loc,
                            LLVM::ZExtOp::create(rewriter, loc, i64, program),
                            i64Val(rewriter, loc, *perProgram)),
        i64Val(rewriter, loc, offset.getInt()));
    Value map = gep(rewriter, loc, rewriter.getI8Type(), scratch, byteOffset);

    tma::Encoding e = getEncoding(descType);
    unsigned rank = block.getRank();
    unsigned elemBytes = std::max(1u, elem.getIntOrFloatBitWidth() / 8);
    auto shapes = adaptor.getShape();
    auto strides = adaptor.getStrides();

    PTXBuilder ptx;
    PTXBuilder::Operand addr = ptx.addInput(map, "l");
    // A map made again (in a loop) may be the one an earlier TMA store
    // still uses: thread 0, which issued every store, waits for them all
    // to complete before rewriting it.
    PTXBuilder::Operand p =
        ptx.addInput(emitIsThreadZero(rewriter, loc), "b");
    PTXBuilder::Operand zero = ptx.addInput(i64Val(rewriter, loc, 0), "l");
    auto at = [&](int64_t bytes) {
      return "[" + addr.str() + " + " + std::to_string(bytes) + "]";
    };
    // The TMA's rules that only the run time can check: a 16-byte aligned
    // base, strides (but the innermost) positive multiples of 16 bytes, the
    // innermost 1.  A map breaking one would fault in the TMA unit or read
    // the wrong elements: trap instead (the launch fails loudly; the
    // interpreter says which rule).  A trap, not an __assertfail call: a
    // call costs registers in every kernel that makes a descriptor.
    Value baseInt = LLVM::PtrToIntOp::create(rewriter, loc, i64,
                                             adaptor.getBase());
    auto isNonzero = [&](Value v) {
      return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, v,
                                  i64Val(rewriter, loc, 0));
    };
    Value bad = isNonzero(
        LLVM::AndOp::create(rewriter, loc, baseInt, i64Val(rewriter, loc, 15)));
    for (unsigned d = 0; d + 1 < rank; ++d) {
      Value bytes = LLVM::MulOp::create(rewriter, loc, strides[d],
                                        i64Val(rewriter, loc, elemBytes));
      bad = LLVM::OrOp::create(
          rewriter, loc, bad,
          isNonzero(LLVM::AndOp::create(rewriter, loc, bytes,
                                        i64Val(rewriter, loc, 15))));
      bad = LLVM::OrOp::create(
          rewriter, loc, bad,
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::sle, bytes,
                               i64Val(rewriter, loc, 0)));
    }
    bad = LLVM::OrOp::create(
        rewriter, loc, bad,
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne,
                             strides[rank - 1], i64Val(rewriter, loc, 1)));
    ptx.instr("trap", {}, ptx.addInput(bad, "b"));
    ptx.instr("cp.async.bulk.wait_group", {"0"}, p);
    for (int64_t k = 0; k < tma::kTensorMapBytes; k += 16)
      ptx.instr("st.global.v2.b64", {at(k), PTXBuilder::vector({zero, zero})},
                p);
    const std::string field = "tensormap.replace.tile.";
    const std::string space = ".global.b1024";
    auto reg32 = [&](int64_t v) {
      return ptx.addInput(i32Val(rewriter, loc, v), "r").str();
    };
    ptx.instr(field + "global_address" + space + ".b64",
              {at(0), ptx.addInput(baseInt, "l").str()}, p);
    ptx.instr(field + "rank" + space + ".b32", {at(0), reg32(rank - 1)}, p);
    for (unsigned i = 0; i < rank; ++i) {
      // Dimension i of the map is dimension rank-1-i of the block.
      unsigned d = rank - 1 - i;
      std::string ord = std::to_string(i);
      ptx.instr(field + "box_dim" + space + ".b32",
                {at(0), ord, reg32(e.box[d])}, p);
      ptx.instr(field + "global_dim" + space + ".b32",
                {at(0), ord, ptx.addInput(shapes[d], "r").str()}, p);
      ptx.instr(field + "element_stride" + space + ".b32",
                {at(0), ord, reg32(1)}, p);
      if (i == 0)
        continue;
      Value bytes = LLVM::MulOp::create(rewriter, loc, strides[d],
                                        i64Val(rewriter, loc, elemBytes));
      ptx.instr(field + "global_stride" + space + ".b64",
                {at(0), std::to_string(i - 1), ptx.addInput(bytes, "l").str()},
                p);
    }
    int swizzleMode = e.swizzleBytes == 0 ? 0 : llvm::Log2_32(e.swizzleBytes) - 4;
    ptx.instr(field + "elemtype" + space + ".b32",
              {at(0), std::to_string(*elemType)}, p);
    ptx.instr(field + "interleave_layout" + space + ".b32", {at(0), "0"}, p);
    ptx.instr(field + "swizzle_mode" + space + ".b32",
              {at(0), std::to_string(swizzleMode)}, p);
    ptx.instr(field + "fill_mode" + space + ".b32", {at(0), "0"}, p);
    ptx.launch(rewriter, loc);

    Value generic = LLVM::AddrSpaceCastOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(getContext()), map);
    NVVM::FenceProxyReleaseOp::create(rewriter, loc, NVVM::MemScopeKind::GPU);
    NVVM::FenceProxyAcquireOp::create(
        rewriter, loc, NVVM::MemScopeKind::GPU, generic,
        i32Val(rewriter, loc, tma::kTensorMapBytes));
    rewriter.replaceOp(op, generic);
    return success();
  }
};

} // namespace

void warpforge::populateTMAOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<AsyncTMACopyGlobalToLocalOpConversion,
               AsyncTMACopyLocalToGlobalOpConversion,
               MakeTensorDescriptorOpConversion>(
      converter, patterns.getContext(), targetInfo);
  patterns.add<AsyncTMAStoreWaitOpConversion>(converter,
                                              patterns.getContext());
}
