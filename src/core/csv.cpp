#include "core/csv.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "core/error.h"
#include "core/write_file.h"

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

CsvDataset read_csv_dataset(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot open the " + what);
  CsvDataset d;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.empty()) continue;
    if (line.rfind("# ", 0) == 0) {
      const size_t colon = line.find(": ");
      if (colon != std::string::npos) d.provenance[line.substr(2, colon - 2)] = line.substr(colon + 2);
    } else if (d.header.empty()) {
      d.header = line;
      d.header_where = path + ":" + std::to_string(n);
    } else {
      d.rows.push_back({line, path + ":" + std::to_string(n)});
    }
  }
  if (d.header.empty()) fail(path, "no column header: not a " + what);
  return d;
}

std::ofstream append_to_csv_dataset(const std::string& path, const std::map<std::string, std::string>& provenance,
                                    const std::string& header, const std::string& what) {
  if (std::filesystem::exists(path)) drop_torn_last_line(path);
  if (!std::filesystem::exists(path) || std::filesystem::file_size(path) == 0)
    write_file_atomically(path, what + " header", [&](std::ostream& out) {
      for (const auto& [k, v] : provenance) out << "# " << k << ": " << v << "\n";
      out << header << "\n";
    });
  std::ofstream out(path, std::ios::app);
  if (!out) fail(path, "cannot append to the " + what);
  return out;
}

}  // namespace fsgen
