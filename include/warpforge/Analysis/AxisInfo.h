//===- AxisInfo.h - Contiguity, divisibility and constancy ------*- C++ -*-===//
//
// The axis analysis: for every integer and pointer value (scalar or tensor)
// and every dimension of its shape, what is known about the values along that
// dimension.  The coalescing pass uses it to choose memory layouts and the
// width of vectorized loads and stores.
//
// Definitions, per dimension `d` of a value with shape `S` (a scalar or a 0-d
// tensor is treated as shape [1]):
//
//  * contiguity[d] = C: split the elements along `d` into aligned runs of C
//    (positions [kC, (k+1)C)); in every run the values are consecutive
//    integers, v, v+1, ..., v+C-1.  For pointers, consecutive means one
//    element apart (the pointer advances by the pointee size).
//  * divisibility[d] = D: the value at the start of every such run is a
//    multiple of D.  Integers count in units of 1; pointers count in bytes
//    (an address), as in Triton.  A run of length 1 is every element, so with
//    C = 1 every element is a multiple of D.
//  * constancy[d] = K: in every aligned run of K along `d` the values are
//    equal.
//  * the constant value, when every element is one known integer.
//
// C, D and K are powers of two; C and K divide S[d].  D of zero is
// `AxisInfo::kMaxDivisor`.  Signed division and remainder assume non-negative
// dividends, as offsets and indices are (Triton assumes the same); integer
// overflow is ignored.  Pointers whose origin is unknown (kernel arguments
// without a `tile.divisibility` hint, loaded pointers) are assumed aligned to
// their pointee size only.
//
// The analysis looks only at shapes, never at layout encodings, so it gives
// the same answers before and after layouts are assigned.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_ANALYSIS_AXISINFO_H
#define WARPFORGE_ANALYSIS_AXISINFO_H

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace warpforge {

/// What is known about one value, per dimension (see the file comment).  A
/// default-constructed AxisInfo is uninitialized: nothing has reached the
/// value yet (the bottom of the lattice).
class AxisInfo {
public:
  using DimVector = llvm::SmallVector<int64_t, 4>;

  /// The divisibility of zero.  Every power of two divides zero; this cap
  /// keeps products of divisibilities from overflowing.
  static constexpr int64_t kMaxDivisor = int64_t(1) << 62;

  AxisInfo() = default;
  AxisInfo(DimVector contiguity, DimVector divisibility, DimVector constancy,
           std::optional<int64_t> constantValue = std::nullopt);

  /// Nothing known about a value of `type`: every run has length 1,
  /// divisibility is 1 (the pointee size in bytes for pointers).
  static AxisInfo getPessimisticState(mlir::Type type);

  /// The state of `value` where it enters the analysis with no known
  /// producer: pessimistic, improved by a `tile.divisibility` attribute on a
  /// function argument.
  static AxisInfo getEntryState(mlir::Value value);

  bool isInitialized() const { return !contiguity.empty(); }
  unsigned getRank() const { return contiguity.size(); }

  int64_t getContiguity(unsigned dim) const { return contiguity[dim]; }
  int64_t getDivisibility(unsigned dim) const { return divisibility[dim]; }
  int64_t getConstancy(unsigned dim) const { return constancy[dim]; }
  llvm::ArrayRef<int64_t> getContiguity() const { return contiguity; }
  llvm::ArrayRef<int64_t> getDivisibility() const { return divisibility; }
  llvm::ArrayRef<int64_t> getConstancy() const { return constancy; }
  std::optional<int64_t> getConstantValue() const { return constantValue; }

  /// The divisibility of the values at every position along `dim` that is a
  /// multiple of `runLength` (a power of two): D where those positions start
  /// runs, less inside a run, where the values are v + k * runLength * step
  /// (`step`: 1 for integers, the pointee size for pointers).
  int64_t getDivisibilityAt(unsigned dim, int64_t runLength,
                            int64_t step = 1) const;

  /// A power of two that divides every element.
  int64_t getElementDivisibility() const;

  /// The dimensions from the most to the least contiguous; ties go to the
  /// later dimension first (row-major: the last dimension varies fastest).
  llvm::SmallVector<unsigned, 4> getOrder() const;

  /// The lattice join: what holds for both `lhs` and `rhs` (a value that may
  /// be either).  An uninitialized side is the identity.
  static AxisInfo join(const AxisInfo &lhs, const AxisInfo &rhs);

  bool operator==(const AxisInfo &other) const {
    return contiguity == other.contiguity &&
           divisibility == other.divisibility && constancy == other.constancy &&
           constantValue == other.constantValue;
  }
  bool operator!=(const AxisInfo &other) const { return !(*this == other); }

  /// `contiguity = [..], divisibility = [..], constancy = [..],
  /// constant_value = N|<none>`, or `<uninitialized>`.
  void print(llvm::raw_ostream &os) const;

private:
  DimVector contiguity;
  DimVector divisibility;
  DimVector constancy;
  std::optional<int64_t> constantValue;
};

/// The largest power of two dividing `value`; kMaxDivisor for zero.
int64_t highestPowerOf2Divisor(int64_t value);

/// The shape the analysis gives values of `type`: a tensor's shape, [1] for
/// a scalar or a 0-d tensor.  Layout encodings are ignored.
llvm::SmallVector<int64_t, 4> getAxisShape(mlir::Type type);

/// The size in bytes of what a pointer (or a tensor of pointers) points to,
/// at least 1; 0 when `type` holds no pointer.
int64_t getPointeeByteWidth(mlir::Type type);

/// The lattice element of the analysis, one per SSA value.
using AxisInfoLattice = mlir::dataflow::Lattice<AxisInfo>;

/// The sparse forward data-flow analysis computing AxisInfo.  Load it into a
/// DataFlowSolver together with mlir::dataflow::DeadCodeAnalysis and
/// mlir::dataflow::SparseConstantPropagation (which DeadCodeAnalysis needs
/// to resolve branches); ModuleAxisInfoAnalysis does this.
class AxisInfoAnalysis
    : public mlir::dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  void setToEntryState(AxisInfoLattice *lattice) override;

  llvm::LogicalResult
  visitOperation(mlir::Operation *op,
                 llvm::ArrayRef<const AxisInfoLattice *> operands,
                 llvm::ArrayRef<AxisInfoLattice *> results) override;

  /// Loop induction variables: multiples of gcd(lower bound, step).
  void
  visitNonControlFlowArguments(mlir::Operation *op,
                               const mlir::RegionSuccessor &successor,
                               llvm::ArrayRef<AxisInfoLattice *> argLattices,
                               unsigned firstIndex) override;
};

/// The transfer function of `op` alone: the AxisInfo of its results from that
/// of its operands (all initialized), before hint attributes.  Ops it does not
/// know give pessimistic results (keeping constancy for pure element-wise
/// ops).
llvm::SmallVector<AxisInfo, 1>
computeAxisInfo(mlir::Operation *op, llvm::ArrayRef<AxisInfo> operands);

/// Raises `info` (the result of `op`) with the op's `tile.divisibility`,
/// `tile.contiguity` and `tile.constancy` hints (array<i32>, one entry per
/// dimension; the largest power of two dividing each entry is used).
AxisInfo applyHints(mlir::Operation *op, mlir::Type resultType, AxisInfo info);

/// Runs AxisInfoAnalysis over `root` (a module: every tile.func in it, device
/// functions through their call sites; or a single tile.func) and answers
/// queries.  Usable as an MLIR analysis:
/// `getAnalysis<ModuleAxisInfoAnalysis>()`.  Values created after the
/// analysis ran, and values in dead code, get pessimistic answers.
class ModuleAxisInfoAnalysis {
public:
  explicit ModuleAxisInfoAnalysis(mlir::Operation *root);

  /// Whether the solver reached its fixpoint (queries are pessimistic
  /// otherwise).
  bool succeeded() const { return solved; }

  /// The AxisInfo of `value`; pessimistic when the analysis has none.
  AxisInfo getAxisInfo(mlir::Value value) const;

  /// Dimensions of `value` from the most to the least contiguous
  /// (AxisInfo::getOrder): order[0] is the dimension to vectorize along.
  llvm::SmallVector<unsigned, 4> getOrder(mlir::Value value) const;

  /// Contiguity of a pointer (tensor) per dimension, in elements.
  llvm::SmallVector<int64_t, 4> getPtrContiguity(mlir::Value ptr) const;

  /// How many consecutive elements along `dim` one aligned vector access can
  /// cover: contiguity bounded by byte divisibility / pointee size (at least
  /// 1; 1 for scalars).
  int64_t getPtrAlignment(mlir::Value ptr, unsigned dim) const;
  /// getPtrAlignment along getOrder(ptr)[0].
  int64_t getPtrAlignment(mlir::Value ptr) const;

  /// How many consecutive elements along `dim` share one mask value
  /// (constancy, at least 1).
  int64_t getMaskAlignment(mlir::Value mask, unsigned dim) const;

  /// Elements per vectorized access of a load or store through `ptr` with
  /// optional `mask`, along getOrder(ptr)[0]: the pointer alignment bounded
  /// by the mask alignment and by 16 bytes (128-bit accesses).
  int64_t getAccessVectorWidth(mlir::Value ptr, mlir::Value mask = {}) const;

private:
  mlir::DataFlowSolver solver;
  bool solved = false;
};

} // namespace warpforge

#endif // WARPFORGE_ANALYSIS_AXISINFO_H
