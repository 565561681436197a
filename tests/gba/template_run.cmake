# Builds an examples/ template against an installed agbmem prefix alone (its toolchain file and
# CMake package), runs the ROM in mGBA and checks the log.
#   -DSRC=examples/template-X -DBIN=build dir -DPREFIX= -DRUNNER=agb-mgba-run -DROM=name
#   -DEXPECT="regex;regex..."  [-DFRAMES=N]
#   [-DAGBSIM=agbsim -DPEAK_RE=regex]  then `agbsim budget ROM.elf`: its ewram.heap_peak must be
#   the heap peak the game printed (PEAK_RE's first group) and it must have read ROM.map.
if(NOT EXISTS ${BIN}/CMakeCache.txt)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN}
      -DCMAKE_TOOLCHAIN_FILE=${PREFIX}/lib/cmake/agbmem/arm-none-eabi-gba.cmake
      -Dagbmem_DIR=${PREFIX}/lib/cmake/agbmem -DGAME_FRAMES=60
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    file(REMOVE ${BIN}/CMakeCache.txt)
    message(FATAL_ERROR "configure of ${SRC} against ${PREFIX} failed:\n${out}\n${err}")
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "build of ${SRC} failed:\n${out}\n${err}")
endif()
if(NOT FRAMES)
  set(FRAMES 600)
endif()
execute_process(COMMAND ${RUNNER} ${BIN}/${ROM}.gba --frames ${FRAMES}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE log)
message(STATUS "${log}${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${ROM}.gba did not exit with status 0")
endif()
foreach(re ${EXPECT})
  if(NOT log MATCHES "${re}")
    message(FATAL_ERROR "no match for '${re}' in the log")
  endif()
endforeach()

if(AGBSIM)
  execute_process(COMMAND ${AGBSIM} budget ${BIN}/${ROM}.elf --frames ${FRAMES} --format json
      -o ${BIN}/budget.json --game-log ${BIN}/budget.log
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "agbsim budget ${ROM}.elf: exit ${rc}\n${out}${err}")
  endif()
  file(READ ${BIN}/budget.json report)
  file(READ ${BIN}/budget.log game_log)
  string(JSON peak GET "${report}" figures ewram.heap_peak)
  string(JSON source GET "${report}" heap_source)
  string(JSON libc_type TYPE "${report}" libc)
  if(NOT game_log MATCHES "${PEAK_RE}")
    message(FATAL_ERROR "no match for '${PEAK_RE}' in the game's log under agbsim budget")
  endif()
  set(game_peak ${CMAKE_MATCH_1})
  if(NOT peak EQUAL game_peak)
    message(FATAL_ERROR "ewram.heap_peak ${peak} (${source}), the game's own peak ${game_peak}")
  endif()
  if(NOT libc_type STREQUAL "OBJECT")
    message(FATAL_ERROR "agbsim budget did not read ${ROM}.map (libc: ${libc_type})")
  endif()
  message(STATUS "budget: ewram.heap_peak ${peak} = the game's peak (${source}); map read")
endif()
