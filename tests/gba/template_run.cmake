# Builds an examples/ template against an installed agbmem prefix alone (its toolchain file and
# CMake package), runs the ROM in mGBA and checks the log.
#   -DSRC=examples/template-X -DBIN=build dir -DPREFIX= -DRUNNER=agb-mgba-run -DROM=name
#   -DEXPECT="regex;regex..."  [-DFRAMES=N]
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
