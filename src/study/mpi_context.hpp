// The communicator of a collective study step, with its rank and size, and the agreement helpers
// every step uses before a collective (study/ only; not installed).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "simpact/io/io_error.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/study/sweep_runner.hpp"

namespace simpact::detail {

struct Mpi {
  MPI_Comm comm;
  int rank = 0, size = 1;
  explicit Mpi(MPI_Comm c) : comm(c) {
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
  }
};

// Collective: any rank's error (the lowest failing rank's message) makes every rank throw the
// same one-line AgreedError, so all exit non-zero together.
inline void agree_or_throw(const Mpi& mpi, const std::string& error, bool input_error = true) {
  simpact::agree_or_throw(mpi.comm, error, input_error);
}

// Rank 0's `text` on every rank.
// Rank 0's bytes to every rank, in pieces of at most 1 GiB (MPI counts are int).
inline void broadcast_bytes(MPI_Comm comm, std::string& bytes) {
  std::uint64_t length = bytes.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, comm);
  bytes.resize(static_cast<std::size_t>(length));
  constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;
  for (std::uint64_t at = 0; at < length; at += kPiece)
    MPI_Bcast(bytes.data() + at, static_cast<int>(std::min(kPiece, length - at)), MPI_CHAR, 0, comm);
}

inline void broadcast_string(MPI_Comm comm, std::string& text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
}

// Runs a collective file write: its CollectiveIoError, thrown on every rank alike, becomes an
// AgreedError (one line from rank 0, every rank exits together).
template <class Fn>
auto agreed_io(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const CollectiveIoError& e) {
    throw AgreedError(e.what(), false);
  }
}

// agreed_io writing the staging file `staging`, which rank 0 removes when the write failed (the
// journal, or the shards, still hold everything). A rank whose write fails inside a collective
// HDF5 call ends the job (set_collective_io_failure_note): it removes the staging file first.
template <class Fn>
auto agreed_io_staged(const Mpi& mpi, const std::string& staging, Fn&& fn) -> decltype(fn()) {
  struct Cleanup {
    explicit Cleanup(const std::string& path) { set_collective_io_failure_cleanup(path); }
    ~Cleanup() { set_collective_io_failure_cleanup(""); }
    Cleanup(const Cleanup&) = delete;
    Cleanup& operator=(const Cleanup&) = delete;
  } cleanup(staging);
  try {
    return agreed_io(std::forward<Fn>(fn));
  } catch (const AgreedError&) {
    if (mpi.rank == 0) std::remove(staging.c_str());
    throw;
  }
}

}  // namespace simpact::detail
