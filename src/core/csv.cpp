#include "core/csv.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/error.h"

namespace fsgen {

std::vector<std::string> split_fields(const std::string& line, char separator) {
  std::vector<std::string> f;
  size_t start = 0;
  for (size_t at = line.find(separator); at != std::string::npos; at = line.find(separator, start)) {
    f.push_back(line.substr(start, at - start));
    start = at + 1;
  }
  if (!line.empty()) f.push_back(line.substr(start));
  return f;
}

std::string csv_safe(std::string text) {
  for (char& c : text)
    if (c == ',') c = ';';
  return text;
}

namespace {
[[noreturn]] void bad_field(const std::string& place, const std::string& name, const std::string& text,
                            const std::string& expected) {
  fail(place, name + ": expected " + expected + ", got '" + text + "'");
}
}  // namespace

double parse_finite(const std::string& text, const std::string& place, const std::string& name) {
  errno = 0;
  char* end = nullptr;
  const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    bad_field(place, name, text, "a finite number");
  return v;
}

uint64_t parse_count(const std::string& text, const std::string& place, const std::string& name) {
  errno = 0;
  char* end = nullptr;
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  const unsigned long long v = digits ? std::strtoull(text.c_str(), &end, 10) : 0;
  if (!digits || errno == ERANGE) bad_field(place, name, text, "a non-negative integer");
  return v;
}

int parse_int(const std::string& text, const std::string& place, const std::string& name) {
  errno = 0;
  char* end = nullptr;
  const long v = text.empty() ? 0 : std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || v < std::numeric_limits<int>::min() ||
      v > std::numeric_limits<int>::max())
    bad_field(place, name, text, "an integer");
  return int(v);
}

CsvRow::CsvRow(const std::string& line, std::string where) : fields_(split_fields(line)), where_(std::move(where)) {}

void CsvRow::expect_fields(size_t n, const std::string& columns) const {
  if (fields_.size() != n)
    fail(where_, "expected " + std::to_string(n) + " comma-separated fields (" + columns + "), got " +
                     std::to_string(fields_.size()));
}

const std::string& CsvRow::text(size_t column) const {
  FSGEN_ASSERT(column < fields_.size(), "a column of the row's checked width");
  return fields_[column];
}

double CsvRow::number(size_t column, const std::string& name) const { return parse_finite(text(column), where_, name); }

double CsvRow::number_or_nan(size_t column, const std::string& name) const {
  const std::string& t = text(column);
  return t == "nan" || t == "-nan" ? std::nan("") : number(column, name);  // as a stream writes NaN
}

uint64_t CsvRow::count(size_t column, const std::string& name) const { return parse_count(text(column), where_, name); }

void CsvRow::insert(size_t column, const std::string& value) {
  FSGEN_ASSERT(column <= fields_.size(), "an insertion within the row");
  fields_.insert(fields_.begin() + long(column), value);
}

}  // namespace fsgen
