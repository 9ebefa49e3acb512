#include "simpact/study/input_binding.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "simpact/core/input_error.hpp"
#include "simpact/io/sha256.hpp"
#include "simpact/models/mechanism_files.hpp"

namespace simpact {

namespace {

std::string file_sha256(const std::string& path, const std::string& field) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(field, fmt::format("cannot read '{}'", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return sha256_hex(bytes.str());
}

}  // namespace

void bind_mechanism_inputs(SweepConfig& config) {
  if (!config.mechanism) return;
  for (const MechanismFileReference& r : mechanism_file_references(config.mechanism->file, "model.file")) {
    InputFile input{r.role, r.path, file_sha256(r.path, "model.file")};
    // The role and the digest, not the path: moving a project folder changes no result.
    config.source_hash = sha256_hex(config.source_hash + "\n" + input.role + " " + input.sha256);
    config.inputs.push_back(std::move(input));
  }
}

std::string input_files_text(const std::vector<InputFile>& inputs) {
  std::string out;
  for (const InputFile& f : inputs) out += fmt::format("{} {} {}\n", f.sha256, f.role, f.path);
  return out;
}

std::vector<InputFile> parse_input_files(const std::string& text) {
  std::vector<InputFile> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    InputFile f;
    if (!(in >> f.sha256 >> f.role)) continue;
    std::getline(in, f.path);
    f.path.erase(0, f.path.find_first_not_of(' '));
    out.push_back(std::move(f));
  }
  return out;
}

std::string describe_input_change(const std::vector<InputFile>& before, const std::vector<InputFile>& now,
                                  const char* before_word, const char* now_word) {
  if (before.empty()) return "";
  const auto named = [](const InputFile& f) {
    return fmt::format("'{}' ({})", f.path.empty() ? "the config text" : f.path, f.role);
  };
  for (std::size_t i = 0; i < before.size() && i < now.size(); ++i) {
    if (before[i].role != now[i].role)
      return fmt::format("{} was read {}, {} {}", named(before[i]), before_word, named(now[i]), now_word);
    if (before[i].role == "config") continue;  // the callers say "the config changed" themselves
    if (before[i].sha256 != now[i].sha256)
      return fmt::format("{} changed: sha256 {} {}, {} {}", named(now[i]), before[i].sha256.substr(0, 12),
                         before_word, now[i].sha256.substr(0, 12), now_word);
  }
  if (now.size() > before.size())
    return fmt::format("{} is read {} but was not {}", named(now[before.size()]), now_word, before_word);
  if (before.size() > now.size())
    return fmt::format("{} was read {} but is not {}", named(before[now.size()]), before_word, now_word);
  return "";
}

}  // namespace simpact
