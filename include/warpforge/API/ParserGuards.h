//===- ParserGuards.h - Inputs the MLIR parser crashes on -------*- C++ -*-===//
//
// Debian's MLIR 22.1.8 parser segfaults on some inputs (fixed upstream
// after it): the process dies instead of reporting an error.  The text is
// checked for them before it is parsed, here, by `warpforge.ir` and by
// warpforge-opt alike.
//
//  * A dense array of `index` elements, `array<index: 1>`: dense arrays
//    take integer and float elements of fixed width only.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_API_PARSERGUARDS_H
#define WARPFORGE_API_PARSERGUARDS_H

#include "llvm/ADT/StringRef.h"

#include <cctype>
#include <optional>
#include <string>
#include <utility>

namespace warpforge {

/// Where in `text` (the offset) an input the parser would crash on starts,
/// and what to say about it; nothing when there is none.  Comments (`//` to
/// the end of the line) and string literals are skipped.
inline std::optional<std::pair<size_t, std::string>>
findParserCrash(llvm::StringRef text) {
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
      continue;
    }
    if (c == '/' && text.substr(i).starts_with("//")) {
      size_t end = text.find('\n', i);
      if (end == llvm::StringRef::npos)
        break;
      i = end;
      continue;
    }
    if (!text.substr(i).starts_with("array") ||
        (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                   text[i - 1] == '_' || text[i - 1] == '.')))
      continue;
    size_t j = i + 5;
    while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j])))
      ++j;
    if (j >= text.size() || text[j] != '<')
      continue;
    ++j;
    while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j])))
      ++j;
    llvm::StringRef rest = text.substr(j);
    if (rest.starts_with("index") &&
        (rest.size() == 5 || !(std::isalnum(static_cast<unsigned char>(rest[5])) ||
                               rest[5] == '_')))
      return std::make_pair(
          i, std::string("dense arrays of 'index' elements (array<index: ...>) "
                         "are not supported (the MLIR parser this build uses "
                         "crashes on them): use a fixed-width integer type "
                         "such as i64"));
  }
  return std::nullopt;
}

} // namespace warpforge

#endif // WARPFORGE_API_PARSERGUARDS_H
