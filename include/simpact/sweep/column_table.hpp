// A kernel's result columns, each declared together with how it is computed from the task's
// values (`Values`: the kernel's per-task record), so that the list of columns and the values a
// task writes cannot drift apart (issue 8).
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

template <class Values>
struct ExtractedColumn {
  ResultColumn column;
  std::function<void(const Values&, double* out)> extract;  // writes column.length values
};

// A scalar column: `value(values)` is its one value.
template <class Values, class F>
ExtractedColumn<Values> scalar_column(ResultColumn column, F value) {
  return {std::move(column), [value](const Values& v, double* out) { out[0] = value(v); }};
}

template <class Values>
std::vector<ResultColumn> columns_of(const std::vector<ExtractedColumn<Values>>& table) {
  std::vector<ResultColumn> columns;
  columns.reserve(table.size());
  for (const auto& c : table) columns.push_back(c.column);
  return columns;
}

// Writes every column's values in table order (what TaskKernel::evaluate promises).
template <class Values>
void write_columns(const std::vector<ExtractedColumn<Values>>& table, const Values& values, double* out) {
  for (const auto& c : table) {
    c.extract(values, out);
    out += c.column.length;
  }
}

}  // namespace simpact
