# CMake toolchain file: 64-bit Windows with Debian's mingw-w64 (gcc-mingw-w64-x86-64), for the
# `mingw` preset and for the Windows builds of the dependencies (scripts/setup --windows).
#
#   cmake -S . -B build-mingw -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
#
# The project runs its tests under Wine (tests/windows/wine.sh as the cross-compiling emulator).

set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(_agb_triple x86_64-w64-mingw32)

find_program(CMAKE_C_COMPILER  ${_agb_triple}-gcc REQUIRED)
find_program(CMAKE_CXX_COMPILER ${_agb_triple}-g++)
find_program(CMAKE_RC_COMPILER ${_agb_triple}-windres)
find_program(CMAKE_AR          ${_agb_triple}-ar REQUIRED)
find_program(CMAKE_RANLIB      ${_agb_triple}-ranlib REQUIRED)

# Libraries and headers come from the mingw sysroot and the dependencies' prefix, never from
# the Debian host; programs (pkg-config, sh, python3) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${_agb_triple})
if(DEFINED AGBSIM_WIN_PREFIX)
  list(APPEND CMAKE_FIND_ROOT_PATH ${AGBSIM_WIN_PREFIX})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# One self-contained agbsim.exe: the gcc runtime linked in, static libraries only (CMakeLists.txt
# also resolves pkg-config's -lfoo to libfoo.a); no DLL to ship beside it.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libgcc -static")

