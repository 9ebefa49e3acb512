#include "simpact/io/sweep_config_yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "simpact/core/input_error.hpp"
#include "simpact/io/config_expression.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/io/sha256.hpp"
#include "sweep_config_parser.hpp"

namespace simpact {
namespace {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) {
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}

}  // namespace

ConfigErrors::ConfigErrors(std::vector<std::string> error_lines)
    : std::runtime_error(join_lines(error_lines)), lines(std::move(error_lines)) {}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance: Levenshtein plus adjacent transpositions ("nmu" → "num"
  // is one edit, the commonest typo).
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::string nearest_name(std::string_view word, const std::vector<std::string>& candidates) {
  std::string lower(word);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Near: within 2 edits (and fewer edits than the word has letters, so "x" is not near "n"),
  // or a truncation of the name ("chunk" for "chunk_size"), which ranks after any edit match.
  std::string best;
  std::size_t best_score = std::numeric_limits<std::size_t>::max();
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(lower, candidate);
    std::size_t score = best_score;
    if (distance <= 2 && distance < lower.size()) {
      score = distance;
    } else if (lower.size() >= 2 && candidate.compare(0, lower.size(), lower) == 0) {
      score = 3 + candidate.size() - lower.size();
    }
    if (score < best_score) {
      best = candidate;
      best_score = score;
    }
  }
  return best;
}

namespace {
// YAML forbids most C0 control characters; a NUL would reach error lines raw and cut C strings
// (long_name) short. Reject them up front, naming where.
void reject_control_characters(const std::string& text) {
  std::size_t line = 1, column = 1;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
      throw ConfigErrors(
          {fmt::format("config: line {}, column {}: control character U+{:04X} is not allowed "
                       "(only printable text, tabs and newlines)",
                       line, column, static_cast<unsigned>(c))});
    if (ch == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}
}  // namespace

SweepConfig parse_sweep_config(const std::string& yaml_text, const std::vector<std::string>& known_models,
                               const ModelCatalog& catalog, const DynamicCatalog& dynamic,
                               const MechanismCatalog& mechanisms, const std::string& base_dir) {
  reject_control_characters(yaml_text);
  detail::ConfigParser parser(known_models, catalog, dynamic);
  parser.set_mechanisms(mechanisms, base_dir);
  SweepConfig config = parser.parse(yaml_text);
  config.base_dir = base_dir;
  return config;
}

SweepConfig load_sweep_config(const std::string& path, const std::vector<std::string>& known_models,
                              const ModelCatalog& catalog, const DynamicCatalog& dynamic,
                              const MechanismCatalog& mechanisms) {
  std::string text;
  try {
    text = read_capped_input(path, kMaxConfigBytes, "config", false);
  } catch (const IoError& e) {
    throw ConfigErrors({e.what()});
  }
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  const std::string base_dir = ec ? "." : absolute.parent_path().string();
  SweepConfig config = parse_sweep_config(text, known_models, catalog, dynamic, mechanisms, base_dir);
  config.inputs.front().path = path;  // the config's own entry (parse_sweep_config knows only its text)
  return config;
}

}  // namespace simpact
