/* mgba_budget.h — run a GBA game in libmgba and watch what it does to memory, for
 * `agbsim budget` (issue 36, docs/budget.md).
 *
 * Two measures of the stacks in one run:
 *  - the paint: at the first instruction of main (a software breakpoint), every IWRAM word
 *    between the static sections' end and each stack's pointer that nothing has written yet
 *    gets a value derived from its address; at the end, the lowest word that no longer holds
 *    its value is the stack's deepest point;
 *  - a store watch: the core's store functions (ARMMemory store8/16/32/storeMultiple) are
 *    wrapped, so every CPU (and DMA) store is seen with its address, the CPU mode and the stack
 *    pointer. A store is a stack store when it is at or above the stack pointer of the mode
 *    that made it (or ends right at it: a push); the lowest stack store per stack, its PC and
 *    the call chain above it are kept, and the first stack store below a stack's limit is the
 *    overflow (with the frame, the PC, the stack pointer).
 * The watch also keeps which words of IWRAM and EWRAM were written after main's entry (the
 * start-up code's copies and zeroing are not use).
 *
 * libmgba's own watchpoints (mDebuggerPlatform.setWatchpoint) watch one address each; the wrap
 * watches ranges at the cost of a compare per store. One session per thread at a time. */
#ifndef AGB_MGBA_BUDGET_H
#define AGB_MGBA_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#define AGB_BUDGET_CHAIN 24

struct agb_budget_config {
	uint32_t main_addr;        /* paint at its first instruction (bit 0: Thumb) */
	uint32_t iwram_static_end; /* end of IWRAM's static sections: the lower stack's limit */
	uint32_t sys_top, irq_top; /* the stacks' tops; 0: the stack pointer at main's entry */
};

struct agb_budget_event { /* a store that made a stack deeper, or an overflow */
	uint32_t addr, pc, lr, sp, frame;
	int thumb;
};

struct agb_budget_stack {
	uint32_t top, limit; /* the stack grows down from top; limit: the lowest byte it may use */
	uint32_t sp_at_main;
	uint32_t low_watch;              /* lowest byte a stack store wrote (top: none) */
	uint32_t low_paint;              /* lowest painted byte changed (top: none) */
	uint32_t painted_lo, painted_hi; /* the painted range */
	struct agb_budget_event deepest;
	uint32_t chain[AGB_BUDGET_CHAIN]; /* return addresses above deepest.sp, innermost first */
	uint32_t chain_at[AGB_BUDGET_CHAIN]; /* where each was found on the stack */
	size_t n_chain;
	int overflowed;
	struct agb_budget_event overflow; /* the first stack store below limit */
};

struct agb_budget;

/* Boots ROM_PATH (a .gba or an ELF mGBA boots), a breakpoint on main, the store watch on.
 * Returns the session, or NULL with a message in err. */
struct agb_budget *agb_budget_open(const char *rom_path, const struct agb_budget_config *cfg,
                                   char *err, size_t err_len);

/* Called at the start of line 0 of every frame (what that frame shows) with the live I/O
 * registers (512 halfwords), palette (512 halfwords), VRAM (96 KiB) and OAM (512 halfwords). */
typedef void (*agb_budget_video_fn)(void *ctx, const uint16_t *io, const uint16_t *pal,
                                    const uint16_t *vram, const uint16_t *oam);
void agb_budget_on_video(struct agb_budget *b, agb_budget_video_fn fn, void *ctx);

void agb_budget_set_keys(struct agb_budget *b, uint32_t keys);
/* Runs one frame (to the next VBlank start). */
void agb_budget_run_frame(struct agb_budget *b);

/* 1 once main was reached (the paint is on). */
int agb_budget_painted(const struct agb_budget *b);

/* The stacks after the frames run (the paint read back): 0 the system stack, 1 IRQ. */
const struct agb_budget_stack *agb_budget_stack(struct agb_budget *b, int which);

/* Words of [lo, hi) (IWRAM or EWRAM, 4-aligned) written since main's entry, and the highest written
 * byte's end in it (lo when none). */
uint32_t agb_budget_written_bytes(const struct agb_budget *b, uint32_t lo, uint32_t hi);
uint32_t agb_budget_written_top(const struct agb_budget *b, uint32_t lo, uint32_t hi);

/* A word of the emulated bus (no side effects). */
uint32_t agb_budget_read32(struct agb_budget *b, uint32_t addr);

const char *agb_budget_log(const struct agb_budget *b, size_t *len);
uint32_t agb_budget_frames(const struct agb_budget *b);

void agb_budget_close(struct agb_budget *b);

#endif
