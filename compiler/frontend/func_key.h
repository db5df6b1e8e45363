// PyPTO's function keys `func{magic}_{order}` (the *_setting options' per-root keys) and the head of a
// configuration call (`pypto.set_pass_options(`), recognised by plain scans: std::regex recurses once per
// character in libstdc++, so a 60 000-digit key or a statement indented by 60 000 spaces (within the
// spec's line limit) overflowed the stack.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace ptoc::fe {

struct FuncKey {
  std::string_view magic, order;  // the digits of each part
};

// `func` DIGITS `_` DIGITS, the whole text; nullopt for anything else.
std::optional<FuncKey> func_key(std::string_view text);

// Optional '-' then DIGITS, the whole text.
bool is_integer_text(std::string_view text);

// `WS* (pypto WS* . WS*)? NAME WS* (` at the start of a statement.
struct CallHead {
  int name_off = 0, name_len = 0;  // NAME
  int open = 0;                    // offset of the '('
};
std::optional<CallHead> call_head(std::string_view stmt);

}  // namespace ptoc::fe
