// Every input that shapes a study's results is bound to them by content (issue 39): the config,
// a design file, the mechanism file and every file it includes or reads (SweepConfig::inputs).
// Their SHA-256 digests are folded into the config hash that --resume and merge compare, and
// recorded as text in the journal manifest and the result's `input_files` attribute, so that a
// refusal names the file that changed and `simpact info` lists them.
#pragma once

#include <string>
#include <vector>

#include "simpact/sweep/sweep_config.hpp"

namespace simpact {

// Adds a mechanism config's mechanism file and what it reads to config.inputs (after the config
// and a design file) and folds their digests into config.source_hash. Nothing for a built-in model.
// Throws InputError ("model.file") for a referenced path that is not a regular file.
void bind_mechanism_inputs(SweepConfig& config);

// One line per input, "<sha256> <role> <path>", and back (unparseable lines are skipped).
std::string input_files_text(const std::vector<InputFile>& inputs);
std::vector<InputFile> parse_input_files(const std::string& text);

// The first input whose digest differs between two records, in words, e.g. "robot.xml
// (mechanism_file): sha256 3f2a91c0d2e4 then, 77b1e0a9c3d2 now"; a file that appeared or went is
// named too. The config's own entry is not compared: callers name a changed config in their own
// words. "" when the records agree (or the earlier one recorded nothing).
std::string describe_input_change(const std::vector<InputFile>& before, const std::vector<InputFile>& now,
                                  const char* before_word = "then", const char* now_word = "now");

}  // namespace simpact
