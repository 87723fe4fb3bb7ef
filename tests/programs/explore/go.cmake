# tests/programs/explore/go.cmake: the Go part of the bug corpus, included from this directory's
# CMakeLists.txt (see the header of each buggy program):
#   go_atomic_counter    a lost update through sync/atomic Load and Store    1 preemption, exit status 1
# Built by `go build` when go is found, as ../go_goroutines.go is; without it they are skipped.
find_program(GO go)
if(GO)
  foreach(variant buggy fixed)
    set(name go_atomic_counter_${variant})
    # The cache and HOME inside the build tree: works for root in CI and leaves ~ alone.
    add_custom_command(OUTPUT ${CHESS_PROGRAMS_DIR}/${name}
      COMMAND ${CMAKE_COMMAND} -E env --unset=MAKEFLAGS --unset=MFLAGS --unset=GOFLAGS
              GOCACHE=${CMAKE_CURRENT_BINARY_DIR}/go/cache GOPATH=${CMAKE_CURRENT_BINARY_DIR}/go/path
              HOME=${CMAKE_CURRENT_BINARY_DIR}/go
              ${GO} build -o ${CHESS_PROGRAMS_DIR}/${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.go
      DEPENDS ${CMAKE_CURRENT_LIST_DIR}/${name}.go COMMENT "Building the Go test program ${name}")
    add_custom_target(prog_${name} ALL DEPENDS ${CHESS_PROGRAMS_DIR}/${name})
  endforeach()
else()
  message(STATUS "go not found: the Go programs of the explore corpus are skipped (apt-get install golang-go)")
endif()
