@ smoke_loops.s — fixed instruction sequences whose cycle counts the smoke test checks.
@ Written in assembly so a compiler upgrade cannot change what is measured.
@ uint32_t f(uint32_t n, const volatile uint32_t *p): sums *p n times (n >= 1).
    .syntax unified

    .text
    .thumb
    .align 2
    .global agb_loop_thumb
    .type   agb_loop_thumb, %function
    .thumb_func
agb_loop_thumb:                 @ Thumb, in ROM (default placement of the cores)
    movs    r2, #0
1:  ldr     r3, [r1]
    adds    r2, r2, r3
    subs    r0, r0, #1
    bne     1b
    movs    r0, r2
    bx      lr
    .size   agb_loop_thumb, . - agb_loop_thumb

    .section .iwram, "ax", %progbits
    .arm
    .align 2
    .global agb_loop_arm_iwram
    .type   agb_loop_arm_iwram, %function
agb_loop_arm_iwram:             @ ARM, in IWRAM (second placement)
    mov     r2, #0
1:  ldr     r3, [r1]
    add     r2, r2, r3
    subs    r0, r0, #1
    bne     1b
    mov     r0, r2
    bx      lr
    .size   agb_loop_arm_iwram, . - agb_loop_arm_iwram

@ void agb_copy32_arm_iwram(void *dst, const void *src, uint32_t bytes): bytes a multiple of 32,
@ eight words per ldmia/stmia pair, as a game's fast 32-bit copy does (the resource cache's
@ --load-cost=copy is this loop's cycles per byte, ROM to EWRAM).
    .section .iwram, "ax", %progbits
    .arm
    .align 2
    .global agb_copy32_arm_iwram
    .type   agb_copy32_arm_iwram, %function
agb_copy32_arm_iwram:
    push    {r4-r10}
1:  ldmia   r1!, {r3-r10}
    stmia   r0!, {r3-r10}
    subs    r2, r2, #32
    bne     1b
    pop     {r4-r10}
    bx      lr
    .size   agb_copy32_arm_iwram, . - agb_copy32_arm_iwram
