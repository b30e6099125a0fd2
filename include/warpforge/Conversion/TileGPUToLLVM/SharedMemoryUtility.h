//===- SharedMemoryUtility.h - Accessing shared memory ----------*- C++ -*-===//
//
// The kernel's shared memory and scratch, barriers and fences, loads and
// stores of it, and where the elements of a buffer (a memdesc) are.  What
// an op needs allocated is in SharedMemory.h.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_CONVERSION_TILEGPUTOLLVM_SHAREDMEMORYUTILITY_H
#define WARPFORGE_CONVERSION_TILEGPUTOLLVM_SHAREDMEMORYUTILITY_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"

#include <memory>
#include "mlir/Transforms/DialectConversion.h"

#include "warpforge/Conversion/TileGPUToLLVM/SharedMemory.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

namespace warpforge {

/// A barrier of the threads running the code at `b`: the CTA's (bar.sync
/// 0), or in a tilegpu.warp_specialize region its own named barrier.
void emitBarrier(mlir::OpBuilder &b, mlir::Location loc);

/// `fence.proxy.async.shared::cta`: the thread's generic shared-memory
/// writes become visible to the async proxy (wgmma, TMA).
void emitAsyncProxyFence(mlir::OpBuilder &b, mlir::Location loc);

/// The kernel's dynamic shared memory, `!llvm.ptr<3>`: declared once per
/// module as the external global `warpforge_smem`.
mlir::Value getSharedMemoryBase(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Operation *op);

/// The scratch buffer the allocator gave `op` (`tilegpu.scratch`), as an
/// `!llvm.ptr<3>`.  The op must have been given one.
mlir::Value getScratchBase(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Operation *op);

/// Stores `values` (one type, one or more of them) at the shared-memory
/// `ptr` in one access, aligned to its size when it is a vector.
void storeVector(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                 llvm::ArrayRef<mlir::Value> values);
/// Loads `vec` elements of `elemType` at `ptr` in one access.
llvm::SmallVector<mlir::Value> loadVector(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value ptr,
                                          mlir::Type elemType, unsigned vec);

/// Loads and stores of shared memory; with `pred`, only where it is true
/// (the load gives zero elsewhere).
void storeShared(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                 mlir::Value value, mlir::Value pred = nullptr);
mlir::Value loadShared(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value ptr, mlir::Type type,
                       mlir::Value pred = nullptr);

/// The scratch of `op`, an error at it when the allocator gave it none
/// (`what` names the op's exchange, e.g. "reduction across warps").
mlir::FailureOr<mlir::Value> getRequiredScratchBase(mlir::OpBuilder &b,
                                                    mlir::Operation *op,
                                                    llvm::StringRef what);

/// Stores `values` (one per operand, lowered scalars) in their operand
/// arrays of `scratch` (SharedMemory.h) at `base`, each at index `slot`,
/// and loads them back (of `types`).
void storeOperandSlot(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                      const OperandScratch &scratch, mlir::ValueRange values,
                      llvm::function_ref<mlir::Value()> slot);
llvm::SmallVector<mlir::Value>
loadOperandSlot(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                const OperandScratch &scratch, mlir::TypeRange types,
                llvm::function_ref<mlir::Value()> slot);

//===----------------------------------------------------------------------===//
// Shared-memory buffers (memdescs)
//===----------------------------------------------------------------------===//

/// The byte offset of element `coords` of a 2-D `shape` buffer in the
/// `#tilegpu.nvmma_shared` `layout`, coordinates and result i32: what
/// tilegpu::getNVMMAOffset (LayoutUtils.h) computes at compile time.
mlir::Value emitNVMMAOffset(mlir::OpBuilder &b, mlir::Location loc,
                            llvm::ArrayRef<mlir::Value> coords,
                            llvm::ArrayRef<int64_t> shape,
                            tilegpu::NVMMASharedEncodingAttr layout);

/// The buffer a memdesc value addresses: sub-tiles (memdesc_subslice) are
/// placed by the strides of the buffer they are cut from.
mlir::Value getAddressedBuffer(mlir::Value memdesc);

/// The element strides of a `#tilegpu.shared` buffer of `shape`.
llvm::SmallVector<int64_t> getDenseStrides(llvm::ArrayRef<int64_t> shape,
                                           tilegpu::SharedEncodingAttr layout);

/// Succeeds when the lowering can place the elements of `memdesc`: whole
/// bytes in the `#tilegpu.shared` layout or a 2-D `#tilegpu.nvmma_shared`
/// one; else reports why at `op`.
mlir::LogicalResult checkSharedElementAccess(mlir::Operation *op,
                                             mlir::Value memdesc);

/// The widest vector, in elements of the thread's list, in which a thread
/// holding `tensorType` can access shared buffer `memdesc`: consecutive
/// in the list and in the buffer, at most 16 bytes and aligned to its size
/// (swizzling permutes aligned 16-byte chunks, which keeps such a vector
/// in one piece).  A power of two; 1 when nothing better is known.
unsigned getSharedVectorElems(mlir::Value memdesc,
                              mlir::RankedTensorType tensorType);

/// The `!llvm.ptr<3>` of the first element of each vector of `vec`
/// elements (list elements 0, vec, 2 * vec, ...) of the thread's
/// `tensorType` tensor in shared buffer `memdesc`, lowered to `base`:
/// every address of a LazySharedAddresses, made at once.
llvm::SmallVector<mlir::Value>
emitSharedVectorAddresses(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value memdesc, mlir::Value base,
                          mlir::RankedTensorType tensorType, unsigned vec);

/// emitSharedVectorAddresses, each address made where it is first needed:
/// `get(i)` emits (once) the address of vector i at the builder's
/// insertion point.  What every access shares (the thread's first
/// address) is made at construction.  A consumer that reads the tensor in
/// pieces (mma.sync one K step at a time) then holds one piece's addresses
/// and values at a time, not the whole tile's.
class LazySharedAddresses {
public:
  LazySharedAddresses(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value memdesc, mlir::Value base,
                      mlir::RankedTensorType tensorType, unsigned vec);
  ~LazySharedAddresses();
  /// The number of vector accesses.
  unsigned size() const;
  mlir::Value get(mlir::OpBuilder &b, mlir::Location loc, unsigned i);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// The row addresses, one per `stmatrix.x4`, through which the thread's
/// `tensorType` elements go into shared buffer `memdesc` (lowered `base`),
/// when every warp holds 8x8 matrices of 16-bit elements in the
/// mma-accumulator fragment whose rows are whole 16-byte chunks of the
/// buffer (SharedMemoryUtility.cpp says how that is decided); nothing, and
/// nothing emitted, otherwise.
std::optional<llvm::SmallVector<mlir::Value>>
emitStMatrixAddresses(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value memdesc, mlir::Value base,
                      mlir::RankedTensorType tensorType);
/// The stores themselves: the thread's lowered `values`, eight per address
/// of emitStMatrixAddresses.  No barriers or fences: the caller's.
void emitStMatrixStores(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<mlir::Value> ptrs,
                        llvm::ArrayRef<mlir::Value> values);

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILEGPUTOLLVM_SHAREDMEMORYUTILITY_H
