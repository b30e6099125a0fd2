"""Errors a kernel author sees: the kernel's line, a caret, a plain message."""

from typing import Optional

from ..errors import TritonError


class CompilationError(TritonError):
    """A kernel could not be compiled. `filename`, `lineno` and `col` point at
    the kernel source (1-based line, 0-based column)."""

    def __init__(self, message: str, filename: str = "", lineno: int = 0, col: int = 0,
                 source_line: Optional[str] = None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        super().__init__(self._format())

    @property
    def error_message(self) -> str:
        """The message without its location (Triton's attribute name)."""
        return self.message

    def _format(self) -> str:
        if not self.lineno:
            return self.message
        text = f"{self.filename}:{self.lineno}:{self.col + 1}: {self.message}"
        if self.source_line is not None:
            line = self.source_line.rstrip("\n")
            stripped = line.lstrip()
            indent = len(line) - len(stripped)
            caret = " " * max(self.col - indent, 0) + "^"
            text += f"\n    {stripped}\n    {caret}"
        return text


class UnsupportedLanguageConstruct(CompilationError):
    """A Python construct that kernels cannot use."""
