#include "core/csv.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace fsgen {
namespace {

TEST(Csv, FieldsKeepEmptyOnes) {
  EXPECT_EQ(split_fields("a,b,"), (std::vector<std::string>{"a", "b", ""}));
  EXPECT_EQ(split_fields("a,,b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split_fields("1;2", ';'), (std::vector<std::string>{"1", "2"}));
  EXPECT_TRUE(split_fields("").empty());
  EXPECT_EQ(csv_safe("a,b"), "a;b");
}

TEST(Csv, NumbersAreReadWholeAndFinite) {
  const CsvRow row("x,12.5,7,nan,12.5xyz,inf,,-3,1e999,-nan", "f.csv:4");
  row.expect_fields(10, "kind,a,b,c,d,e,f,g,h,i");
  EXPECT_TRUE(std::isnan(row.number_or_nan(9, "i")));
  EXPECT_EQ(row.text(0), "x");
  EXPECT_EQ(row.number(1, "a"), 12.5);
  EXPECT_EQ(row.count(2, "b"), 7u);
  EXPECT_TRUE(std::isnan(row.number_or_nan(3, "c")));
  EXPECT_EQ(test::error_of([&] { row.number(3, "c"); }), "f.csv:4: c: expected a finite number, got 'nan'");
  EXPECT_EQ(test::error_of([&] { row.number(4, "d"); }), "f.csv:4: d: expected a finite number, got '12.5xyz'");
  EXPECT_EQ(test::error_of([&] { row.number(5, "e"); }), "f.csv:4: e: expected a finite number, got 'inf'");
  EXPECT_EQ(test::error_of([&] { row.number(6, "f"); }), "f.csv:4: f: expected a finite number, got ''");
  EXPECT_EQ(test::error_of([&] { row.count(7, "g"); }), "f.csv:4: g: expected a non-negative integer, got '-3'");
  EXPECT_EQ(test::error_of([&] { row.number(8, "h"); }), "f.csv:4: h: expected a finite number, got '1e999'");
  EXPECT_EQ(test::error_of([&] { row.expect_fields(3, "a,b,c"); }),
            "f.csv:4: expected 3 comma-separated fields (a,b,c), got 10");
  EXPECT_EQ(test::error_of([] { parse_int("99999999999", "p", "h"); }), "p: h: expected an integer, got '99999999999'");
}

TEST(Csv, LinesJoinFieldsAtNineDigits) {
  CsvLine line;
  line << "pe" << 1.0 / 3.0 << uint64_t(42) << "";
  EXPECT_EQ(line.str(), "pe,0.333333333,42,");
}

}  // namespace
}  // namespace fsgen
