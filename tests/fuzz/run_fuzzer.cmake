# cmake -DFUZZER=.. -DSEEDS=dir -DDICT=file -DWORK=dir -DSECONDS=60 "-DARGS=-timeout=5;.."
#       [-DIGNORE_TIMEOUTS=ON] -P run_fuzzer.cmake
# One bounded libFuzzer run (the fuzz_*_60s tests): copies the seed corpus to WORK/corpus, fuzzes
# the copy for SECONDS and fails if libFuzzer found a crash, a leak or an out-of-memory input
# (its crash-*/leak-*/oom-* file is left in WORK/). With IGNORE_TIMEOUTS (the JSON harness, whose
# requests may legitimately ask for hours of work) it fuzzes in fork mode, goes on past inputs
# slower than -timeout and lists their timeout-* files without failing.
foreach(var FUZZER SEEDS DICT WORK SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzzer.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
file(GLOB _seeds ${SEEDS}/*)
file(COPY ${_seeds} DESTINATION ${WORK}/corpus)
set(_mode "")
if(IGNORE_TIMEOUTS)
  set(_mode -fork=1 -ignore_timeouts=1)
endif()
execute_process(COMMAND ${FUZZER} ${WORK}/corpus -dict=${DICT} -max_total_time=${SECONDS} ${ARGS} ${_mode}
                        -artifact_prefix=${WORK}/
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE _rc)
file(GLOB _timeouts ${WORK}/timeout-* ${WORK}/slow-unit-*)
file(GLOB _found ${WORK}/crash-* ${WORK}/oom-* ${WORK}/leak-*)
if(NOT IGNORE_TIMEOUTS)
  list(APPEND _found ${_timeouts})
elseif(_timeouts)
  message(WARNING "inputs slower than the timeout (triage: time them in a Release build): ${_timeouts}")
endif()
if(NOT _rc EQUAL 0 OR _found)
  message(FATAL_ERROR "libFuzzer exited with ${_rc}; inputs: ${_found}\n"
                      "Minimize with: ${FUZZER} -minimize_crash=1 -runs=10000 FILE; add the result to ${SEEDS}")
endif()
