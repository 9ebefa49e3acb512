# Generates simpact/version.hpp: version, git revision and build flags, written to /provenance.
find_package(Git QUIET)
set(SIMPACT_GIT_REVISION "unknown")
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE SIMPACT_GIT_REVISION
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT SIMPACT_GIT_REVISION)
    set(SIMPACT_GIT_REVISION "unknown")
  endif()
endif()
string(TOUPPER "${CMAKE_BUILD_TYPE}" _bt)
set(SIMPACT_BUILD_FLAGS "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} ${CMAKE_BUILD_TYPE} ${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_bt}} native=${SIMPACT_NATIVE}")
string(STRIP "${SIMPACT_BUILD_FLAGS}" SIMPACT_BUILD_FLAGS)
configure_file(${PROJECT_SOURCE_DIR}/cmake/version.hpp.in
               ${PROJECT_BINARY_DIR}/generated/simpact/version.hpp @ONLY)
