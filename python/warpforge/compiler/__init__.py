"""Python source -> tile IR -> (later stages in the GPU backend)."""

from .compiler import CompiledKernel, compile_kernel, generate_tile_ir
from .options import KernelOptions
from .errors import CompilationError, UnsupportedLanguageConstruct

__all__ = ["CompiledKernel", "KernelOptions", "compile_kernel", "generate_tile_ir",
           "CompilationError", "UnsupportedLanguageConstruct"]
