# suite.junit_validates: the JUnit XML of a sample with every verdict and every kind of awkward text
# (tests/suite/junit_sample.cc) passes junit.xsd; with -DBROKEN=ON, every deliberately broken variant of it
# fails the schema (exit status 3 of xmllint, a validity error), so the schema is seen to catch mistakes.
#
#   cmake -DSAMPLE=junit_sample -DXMLLINT=xmllint -DSCHEMA=junit.xsd -DWORK_DIR=dir [-DBROKEN=ON] -P junit_validates.cmake
cmake_minimum_required(VERSION 3.22)

if(NOT XMLLINT)
  message(FATAL_ERROR "xmllint not found: the JUnit schema test needs it. Install it: apt-get install libxml2-utils")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# Writes the sample (broken as `kind` says, when given) to `file`, then runs xmllint on it.
function(validate file kind status_var output_var)
  if(kind)
    set(break --break ${kind})
  endif()
  execute_process(COMMAND "${SAMPLE}" ${break} "${file}" RESULT_VARIABLE written ERROR_VARIABLE error)
  if(NOT written EQUAL 0)
    message(FATAL_ERROR "junit_sample ${break} failed (${written}): ${error}")
  endif()
  execute_process(COMMAND "${XMLLINT}" --noout --schema "${SCHEMA}" "${file}" RESULT_VARIABLE status
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  set(${status_var} "${status}" PARENT_SCOPE)
  set(${output_var} "${output}" PARENT_SCOPE)
endfunction()

if(NOT BROKEN)
  validate("${WORK_DIR}/sample.xml" "" status output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "The sample's JUnit XML does not pass ${SCHEMA} (xmllint exit ${status}):\n${output}")
  endif()
  message(STATUS "${output}")
  return()
endif()

foreach(kind no-name two-results out-of-order)
  validate("${WORK_DIR}/${kind}.xml" ${kind} status output)
  if(NOT status EQUAL 3)
    message(FATAL_ERROR "The sample broken as ${kind} should fail the schema with a validity error (xmllint exit 3), "
                        "not exit ${status}:\n${output}")
  endif()
  message(STATUS "${kind}: rejected as it should be:\n${output}")
endforeach()
