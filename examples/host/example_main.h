// The examples' main: runs one, and turns what it throws into a one-line error and exit 1.
#pragma once
#include <exception>
#include <iostream>

inline int run_example(const char* name, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 1;
  }
}
