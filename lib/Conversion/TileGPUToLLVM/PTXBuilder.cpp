//===- PTXBuilder.cpp - Inline PTX, assembled in one place ----------------===//

#include "warpforge/Conversion/TileGPUToLLVM/PTXBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace warpforge {

StringRef getRegisterConstraint(unsigned bits) {
  assert(bits <= 64 && "no register is that wide");
  if (bits <= 16)
    return "h";
  return bits <= 32 ? "r" : "l";
}

PTXBuilder::Operand PTXBuilder::addOutput(StringRef constraint, Type type) {
  assert(inputs.empty() && "outputs are numbered before inputs");
  constraints.push_back(("=" + constraint).str());
  outputTypes.push_back(type);
  return Operand(outputTypes.size() - 1);
}

PTXBuilder::Operand PTXBuilder::addInput(Value value, StringRef constraint) {
  constraints.push_back(constraint.str());
  inputs.push_back(value);
  return Operand(outputTypes.size() + inputs.size() - 1);
}

PTXBuilder::Operand PTXBuilder::addTiedInput(Value value, Operand output) {
  assert(output.getIndex() < outputTypes.size() && "not an output");
  return addInput(value, std::to_string(output.getIndex()));
}

PTXBuilder &PTXBuilder::instr(StringRef opcode, ArrayRef<std::string> args,
                              std::optional<Operand> pred) {
  std::string text;
  if (pred)
    text = "@" + pred->str() + " ";
  text += opcode.str();
  if (!args.empty())
    text += " " + llvm::join(args, ", ");
  lines.push_back(text + ";");
  return *this;
}

PTXBuilder &PTXBuilder::line(StringRef text) {
  lines.push_back(text.str());
  return *this;
}

std::string PTXBuilder::address(Operand ptr) {
  return "[ " + ptr.str() + " + 0 ]";
}

std::string PTXBuilder::vector(ArrayRef<Operand> elements) {
  SmallVector<std::string> names;
  for (Operand e : elements)
    names.push_back(e.str());
  return "{" + llvm::join(names, ", ") + "}";
}

std::string PTXBuilder::getAsmString() const {
  return llvm::join(lines, "\n\t");
}

std::string PTXBuilder::getConstraints() const {
  return llvm::join(constraints, ",");
}

SmallVector<Value> PTXBuilder::launch(OpBuilder &b, Location loc,
                                      bool hasSideEffects) const {
  // LLVM gives an asm one result: nothing, the single output, or a struct
  // of all of them.
  SmallVector<Type, 1> resultTypes;
  if (outputTypes.size() == 1)
    resultTypes.push_back(outputTypes.front());
  else if (outputTypes.size() > 1)
    resultTypes.push_back(
        LLVM::LLVMStructType::getLiteral(b.getContext(), outputTypes));
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resultTypes, inputs, getAsmString(), getConstraints(),
      hasSideEffects, /*is_align_stack=*/false, LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr{}, ArrayAttr{});
  if (outputTypes.size() <= 1)
    return SmallVector<Value>(op->getResults());
  SmallVector<Value> results;
  for (unsigned i = 0; i < outputTypes.size(); ++i)
    results.push_back(LLVM::ExtractValueOp::create(b, loc, op.getResult(0), i));
  return results;
}

} // namespace warpforge
