# find_package(ChessTrace): chess-trace's CMake package (docs/testing-a-suite.md).
#
# Gives a project
#   CHESS_TRACE_EXECUTABLE          the chess-trace executable (a cache variable: set it to use another one)
#   ChessTrace::chess-trace         the same, as an imported executable target
#   chess_trace_discover_tests()    one CTest test per test case of a test binary, each explored by chess-trace
#
# Installed as <prefix>/lib/cmake/ChessTrace/ChessTraceConfig.cmake, it finds <prefix>/bin/chess-trace. In
# chess-trace's build tree, <build>/ChessTraceConfig.cmake (generated from ChessTraceBuildTreeConfig.cmake.in)
# includes this file after naming <build>/chess-trace, so -DChessTrace_DIR=<build> uses an uninstalled build.
if(CMAKE_VERSION VERSION_LESS 3.19)
  set(ChessTrace_FOUND FALSE)
  set(ChessTrace_NOT_FOUND_MESSAGE "ChessTrace needs CMake 3.19 or newer (string(JSON)); this is ${CMAKE_VERSION}.")
  return()
endif()

set(_chess_trace_in_build_tree FALSE)
if(DEFINED _chess_trace_build_tree_executable)
  set(_chess_trace_in_build_tree TRUE)
  set(_chess_trace_default_executable "${_chess_trace_build_tree_executable}")
  unset(_chess_trace_build_tree_executable)
else()
  get_filename_component(_chess_trace_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
  set(_chess_trace_default_executable "${_chess_trace_prefix}/bin/chess-trace")
  unset(_chess_trace_prefix)
endif()
set(CHESS_TRACE_EXECUTABLE "${_chess_trace_default_executable}"
    CACHE STRING "The chess-trace executable that chess_trace_discover_tests() runs: a path, or a name on PATH")

# A bare name is looked up on PATH, so -DCHESS_TRACE_EXECUTABLE=chess-trace works too.
set(_chess_trace_executable "${CHESS_TRACE_EXECUTABLE}")
if(NOT IS_ABSOLUTE "${_chess_trace_executable}")
  find_program(_CHESS_TRACE_ON_PATH NAMES "${_chess_trace_executable}")
  if(_CHESS_TRACE_ON_PATH)
    set(_chess_trace_executable "${_CHESS_TRACE_ON_PATH}")
  endif()
  unset(_CHESS_TRACE_ON_PATH CACHE)
endif()
if(NOT EXISTS "${_chess_trace_executable}" OR IS_DIRECTORY "${_chess_trace_executable}")
  set(ChessTrace_FOUND FALSE)
  if(_chess_trace_in_build_tree AND _chess_trace_executable STREQUAL _chess_trace_default_executable)
    get_filename_component(_chess_trace_build_dir "${_chess_trace_executable}" DIRECTORY)
    string(CONCAT ChessTrace_NOT_FOUND_MESSAGE "chess-trace is not built yet in ${_chess_trace_build_dir}: build it "
                  "first (cmake --build ${_chess_trace_build_dir} --target chess-trace).")
    unset(_chess_trace_build_dir)
  else()
    string(CONCAT ChessTrace_NOT_FOUND_MESSAGE "No chess-trace executable at ${_chess_trace_executable}: set "
                  "CHESS_TRACE_EXECUTABLE to the chess-trace to use.")
  endif()
  unset(_chess_trace_executable)
  unset(_chess_trace_default_executable)
  unset(_chess_trace_in_build_tree)
  return()
endif()

if(NOT TARGET ChessTrace::chess-trace)
  add_executable(ChessTrace::chess-trace IMPORTED)
  set_target_properties(ChessTrace::chess-trace PROPERTIES IMPORTED_LOCATION "${_chess_trace_executable}")
endif()
unset(_chess_trace_executable)
unset(_chess_trace_default_executable)
unset(_chess_trace_in_build_tree)

include("${CMAKE_CURRENT_LIST_DIR}/ChessTraceDiscoverTests.cmake")
