@ crt0.s — start-up of a GBA cartridge ROM (ARM mode, at 0x08000000): agbmem's runtime, used
@ as it is by games (docs/using-agbmem.md) and by the project's test ROMs.
@ Layout: 0x00 branch, 0x04..0xBF logo + cartridge header (filled by agb-romfix),
@ 0xC0 ROM descriptor (see agb_gba_abi.h: lets agbsim's runner find the exit block), 0xE0
@ reset code. Cartridge only: a multiboot image (loaded to EWRAM at 0x02000000) is not
@ supported by this crt0 and gba.ld.
@ Order: WAITCNT 4317h, IRQ and system stacks, copies of .iwram/.data/.ewram from ROM, .bss
@ and EWRAM .bss/.sbss cleared, .preinit_array then .init_array run (C++ global
@ constructors), main(0, 0), then _agb_main_return(main's result) (syscalls.c: what exit does).
    .syntax unified
    .section .crt0, "ax", %progbits
    .arm
    .align 2
    .global _start
_start:
    b       _agb_reset
    .fill   0xC0 - 4, 1, 0

    .global agb_rom_desc
    .type   agb_rom_desc, %object
agb_rom_desc:
    .ascii  "AGBSIMD1"              @ +0x00 magic
    .word   0                       @ +0x08 flags (host patches AGB_DESC_HOST_MARKERS)
    .word   0                       @ +0x0C payload ROM offset (0 = none)
    .word   0                       @ +0x10 payload length
    .word   __agb_results_start     @ +0x14 results block address
    .word   1                       @ +0x18 descriptor version
    .word   0                       @ +0x1C reserved
    .size   agb_rom_desc, 0x20

_agb_reset:
    @ WAITCNT = 4317h first: every later ROM fetch is faster.
    ldr     r0, =0x04000204
    ldr     r1, =0x4317
    strh    r1, [r0]

    @ IRQ mode stack, then system mode stack (IRQs stay masked by IME=0).
    mov     r0, #0xD2
    msr     cpsr_c, r0
    ldr     sp, =__agb_sp_irq
    mov     r0, #0x1F
    msr     cpsr_c, r0
    ldr     sp, =__agb_sp_sys

    @ Copy initialised IWRAM code/data and EWRAM data from ROM.
    ldr     r0, =__iwram_lma
    ldr     r1, =__iwram_start
    ldr     r2, =__iwram_end
    bl      _agb_copy
    ldr     r0, =__data_lma
    ldr     r1, =__data_start
    ldr     r2, =__data_end
    bl      _agb_copy
    ldr     r0, =__ewram_lma
    ldr     r1, =__ewram_start
    ldr     r2, =__ewram_end
    bl      _agb_copy

    @ Zero the results block, .bss and EWRAM .bss.
    ldr     r1, =__agb_results_start
    ldr     r2, =__agb_results_end
    bl      _agb_zero
    ldr     r1, =__bss_start
    ldr     r2, =__bss_end
    bl      _agb_zero
    ldr     r1, =__ewram_bss_start
    ldr     r2, =__ewram_bss_end
    bl      _agb_zero

    @ Constructors: what __libc_init_array does, without _init (no crti/crtn here).
    ldr     r4, =__preinit_array_start
    ldr     r5, =__preinit_array_end
    bl      _agb_run_array
    ldr     r4, =__init_array_start
    ldr     r5, =__init_array_end
    bl      _agb_run_array

    @ main(0, 0) — interworking call (main is Thumb), then _agb_main_return(result).
    mov     r0, #0
    mov     r1, #0
    ldr     r3, =main
    mov     lr, pc
    bx      r3
    ldr     r3, =_agb_main_return
    mov     lr, pc
    bx      r3
1:  b       1b

@ Calls each function pointer in [r4, r5) (interworking); clobbers r0-r3, r6.
_agb_run_array:
    mov     r6, lr
3:  cmp     r4, r5
    bxhs    r6
    ldr     r3, [r4], #4
    mov     lr, pc
    bx      r3
    b       3b

@ r0 = source, r1 = destination, r2 = destination end (all 4-aligned)
_agb_copy:
    cmp     r1, r2
    ldrlo   r3, [r0], #4
    strlo   r3, [r1], #4
    blo     _agb_copy
    bx      lr

@ r1 = destination, r2 = end (4-aligned)
_agb_zero:
    mov     r3, #0
2:  cmp     r1, r2
    strlo   r3, [r1], #4
    blo     2b
    bx      lr

    .pool

@ The handle C++ registers global destructors with (__cxa_atexit), crtbegin.o's with the
@ start files; weak so a game linking crtbegin.o keeps its own.
    .section .data.__dso_handle, "aw", %progbits
    .align  2
    .weak   __dso_handle
    .hidden __dso_handle
__dso_handle:
    .word   0
