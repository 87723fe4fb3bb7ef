# Runs PROGRAM twice, natively and with the shim preloaded, and requires both runs to exit 0 with
# the same standard output. Each run also tells the program which it is (CHESS_TEST_EXPECT_SHIM),
# so a run where the shim failed to load cannot pass as the preloaded one.
#
#   cmake -DSHIM=path/libchess_preload.so -DPROGRAM=path [-DARGS=a;b] -P compare_with_native.cmake
foreach(variable SHIM PROGRAM)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "compare_with_native.cmake: ${variable} is not set")
  endif()
endforeach()

execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_PRELOAD CHESS_TEST_EXPECT_SHIM=0 ${PROGRAM} ${ARGS}
                RESULT_VARIABLE native_status OUTPUT_VARIABLE native_output ERROR_VARIABLE native_errors
                TIMEOUT 120)
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${SHIM} CHESS_TEST_EXPECT_SHIM=1 ${PROGRAM} ${ARGS}
                RESULT_VARIABLE preloaded_status OUTPUT_VARIABLE preloaded_output ERROR_VARIABLE preloaded_errors
                TIMEOUT 120)

set(report "native: exit ${native_status}\n${native_output}${native_errors}\n"
           "with the shim: exit ${preloaded_status}\n${preloaded_output}${preloaded_errors}")
if(NOT native_status STREQUAL "0" OR NOT preloaded_status STREQUAL "0")
  message(FATAL_ERROR "a run failed\n${report}")
endif()
if(NOT native_output STREQUAL preloaded_output)
  message(FATAL_ERROR "the output differs with the shim preloaded\n${report}")
endif()
message(STATUS "same output natively and with the shim:\n${native_output}")
