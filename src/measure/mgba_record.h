/* mgba_record.h — watch a GBA game in libmgba for `agbsim record` (issue 18).
 *
 * Boots any GBA ROM headless (mgba_runner.c with any_rom: nothing written to $HOME), attaches
 * a libmgba debugger (mDebuggerAttach) and sets software breakpoints (the ARM debugger platform's
 * BKPT patches) on the functions to watch. At a watched function's entry the arguments r0-r3,
 * the return address and the stack pointer are kept and a breakpoint is set at the return
 * address; when the same call returns there (same stack pointer) the call is reported with r0
 * as its result. Calls that start while a watched call is running (realloc calling malloc) are
 * part of it and not reported. Optionally the video state (I/O registers, OAM, VRAM) is copied
 * at the start of every frame's first line: what that frame displays.
 *
 * One session per thread at a time (the runner's logger). */
#ifndef AGB_MGBA_RECORD_H
#define AGB_MGBA_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct agb_rec;

/* A finished watched call. */
struct agb_rec_call {
	uint32_t tag;     /* what agb_rec_watch was given */
	uint32_t args[4]; /* r0-r3 at entry */
	uint32_t result;  /* r0 at the return */
	uint32_t lr;      /* the return address */
};

typedef void (*agb_rec_call_fn)(void *ctx, const struct agb_rec_call *call);

/* The video state at line 0 of a frame. */
struct agb_rec_video {
	uint16_t io[512];           /* 0x04000000..0x040003FF */
	uint16_t oam[512];          /* 0x07000000..0x070003FF */
	uint16_t vram[0x18000 / 2]; /* 0x06000000..0x06017FFF */
};

/* What a frame showed and whether the game was alive in it, read by every session. */
struct agb_rec_frame_info {
	uint16_t dispcnt_line0; /* DISPCNT at line 0 (the picture this frame shows) */
	uint16_t dispcnt_end;   /* DISPCNT at the VBlank that ends the frame */
	int line0;              /* line 0 was in this frame */
	int vblank_unacked;     /* IF's VBlank bit still set at line 0: nobody took the VBlank */
	uint32_t pc;            /* the PC at the VBlank that ends the frame */
};

/* Opens ROM_PATH (a .gba image or an ELF mGBA can boot). video: also copy the video state every
 * frame. Returns the session, or NULL with a message in err. */
struct agb_rec *agb_rec_open(const char *rom_path, int video, char *err, size_t err_len);

/* Watches the function at ADDR (bit 0 set: Thumb code) and reports its calls with TAG. Returns
 * 0, or -1 when mGBA refused the breakpoint (an address it cannot patch). */
int agb_rec_watch(struct agb_rec *r, uint32_t addr, uint32_t tag);

/* Notes the first time execution enters ADDR (with TAG), even inside a watched call, and
 * follows no call there: a game's error path (it may never return). 0, or -1 as agb_rec_watch.
 * agb_rec_entered: 1 with the first such TAG once one was entered, else 0. */
int agb_rec_watch_entry(struct agb_rec *r, uint32_t addr, uint32_t tag);
int agb_rec_entered(const struct agb_rec *r, uint32_t *tag);

/* Keys held from now on (mGBA's bits: A=1 B=2 SELECT=4 START=8 RIGHT LEFT UP DOWN R L). */
void agb_rec_set_keys(struct agb_rec *r, uint32_t keys);

/* Runs one frame (to the next VBlank start), reporting finished calls through fn in order. */
void agb_rec_run_frame(struct agb_rec *r, agb_rec_call_fn fn, void *ctx);

/* DISPCNT, the VBlank's acknowledgement and the PC of the last frame. */
const struct agb_rec_frame_info *agb_rec_frame_info(const struct agb_rec *r);

/* The video state copied during the last frame, or NULL (video off, or no line 0 in it). */
const struct agb_rec_video *agb_rec_video(const struct agb_rec *r);

/* Calls seen that started inside a watched call (not reported), and whether a watched call is
 * running now (it has not returned when the recording stops). */
uint64_t agb_rec_nested(const struct agb_rec *r);
int agb_rec_in_call(const struct agb_rec *r);

/* The 32-bit word at ADDR on the GBA's bus now (the recording's state is not changed). */
uint32_t agb_rec_read32(const struct agb_rec *r, uint32_t addr);

/* 1 when a finished call could not be kept (out of memory): the recording is incomplete. */
int agb_rec_oom(const struct agb_rec *r);

/* The game's debug prints (mGBA's debug registers), one per line ("" if none). */
const char *agb_rec_log(const struct agb_rec *r, size_t *len);

void agb_rec_close(struct agb_rec *r);

#endif
