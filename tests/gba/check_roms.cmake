# check_roms.cmake -DROMFIX=agb-romfix -DGBA_DIR=build/gba — the bench ROMs were built and each
# has a valid cartridge header (agb-romfix --check: 0x96 at 0xB2, complement at 0xBD).
file(GLOB _roms ${GBA_DIR}/agbsim-bench.gba ${GBA_DIR}/agbsim-bench-iwram*.gba)
list(LENGTH _roms _n)
if(_n LESS 3)
  message(FATAL_ERROR "bench ROMs missing in ${GBA_DIR} (found ${_n})")
endif()
foreach(_r ${_roms})
  execute_process(COMMAND ${ROMFIX} ${_r} --check RESULT_VARIABLE _rc OUTPUT_VARIABLE _o ERROR_VARIABLE _e)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${_r}: header check failed: ${_o}${_e}")
  endif()
endforeach()
message(STATUS "${_n} bench ROMs with valid headers")
