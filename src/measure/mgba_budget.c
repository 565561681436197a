/* mgba_budget.c — the paint and the store watch of `agbsim budget` (see mgba_budget.h). */
#include <mgba/flags.h> /* first: fixes the layout of struct mCore */

#include "mgba_budget.h"
#include "mgba_runner.h"

#include <mgba/core/core.h>
#include <mgba/debugger/debugger.h>
#include <mgba/internal/arm/arm.h>
#include <mgba/internal/arm/debugger/debugger.h>
#include <mgba/internal/debugger/symbols.h>
#include <mgba/internal/gba/gba.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IWRAM_BASE  0x03000000u
#define IWRAM_BYTES 0x8000u
#define EWRAM_BASE  0x02000000u
#define EWRAM_BYTES 0x40000u

struct agb_budget {
	struct agb_mgba *m;
	struct mCore *core;
	struct GBA *gba;
	struct ARMCore *cpu;
	struct mDebugger dbg; /* DEBUGGER_CUSTOM: the breakpoint on main */
	int attached, own_symbols, shimmed;
	ssize_t main_bp;
	struct agb_budget_config cfg;
	struct ARMMemory orig; /* the core's store functions, called by the wraps */

	int watching; /* main reached: stack stores are classified */
	uint32_t frames;
	struct agb_budget_stack st[2];
	int finished;

	uint32_t iwram_written[IWRAM_BYTES / 128u]; /* a bit per word */
	uint32_t ewram_written[EWRAM_BYTES / 128u];
	uint32_t iwram_painted[IWRAM_BYTES / 128u];

	struct mCoreCallbacks cbs;
	agb_budget_video_fn video_fn;
	void *video_ctx;
};

static _Thread_local struct agb_budget *active;

/* ---- memory ------------------------------------------------------------------------------ */
static uint32_t iwram_word(const struct agb_budget *b, uint32_t addr)
{
	const uint8_t *p = (const uint8_t *)b->gba->memory.iwram + (addr & (IWRAM_BYTES - 4u));
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void set_iwram_word(struct agb_budget *b, uint32_t addr, uint32_t v)
{
	uint8_t *p = (uint8_t *)b->gba->memory.iwram + (addr & (IWRAM_BYTES - 4u));
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* A halfword of code (ROM or IWRAM), 0 elsewhere. */
static uint32_t code16(const struct agb_budget *b, uint32_t addr)
{
	const uint8_t *p = NULL;
	if (addr >= 0x08000000u && addr < 0x0E000000u) {
		uint32_t off = addr & 0x01FFFFFEu;
		if (off + 2u <= b->gba->memory.romSize)
			p = (const uint8_t *)b->gba->memory.rom + off;
	} else if ((addr >> 24) == 3u) {
		p = (const uint8_t *)b->gba->memory.iwram + (addr & (IWRAM_BYTES - 2u));
	}
	return p != NULL ? (uint32_t)(p[0] | p[1] << 8) : 0u;
}

static uint32_t code32(const struct agb_budget *b, uint32_t addr)
{
	return code16(b, addr) | code16(b, addr + 2u) << 16;
}

/* The paint: a value of the word's address, so that a frame writing one value everywhere (a
 * zeroed buffer, a copied one) changes every word it writes. */
static uint32_t paint_value(uint32_t addr)
{
	return (addr * 2654435761u) ^ 0xB0D6E7A5u;
}

static int bit(const uint32_t *map, uint32_t word)
{
	return (int)(map[word >> 5] >> (word & 31u) & 1u);
}

static void set_bit(uint32_t *map, uint32_t word)
{
	map[word >> 5] |= 1u << (word & 31u);
}

/* ---- the call chain: return addresses on the stack ---------------------------------------- */
/* W is a return address when the instruction before it is a call: a Thumb BL pair (bit 0 set),
 * an ARM BL, or an ARM "mov lr, pc; bx rN". A heuristic: a stale word can pass. */
static int is_return(const struct agb_budget *b, uint32_t w)
{
	if (w < 0x03000000u || (w >= 0x03008000u && w < 0x08000000u) || w >= 0x0A000000u)
		return 0;
	if (w & 1u) {
		uint32_t t = w - 1u, hi = code16(b, t - 4u), lo = code16(b, t - 2u);
		return (hi & 0xF800u) == 0xF000u && (lo & 0xF800u) == 0xF800u;
	}
	if (w & 3u)
		return 0;
	uint32_t i = code32(b, w - 4u);
	if ((i & 0x0F000000u) == 0x0B000000u && (i >> 28) != 0xFu)
		return 1;
	return (i & 0x0FFFFFF0u) == 0x012FFF10u && code32(b, w - 8u) == 0xE1A0E00Fu;
}

static void take_chain(struct agb_budget *b, struct agb_budget_stack *s, uint32_t sp)
{
	s->n_chain = 0;
	for (uint32_t a = (sp + 3u) & ~3u; a < s->top && s->n_chain < AGB_BUDGET_CHAIN; a += 4u) {
		uint32_t w = iwram_word(b, a);
		if (is_return(b, w)) {
			s->chain[s->n_chain] = w;
			s->chain_at[s->n_chain++] = a;
		}
	}
}

/* ---- the store watch ---------------------------------------------------------------------- */
static uint32_t sp_of_bank(const struct ARMCore *cpu, int bank)
{
	int cur = cpu->privilegeMode == MODE_IRQ          ? BANK_IRQ
	          : cpu->privilegeMode == MODE_SUPERVISOR ? BANK_SUPERVISOR
	          : cpu->privilegeMode == MODE_FIQ        ? BANK_FIQ
	          : cpu->privilegeMode == MODE_ABORT      ? BANK_ABORT
	          : cpu->privilegeMode == MODE_UNDEFINED  ? BANK_UNDEFINED
	                                                  : BANK_NONE;
	return (uint32_t)(cur == bank
	                          ? cpu->gprs[ARM_SP]
	                          : cpu->bankedRegisters[bank]
	                                                [0]); /* mGBA banks SP at [0], LR at [1] */
}

static void event_here(struct agb_budget *b, const struct ARMCore *cpu, uint32_t addr,
                       struct agb_budget_event *e)
{
	int thumb = cpu->executionMode == MODE_THUMB;
	e->addr = addr;
	e->pc = (uint32_t)cpu->gprs[ARM_PC] - (thumb ? 4u : 8u);
	e->lr = (uint32_t)cpu->gprs[ARM_LR];
	e->sp = (uint32_t)cpu->gprs[ARM_SP];
	e->frame = b->frames;
	e->thumb = thumb;
}

/* A store to IWRAM [lo, hi) by the CPU in its current mode. */
static void stack_store(struct agb_budget *b, const struct ARMCore *cpu, uint32_t lo, uint32_t hi)
{
	struct agb_budget_stack *s;
	if (cpu->privilegeMode == MODE_IRQ)
		s = &b->st[1];
	else if (cpu->privilegeMode == MODE_SYSTEM || cpu->privilegeMode == MODE_USER)
		s = &b->st[0];
	else
		return; /* the BIOS's supervisor stack: not the game's */
	uint32_t sp = (uint32_t)cpu->gprs[ARM_SP];
	if (!(lo >= sp || hi == sp) || lo >= s->top)
		return; /* not a stack store: a global, another stack */
	if (lo < s->low_watch) {
		s->low_watch = lo;
		event_here(b, cpu, lo, &s->deepest);
		take_chain(b, s, lo < sp ? lo : sp);
	}
	if (lo < s->limit && !s->overflowed) {
		s->overflowed = 1;
		event_here(b, cpu, lo, &s->overflow);
	}
}

static void watch(struct agb_budget *b, struct ARMCore *cpu, uint32_t lo, uint32_t len)
{
	uint32_t region = lo >> 24;
	if (region == 3u) {
		uint32_t a = IWRAM_BASE | (lo & (IWRAM_BYTES - 1u));
		for (uint32_t w = a & ~3u; w < a + len; w += 4u)
			set_bit(b->iwram_written, (w & (IWRAM_BYTES - 1u)) >> 2);
		if (b->watching)
			stack_store(b, cpu, a, a + len);
	} else if (region == 2u) {
		uint32_t a = lo & (EWRAM_BYTES - 1u);
		for (uint32_t w = a & ~3u; w < a + len && w < EWRAM_BYTES; w += 4u)
			set_bit(b->ewram_written, w >> 2);
	}
}

static void sh_store32(struct ARMCore *cpu, uint32_t address, int32_t value, int *cycles)
{
	struct agb_budget *b = active;
	watch(b, cpu, address & ~3u, 4u);
	b->orig.store32(cpu, address, value, cycles);
}

static void sh_store16(struct ARMCore *cpu, uint32_t address, int16_t value, int *cycles)
{
	struct agb_budget *b = active;
	watch(b, cpu, address & ~1u, 2u);
	b->orig.store16(cpu, address, value, cycles);
}

static void sh_store8(struct ARMCore *cpu, uint32_t address, int8_t value, int *cycles)
{
	struct agb_budget *b = active;
	watch(b, cpu, address, 1u);
	b->orig.store8(cpu, address, value, cycles);
}

/* The words an STM writes: mGBA's convention (the base, the direction bits, popcount). */
static uint32_t sh_storeMultiple(struct ARMCore *cpu, uint32_t address, int mask,
                                 enum LSMDirection direction, int *cycles)
{
	struct agb_budget *b = active;
	uint32_t n = (uint32_t)__builtin_popcount((unsigned)mask & 0xFFFFu);
	if (n != 0u) {
		uint32_t base = address;
		if (direction & LSM_D)
			base -= (n << 2) - 4u;
		if (direction & LSM_B)
			base += (direction & LSM_D) ? (uint32_t)-4 : 4u;
		watch(b, cpu, base & ~3u, n * 4u);
	}
	return b->orig.storeMultiple(cpu, address, mask, direction, cycles);
}

/* ---- main's entry: the paint -------------------------------------------------------------- */
static void paint(struct agb_budget *b, struct agb_budget_stack *s, uint32_t lo, uint32_t hi)
{
	s->painted_lo = lo;
	s->painted_hi = lo;
	for (uint32_t a = (lo + 3u) & ~3u; a + 4u <= hi; a += 4u) {
		uint32_t w = (a & (IWRAM_BYTES - 1u)) >> 2;
		if (bit(b->iwram_written, w))
			continue; /* written by the start-up code: it may hold something */
		set_iwram_word(b, a, paint_value(a));
		set_bit(b->iwram_painted, w);
		s->painted_hi = a + 4u;
	}
}

static void at_main(struct agb_budget *b)
{
	struct agb_budget_stack *sys = &b->st[0], *irq = &b->st[1];
	sys->sp_at_main = sp_of_bank(b->cpu, BANK_NONE);
	irq->sp_at_main = sp_of_bank(b->cpu, BANK_IRQ);
	sys->top = b->cfg.sys_top != 0u ? b->cfg.sys_top : sys->sp_at_main;
	irq->top = b->cfg.irq_top != 0u ? b->cfg.irq_top : irq->sp_at_main;
	/* The lower stack's limit is the static sections' end, the upper one's the lower's top. */
	struct agb_budget_stack *lower = sys->top <= irq->top ? sys : irq;
	struct agb_budget_stack *upper = lower == sys ? irq : sys;
	lower->limit = b->cfg.iwram_static_end;
	upper->limit = lower->top;
	for (int i = 0; i < 2; i++) {
		struct agb_budget_stack *s = &b->st[i];
		s->low_watch = s->low_paint = s->top;
		uint32_t hi = s->sp_at_main < s->top ? s->sp_at_main : s->top;
		if (s->limit < hi)
			paint(b, s, s->limit, hi);
		else
			s->painted_lo = s->painted_hi = s->limit;
	}
	/* From here on "written" means used by the game: the start-up code's copies and zeroing
	 * of the sections are not. */
	memset(b->iwram_written, 0, sizeof b->iwram_written);
	memset(b->ewram_written, 0, sizeof b->ewram_written);
	b->watching = 1;
}

static void on_entered(struct mDebugger *d, enum mDebuggerEntryReason reason,
                       struct mDebuggerEntryInfo *info)
{
	struct agb_budget *b =
	        (struct agb_budget *)(void *)((char *)d - offsetof(struct agb_budget, dbg));
	d->state = DEBUGGER_RUNNING;
	if (reason != DEBUGGER_ENTER_BREAKPOINT || info == NULL || b->watching)
		return;
	if ((info->address & ~1u) != (b->cfg.main_addr & ~1u))
		return;
	at_main(b);
	b->dbg.platform->clearBreakpoint(b->dbg.platform, b->main_bp);
}

static void on_frame_started(void *ctx)
{
	struct agb_budget *b = ctx;
	if (b->video_fn != NULL)
		b->video_fn(b->video_ctx, b->gba->memory.io, b->gba->video.palette,
		            b->gba->video.vram, b->gba->video.oam.raw);
}

/* ---- the session -------------------------------------------------------------------------- */
struct agb_budget *agb_budget_open(const char *rom_path, const struct agb_budget_config *cfg,
                                   char *err, size_t err_len)
{
	struct agb_mgba_options opt = {0};
	struct agb_budget *b;
	if (active != NULL) {
		snprintf(err, err_len, "%s: another budget session runs on this thread", rom_path);
		return NULL;
	}
	b = calloc(1, sizeof *b);
	if (b == NULL) {
		snprintf(err, err_len, "%s: out of memory", rom_path);
		return NULL;
	}
	b->cfg = *cfg;
	opt.any_rom = 1;
	b->m = agb_mgba_open(rom_path, &opt, err, err_len);
	if (b->m == NULL) {
		free(b);
		return NULL;
	}
	b->core = agb_mgba_core(b->m);
	b->gba = b->core->board;
	b->cpu = b->core->cpu;
	/* The store wraps, from reset on: what the start-up code writes is never painted over. */
	active = b;
	b->orig = b->cpu->memory;
	b->cpu->memory.store32 = sh_store32;
	b->cpu->memory.store16 = sh_store16;
	b->cpu->memory.store8 = sh_store8;
	b->cpu->memory.storeMultiple = sh_storeMultiple;
	b->shimmed = 1;
	for (int i = 0; i < 2; i++)
		b->st[i].top = b->st[i].low_watch = b->st[i].low_paint = 0xFFFFFFFFu;
	/* An empty symbol table first (mDebuggerAttach would look for GAME.elf/.sym otherwise). */
	if (b->core->symbolTable == NULL) {
		b->core->symbolTable = mDebuggerSymbolTableCreate();
		b->own_symbols = 1;
	}
	b->dbg.type = DEBUGGER_CUSTOM;
	b->dbg.entered = on_entered;
	mDebuggerAttach(&b->dbg, b->core);
	b->attached = 1;
	b->dbg.state = DEBUGGER_RUNNING;
	b->main_bp =
	        ARMDebuggerSetSoftwareBreakpoint(b->dbg.platform, cfg->main_addr & ~1u,
	                                         (cfg->main_addr & 1u) ? MODE_THUMB : MODE_ARM);
	if (b->main_bp < 0) {
		snprintf(err, err_len, "%s: mGBA cannot set a breakpoint on main at 0x%08x",
		         rom_path, (unsigned)(cfg->main_addr & ~1u));
		agb_budget_close(b);
		return NULL;
	}
	b->cbs.context = b;
	b->cbs.videoFrameStarted = on_frame_started;
	b->core->addCoreCallbacks(b->core, &b->cbs);
	return b;
}

void agb_budget_on_video(struct agb_budget *b, agb_budget_video_fn fn, void *ctx)
{
	b->video_fn = fn;
	b->video_ctx = ctx;
}

void agb_budget_set_keys(struct agb_budget *b, uint32_t keys)
{
	b->core->setKeys(b->core, keys);
}

void agb_budget_run_frame(struct agb_budget *b)
{
	agb_mgba_run_frames(b->m, 1);
	b->frames++;
}

int agb_budget_painted(const struct agb_budget *b)
{
	return b->watching;
}

uint32_t agb_budget_frames(const struct agb_budget *b)
{
	return b->frames;
}

/* The paint read back: the lowest painted word that changed. */
static void read_paint(struct agb_budget *b, struct agb_budget_stack *s)
{
	for (uint32_t a = s->painted_lo & ~3u; a < s->painted_hi; a += 4u) {
		uint32_t w = (a & (IWRAM_BYTES - 1u)) >> 2;
		if (bit(b->iwram_painted, w) && iwram_word(b, a) != paint_value(a)) {
			s->low_paint = a;
			return;
		}
	}
	/* Nothing painted changed: the stack stayed at or above the paint's top. */
	s->low_paint = s->painted_hi < s->top ? s->painted_hi : s->top;
	if (s->sp_at_main < s->low_paint)
		s->low_paint = s->sp_at_main;
}

const struct agb_budget_stack *agb_budget_stack(struct agb_budget *b, int which)
{
	if (!b->finished && b->watching) {
		read_paint(b, &b->st[0]);
		read_paint(b, &b->st[1]);
		b->finished = 1;
	}
	return &b->st[which != 0];
}

static const uint32_t *map_of(const struct agb_budget *b, uint32_t lo, uint32_t *base)
{
	if ((lo >> 24) == 3u) {
		*base = IWRAM_BASE;
		return b->iwram_written;
	}
	*base = EWRAM_BASE;
	return (lo >> 24) == 2u ? b->ewram_written : NULL;
}

uint32_t agb_budget_written_bytes(const struct agb_budget *b, uint32_t lo, uint32_t hi)
{
	uint32_t base, n = 0;
	const uint32_t *map = map_of(b, lo, &base);
	if (map == NULL)
		return 0;
	for (uint32_t a = lo & ~3u; a < hi; a += 4u)
		n += (uint32_t)bit(map, (a - base) >> 2) * 4u;
	return n;
}

uint32_t agb_budget_written_top(const struct agb_budget *b, uint32_t lo, uint32_t hi)
{
	uint32_t base;
	const uint32_t *map = map_of(b, lo, &base);
	if (map == NULL)
		return lo;
	for (uint32_t a = (hi & ~3u); a > (lo & ~3u);) {
		a -= 4u;
		if (bit(map, (a - base) >> 2))
			return a + 4u;
	}
	return lo;
}

uint32_t agb_budget_read32(struct agb_budget *b, uint32_t addr)
{
	return b->core->rawRead32(b->core, addr, -1);
}

const char *agb_budget_log(const struct agb_budget *b, size_t *len)
{
	return agb_mgba_log(b->m, len);
}

void agb_budget_close(struct agb_budget *b)
{
	if (b == NULL)
		return;
	if (b->cbs.context != NULL)
		b->core->clearCoreCallbacks(b->core);
	if (b->attached)
		b->core->detachDebugger(b->core);
	if (b->own_symbols && b->core->symbolTable != NULL) {
		mDebuggerSymbolTableDestroy(b->core->symbolTable);
		b->core->symbolTable = NULL;
	}
	if (b->shimmed) {
		b->cpu->memory.store32 = b->orig.store32;
		b->cpu->memory.store16 = b->orig.store16;
		b->cpu->memory.store8 = b->orig.store8;
		b->cpu->memory.storeMultiple = b->orig.storeMultiple;
	}
	agb_mgba_close(b->m);
	if (active == b)
		active = NULL;
	free(b);
}
