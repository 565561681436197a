# agbmem.mk — include from a devkitARM-style Makefile (the libtonc/libgba template):
#     include <prefix>/share/agbmem/agbmem.mk
# It adds the prefix to LIBDIRS (whose include/ and lib/ the template adds to the compile and
# link flags) and the drop-in heap to LIBS; set AGBMEM_HEAP before the include to pick another:
#     agbmalloc (default: malloc is agbmem's, Thumb in ROM), agbmalloc_iwram (ARM in IWRAM),
#     or empty (newlib's malloc; link the cores' typed API with AGBMEM_CORES := agbmem).
# AGBMEM_RUNTIME_LDFLAGS links agbmem's crt0 and gba.ld instead of the toolchain's (a
# Makefile that keeps devkitARM's gba.specs leaves it out and uses its own crt0).
AGBMEM       ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
AGBMEM_HEAP  ?= agbmalloc
AGBMEM_CORES ?= agbmem
LIBDIRS      += $(AGBMEM)
LIBS         := $(if $(AGBMEM_HEAP),-l$(AGBMEM_HEAP)) $(if $(AGBMEM_CORES),-l$(AGBMEM_CORES)) $(LIBS)
CFLAGS       += -DAGB_TARGET_GBA=1
CXXFLAGS     += -DAGB_TARGET_GBA=1
AGBMEM_RUNTIME_LDFLAGS := -nostartfiles -T$(AGBMEM)/lib/gba.ld $(AGBMEM)/lib/agb_crt0.o
AGBMEM_ROMFIX := $(AGBMEM)/bin/agb-romfix
