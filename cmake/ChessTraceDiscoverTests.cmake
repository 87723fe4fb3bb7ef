# chess_trace_discover_tests(): one CTest test per test case of a test binary, each explored by chess-trace in a
# search of its own (docs/testing-a-suite.md). Included by ChessTraceConfig.cmake.
#
#   chess_trace_discover_tests([TARGET] target
#                              [EXTRA_ARGS arg...]          more options for `chess-trace explore`
#                              [PER_TEST_EXECUTIONS n]      --max-executions of each test's search
#                              [PER_TEST_TIME s]            --time-limit of each test's search (default 60)
#                              [TEST_PREFIX p] [TEST_SUFFIX s]
#                              [LABELS label...]            (default: chess-trace)
#                              [PROPERTIES name value...]   more test properties, set last
#                              [FRAMEWORK name]             --framework for the listing (default: detected)
#                              [DISCOVERY_TIMEOUT s]        (default 30)
#                              [WORKING_DIRECTORY d]        (default: the current binary directory)
#                              [OUT_DIR d])                 (default: <binary dir>/chess-trace-out/<target>)
#
# How: when `target` is built, a POST_BUILD step runs ChessTraceAddTests.cmake, which lists the binary's test
# cases with `chess-trace test --list --report FILE -- <binary>` and writes a file of add_test() calls; the
# directory's TEST_INCLUDE_FILES has CTest read it. So the list follows the binary without reconfiguring, and
# configuring needs neither the binary nor chess-trace to run.
include_guard(GLOBAL)

set(_CHESS_TRACE_ADD_TESTS_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/ChessTraceAddTests.cmake")

# `value` as one bracket argument, so a generated file reads it back exactly: spaces, quotes, '$', '\\' and ';'.
function(_chess_trace_bracket_argument out_var value)
  set(equals "=")
  while("${value}]" MATCHES "\\]${equals}\\]")  # also a value that ends in "]="
    string(APPEND equals "=")
  endwhile()
  set(${out_var} " [${equals}[${value}]${equals}]" PARENT_SCOPE)
endfunction()

# Each element of the list `values` as a bracket argument (an empty list is no argument).
function(_chess_trace_bracket_arguments out_var values)
  set(text "")
  foreach(value IN LISTS values)
    _chess_trace_bracket_argument(argument "${value}")
    string(APPEND text "${argument}")
  endforeach()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

function(chess_trace_discover_tests)
  cmake_parse_arguments(PARSE_ARGV 0 arg ""
                        "TARGET;PER_TEST_EXECUTIONS;PER_TEST_TIME;TEST_PREFIX;TEST_SUFFIX;FRAMEWORK;DISCOVERY_TIMEOUT;WORKING_DIRECTORY;OUT_DIR"
                        "EXTRA_ARGS;LABELS;PROPERTIES")
  # The target by keyword or, as gtest_discover_tests takes it, first.
  set(target "${arg_TARGET}")
  if(NOT target AND arg_UNPARSED_ARGUMENTS)
    list(POP_FRONT arg_UNPARSED_ARGUMENTS target)
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "chess_trace_discover_tests: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT target)
    message(FATAL_ERROR "chess_trace_discover_tests: no TARGET")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "chess_trace_discover_tests: ${target} is not a target of this project")
  endif()
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "EXECUTABLE")
    message(FATAL_ERROR "chess_trace_discover_tests: ${target} is a ${type}, not a test executable")
  endif()
  if(NOT TARGET ChessTrace::chess-trace)
    message(FATAL_ERROR "chess_trace_discover_tests: call find_package(ChessTrace) first")
  endif()
  get_target_property(chess_trace ChessTrace::chess-trace IMPORTED_LOCATION)

  set(time_limit 60)
  if(DEFINED arg_PER_TEST_TIME)
    set(time_limit "${arg_PER_TEST_TIME}")
  endif()
  if(NOT time_limit MATCHES "^[0-9]+(\\.[0-9]+)?$" OR time_limit MATCHES "^0+(\\.0+)?$")
    message(FATAL_ERROR "chess_trace_discover_tests: PER_TEST_TIME must be a positive number of seconds, "
                        "not '${time_limit}'")
  endif()
  if(DEFINED arg_PER_TEST_EXECUTIONS AND NOT arg_PER_TEST_EXECUTIONS MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "chess_trace_discover_tests: PER_TEST_EXECUTIONS must be a whole number of at least 1, "
                        "not '${arg_PER_TEST_EXECUTIONS}'")
  endif()
  # CTest's TIMEOUT: the search stops at its time limit, then finishes the execution under way and writes its
  # report and trace; 30 s more leave room for that before CTest kills it.
  string(REGEX REPLACE "\\..*" "" whole_seconds "${time_limit}")
  math(EXPR timeout "${whole_seconds} + 1 + 30")

  set(labels chess-trace)
  if(DEFINED arg_LABELS)
    set(labels "${arg_LABELS}")
  endif()
  set(discovery_timeout 30)
  if(DEFINED arg_DISCOVERY_TIMEOUT)
    set(discovery_timeout "${arg_DISCOVERY_TIMEOUT}")
  endif()
  set(working_directory "${CMAKE_CURRENT_BINARY_DIR}")
  if(DEFINED arg_WORKING_DIRECTORY)
    get_filename_component(working_directory "${arg_WORKING_DIRECTORY}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/chess-trace-out/${target}")
  if(DEFINED arg_OUT_DIR)
    get_filename_component(out_dir "${arg_OUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()

  # A target may be discovered more than once (different options, prefixes): each call has its own files.
  get_property(counter TARGET ${target} PROPERTY CHESS_TRACE_DISCOVERY_COUNT)
  if(NOT counter)
    set(counter 0)
  endif()
  math(EXPR counter "${counter} + 1")
  set_property(TARGET ${target} PROPERTY CHESS_TRACE_DISCOVERY_COUNT ${counter})
  set(base "${CMAKE_CURRENT_BINARY_DIR}/${target}_chess_trace_${counter}")

  # The discovery's inputs go in a file, not on a command line, so every argument reaches the script as it
  # was given; its hash is on the command line, so a change of arguments reruns the step.
  set(inputs "")
  foreach(name chess_trace target time_limit timeout discovery_timeout working_directory out_dir)
    _chess_trace_bracket_argument(value "${${name}}")
    string(APPEND inputs "set(${name}${value})\n")
  endforeach()
  set(executable "$<TARGET_FILE:${target}>")
  set(tests_file "${base}_tests.cmake")
  set(listing_file "${base}_list.json")
  foreach(name executable tests_file listing_file)
    _chess_trace_bracket_argument(value "${${name}}")
    string(APPEND inputs "set(${name}${value})\n")
  endforeach()
  foreach(name PER_TEST_EXECUTIONS TEST_PREFIX TEST_SUFFIX FRAMEWORK EXTRA_ARGS PROPERTIES)
    _chess_trace_bracket_arguments(value "${arg_${name}}")
    string(TOLOWER "${name}" variable)
    string(APPEND inputs "set(${variable}${value})\n")
  endforeach()
  # One argument: the list of labels is the LABELS property's value.
  _chess_trace_bracket_argument(value "${labels}")
  string(APPEND inputs "set(labels${value})\n")
  string(MD5 inputs_hash "${inputs}")
  file(GENERATE OUTPUT "${base}_inputs-$<CONFIG>.cmake" CONTENT "${inputs}")

  add_custom_command(
    TARGET ${target} POST_BUILD
    BYPRODUCTS "${tests_file}"
    COMMAND "${CMAKE_COMMAND}" -D "CHESS_TRACE_DISCOVERY_INPUTS=${base}_inputs-$<CONFIG>.cmake"
            -D "CHESS_TRACE_DISCOVERY_HASH=${inputs_hash}" -P "${_CHESS_TRACE_ADD_TESTS_SCRIPT}"
    COMMENT "Listing the test cases of ${target} for chess-trace"
    VERBATIM)

  # Before the first build there is no list: a test that cannot run says so.
  file(WRITE "${base}_include.cmake"
       "if(EXISTS \"${tests_file}\")\n"
       "  include(\"${tests_file}\")\n"
       "else()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${base}_include.cmake")
endfunction()
