/* mgba_record.c — watch a GBA game's function calls and video state in libmgba (see
 * mgba_record.h). */
#include <mgba/flags.h> /* first: fixes the layout of struct mCore */

#include "mgba_record.h"
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

struct watch {
	uint32_t addr; /* without the Thumb bit */
	uint32_t tag;
	int entry_only; /* agb_rec_watch_entry: note the first entry, follow no call */
};

struct agb_rec {
	struct agb_mgba *m;
	struct mCore *core;
	struct mDebugger dbg; /* ours: DEBUGGER_CUSTOM, its entered callback is on_entered */
	int attached, own_symbols;
	struct watch *watches;
	size_t nwatch, capwatch;

	/* The running watched call, if any. */
	int in_call;
	struct agb_rec_call call;
	uint32_t call_sp;
	ssize_t ret_bp; /* the return-address breakpoint's id */
	uint32_t ret_addr;
	uint64_t nested;

	/* Finished calls of the running frame, reported after it. */
	struct agb_rec_call *done;
	size_t ndone, capdone;
	int oom;

	/* Video: copied at line 0 (videoFrameStarted). */
	struct mCoreCallbacks cbs;
	struct agb_rec_video *video;
	int video_valid;
	struct agb_rec_frame_info info;
	int entered;
	uint32_t entered_tag;
};

static void set_err(char *err, size_t n, const char *what, const char *path)
{
	snprintf(err, n, "%s: %s", path, what);
}

static struct agb_rec *from_dbg(struct mDebugger *d)
{
	return (struct agb_rec *)(void *)((char *)d - offsetof(struct agb_rec, dbg));
}

static const struct watch *find_watch(const struct agb_rec *r, uint32_t addr)
{
	for (size_t i = 0; i < r->nwatch; i++)
		if (r->watches[i].addr == addr)
			return &r->watches[i];
	return NULL;
}

static void push_done(struct agb_rec *r)
{
	if (r->ndone == r->capdone) {
		size_t cap = r->capdone ? r->capdone * 2 : 64;
		struct agb_rec_call *n = realloc(r->done, cap * sizeof *n);
		if (n == NULL) {
			r->oom = 1;
			return;
		}
		r->done = n;
		r->capdone = cap;
	}
	r->done[r->ndone++] = r->call;
}

/* A watched function's first instruction: keep the arguments, break at the return address. */
static void call_entry(struct agb_rec *r, struct ARMCore *cpu, const struct watch *w)
{
	uint32_t lr = (uint32_t)cpu->gprs[ARM_LR];
	if (r->in_call) {
		r->nested++; /* part of the running call */
		return;
	}
	r->call.tag = w->tag;
	for (int i = 0; i < 4; i++)
		r->call.args[i] = (uint32_t)cpu->gprs[i];
	r->call.lr = lr;
	r->call_sp = (uint32_t)cpu->gprs[ARM_SP];
	r->ret_addr = lr & ~1u;
	r->ret_bp = ARMDebuggerSetSoftwareBreakpoint(r->dbg.platform, r->ret_addr,
	                                             (lr & 1u) ? MODE_THUMB : MODE_ARM);
	r->in_call = r->ret_bp >= 0;
}

/* The return address: ours when the stack is back where the call started. */
static void call_return(struct agb_rec *r, struct ARMCore *cpu)
{
	if ((uint32_t)cpu->gprs[ARM_SP] != r->call_sp)
		return; /* the same code reached from inside the call: not the return */
	r->call.result = (uint32_t)cpu->gprs[0];
	r->dbg.platform->clearBreakpoint(r->dbg.platform, r->ret_bp);
	r->in_call = 0;
	push_done(r);
}

static void on_entered(struct mDebugger *d, enum mDebuggerEntryReason reason,
                       struct mDebuggerEntryInfo *info)
{
	struct agb_rec *r = from_dbg(d);
	struct ARMCore *cpu = r->core->cpu;
	d->state = DEBUGGER_RUNNING; /* nobody is there to resume it */
	if (reason != DEBUGGER_ENTER_BREAKPOINT || info == NULL)
		return;
	uint32_t pc = info->address & ~1u;
	if (r->in_call && pc == r->ret_addr) {
		call_return(r, cpu);
		return;
	}
	const struct watch *w = find_watch(r, pc);
	if (w != NULL && w->entry_only) {
		if (!r->entered)
			r->entered_tag = w->tag;
		r->entered = 1;
	} else if (w != NULL) {
		call_entry(r, cpu, w);
	}
}

static void on_frame_started(void *ctx)
{
	struct agb_rec *r = ctx;
	struct GBA *gba = r->core->board;
	r->info.dispcnt_line0 = gba->memory.io[0];
	r->info.vblank_unacked = (gba->memory.io[0x202u >> 1] & 1u) != 0;
	r->info.line0 = 1;
	if (r->video == NULL)
		return;
	memcpy(r->video->io, gba->memory.io, sizeof r->video->io);
	memcpy(r->video->oam, gba->video.oam.raw, sizeof r->video->oam);
	memcpy(r->video->vram, gba->video.vram, sizeof r->video->vram);
	r->video_valid = 1;
}

struct agb_rec *agb_rec_open(const char *rom_path, int video, char *err, size_t err_len)
{
	struct agb_mgba_options opt = {0};
	struct agb_rec *r = calloc(1, sizeof *r);
	if (r == NULL) {
		set_err(err, err_len, "out of memory", rom_path);
		return NULL;
	}
	opt.any_rom = 1;
	r->m = agb_mgba_open(rom_path, &opt, err, err_len);
	if (r->m == NULL) {
		free(r);
		return NULL;
	}
	r->core = agb_mgba_core(r->m);
	/* An empty symbol table first: without one mDebuggerAttach looks for GAME.elf/.sym through
	 * the core's directories, which a ROM loaded from memory does not have (it crashes). */
	if (r->core->symbolTable == NULL) {
		r->core->symbolTable = mDebuggerSymbolTableCreate();
		r->own_symbols = 1;
	}
	r->dbg.type = DEBUGGER_CUSTOM;
	r->dbg.entered = on_entered;
	mDebuggerAttach(&r->dbg, r->core);
	r->attached = 1;
	r->dbg.state = DEBUGGER_RUNNING;
	if (video) {
		r->video = calloc(1, sizeof *r->video);
		if (r->video == NULL) {
			set_err(err, err_len, "out of memory", rom_path);
			agb_rec_close(r);
			return NULL;
		}
	}
	r->cbs.context = r;
	r->cbs.videoFrameStarted = on_frame_started;
	r->core->addCoreCallbacks(r->core, &r->cbs);
	return r;
}

static int add_watch(struct agb_rec *r, uint32_t addr, uint32_t tag, int entry_only)
{
	uint32_t a = addr & ~1u;
	if (find_watch(r, a) != NULL)
		return 0;
	if (r->nwatch == r->capwatch) {
		size_t cap = r->capwatch ? r->capwatch * 2 : 16;
		struct watch *n = realloc(r->watches, cap * sizeof *n);
		if (n == NULL)
			return -1;
		r->watches = n;
		r->capwatch = cap;
	}
	if (ARMDebuggerSetSoftwareBreakpoint(r->dbg.platform, a,
	                                     (addr & 1u) ? MODE_THUMB : MODE_ARM) < 0)
		return -1;
	r->watches[r->nwatch++] = (struct watch){a, tag, entry_only};
	return 0;
}

int agb_rec_watch(struct agb_rec *r, uint32_t addr, uint32_t tag)
{
	return add_watch(r, addr, tag, 0);
}

int agb_rec_watch_entry(struct agb_rec *r, uint32_t addr, uint32_t tag)
{
	return add_watch(r, addr, tag, 1);
}

int agb_rec_entered(const struct agb_rec *r, uint32_t *tag)
{
	if (r->entered)
		*tag = r->entered_tag;
	return r->entered;
}

void agb_rec_set_keys(struct agb_rec *r, uint32_t keys)
{
	r->core->setKeys(r->core, keys);
}

void agb_rec_run_frame(struct agb_rec *r, agb_rec_call_fn fn, void *ctx)
{
	r->ndone = 0;
	r->video_valid = 0;
	r->info.line0 = 0;
	agb_mgba_run_frames(r->m, 1);
	{
		struct GBA *gba = r->core->board;
		struct ARMCore *cpu = r->core->cpu;
		r->info.dispcnt_end = gba->memory.io[0];
		r->info.pc = (uint32_t)cpu->gprs[ARM_PC] - (cpu->executionMode == MODE_THUMB ? 4u : 8u);
	}
	for (size_t i = 0; i < r->ndone; i++)
		fn(ctx, &r->done[i]);
}

const struct agb_rec_frame_info *agb_rec_frame_info(const struct agb_rec *r)
{
	return &r->info;
}

const struct agb_rec_video *agb_rec_video(const struct agb_rec *r)
{
	return r->video != NULL && r->video_valid ? r->video : NULL;
}

uint64_t agb_rec_nested(const struct agb_rec *r)
{
	return r->nested;
}

int agb_rec_in_call(const struct agb_rec *r)
{
	return r->in_call;
}

uint32_t agb_rec_read32(const struct agb_rec *r, uint32_t addr)
{
	return r->core->rawRead32(r->core, addr, -1);
}

int agb_rec_oom(const struct agb_rec *r)
{
	return r->oom;
}

const char *agb_rec_log(const struct agb_rec *r, size_t *len)
{
	return agb_mgba_log(r->m, len);
}

void agb_rec_close(struct agb_rec *r)
{
	if (r == NULL)
		return;
	if (r->core != NULL) {
		r->core->clearCoreCallbacks(r->core);
		if (r->attached)
			r->core->detachDebugger(r->core);
		if (r->own_symbols && r->core->symbolTable != NULL) {
			mDebuggerSymbolTableDestroy(r->core->symbolTable);
			r->core->symbolTable = NULL;
		}
	}
	agb_mgba_close(r->m);
	free(r->watches);
	free(r->done);
	free(r->video);
	free(r);
}
