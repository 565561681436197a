# The release archive (`cmake --build BUILD --target agbmem-release`) unpacked into a fresh
# directory is a prefix a game builds against: template-cpp builds from it and runs in mGBA.
#   -DBUILD=build dir -DARCHIVE=agbmem-VERSION-gba.tar.gz -DOUT=dir to unpack into
#   -DSRC= -DRUNNER= -DROM= -DEXPECT=   (as template_run.cmake)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} --target agbmem-release
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "agbmem-release failed:\n${out}\n${err}")
endif()
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT}/unpacked)
execute_process(COMMAND ${CMAKE_COMMAND} -E tar xzf ${ARCHIVE} WORKING_DIRECTORY ${OUT}/unpacked
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cannot unpack ${ARCHIVE}")
endif()
file(GLOB PREFIX LIST_DIRECTORIES true ${OUT}/unpacked/agbmem-*-gba)
if(NOT EXISTS ${PREFIX}/lib/cmake/agbmem/agbmemConfig.cmake)
  message(FATAL_ERROR "${ARCHIVE} holds no agbmem-*-gba/lib/cmake/agbmem (got '${PREFIX}')")
endif()
set(BIN ${OUT}/game)
include(${CMAKE_CURRENT_LIST_DIR}/template_run.cmake)
message(STATUS "release: ${ARCHIVE} unpacked, ${ROM} built from it and ran")
