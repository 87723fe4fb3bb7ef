# tests/programs/explore/rust.cmake: the Rust part of the bug corpus, included from this
# directory's CMakeLists.txt. std::sync::Mutex is futex-based: an uncontended lock or unlock is
# an atomic instruction, no syscall and no pthread call, so the search can switch threads only
# at the syscalls these programs make (see the header of each buggy program):
#   rust_atomicity       lost update between two critical sections           1 preemption, SIGABRT
#   rust_abba_deadlock   lock-order inversion                                1 preemption, deadlock
#   rust_atomic_counter  a lost update through an AtomicUsize load and store 1 preemption, panic
# Each is built by rustc (1.63 or later: const Mutex::new) when it is found, like
# ../rust_threads.rs, with debug info for the report's stacks; without rustc they are skipped.
find_program(RUSTC rustc HINTS $ENV{HOME}/.cargo/bin)
if(RUSTC)
  foreach(bug rust_atomicity rust_abba_deadlock rust_atomic_counter)
    foreach(variant buggy fixed)
      set(name ${bug}_${variant})
      add_custom_command(OUTPUT ${CHESS_PROGRAMS_DIR}/${name}
        COMMAND ${CMAKE_COMMAND} -E env --unset=MAKEFLAGS --unset=MFLAGS
                ${RUSTC} -O -C debuginfo=1 ${CMAKE_CURRENT_LIST_DIR}/${name}.rs -o ${CHESS_PROGRAMS_DIR}/${name}
        DEPENDS ${CMAKE_CURRENT_LIST_DIR}/${name}.rs COMMENT "Building the Rust test program ${name}")
      add_custom_target(prog_${name} ALL DEPENDS ${CHESS_PROGRAMS_DIR}/${name})
    endforeach()
  endforeach()
else()
  message(STATUS "rustc not found: the Rust programs of the explore corpus are skipped")
endif()
