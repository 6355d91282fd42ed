// One CSV reader and writer for fsgen's datasets and record files: comma-separated fields
// without quoting (fields never hold commas; csv_safe replaces them), '#' provenance lines
// above a header line. Numbers are read whole and strictly: "12.5xyz", an empty field or an
// out-of-range value is a UserError naming the file, line and column.
#pragma once
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fsgen {

// The fields of one line; a trailing separator gives a last empty field.
std::vector<std::string> split_fields(const std::string& line, char separator = ',');

// The text with every comma replaced by ';', so that it is one field.
std::string csv_safe(std::string text);

// One row of a CSV file, its fields read by column.
class CsvRow {
 public:
  // where: the file and line ("data.csv:12"), for errors.
  CsvRow(const std::string& line, std::string where);
  size_t size() const { return fields_.size(); }
  const std::string& where() const { return where_; }
  // A UserError unless the row has exactly n fields; columns names them for the message.
  void expect_fields(size_t n, const std::string& columns) const;
  const std::string& text(size_t column) const;
  // A finite number.
  double number(size_t column, const std::string& name) const;
  // A finite number or "nan" / "-nan" (a field an earlier layout did not have).
  double number_or_nan(size_t column, const std::string& name) const;
  uint64_t count(size_t column, const std::string& name) const;  // a non-negative integer
  // Fields inserted where an earlier layout lacked them (format upgrades).
  void insert(size_t column, const std::string& value);

 private:
  std::vector<std::string> fields_;
  std::string where_;
};

// Parses a whole field; `place` and `name` name it in the error.
double parse_finite(const std::string& text, const std::string& place, const std::string& name);
uint64_t parse_count(const std::string& text, const std::string& place, const std::string& name);
int parse_int(const std::string& text, const std::string& place, const std::string& name);

// Writes one line of fields: each << adds a field, separated by commas; numbers at the
// given precision (9 significant digits by default).
class CsvLine {
 public:
  explicit CsvLine(int precision = 9) { out_.precision(precision); }
  template <typename T>
  CsvLine& operator<<(const T& field) {
    if (fields_++) out_ << ',';
    out_ << field;
    return *this;
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
  size_t fields_ = 0;
};

// A dataset file: "# key: value" provenance lines, a column header line, then rows.
struct CsvDataset {
  std::map<std::string, std::string> provenance;
  std::string header;        // "" when the file has none
  std::string header_where;  // its "file:line"
  struct Row {
    std::string text, where;  // where: "file:line"
  };
  std::vector<Row> rows;
};
// UserError "cannot open the <what>" when the file cannot be read, "no column header: not a
// <what>" when it has none.
CsvDataset read_csv_dataset(const std::string& path, const std::string& what);
// Opens a dataset for appending after dropping a torn last line (a killed writer's); a
// missing or empty file first gets its provenance and header, whole or not at all.
std::ofstream append_to_csv_dataset(const std::string& path, const std::map<std::string, std::string>& provenance,
                                    const std::string& header, const std::string& what);

}  // namespace fsgen
