/* budget.h — the memory budget of a GBA game (agbsim budget, docs/budget.md): what cmd_budget.c
 * measured, and the figures that limits and the baseline hold (budget_out.c writes them). */
#ifndef AGBSIM_BUDGET_H
#define AGBSIM_BUDGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/agbsim.h"

/* One figure: a name a --limit or a baseline uses ("stack.peak"), bytes or a count. */
struct budget_figure {
	const char *name;
	uint32_t value;
	int higher_is_better; /* free space: a baseline regression is a decrease */
	const char *what;     /* one line for the report */
};

struct budget_line { /* a row of a detail table */
	char name[96];
	char where[96];                /* archive(member), section, or "" */
	uint32_t addr, bytes, written; /* written: bytes of it the game wrote (RAM), else bytes */
};

struct budget_frame { /* a call chain's frame */
	char function[96];
	char where[96]; /* the archive member, or "" (the game's own code) */
	uint32_t depth; /* stack bytes in use when this function was running its deepest */
	uint32_t pc;
};

struct budget_stack {
	const char *name; /* "system", "irq" */
	uint32_t top, limit, peak_paint, peak_watch, peak;
	uint32_t deepest_frame;
	struct budget_frame chain[24];
	size_t n_chain;
	uint32_t libc_bytes; /* of the peak, used by libc's frames at the innermost end */
	int overflowed;
	uint32_t ov_frame, ov_pc, ov_addr, ov_sp;
	char ov_function[96];
};

#define BUDGET_MAX_FIGURES 40
#define BUDGET_MAX_LINES   16

struct budget_report {
	const char *game;
	uint32_t frames;
	struct budget_figure fig[BUDGET_MAX_FIGURES];
	size_t n_fig;
	/* detail tables */
	struct budget_line iwram_sections[BUDGET_MAX_LINES], ewram_sections[BUDGET_MAX_LINES],
	        rom_sections[BUDGET_MAX_LINES];
	size_t n_iwram_sections, n_ewram_sections, n_rom_sections;
	struct budget_line iwram_symbols[BUDGET_MAX_LINES], ewram_symbols[BUDGET_MAX_LINES];
	size_t n_iwram_symbols, n_ewram_symbols;
	struct budget_line libc[BUDGET_MAX_LINES]; /* newlib's RAM objects by archive member */
	size_t n_libc;
	uint32_t libc_iwram, libc_ewram;
	int have_map;
	struct budget_stack stack[2];
	const char *heap_source;
	uint32_t iwram_static_end, ewram_static_end;
	uint32_t obj_tiles_end, oam_end; /* at the last frame */
	int overflow;                    /* a stack reached a static section */
};

const struct budget_figure *budget_figure(const struct budget_report *r, const char *name);

/* ---- limits and the baseline (budget_out.c) ------------------------------------------------ */
struct budget_limit {
	char metric[48];
	int at_least; /* >= (else <=) */
	uint32_t value;
	const char *text;
};

/* "METRIC<=VALUE" / "METRIC>=VALUE", VALUE an integer with an optional K or M (KiB, MiB).
 * Returns 0, or -1 with why[] set. */
int budget_limit_parse(const char *text, struct budget_limit *out, char *why, size_t why_len);

struct budget_verdict {
	char lines[64][160]; /* what broke, one line each */
	size_t n;
	size_t limits_checked, figures_compared;
};

/* A baseline file: {"agbsim_budget": 1, "game": ..., "figures": {NAME: VALUE, ...},
 * "limits": ["METRIC<=VALUE", ...]} (limits optional, kept by --update-baseline). */
struct budget_baseline {
	char names[BUDGET_MAX_FIGURES][48];
	uint32_t values[BUDGET_MAX_FIGURES];
	size_t n;
	struct budget_limit limits[32];
	char limit_text[32][96];
	size_t n_limits;
};

/* Reads PATH. Returns AGBSIM_EXIT_OK, or an exit status after saying why (FILE:LINE:COL for bad
 * JSON, exit 2; unreadable, exit 3). */
int budget_baseline_load(const char *path, struct budget_baseline *b);

/* Writes r's figures (and b's limits when b is non-NULL) as a baseline to PATH. */
int budget_baseline_write(const char *path, const struct budget_report *r,
                          const struct budget_baseline *keep_limits);

/* Holds r against the limits and, when base is non-NULL, its figures and limits (a larger
 * figure than the baseline's is a regression, a smaller one for a free-space figure). */
void budget_judge(const struct budget_report *r, const struct budget_limit *limits, size_t n,
                  const struct budget_baseline *base, struct budget_verdict *v);

void budget_write(FILE *out, enum agbsim_format fmt, const struct budget_report *r,
                  const struct budget_verdict *v);

#endif
