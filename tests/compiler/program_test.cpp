// The program reader: malformed program files refused with their place.
#include "compiler/program.h"

#include <fstream>

#include "test_util.h"

namespace fsgen {
namespace {

TEST(Program, MalformedFilesAreOneLineErrors) {
  const std::string dir = test::scratch_dir("badprog");
  auto write = [&](const std::string& text) {
    std::ofstream(dir + "/p.json") << text;
    return test::error_of([&] { load_program(dir + "/p.json"); });
  };
  EXPECT_NE(write("{").find("malformed program JSON"), std::string::npos);
  EXPECT_NE(write("{\"format\": \"other\"}").find("expected \"format\": \"fsgen-program\""), std::string::npos);
  EXPECT_NE(
      write("{\"format\": \"fsgen-program\", \"version\": 1, \"design\": \"d\", \"kernel\": \"k\", \"writes\": [], "
            "\"inputs\": [{\"name\": \"A\", \"addr\": 0, \"hex\": \"0g\"}]}")
          .find("expected hex digits"),
      std::string::npos);
  // Found by the fuzzer (make fuzz): numbers out of their field's range converted with
  // undefined behaviour (3.4e19 to int) or wrapped (a negative address).
  EXPECT_NE(
      write("{\"format\": \"fsgen-program\", \"version\": 34075067339132836971}").find("expected program version"),
      std::string::npos);
  const std::string e = write(
      "{\"format\": \"fsgen-program\", \"version\": 1, \"design\": \"d\", \"kernel\": \"k\", "
      "\"writes\": [{\"offset\": 8, \"value\": -1}]}");
  EXPECT_NE(e.find("field 'value': expected an integer from 0 to 4294967295, got -1"), std::string::npos) << e;
}

}  // namespace
}  // namespace fsgen
