#include <gtest/gtest.h>
#include "generator/spec.h"
TEST(Spec, Placeholder) { SUCCEED(); }
