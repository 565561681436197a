# CMake toolchain file: Game Boy Advance (ARM7TDMI, ARMv4T) with Debian's
# gcc-arm-none-eabi + libnewlib-arm-none-eabi (no devkitARM needed).
#
#   cmake -S src/gba/cross -B build-gba -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi-gba.cmake
#
# Default code generation is Thumb (what cores placed in ROM use); files or
# functions that go to IWRAM are compiled as ARM (-marm) by the project.
# The flags select newlib's ARMv4T Thumb multilib (thumb/nofp); the v5te
# multilibs would not run on a GBA.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm7tdmi)
set(AGB_TARGET_GBA ON CACHE INTERNAL "building for the Game Boy Advance")

set(_agb_prefix arm-none-eabi-)
if(DEFINED ENV{AGB_GBA_TOOLCHAIN_PREFIX})
  set(_agb_prefix "$ENV{AGB_GBA_TOOLCHAIN_PREFIX}")
endif()

find_program(CMAKE_C_COMPILER   ${_agb_prefix}gcc REQUIRED)
find_program(CMAKE_ASM_COMPILER ${_agb_prefix}gcc REQUIRED)
# C++ (a project with LANGUAGES CXX): needs libstdc++-arm-none-eabi-newlib.
find_program(CMAKE_CXX_COMPILER ${_agb_prefix}g++)
find_program(CMAKE_OBJCOPY      ${_agb_prefix}objcopy REQUIRED)
find_program(CMAKE_OBJDUMP      ${_agb_prefix}objdump)
find_program(CMAKE_SIZE         ${_agb_prefix}size)
find_program(CMAKE_AR           ${_agb_prefix}ar REQUIRED)
find_program(CMAKE_RANLIB       ${_agb_prefix}ranlib REQUIRED)

# try_compile() cannot link without our crt0/linker script.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(AGB_GBA_CPU_FLAGS "-mcpu=arm7tdmi -mthumb -mthumb-interwork")
set(CMAKE_C_FLAGS_INIT   "${AGB_GBA_CPU_FLAGS} -ffunction-sections -fdata-sections -fno-strict-aliasing")
set(CMAKE_CXX_FLAGS_INIT "${AGB_GBA_CPU_FLAGS} -ffunction-sections -fdata-sections -fno-strict-aliasing")
set(CMAKE_ASM_FLAGS_INIT "${AGB_GBA_CPU_FLAGS}")
# Our own crt0 (src/gba/runtime/crt0.s) and linker script (src/gba/runtime/gba.ld). The full
# newlib a devkitARM game gets; a C target may add -specs=nano.specs to its link options for
# newlib-nano (not C++: nano's libstdc++ is built without exceptions, so even a nothrow new
# that fails aborts).
set(CMAKE_EXE_LINKER_FLAGS_INIT "${AGB_GBA_CPU_FLAGS} -nostartfiles -Wl,--gc-sections")

set(CMAKE_C_FLAGS_RELEASE_INIT "-O2")
set(CMAKE_C_FLAGS_MINSIZEREL_INIT "-Os")
set(CMAKE_C_FLAGS_RELWITHDEBINFO_INIT "-O2 -g")
set(CMAKE_CXX_FLAGS_RELEASE_INIT "-O2")
set(CMAKE_CXX_FLAGS_MINSIZEREL_INIT "-Os")
set(CMAKE_EXECUTABLE_SUFFIX_C ".elf")
set(CMAKE_EXECUTABLE_SUFFIX_ASM ".elf")
set(CMAKE_EXECUTABLE_SUFFIX_CXX ".elf")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
