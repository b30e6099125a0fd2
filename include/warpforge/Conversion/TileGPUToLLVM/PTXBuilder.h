//===- PTXBuilder.h - Inline PTX, assembled in one place --------*- C++ -*-===//
//
// What the NVVM dialect has no op for (predicated and cache-qualified
// loads and stores, cp.async with a predicate, wgmma with accumulators tied
// through the asm, a few conversions) is emitted as `llvm.inline_asm`.
// This builder is the only place that creates one: a site declares its
// operands, each with its constraint, writes its instructions in terms of
// them, and gets the outputs back, so that operand numbers, constraint
// strings and result structs are never counted by hand.
//
//   PTXBuilder ptx;
//   PTXBuilder::Operand out = ptx.addOutput("r", i32);
//   PTXBuilder::Operand addr = ptx.addInput(ptr, "l");
//   PTXBuilder::Operand p = ptx.addInput(pred, "b");
//   ptx.instr("mov.b32", {out, "0"});
//   ptx.instr("ld.global.b32", {out, PTXBuilder::address(addr)}, p);
//   Value v = ptx.launch(b, loc).front();
//
// gives `mov.b32 $0, 0;\n\t@$2 ld.global.b32 $0, [ $1 + 0 ];` with
// constraints `=r,l,b`.  LLVM numbers asm operands outputs first, then
// inputs, so all outputs are declared before any input.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_CONVERSION_TILEGPUTOLLVM_PTXBUILDER_H
#define WARPFORGE_CONVERSION_TILEGPUTOLLVM_PTXBUILDER_H

#include "warpforge/Conversion/TileGPUToLLVM/TargetInfo.h"

#include "mlir/IR/Builders.h"

#include <optional>
#include <string>

namespace warpforge {

/// The constraint of a register of `bits` (at most 64) holding an integer:
/// `h` (16 bits and narrower, zero-extended), `r` (32) or `l` (64).
llvm::StringRef getRegisterConstraint(unsigned bits);

/// The constraint of a shared-memory address: a 32-bit register, as
/// shared pointers are (TargetInfo::kSharedPointerBits), so that no 64-bit
/// copy of the address is made.
inline constexpr llvm::StringLiteral kSharedPointerConstraint = "r";
static_assert(TargetInfo::kSharedPointerBits == 32,
              "shared-memory addresses are passed in 32-bit registers");

class PTXBuilder {
public:
  /// An asm operand, written `$<index>` in the instructions.
  class Operand {
  public:
    unsigned getIndex() const { return index; }
    std::string str() const { return "$" + std::to_string(index); }
    operator std::string() const { return str(); }

  private:
    friend class PTXBuilder;
    explicit Operand(unsigned index) : index(index) {}
    unsigned index;
  };

  /// A register the asm writes, of `type`, with register constraint
  /// `constraint` (`r`, `l`, `h`, `f`; the `=` is added).
  Operand addOutput(llvm::StringRef constraint, mlir::Type type);
  /// An input: a register (`r`, `l`, `h`, `f`), a predicate (`b`) or an
  /// immediate (`n`, `value` a constant).
  Operand addInput(mlir::Value value, llvm::StringRef constraint);
  /// An input that is `output`'s initial value (read-write registers: the
  /// asm reads `value` and writes the result in the same register).
  Operand addTiedInput(mlir::Value value, Operand output);

  /// Appends the instruction `opcode args...;`, with `@pred ` before it
  /// when given (a `b` operand).  Instructions are separated by `\n\t`.
  PTXBuilder &instr(llvm::StringRef opcode,
                    llvm::ArrayRef<std::string> args = {},
                    std::optional<Operand> pred = std::nullopt);
  /// Appends a line as it is (braces opening and closing a scope).
  PTXBuilder &line(llvm::StringRef text);

  /// `[ $i + 0 ]`: the address operand of a global access.
  static std::string address(Operand ptr);
  /// `{$i, $j, ...}`: a vector operand.
  static std::string vector(llvm::ArrayRef<Operand> elements);

  /// The asm text and constraints so far (for tests and diagnostics).
  std::string getAsmString() const;
  std::string getConstraints() const;

  /// Creates the `llvm.inline_asm` and returns its outputs, in declaration
  /// order (several outputs come back as a struct, unpacked here).  An asm
  /// without side effects may be moved or removed by LLVM like any pure
  /// computation; memory accesses and synchronization must keep them.
  llvm::SmallVector<mlir::Value> launch(mlir::OpBuilder &b, mlir::Location loc,
                                        bool hasSideEffects = true) const;

private:
  llvm::SmallVector<std::string> constraints;
  llvm::SmallVector<mlir::Type> outputTypes;
  llvm::SmallVector<mlir::Value> inputs;
  llvm::SmallVector<std::string> lines;
};

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILEGPUTOLLVM_PTXBUILDER_H
