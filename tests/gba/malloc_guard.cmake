# gba_malloc_newlib_guard: linking newlib's malloc beside the drop-in heap fails with the
# drop-in's message. -DCC= -DLIBDIR=(libagbmalloc.a, agb_crt0.o, gba.ld) -DSRC= -DOUT=
execute_process(
  COMMAND ${CC} -mcpu=arm7tdmi -mthumb -mthumb-interwork -nostartfiles -T ${LIBDIR}/gba.ld
          ${LIBDIR}/agb_crt0.o ${SRC} -L${LIBDIR} -lagbmalloc -Wl,--gc-sections -o ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "the link with newlib's mallinfo beside -lagbmalloc succeeded")
endif()
if(NOT err MATCHES "agbmalloc: newlib's malloc is linked beside the drop-in heap")
  message(FATAL_ERROR "the link failed without the drop-in's message:\n${err}")
endif()
message(STATUS "link refused as it should be:\n${err}")
