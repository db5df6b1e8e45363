#include "compiler/frontend/suggest.h"

#include <algorithm>
#include <cctype>

namespace ptoc::fe {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Damerau (optimal string alignment): a swapped pair of letters costs 1.
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                            std::tolower(static_cast<unsigned char>(b[j - 1]))
                        ? 0
                        : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
  size_t limit = std::max<size_t>(1, (word.size() + 2) / 3);
  std::string best;
  size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    if (c == word) continue;
    size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string c = closest(word, candidates);
  return c.empty() ? std::string() : "did you mean '" + c + "'?";
}

}  // namespace ptoc::fe
