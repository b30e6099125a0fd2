//===- TileEnums.td - Enumerations of the tile dialect -----*- tablegen -*-===//

#ifndef WARPFORGE_TILE_ENUMS
#define WARPFORGE_TILE_ENUMS

include "mlir/IR/EnumAttr.td"

class Tile_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::warpforge::tile";
}

def Tile_ProgramDimAttr : Tile_I32Enum<"ProgramDim", "grid axis", [
  I32EnumAttrCase<"X", 0, "x">,
  I32EnumAttrCase<"Y", 1, "y">,
  I32EnumAttrCase<"Z", 2, "z">
]>;

def Tile_CacheModifierAttr : Tile_I32Enum<"CacheModifier",
    "cache operator of a load or store", [
  I32EnumAttrCase<"NONE", 1, "none">,
  I32EnumAttrCase<"CA", 2, "ca">,
  I32EnumAttrCase<"CG", 3, "cg">,
  I32EnumAttrCase<"WB", 4, "wb">,
  I32EnumAttrCase<"CS", 5, "cs">,
  I32EnumAttrCase<"WT", 6, "wt">,
  I32EnumAttrCase<"CV", 7, "cv">
]>;

def Tile_EvictionPolicyAttr : Tile_I32Enum<"EvictionPolicy",
    "L1/L2 eviction priority of a load or store", [
  I32EnumAttrCase<"NORMAL", 1, "evict_normal">,
  I32EnumAttrCase<"EVICT_FIRST", 2, "evict_first">,
  I32EnumAttrCase<"EVICT_LAST", 3, "evict_last">
]>;

def Tile_InputPrecisionAttr : Tile_I32Enum<"InputPrecision",
    "how a dot rounds 32-bit float operands", [
  I32EnumAttrCase<"IEEE", 0, "ieee">,
  I32EnumAttrCase<"TF32", 1, "tf32">,
  I32EnumAttrCase<"TF32x3", 2, "tf32x3">
]>;

def Tile_RoundingModeAttr : Tile_I32Enum<"RoundingMode",
    "rounding of a narrowing float conversion", [
  I32EnumAttrCase<"RTNE", 0, "rtne">,
  I32EnumAttrCase<"RTZ", 1, "rtz">
]>;

def Tile_RMWOpAttr : Tile_I32Enum<"RMWOp", "atomic read-modify-write operation", [
  I32EnumAttrCase<"ADD", 1, "add">,
  I32EnumAttrCase<"FADD", 2, "fadd">,
  I32EnumAttrCase<"AND", 3, "and">,
  I32EnumAttrCase<"OR", 4, "or">,
  I32EnumAttrCase<"XOR", 5, "xor">,
  I32EnumAttrCase<"XCHG", 6, "xchg">,
  I32EnumAttrCase<"MAX", 7, "max">,
  I32EnumAttrCase<"MIN", 8, "min">,
  I32EnumAttrCase<"UMAX", 9, "umax">,
  I32EnumAttrCase<"UMIN", 10, "umin">
]>;

def Tile_DescriptorReduceKindAttr : Tile_I32Enum<"DescriptorReduceKind",
    "reduction a TMA store applies to global memory", [
  I32EnumAttrCase<"ADD", 0, "add">,
  I32EnumAttrCase<"MIN", 1, "min">,
  I32EnumAttrCase<"MAX", 2, "max">,
  I32EnumAttrCase<"AND", 3, "and">,
  I32EnumAttrCase<"OR", 4, "or">,
  I32EnumAttrCase<"XOR", 5, "xor">
]>;

def Tile_MemSemanticAttr : Tile_I32Enum<"MemSemantic",
    "memory ordering of an atomic", [
  I32EnumAttrCase<"RELAXED", 1, "relaxed">,
  I32EnumAttrCase<"ACQUIRE", 2, "acquire">,
  I32EnumAttrCase<"RELEASE", 3, "release">,
  I32EnumAttrCase<"ACQUIRE_RELEASE", 4, "acq_rel">
]>;

def Tile_MemSyncScopeAttr : Tile_I32Enum<"MemSyncScope",
    "set of threads an atomic synchronizes with", [
  I32EnumAttrCase<"GPU", 1, "gpu">,
  I32EnumAttrCase<"CTA", 2, "cta">,
  I32EnumAttrCase<"SYSTEM", 3, "sys">
]>;

#endif // WARPFORGE_TILE_ENUMS
