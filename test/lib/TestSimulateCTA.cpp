//===- TestSimulateCTA.cpp - Run a lowered kernel's CTA on the CPU --------===//
//
// `-test-simulate-cta` executes the straight-line body of a kernel lowered
// by convert-tilegpu-to-llvm for every thread of one CTA, in lockstep (one
// op for all threads, then the next), and prints what the kernel stored to
// global memory.  It exists to check the index math of reductions, scans
// and layout exchanges without a GPU: warp shuffles read the other lanes'
// operands, shared memory is one byte array, barriers are no-ops (lockstep
// already orders every access; barrier placement is checked by FileCheck
// tests instead), and the inline PTX the lowering emits for global and
// predicated shared accesses is interpreted, as are the cp.async copies
// (complete at once), stmatrix, vectors (LLVM vector values, loads and
// stores) and
// llvm.fma (in double precision, rounded to the type: exact for the small
// integers the inputs hold), and mma.sync and ldmatrix, warp by warp, from the PTX ISA's
// fragment layouts (an independent statement of where each lane's
// registers sit, against which the layouts are checked), and wgmma
// (f16/bf16 operands, f32 accumulators), warpgroup by warpgroup: its
// accumulator and register-A fragments from the PTX ISA, its shared
// operands read through their matrix descriptors (start address, LBO,
// SBO, swizzle mode and the transpose immediates, decoded here on their
// own), complete at once (fence, commit and wait pass values through).
//
// Each pointer argument k points to a buffer of `elements` elements of
// type `arg-types[k]`, filled with ((i * 7919 + k * 104729) mod 201) - 100
// (small integers, so that float sums are exact in any order).  The output
// is one line per element written: `arg<k>[<index>] = <value>` (and, with
// dump-shared-bytes, the bytes of shared memory, to check placements).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

#include <map>

using namespace mlir;

namespace {

constexpr uint64_t kSharedBase = 0x700000000000ull;
constexpr uint64_t kGlobalBase = 0x100000000000ull; // arg k at (k + 1) *

struct Buffer {
  std::vector<uint8_t> bytes;
  std::vector<bool> written;
};

class Simulator {
public:
  /// `sharedBytes`: the kernel's shared memory (tilegpu.shared, as
  /// allocate-shared-memory sized it), so that an access past what the
  /// kernel was given is an error as on the GPU; 0: the 256 KiB default.
  Simulator(unsigned threads, ArrayRef<std::string> argTypes,
            int64_t elements, int64_t sharedBytes = 0)
      : threads(threads), argTypes(argTypes), elements(elements),
        shared(sharedBytes > 0 ? sharedBytes : 256 * 1024) {}

  LogicalResult run(LLVM::LLVMFuncOp func);
  void print(llvm::raw_ostream &os, int64_t sharedBytes);

private:
  using Regs = std::vector<std::vector<uint64_t>>; // [thread][field]

  unsigned threads;
  ArrayRef<std::string> argTypes;
  int64_t elements;
  std::vector<uint8_t> shared;
  std::vector<Buffer> globals;
  llvm::DenseMap<Value, Regs> values;

  static unsigned bitsOf(Type t) {
    if (isa<LLVM::LLVMPointerType>(t))
      return 64;
    return t.getIntOrFloatBitWidth();
  }
  static unsigned bytesOf(Type t) { return std::max(1u, (bitsOf(t) + 7) / 8); }
  static uint64_t mask(uint64_t v, unsigned bits) {
    return bits >= 64 ? v : v & ((1ull << bits) - 1);
  }
  static int64_t sext(uint64_t v, unsigned bits) {
    if (bits >= 64)
      return int64_t(v);
    uint64_t m = 1ull << (bits - 1);
    v = mask(v, bits);
    return int64_t((v ^ m) - m);
  }
  static const llvm::fltSemantics &semantics(Type t) {
    if (t.isF16())
      return llvm::APFloat::IEEEhalf();
    if (t.isBF16())
      return llvm::APFloat::BFloat();
    if (t.isF32())
      return llvm::APFloat::IEEEsingle();
    return llvm::APFloat::IEEEdouble();
  }
  static double toDouble(uint64_t bits, Type t) {
    llvm::APFloat f(semantics(t), llvm::APInt(bitsOf(t), bits));
    bool lost;
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return f.convertToDouble();
  }
  static uint64_t fromDouble(double d, Type t) {
    llvm::APFloat f(d);
    bool lost;
    f.convert(semantics(t), llvm::APFloat::rmNearestTiesToEven, &lost);
    return f.bitcastToAPInt().getZExtValue();
  }

  uint8_t *address(uint64_t addr, unsigned bytes, bool write);
  uint64_t loadMem(uint64_t addr, unsigned bytes) {
    uint8_t *p = address(addr, bytes, false);
    uint64_t v = 0;
    memcpy(&v, p, bytes);
    return v;
  }
  void storeMem(uint64_t addr, uint64_t v, unsigned bytes) {
    uint8_t *p = address(addr, bytes, true);
    memcpy(p, &v, bytes);
  }
  LogicalResult step(Operation *op);
  LogicalResult inlineAsm(LLVM::InlineAsmOp op);
  LogicalResult mmaSync(LLVM::InlineAsmOp op);
  LogicalResult wgmma(LLVM::InlineAsmOp op);
  double wgmmaSharedElement(uint64_t desc, bool mnMajor, unsigned row,
                            unsigned k, Type elem);
  LogicalResult ldMatrix(LLVM::InlineAsmOp op);
  uint64_t scalar(Value v, unsigned t) {
    auto it = values.find(v);
    if (it == values.end()) {
      error = "use of a value the simulation did not compute";
      return 0;
    }
    return it->second[t][0];
  }
  std::string error;
};

uint8_t *Simulator::address(uint64_t addr, unsigned bytes, bool write) {
  if (addr >= kSharedBase) {
    uint64_t off = addr - kSharedBase;
    if (off + bytes > shared.size()) {
      error = "shared access out of bounds at " + std::to_string(off);
      static uint8_t scratch[16];
      return scratch;
    }
    return &shared[off];
  }
  uint64_t k = addr / kGlobalBase - 1, off = addr % kGlobalBase;
  if (k >= globals.size() || off + bytes > globals[k].bytes.size()) {
    error = "global access out of bounds: arg " + std::to_string(k) +
            " byte " + std::to_string(off);
    static uint8_t scratch[16];
    return scratch;
  }
  if (write)
    for (unsigned i = 0; i < bytes; ++i)
      globals[k].written[off + i] = true;
  return &globals[k].bytes[off];
}

LogicalResult Simulator::run(LLVM::LLVMFuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("simulation needs a single-block kernel");
  Block &body = func.getBody().front();
  for (auto [k, arg] : llvm::enumerate(body.getArguments())) {
    Regs regs(threads);
    if (isa<LLVM::LLVMPointerType>(arg.getType())) {
      if (k >= argTypes.size())
        return func.emitError("no arg-types entry for argument ") << k;
      StringRef type = argTypes[k];
      unsigned bytes = type == "f64" || type == "i64"   ? 8
                       : type == "f16" || type == "bf16" ||
                               type == "i16"
                           ? 2
                       : type == "i8" ? 1
                                      : 4;
      Buffer buf;
      buf.bytes.resize(elements * bytes);
      buf.written.resize(elements * bytes);
      for (int64_t i = 0; i < elements; ++i) {
        int64_t v = (i * 7919 + int64_t(k) * 104729) % 201 - 100;
        uint64_t bits = uint64_t(v);
        if (type == "f32")
          bits = fromDouble(v, Float32Type::get(func.getContext()));
        else if (type == "f64")
          bits = fromDouble(v, Float64Type::get(func.getContext()));
        else if (type == "f16")
          bits = fromDouble(v, Float16Type::get(func.getContext()));
        else if (type == "bf16")
          bits = fromDouble(v, BFloat16Type::get(func.getContext()));
        memcpy(&buf.bytes[i * bytes], &bits, bytes);
      }
      globals.push_back(std::move(buf));
      for (auto &r : regs)
        r = {(k + 1) * kGlobalBase};
    } else {
      return func.emitError("simulation supports pointer arguments only");
    }
    values[arg] = std::move(regs);
  }
  for (Operation &op : body) {
    if (failed(step(&op)))
      return failure();
    if (!error.empty())
      return op.emitError(error);
  }
  return success();
}

void Simulator::print(llvm::raw_ostream &os, int64_t sharedBytes) {
  for (int64_t i = 0; i < sharedBytes && i < int64_t(shared.size()); ++i)
    os << "smem[" << i << "] = " << unsigned(shared[i]) << "\n";
  for (auto [k, buf] : llvm::enumerate(globals)) {
    StringRef type = argTypes[k];
    unsigned bytes = buf.bytes.size() / elements;
    for (int64_t i = 0; i < elements; ++i) {
      if (!buf.written[i * bytes])
        continue;
      uint64_t bits = 0;
      memcpy(&bits, &buf.bytes[i * bytes], bytes);
      os << "arg" << k << "[" << i << "] = ";
      if (type.starts_with("f") || type == "bf16") {
        const llvm::fltSemantics &sem =
            type == "f32"   ? llvm::APFloat::IEEEsingle()
            : type == "f64" ? llvm::APFloat::IEEEdouble()
            : type == "f16" ? llvm::APFloat::IEEEhalf()
                            : llvm::APFloat::BFloat();
        llvm::APFloat f(sem, llvm::APInt(bytes * 8, bits));
        bool lost;
        f.convert(llvm::APFloat::IEEEdouble(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
        os << llvm::format("%.17g", f.convertToDouble());
      } else {
        os << sext(bits, bytes * 8);
      }
      os << "\n";
    }
  }
}

LogicalResult Simulator::step(Operation *op) {
  auto results = [&]() -> Regs & { return values[op->getResult(0)]; };
  auto fresh = [&](unsigned fields = 1) -> Regs & {
    Regs &r = values[op->getResult(0)];
    r.assign(threads, std::vector<uint64_t>(fields, 0));
    return r;
  };
  Type type = op->getNumResults() ? op->getResult(0).getType() : Type();
  // Element-wise integer and float binary ops.
  auto binary = [&](auto fn) {
    Regs &r = fresh();
    for (unsigned t = 0; t < threads; ++t)
      r[t][0] = fn(scalar(op->getOperand(0), t), scalar(op->getOperand(1), t));
  };
  unsigned bits = type && !isa<LLVM::LLVMStructType>(type) &&
                          (type.isIntOrFloat() ||
                           isa<LLVM::LLVMPointerType>(type))
                      ? bitsOf(type)
                      : 0;
  auto ibin = [&](auto fn) {
    binary([&](uint64_t a, uint64_t b) { return mask(fn(a, b), bits); });
  };
  auto fbin = [&](auto fn) {
    binary([&](uint64_t a, uint64_t b) {
      return fromDouble(fn(toDouble(a, type), toDouble(b, type)), type);
    });
  };

  if (auto c = dyn_cast<LLVM::ConstantOp>(op)) {
    Regs &r = fresh();
    uint64_t v = 0;
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      v = mask(i.getValue().getZExtValue(), bits);
    else if (auto f = dyn_cast<FloatAttr>(c.getValue()))
      v = f.getValue().bitcastToAPInt().getZExtValue();
    else
      return op->emitError("unsupported constant");
    for (auto &x : r)
      x[0] = v;
    return success();
  }
  if (isa<LLVM::UndefOp, LLVM::PoisonOp, LLVM::ZeroOp>(op)) {
    unsigned fields = 1;
    if (auto s = dyn_cast<LLVM::LLVMStructType>(type))
      fields = s.getBody().size();
    if (auto v = dyn_cast<VectorType>(type))
      fields = v.getNumElements();
    fresh(fields);
    return success();
  }
  if (auto a = dyn_cast<LLVM::AddressOfOp>(op)) {
    if (a.getGlobalName() != "warpforge_smem")
      return op->emitError("unknown global");
    for (auto &x : fresh())
      x[0] = kSharedBase;
    return success();
  }
  if (auto ins = dyn_cast<LLVM::InsertValueOp>(op)) {
    Regs r = values[ins.getContainer()];
    for (unsigned t = 0; t < threads; ++t)
      r[t][ins.getPosition()[0]] = scalar(ins.getValue(), t);
    values[op->getResult(0)] = std::move(r);
    return success();
  }
  if (auto ext = dyn_cast<LLVM::ExtractValueOp>(op)) {
    Regs &src = values[ext.getContainer()];
    Regs r(threads);
    for (unsigned t = 0; t < threads; ++t)
      r[t] = {src[t][ext.getPosition()[0]]};
    values[op->getResult(0)] = std::move(r);
    return success();
  }
  // Vectors are held like structs, one field per element.
  if (auto ins = dyn_cast<LLVM::InsertElementOp>(op)) {
    Regs r = values[ins.getVector()];
    for (unsigned t = 0; t < threads; ++t)
      r[t][scalar(ins.getPosition(), t)] = scalar(ins.getValue(), t);
    values[op->getResult(0)] = std::move(r);
    return success();
  }
  if (auto ext = dyn_cast<LLVM::ExtractElementOp>(op)) {
    Regs &src = values[ext.getVector()];
    Regs r(threads);
    for (unsigned t = 0; t < threads; ++t)
      r[t] = {src[t][scalar(ext.getPosition(), t)]};
    values[op->getResult(0)] = std::move(r);
    return success();
  }
  if (isa<NVVM::ThreadIdXOp>(op)) {
    Regs &r = fresh();
    for (unsigned t = 0; t < threads; ++t)
      r[t][0] = t;
    return success();
  }
  if (isa<NVVM::ThreadIdYOp, NVVM::ThreadIdZOp, NVVM::BlockIdXOp,
          NVVM::BlockIdYOp, NVVM::BlockIdZOp>(op)) {
    fresh();
    return success();
  }
  // Lockstep completes every cp.async at once and orders every access:
  // groups, waits and proxy fences have nothing left to do.
  if (isa<NVVM::Barrier0Op, LLVM::ReturnOp, NVVM::CpAsyncCommitGroupOp,
          NVVM::CpAsyncWaitGroupOp, NVVM::FenceProxyOp,
          NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp>(op))
    return success();
  if (auto st = dyn_cast<NVVM::StMatrixOp>(op)) {
    // stmatrix m8n8 b16 (not transposed): lane l gives the address of row
    // l % 8 of matrix l / 8; register q of lane l holds elements
    // (l / 4, 2 (l % 4) + {0, 1}) of matrix q.
    if (st.getLayout() != NVVM::MMALayout::row ||
        st.getShape().getM() != 8 || st.getShape().getN() != 8)
      return op->emitError("simulation supports stmatrix m8n8 row only");
    unsigned count = st.getSources().size();
    for (unsigned w = 0; w * 32 < threads; ++w)
      for (unsigned l = 0; l < 32; ++l)
        for (unsigned q = 0; q < count; ++q) {
          uint64_t row = scalar(st.getPtr(), w * 32 + 8 * q + l / 4);
          storeMem(row + 4 * (l % 4),
                   mask(scalar(st.getSources()[q], w * 32 + l), 32), 4);
        }
    return success();
  }
  if (auto shfl = dyn_cast<NVVM::ShflOp>(op)) {
    Regs &r = fresh();
    Regs &val = values[shfl.getVal()];
    for (unsigned t = 0; t < threads; ++t) {
      unsigned lane = t % 32;
      uint64_t b = scalar(shfl.getOffset(), t);
      unsigned src;
      switch (shfl.getKind()) {
      case NVVM::ShflKind::bfly:
        src = lane ^ (b & 31);
        break;
      case NVVM::ShflKind::idx:
        src = b & 31;
        break;
      default:
        return op->emitError("unsupported shuffle kind");
      }
      r[t][0] = val[t - lane + src][0];
    }
    return success();
  }
  if (isa<LLVM::AddOp>(op))
    return ibin([](uint64_t a, uint64_t b) { return a + b; }), success();
  if (isa<LLVM::SubOp>(op))
    return ibin([](uint64_t a, uint64_t b) { return a - b; }), success();
  if (isa<LLVM::MulOp>(op))
    return ibin([](uint64_t a, uint64_t b) { return a * b; }), success();
  if (isa<LLVM::AndOp>(op))
    return ibin([](uint64_t a, uint64_t b) { return a & b; }), success();
  if (isa<LLVM::OrOp>(op))
    return ibin([](uint64_t a, uint64_t b) { return a | b; }), success();
  if (isa<LLVM::XOrOp>(op))
    return ibin([](uint64_t a, uint64_t b) { return a ^ b; }), success();
  if (isa<LLVM::ShlOp>(op))
    return ibin([](uint64_t a, uint64_t b) { return b >= 64 ? 0 : a << b; }),
           success();
  if (isa<LLVM::LShrOp>(op))
    return ibin([](uint64_t a, uint64_t b) { return b >= 64 ? 0 : a >> b; }),
           success();
  if (isa<LLVM::AShrOp>(op))
    return ibin([&](uint64_t a, uint64_t b) {
             return uint64_t(sext(a, bits) >> std::min<uint64_t>(b, 63));
           }),
           success();
  if (isa<LLVM::UDivOp>(op))
    return ibin([&](uint64_t a, uint64_t b) { return b ? a / b : 0; }),
           success();
  if (isa<LLVM::URemOp>(op))
    return ibin([&](uint64_t a, uint64_t b) { return b ? a % b : 0; }),
           success();
  if (isa<LLVM::SDivOp>(op))
    return ibin([&](uint64_t a, uint64_t b) {
             return sext(b, bits) ? uint64_t(sext(a, bits) / sext(b, bits))
                                  : 0;
           }),
           success();
  if (isa<LLVM::SRemOp>(op))
    return ibin([&](uint64_t a, uint64_t b) {
             return sext(b, bits) ? uint64_t(sext(a, bits) % sext(b, bits))
                                  : 0;
           }),
           success();
  if (isa<LLVM::FMAOp>(op)) {
    Regs &r = fresh();
    for (unsigned t = 0; t < threads; ++t)
      r[t][0] = fromDouble(
          std::fma(toDouble(scalar(op->getOperand(0), t), type),
                   toDouble(scalar(op->getOperand(1), t), type),
                   toDouble(scalar(op->getOperand(2), t), type)),
          type);
    return success();
  }
  if (isa<LLVM::FAddOp>(op))
    return fbin([](double a, double b) { return a + b; }), success();
  if (isa<LLVM::FSubOp>(op))
    return fbin([](double a, double b) { return a - b; }), success();
  if (isa<LLVM::FMulOp>(op))
    return fbin([](double a, double b) { return a * b; }), success();
  if (isa<LLVM::FDivOp>(op))
    return fbin([](double a, double b) { return a / b; }), success();
  if (isa<LLVM::MaxNumOp>(op))
    return fbin([](double a, double b) { return std::fmax(a, b); }), success();
  if (isa<LLVM::MinNumOp>(op))
    return fbin([](double a, double b) { return std::fmin(a, b); }), success();
  if (isa<LLVM::MaximumOp>(op))
    return fbin([](double a, double b) {
             return std::isnan(a) || std::isnan(b) ? NAN : std::fmax(a, b);
           }),
           success();
  if (isa<LLVM::MinimumOp>(op))
    return fbin([](double a, double b) {
             return std::isnan(a) || std::isnan(b) ? NAN : std::fmin(a, b);
           }),
           success();
  if (isa<LLVM::SMaxOp, LLVM::SMinOp, LLVM::UMaxOp, LLVM::UMinOp>(op)) {
    bool isMax = isa<LLVM::SMaxOp, LLVM::UMaxOp>(op);
    bool isSigned = isa<LLVM::SMaxOp, LLVM::SMinOp>(op);
    return ibin([&](uint64_t a, uint64_t b) {
             bool less = isSigned ? sext(a, bits) < sext(b, bits)
                                  : mask(a, bits) < mask(b, bits);
             return (less != isMax) ? a : b;
           }),
           success();
  }
  if (auto icmp = dyn_cast<LLVM::ICmpOp>(op)) {
    unsigned w = bitsOf(icmp.getLhs().getType());
    binary([&](uint64_t a, uint64_t b) -> uint64_t {
      int64_t sa = sext(a, w), sb = sext(b, w);
      a = mask(a, w);
      b = mask(b, w);
      switch (icmp.getPredicate()) {
      case LLVM::ICmpPredicate::eq: return a == b;
      case LLVM::ICmpPredicate::ne: return a != b;
      case LLVM::ICmpPredicate::slt: return sa < sb;
      case LLVM::ICmpPredicate::sle: return sa <= sb;
      case LLVM::ICmpPredicate::sgt: return sa > sb;
      case LLVM::ICmpPredicate::sge: return sa >= sb;
      case LLVM::ICmpPredicate::ult: return a < b;
      case LLVM::ICmpPredicate::ule: return a <= b;
      case LLVM::ICmpPredicate::ugt: return a > b;
      case LLVM::ICmpPredicate::uge: return a >= b;
      }
      return 0;
    });
    return success();
  }
  if (auto fcmp = dyn_cast<LLVM::FCmpOp>(op)) {
    Type ft = fcmp.getLhs().getType();
    binary([&](uint64_t ab, uint64_t bb) -> uint64_t {
      double a = toDouble(ab, ft), b = toDouble(bb, ft);
      bool uno = std::isnan(a) || std::isnan(b);
      switch (fcmp.getPredicate()) {
      case LLVM::FCmpPredicate::_false: return 0;
      case LLVM::FCmpPredicate::oeq: return !uno && a == b;
      case LLVM::FCmpPredicate::ogt: return !uno && a > b;
      case LLVM::FCmpPredicate::oge: return !uno && a >= b;
      case LLVM::FCmpPredicate::olt: return !uno && a < b;
      case LLVM::FCmpPredicate::ole: return !uno && a <= b;
      case LLVM::FCmpPredicate::one: return !uno && a != b;
      case LLVM::FCmpPredicate::ord: return !uno;
      case LLVM::FCmpPredicate::ueq: return uno || a == b;
      case LLVM::FCmpPredicate::ugt: return uno || a > b;
      case LLVM::FCmpPredicate::uge: return uno || a >= b;
      case LLVM::FCmpPredicate::ult: return uno || a < b;
      case LLVM::FCmpPredicate::ule: return uno || a <= b;
      case LLVM::FCmpPredicate::une: return uno || a != b;
      case LLVM::FCmpPredicate::uno: return uno;
      case LLVM::FCmpPredicate::_true: return 1;
      }
      return 0;
    });
    return success();
  }
  if (auto sel = dyn_cast<LLVM::SelectOp>(op)) {
    Regs &c = values[sel.getCondition()];
    Regs &a = values[sel.getTrueValue()];
    Regs &b = values[sel.getFalseValue()];
    Regs r(threads);
    for (unsigned t = 0; t < threads; ++t)
      r[t] = (c[t][0] & 1) ? a[t] : b[t];
    values[op->getResult(0)] = std::move(r);
    return success();
  }
  // A bitcast to or from a vector (two 16-bit elements in one i32, say):
  // lane i holds bits [i * w, (i + 1) * w) of the word, at most 64 bits.
  if (isa<LLVM::BitcastOp>(op) &&
      (isa<VectorType>(op->getOperand(0).getType()) || isa<VectorType>(type))) {
    auto lanes = [](Type t) -> std::pair<unsigned, unsigned> {
      if (auto v = dyn_cast<VectorType>(t))
        return {v.getNumElements(), bitsOf(v.getElementType())};
      return {1, bitsOf(t)};
    };
    auto [fromLanes, fromBits] = lanes(op->getOperand(0).getType());
    auto [toLanes, toBits] = lanes(type);
    if (fromLanes * fromBits > 64 || fromLanes * fromBits != toLanes * toBits)
      return op->emitError("simulation supports bitcasts of up to 64 bits");
    Regs &src = values[op->getOperand(0)];
    Regs r(threads, std::vector<uint64_t>(toLanes, 0));
    for (unsigned t = 0; t < threads; ++t) {
      uint64_t word = 0;
      for (unsigned i = 0; i < fromLanes; ++i)
        word |= mask(src[t][i], fromBits) << (i * fromBits);
      for (unsigned i = 0; i < toLanes; ++i)
        r[t][i] = mask(word >> (i * toBits), toBits);
    }
    values[op->getResult(0)] = std::move(r);
    return success();
  }
  if (isa<LLVM::ZExtOp, LLVM::TruncOp, LLVM::BitcastOp, LLVM::PtrToIntOp,
          LLVM::IntToPtrOp, LLVM::SExtOp>(op)) {
    unsigned from = bitsOf(op->getOperand(0).getType());
    Regs &r = fresh();
    for (unsigned t = 0; t < threads; ++t) {
      uint64_t v = scalar(op->getOperand(0), t);
      r[t][0] = isa<LLVM::SExtOp>(op) ? mask(uint64_t(sext(v, from)), bits)
                                      : mask(v, bits);
    }
    return success();
  }
  if (isa<LLVM::SIToFPOp, LLVM::UIToFPOp, LLVM::FPToSIOp, LLVM::FPExtOp,
          LLVM::FPTruncOp>(op)) {
    Type from = op->getOperand(0).getType();
    unsigned fromBits = bitsOf(from);
    Regs &r = fresh();
    for (unsigned t = 0; t < threads; ++t) {
      uint64_t v = scalar(op->getOperand(0), t);
      if (isa<LLVM::SIToFPOp>(op))
        r[t][0] = fromDouble(double(sext(v, fromBits)), type);
      else if (isa<LLVM::UIToFPOp>(op))
        r[t][0] = fromDouble(double(mask(v, fromBits)), type);
      else if (isa<LLVM::FPToSIOp>(op))
        r[t][0] = mask(uint64_t(int64_t(toDouble(v, from))), bits);
      else
        r[t][0] = fromDouble(toDouble(v, from), type);
    }
    return success();
  }
  if (auto gepOp = dyn_cast<LLVM::GEPOp>(op)) {
    if (gepOp.getIndices().size() != 1)
      return op->emitError("simulation supports single-index GEPs");
    Type elem = gepOp.getElemType();
    unsigned size = bytesOf(elem);
    Regs &r = fresh();
    for (unsigned t = 0; t < threads; ++t) {
      int64_t index;
      auto idx = gepOp.getIndices()[0];
      if (auto v = dyn_cast<Value>(idx))
        index = sext(scalar(v, t), bitsOf(v.getType()));
      else
        index = cast<IntegerAttr>(cast<Attribute>(idx)).getInt();
      r[t][0] = scalar(gepOp.getBase(), t) + index * int64_t(size);
    }
    return success();
  }
  if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
    auto vec = dyn_cast<VectorType>(type);
    unsigned fields = vec ? vec.getNumElements() : 1;
    unsigned bytes = bytesOf(vec ? vec.getElementType() : type);
    Regs &r = fresh(fields);
    for (unsigned t = 0; t < threads; ++t)
      for (unsigned i = 0; i < fields; ++i)
        r[t][i] = loadMem(scalar(load.getAddr(), t) + i * bytes, bytes);
    return success();
  }
  if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
    Type valueType = store.getValue().getType();
    auto vec = dyn_cast<VectorType>(valueType);
    unsigned fields = vec ? vec.getNumElements() : 1;
    unsigned bytes = bytesOf(vec ? vec.getElementType() : valueType);
    Regs &v = values[store.getValue()];
    for (unsigned t = 0; t < threads; ++t)
      for (unsigned i = 0; i < fields; ++i)
        storeMem(scalar(store.getAddr(), t) + i * bytes, v[t][i], bytes);
    return success();
  }
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op))
    return inlineAsm(asmOp);
  return op->emitError("simulation does not support this op");
}

/// The PTX the lowering emits for memory accesses: `mov.bN $r, imm|$x`,
/// `[@$p] ld.<space...>.bN $r, [ $a + 0 ]` and `[@$p] st.<space...>.bN
/// [ $a + 0 ], $v`, scalar accesses only.
LogicalResult Simulator::inlineAsm(LLVM::InlineAsmOp op) {
  if (StringRef(op.getAsmString()).starts_with("mma.sync.aligned.m16n8k"))
    return mmaSync(op);
  if (StringRef(op.getAsmString()).starts_with("ldmatrix.sync.aligned.m8n8"))
    return ldMatrix(op);
  if (StringRef(op.getAsmString()).contains("wgmma.mma_async"))
    return wgmma(op);
  // wgmma.wait_group: the products are complete already; the accumulators
  // tied through it come out as they went in.
  if (StringRef(op.getAsmString()).starts_with("wgmma.wait_group")) {
    auto type = dyn_cast<LLVM::LLVMStructType>(op.getResult(0).getType());
    unsigned n = type ? type.getBody().size() : 1;
    Regs out(threads, std::vector<uint64_t>(n, 0));
    for (unsigned t = 0; t < threads; ++t)
      for (unsigned i = 0; i < n; ++i)
        out[t][i] = scalar(op.getOperands()[i], t);
    values[op.getResult(0)] = std::move(out);
    return success();
  }
  unsigned numResults = op.getNumResults();
  if (numResults > 1 ||
      (numResults && isa<LLVM::LLVMStructType>(op.getResult(0).getType())))
    return op.emitError("simulation supports scalar inline asm only");
  SmallVector<StringRef> instrs;
  StringRef(op.getAsmString()).split(instrs, ';', -1, false);
  std::vector<uint64_t> result(threads, 0);
  auto operand = [&](StringRef ref, unsigned t) -> uint64_t {
    ref = ref.trim();
    if (!ref.consume_front("$")) {
      uint64_t v = 0;
      ref.getAsInteger(0, v);
      return v;
    }
    unsigned k = 0;
    ref.getAsInteger(10, k);
    if (k < numResults)
      return result[t];
    return scalar(op.getOperands()[k - numResults], t);
  };
  for (StringRef instr : instrs) {
    instr = instr.trim();
    if (instr.empty())
      continue;
    StringRef pred;
    if (instr.starts_with("@")) {
      auto [p, rest] = instr.split(' ');
      pred = p.drop_front();
      instr = rest.trim();
    }
    auto [opcode, args] = instr.split(' ');
    unsigned bits = 0;
    StringRef width = opcode.substr(opcode.rfind('.') + 2);
    width.getAsInteger(10, bits);
    unsigned bytes = std::max(1u, bits / 8);
    SmallVector<StringRef> parts;
    args.split(parts, ',');
    auto addrOf = [&](StringRef s, unsigned t) {
      s = s.trim().drop_front().drop_back(); // [ ... ]
      return operand(s.split('+').first, t);
    };
    for (unsigned t = 0; t < threads; ++t) {
      if (!pred.empty() && !(operand(pred, t) & 1))
        continue;
      if (opcode.starts_with("cp.async.")) {
        // [dst], [src], bytes[, srcSize]: the rest of dst is zero-filled.
        uint64_t dst = addrOf(parts[0], t), src = addrOf(parts[1], t);
        uint64_t size = operand(parts[2], t);
        uint64_t srcSize = parts.size() > 3 ? operand(parts[3], t) : size;
        for (uint64_t i = 0; i < size; ++i)
          storeMem(dst + i, i < srcSize ? loadMem(src + i, 1) : 0, 1);
      } else if (opcode == "cvt.rn.f16x2.f32" || opcode == "cvt.rn.bf16x2.f32") {
        // d = {cvt(a) in the upper half, cvt(b) in the lower}.
        MLIRContext *ctx = op.getContext();
        Type f32 = Float32Type::get(ctx);
        Type half = opcode.starts_with("cvt.rn.f16")
                        ? Type(Float16Type::get(ctx))
                        : Type(BFloat16Type::get(ctx));
        auto cvt = [&](StringRef ref) {
          return fromDouble(toDouble(mask(operand(ref, t), 32), f32), half);
        };
        result[t] = (cvt(parts[1]) << 16) | cvt(parts[2]);
      } else if (opcode.starts_with("mov.")) {
        result[t] = operand(parts[1], t);
      } else if (opcode.starts_with("ld.")) {
        result[t] = loadMem(addrOf(parts[1], t), bytes);
      } else if (opcode.starts_with("st.")) {
        storeMem(addrOf(parts[0], t), operand(parts[1], t), bytes);
      } else {
        return op.emitError("simulation does not support `") << opcode << "`";
      }
    }
  }
  if (numResults) {
    Regs r(threads);
    for (unsigned t = 0; t < threads; ++t)
      r[t] = {mask(result[t], bitsOf(op.getResult(0).getType()))};
    values[op.getResult(0)] = std::move(r);
  }
  return success();
}

/// `mma.sync.aligned.m16n8k<K>.row.col[.satfinite].<d>.<a>.<b>.<c> {d},
/// {a}, {b}, {c}`, warp by warp: each lane's registers placed in the 16xK
/// A, Kx8 B and 16x8 C fragments as the PTX ISA places them (g = lane / 4,
/// t = lane % 4, kw elements of a register along K: A register r holds
/// row g + 8 (r % 2), K from 4 kw (r / 2) + kw t; B register r K from
/// 4 kw r + kw t, column g; C register r (32-bit accumulators) row
/// g + 8 (r / 2), column 2t + r % 2, or (f16 pairs) row g + 8 r, columns
/// 2t and 2t + 1), multiplied in double precision and rounded to the
/// accumulator's type (exact for the simulator's small integers).
LogicalResult Simulator::mmaSync(LLVM::InlineAsmOp op) {
  StringRef text = op.getAsmString();
  auto [opcode, args] = text.split(' ');
  SmallVector<StringRef> fields;
  opcode.split(fields, '.');
  // mma sync aligned m16n8kK row col [satfinite] d a b c
  StringRef dName = fields[fields.size() - 4], aName = fields[fields.size() - 3];
  MLIRContext *ctx = op.getContext();
  Type aType = aName == "f16"    ? Type(Float16Type::get(ctx))
               : aName == "bf16" ? Type(BFloat16Type::get(ctx))
               : aName == "tf32" ? Type(Float32Type::get(ctx))
                                 : Type(IntegerType::get(ctx, 8));
  Type dType = dName == "f16"   ? Type(Float16Type::get(ctx))
               : dName == "f32" ? Type(Float32Type::get(ctx))
                                : Type(IntegerType::get(ctx, 32));
  unsigned aBits = bitsOf(aType), kw = 32 / aBits, k = 8 * kw;
  // The four braced operand lists.
  SmallVector<SmallVector<unsigned>> lists;
  for (StringRef rest = args; !rest.empty();) {
    size_t open = rest.find('{'), close = rest.find('}');
    if (open == StringRef::npos || close == StringRef::npos)
      break;
    SmallVector<StringRef> refs;
    rest.slice(open + 1, close).split(refs, ',');
    SmallVector<unsigned> ids;
    for (StringRef ref : refs) {
      unsigned id = 0;
      ref.trim().drop_front().getAsInteger(10, id);
      ids.push_back(id);
    }
    lists.push_back(std::move(ids));
    rest = rest.drop_front(close + 1);
  }
  if (lists.size() != 4)
    return op.emitError("simulation: mma.sync needs 4 operand lists");
  auto type = dyn_cast<LLVM::LLVMStructType>(op.getResult(0).getType());
  unsigned numOutputs = type ? type.getBody().size() : 1;
  auto reg = [&](unsigned id, unsigned t) {
    return scalar(op.getOperands()[id - numOutputs], t);
  };
  auto element = [&](uint64_t word, unsigned e, Type elem) -> double {
    unsigned bits = bitsOf(elem);
    uint64_t v = mask(word >> (bits * e), bits);
    if (isa<IntegerType>(elem))
      return double(sext(v, bits));
    return toDouble(v, elem);
  };
  bool pairs = dType.isF16();
  Regs out(threads, std::vector<uint64_t>(numOutputs, 0));
  for (unsigned w = 0; w * 32 < threads; ++w) {
    std::vector<double> a(16 * k), b(k * 8), c(16 * 8);
    for (unsigned l = 0; l < 32; ++l) {
      unsigned t = w * 32 + l, g = l / 4, q = l % 4;
      for (unsigned r = 0; r < 4; ++r)
        for (unsigned e = 0; e < kw; ++e)
          a[(g + 8 * (r % 2)) * k + 4 * kw * (r / 2) + kw * q + e] =
              element(reg(lists[1][r], t), e, aType);
      for (unsigned r = 0; r < 2; ++r)
        for (unsigned e = 0; e < kw; ++e)
          b[(4 * kw * r + kw * q + e) * 8 + g] =
              element(reg(lists[2][r], t), e, aType);
      for (unsigned r = 0; r < lists[3].size(); ++r) {
        uint64_t word = reg(lists[3][r], t);
        if (pairs)
          for (unsigned e = 0; e < 2; ++e)
            c[(g + 8 * r) * 8 + 2 * q + e] = element(word, e, dType);
        else
          c[(g + 8 * (r / 2)) * 8 + 2 * q + r % 2] = element(word, 0, dType);
      }
    }
    std::vector<double> d(c);
    for (unsigned i = 0; i < 16; ++i)
      for (unsigned j = 0; j < 8; ++j)
        for (unsigned kk = 0; kk < k; ++kk)
          d[i * 8 + j] += a[i * k + kk] * b[kk * 8 + j];
    auto encode = [&](double v) -> uint64_t {
      if (isa<IntegerType>(dType))
        return mask(uint64_t(int64_t(v)), 32);
      return fromDouble(v, dType);
    };
    for (unsigned l = 0; l < 32; ++l) {
      unsigned t = w * 32 + l, g = l / 4, q = l % 4;
      for (unsigned r = 0; r < numOutputs; ++r) {
        if (pairs)
          out[t][r] = encode(d[(g + 8 * r) * 8 + 2 * q]) |
                      (encode(d[(g + 8 * r) * 8 + 2 * q + 1]) << 16);
        else
          out[t][r] = encode(d[(g + 8 * (r / 2)) * 8 + 2 * q + r % 2]);
      }
    }
  }
  values[op.getResult(0)] = std::move(out);
  return success();
}

/// Element (row, k) of a wgmma operand in shared memory, read through its
/// 64-bit matrix descriptor as the PTX ISA defines it (independently of
/// the lowering's derivation): start address bits 0-13, LBO bits 16-29,
/// SBO bits 32-45 (each >> 4), swizzle mode bits 62-63 (1: 128 bytes,
/// 2: 64, 3: 32). `row` runs along M (A) or N (B). K-major: a row's K
/// elements are contiguous, rows S bytes apart in groups of 8 every SBO.
/// MN-major: the MN elements are contiguous in atoms of S bytes, atoms LBO
/// apart; K rows S bytes apart in groups of 8 every SBO. The swizzle then
/// XORs the address's 16-byte chunk (bits 4 and up) with its bits 7 and
/// up (3, 2 or 1 bits).
double Simulator::wgmmaSharedElement(uint64_t desc, bool mnMajor,
                                     unsigned row, unsigned k, Type elem) {
  uint64_t start = (desc & 0x3FFF) << 4;
  uint64_t lbo = ((desc >> 16) & 0x3FFF) << 4;
  uint64_t sbo = ((desc >> 32) & 0x3FFF) << 4;
  unsigned mode = unsigned(desc >> 62);
  uint64_t s = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0;
  if (!s) {
    error = "simulation: wgmma operands without a swizzle are not simulated";
    return 0;
  }
  unsigned eb = bytesOf(elem);
  uint64_t off;
  if (!mnMajor) {
    off = start + (row / 8) * sbo + (row % 8) * s + uint64_t(k) * eb;
  } else {
    uint64_t mn = uint64_t(row) * eb;
    off = start + (mn / s) * lbo + (k / 8) * sbo + (k % 8) * s + mn % s;
  }
  unsigned bits = mode == 1 ? 3 : mode == 2 ? 2 : 1;
  off ^= ((off >> 7) & ((1u << bits) - 1)) << 4;
  if (off + eb > shared.size()) {
    error = "simulation: a wgmma descriptor points outside shared memory";
    return 0;
  }
  uint64_t v = 0;
  memcpy(&v, &shared[off], eb);
  return toDouble(v, elem);
}

/// `wgmma.mma_async.sync.aligned.m64n<N>k<K>.f32.<a>.<b> {d}, a, descB,
/// p, scaleA, scaleB[, tnspA], tnspB` (inside the lowering's `{ .reg .pred
/// p; setp.ne.b32 p, $x, 0; ... }`), a is `{4 registers}` (RS) or a
/// descriptor (SS), warpgroup by warpgroup. Fragments from the PTX ISA:
/// warp w of the group holds rows 16 w + g and 16 w + g + 8 (g = lane / 4,
/// q = lane % 4); accumulator register i holds row g + 8 ((i % 4) / 2),
/// column 8 (i / 4) + 2 q + i % 2; A register r holds row g + 8 (r % 2),
/// K 8 (r / 2) + 2 q + {0, 1}. D = A B (+ D when p), in double precision
/// (exact for the simulator's small integers), rounded to f32.
LogicalResult Simulator::wgmma(LLVM::InlineAsmOp op) {
  StringRef text = op.getAsmString();
  StringRef instr = text.drop_front(text.find("wgmma.mma_async"));
  auto [opcode, args] = instr.split(' ');
  SmallVector<StringRef> fields;
  opcode.split(fields, '.');
  // wgmma mma_async sync aligned m64nNkK d a b
  if (fields.size() != 8)
    return op.emitError("simulation: unexpected wgmma opcode ") << opcode;
  unsigned n = 0, k = 0;
  StringRef shape = fields[4];
  if (!shape.consume_front("m64n") ||
      shape.substr(0, shape.find('k')).getAsInteger(10, n) ||
      shape.substr(shape.find('k') + 1).getAsInteger(10, k))
    return op.emitError("simulation: unexpected wgmma shape ") << fields[4];
  MLIRContext *ctx = op.getContext();
  auto typeOf = [&](StringRef name) -> Type {
    if (name == "f16")
      return Float16Type::get(ctx);
    if (name == "bf16")
      return BFloat16Type::get(ctx);
    return {};
  };
  Type aType = typeOf(fields[6]), bType = typeOf(fields[7]);
  if (fields[5] != "f32" || !aType || !bType || k != 16)
    return op.emitError("simulation: wgmma is simulated for f16/bf16 "
                        "operands into f32 only");
  auto type = dyn_cast<LLVM::LLVMStructType>(op.getResult(0).getType());
  unsigned numOutputs = type ? type.getBody().size() : 1;
  if (numOutputs != n / 2)
    return op.emitError("simulation: wgmma m64n") << n << " needs " << n / 2
                                                  << " accumulators";
  auto operandId = [](StringRef ref) -> int {
    ref = ref.trim();
    unsigned id;
    if (!ref.consume_front("$") || ref.getAsInteger(10, id))
      return -1;
    return int(id);
  };
  auto reg = [&](unsigned id, unsigned t) {
    return scalar(op.getOperands()[id - numOutputs], t);
  };
  // The operands after the accumulators' braces.
  StringRef rest = args.drop_front(args.find('}') + 1).ltrim(", ");
  SmallVector<unsigned> aRegs;
  int aDesc = -1;
  if (rest.starts_with("{")) {
    SmallVector<StringRef> refs;
    rest.slice(1, rest.find('}')).split(refs, ',');
    for (StringRef ref : refs)
      aRegs.push_back(unsigned(operandId(ref)));
    rest = rest.drop_front(rest.find('}') + 1);
  } else {
    aDesc = operandId(rest.substr(0, rest.find(',')));
    rest = rest.drop_front(rest.find(',') + 1);
  }
  SmallVector<StringRef> tail;
  rest.take_until([](char c) { return c == ';'; }).split(tail, ',', -1, false);
  // descB, p, scaleA, scaleB, [tnspA,] tnspB
  SmallVector<StringRef> items;
  for (StringRef item : tail)
    if (!item.trim().empty())
      items.push_back(item.trim());
  bool rs = !aRegs.empty();
  if (items.size() != (rs ? 5u : 6u) || (rs && aRegs.size() != 4) ||
      items[2] != "1" || items[3] != "1")
    return op.emitError("simulation: unexpected wgmma operands ") << args;
  int bDesc = operandId(items[0]);
  bool tnspA = !rs && items[4] == "1", tnspB = items.back() == "1";
  // The predicate p: setp.ne.b32 p, $x, 0.
  size_t setp = text.find("setp.ne.b32 p,");
  if (setp == StringRef::npos || (!rs && aDesc < 0) || bDesc < 0)
    return op.emitError("simulation: unexpected wgmma text");
  int pId = operandId(text.drop_front(setp + 14).take_until(
      [](char c) { return c == ','; }));
  if (pId < 0)
    return op.emitError("simulation: unexpected wgmma predicate");
  auto half = [&](uint64_t word, unsigned e, Type t) {
    return toDouble(mask(word >> (16 * e), 16), t);
  };
  Regs out(threads, std::vector<uint64_t>(numOutputs, 0));
  for (unsigned g0 = 0; g0 + 128 <= threads; g0 += 128) {
    std::vector<double> a(64 * 16), b(16 * n), c(64 * n, 0.0);
    for (unsigned w = 0; w < 4; ++w)
      for (unsigned l = 0; l < 32; ++l) {
        unsigned t = g0 + 32 * w + l, g = l / 4, q = l % 4;
        bool accumulate = reg(unsigned(pId), t) != 0;
        for (unsigned i = 0; i < numOutputs && accumulate; ++i)
          c[(16 * w + g + 8 * ((i % 4) / 2)) * n + 8 * (i / 4) + 2 * q + i % 2] =
              toDouble(mask(scalar(op.getOperands()[i], t), 32),
                       Float32Type::get(ctx));
        for (unsigned r = 0; r < aRegs.size(); ++r)
          for (unsigned e = 0; e < 2; ++e)
            a[(16 * w + g + 8 * (r % 2)) * 16 + 8 * (r / 2) + 2 * q + e] =
                half(reg(aRegs[r], t), e, aType);
      }
    if (!rs) {
      uint64_t desc = reg(unsigned(aDesc), g0);
      for (unsigned m = 0; m < 64; ++m)
        for (unsigned kk = 0; kk < 16; ++kk)
          a[m * 16 + kk] = wgmmaSharedElement(desc, tnspA, m, kk, aType);
    }
    uint64_t desc = reg(unsigned(bDesc), g0);
    for (unsigned j = 0; j < n; ++j)
      for (unsigned kk = 0; kk < 16; ++kk)
        b[kk * n + j] = wgmmaSharedElement(desc, tnspB, j, kk, bType);
    if (!error.empty())
      return op.emitError(error);
    for (unsigned m = 0; m < 64; ++m)
      for (unsigned j = 0; j < n; ++j)
        for (unsigned kk = 0; kk < 16; ++kk)
          c[m * n + j] += a[m * 16 + kk] * b[kk * n + j];
    for (unsigned w = 0; w < 4; ++w)
      for (unsigned l = 0; l < 32; ++l) {
        unsigned t = g0 + 32 * w + l, g = l / 4, q = l % 4;
        for (unsigned i = 0; i < numOutputs; ++i)
          out[t][i] = fromDouble(
              c[(16 * w + g + 8 * ((i % 4) / 2)) * n + 8 * (i / 4) + 2 * q + i % 2],
              Float32Type::get(ctx));
      }
  }
  values[op.getResult(0)] = std::move(out);
  return success();
}

/// `ldmatrix.sync.aligned.m8n8.x<N>[.trans].shared.b16 {d...}, [$a]`, warp
/// by warp: lane l gives the address of row l % 8 of matrix l / 8 (16
/// contiguous bytes); register q of lane l receives elements (l / 4,
/// 2 (l % 4) + {0, 1}) of matrix q, or with .trans those of its transpose
/// (rows 2 (l % 4) + {0, 1}, column l / 4).
LogicalResult Simulator::ldMatrix(LLVM::InlineAsmOp op) {
  StringRef text = op.getAsmString();
  auto [opcode, args] = text.split(' ');
  bool trans = opcode.contains(".trans");
  unsigned num = opcode.contains(".x4") ? 4 : opcode.contains(".x2") ? 2 : 1;
  unsigned numOutputs = num;
  if (auto type = dyn_cast<LLVM::LLVMStructType>(op.getResult(0).getType()))
    numOutputs = type.getBody().size();
  if (numOutputs != num)
    return op.emitError("simulation: ldmatrix results do not match .x") << num;
  Value addr = op.getOperands()[0];
  Regs out(threads, std::vector<uint64_t>(num, 0));
  for (unsigned w = 0; w * 32 < threads; ++w)
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned q = 0; q < num; ++q) {
        auto element = [&](unsigned r, unsigned c) {
          uint64_t rowAddr = scalar(addr, w * 32 + 8 * q + r);
          return loadMem(rowAddr + 2 * c, 2);
        };
        unsigned g = l / 4, t = l % 4;
        uint64_t lo = trans ? element(2 * t, g) : element(g, 2 * t);
        uint64_t hi = trans ? element(2 * t + 1, g) : element(g, 2 * t + 1);
        out[w * 32 + l][q] = lo | (hi << 16);
      }
  values[op.getResult(0)] = std::move(out);
  return success();
}

struct TestSimulateCTAPass
    : public PassWrapper<TestSimulateCTAPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestSimulateCTAPass)

  TestSimulateCTAPass() = default;
  TestSimulateCTAPass(const TestSimulateCTAPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-simulate-cta"; }
  StringRef getDescription() const final {
    return "Run one CTA of a lowered kernel on the CPU and print its global "
           "stores (tests only)";
  }

  ListOption<std::string> argTypes{
      *this, "arg-types",
      llvm::cl::desc("Element type of each pointer argument's buffer")};
  Option<int64_t> elements{*this, "elements",
                           llvm::cl::desc("Elements per buffer"),
                           llvm::cl::init(4096)};
  Option<int64_t> dumpShared{
      *this, "dump-shared-bytes",
      llvm::cl::desc("Also print the first N bytes of shared memory at the "
                     "end, as `smem[<byte>] = <value>`"),
      llvm::cl::init(0)};

  void runOnOperation() override {
    LLVM::LLVMFuncOp kernel;
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      if (func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
        kernel = func;
    });
    if (!kernel) {
      getOperation().emitError("no kernel to simulate");
      return signalPassFailure();
    }
    auto reqntid = kernel->getAttrOfType<DenseI32ArrayAttr>(
        NVVM::NVVMDialect::getReqntidAttrName());
    unsigned threads = reqntid ? reqntid.asArrayRef()[0] : 128;
    SmallVector<std::string> types(argTypes.begin(), argTypes.end());
    int64_t sharedBytes = 0;
    if (auto attr = getOperation()->getAttrOfType<IntegerAttr>("tilegpu.shared"))
      sharedBytes = attr.getInt();
    Simulator sim(threads, types, elements, sharedBytes);
    if (failed(sim.run(kernel)))
      return signalPassFailure();
    sim.print(llvm::outs(), dumpShared);
  }
};

} // namespace

namespace warpforge::test {
void registerTestSimulateCTAPass() { PassRegistration<TestSimulateCTAPass>(); }
} // namespace warpforge::test
