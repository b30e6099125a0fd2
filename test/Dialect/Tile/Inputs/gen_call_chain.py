"""Prints a module whose device functions form a chain of diamonds: each
@fI calls @f(I+1) twice, so there are 2**N call paths but N+1 functions.
Call-graph checks must take time linear in the functions, not the paths."""
import sys

n = int(sys.argv[1])
print("tile.func public @kernel(%a: f32) {")
print("  %0 = tile.call @f0(%a) : (f32) -> f32")
print("  tile.return")
print("}")
for i in range(n):
    print(f"tile.func private @f{i}(%a: f32) -> f32 {{")
    print(f"  %0 = tile.call @f{i + 1}(%a) : (f32) -> f32")
    print(f"  %1 = tile.call @f{i + 1}(%0) : (f32) -> f32")
    print("  tile.return %1 : f32")
    print("}")
print(f"tile.func private @f{n}(%a: f32) -> f32 {{")
print("  tile.return %a : f32")
print("}")
