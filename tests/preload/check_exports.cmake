# The shim exports exactly the wrapped functions, no more (a stray export could interpose on
# something by accident) and no fewer (a missing one would silently not be wrapped).
#
#   cmake -DNM=nm -DSHIM=path/libchess_preload.so -DEXPECTED=expected_exports.txt -P check_exports.cmake
execute_process(COMMAND ${NM} -D --defined-only ${SHIM} RESULT_VARIABLE status OUTPUT_VARIABLE symbols
                ERROR_VARIABLE errors)
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "${NM} failed on ${SHIM}: ${errors}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${symbols}")
set(exported "")
foreach(line IN LISTS lines)
  # "ADDRESS TYPE NAME"; the linker's own absolute version symbols are not exports.
  if(line MATCHES "^[0-9a-f]+ ([A-Za-z]) ([^ ]+)$" AND NOT CMAKE_MATCH_1 STREQUAL "A")
    list(APPEND exported ${CMAKE_MATCH_2})
  endif()
endforeach()
file(STRINGS ${EXPECTED} expected)
list(SORT exported)
list(SORT expected)
if(NOT exported STREQUAL expected)
  set(extra ${exported})
  list(REMOVE_ITEM extra ${expected})
  set(missing ${expected})
  list(REMOVE_ITEM missing ${exported})
  message(FATAL_ERROR "the shim's exports differ from ${EXPECTED}\n  not expected: ${extra}\n  missing: ${missing}")
endif()
list(LENGTH exported count)
message(STATUS "the shim exports exactly the ${count} wrapped functions")
