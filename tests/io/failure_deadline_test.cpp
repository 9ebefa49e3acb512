// The last resort against a hang after a failed collective write (src/io/failure_deadline.hpp):
// a blocking call that does not return within the deadline ends the process with one error line
// and status 1; one that returns in time disarms it and nothing happens.
#include "failure_deadline.hpp"  // private to io/ (not installed)

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <thread>

namespace simpact::h5 {
namespace {

TEST(FailureDeadline, EndsAStuckCallWithOneLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("SIMPACT_FAILURE_DEADLINE_S", "0.2", 1);
        const FailureDeadline deadline("cannot write f.h5:/maps/x (disk full)", true);
        std::this_thread::sleep_for(std::chrono::seconds(30));  // a peer stuck inside HDF5
      },
      testing::ExitedWithCode(1),
      "^simpact: error: cannot write f.h5:/maps/x \\(disk full\\) \\(the other ranks");
}

TEST(FailureDeadline, DisarmedByAReturnInTime) {
  ::setenv("SIMPACT_FAILURE_DEADLINE_S", "0.2", 1);
  const auto t0 = std::chrono::steady_clock::now();
  { const FailureDeadline deadline("unused", true); }
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // past the deadline: still alive
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_DOUBLE_EQ(FailureDeadline::seconds(), 0.2);
  ::unsetenv("SIMPACT_FAILURE_DEADLINE_S");
  EXPECT_DOUBLE_EQ(FailureDeadline::seconds(), 10.0);
}

}  // namespace
}  // namespace simpact::h5
