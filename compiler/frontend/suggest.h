// "did you mean" suggestions by edit distance.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ptoc::fe {

size_t edit_distance(std::string_view a, std::string_view b);
// The closest candidate within a distance that scales with the word length
// (at most 1/3 of it, at least 1), or "" when none is close.
std::string closest(std::string_view word, const std::vector<std::string>& candidates);
// "did you mean 'x'?" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace ptoc::fe
