/* Option values shared by several subcommands. */
#include "cli/options.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/cores.h"
#include "agb/tiles.h"
#include "cli/agbsim.h"
#include "cli/gba_only.h"
#include "trace/trace_load.h"

int agbsim_parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;
	int base = 10;
	if (s != NULL && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	/* Digits only: strtoull would also take spaces and a sign, and base 0 reads 010 as octal. */
	if (s == NULL || !(isdigit((unsigned char)*s) || (base == 16 && isxdigit((unsigned char)*s))))
		return -1;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno != 0 || *end != '\0' || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int agbsim_parse_meta(const char *s, enum agb_meta_region *out)
{
	if (strcmp(s, "ewram") == 0)
		*out = AGB_META_EWRAM;
	else if (strcmp(s, "iwram") == 0)
		*out = AGB_META_IWRAM;
	else
		return -1;
	return 0;
}

int agbsim_pick_core(const char *name, const struct agb_trace *t, const struct agb_heap_core **out)
{
	const struct agb_heap_core *core =
		name != NULL ? agb_heap_core_find(name) : agb_heap_core_default(t->arena);
	/* A sprite trace (spr_* display ops) needs the shadow OAM core to be served, not ignored. */
	for (uint32_t i = 0; name == NULL && t->arena == AGB_ARENA_OBJ_VRAM && i < t->event_count; i++)
		if (t->events[i].op >= AGB_OP_SPR_SHOW && t->events[i].op <= AGB_OP_SPR_HIDE) {
			core = agb_heap_core_find("oam");
			break;
		}
	if (core == NULL && agb_reference_core_find(name) != NULL)
		return agbsim_gba_only_refuse(name);
	if (core == NULL) {
		agbsim_error("unknown allocator '%s' (see 'agbsim list')", name);
		return AGBSIM_EXIT_USAGE;
	}
	if ((core->arenas & AGB_ARENA_BIT(t->arena)) == 0) {
		agbsim_error("allocator '%s' cannot manage %s (see 'agbsim list')", core->name,
			     agb_arena_name(t->arena));
		return AGBSIM_EXIT_USAGE;
	}
	*out = core;
	return AGBSIM_EXIT_OK;
}

int agbsim_pick_run_core(const char *cmd, const char *allocator, struct agbsim_run *run)
{
	int rc = agbsim_pick_core(allocator, run->trace, &run->core);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	if (run->cfg.arena_bytes > agb_arena_region_bytes(run->trace->arena))
		return agbsim_usage_error(cmd, "--pool %u is larger than %s (%u bytes)",
					  run->cfg.arena_bytes, agb_arena_name(run->trace->arena),
					  agb_arena_region_bytes(run->trace->arena));
	return AGBSIM_EXIT_OK;
}

size_t agbsim_max_input_bytes(void)
{
	const char *limit = getenv("AGBSIM_MAX_TRACE_BYTES");
	size_t max = AGB_TRACE_MAX_BYTES;
	uint32_t v;
	if (limit != NULL && agbsim_parse_u32(limit, &v) == 0 && v > 0 && v < max)
		max = v; /* a lower limit only (tests; a service that wants a tighter bound) */
	return max;
}

/* Prints DIAG as "agbsim: FILE[:LINE:COL]: message"; returns the exit status for status ST. */
static int load_error(const struct agb_diag *diag, int st)
{
	char msg[1024];
	agb_diag_format(diag, msg, sizeof msg);
	agbsim_error("%s", msg);
	return st == AGB_LOAD_IO_ERROR ? AGBSIM_EXIT_IO : AGBSIM_EXIT_USAGE;
}

int agbsim_load_trace(const char *path, struct agb_loaded_trace *out)
{
	struct agb_diag diag;
	int st = agb_trace_load_file_max(path, agbsim_max_input_bytes(), out, &diag);
	return st == AGB_LOAD_OK ? AGBSIM_EXIT_OK : load_error(&diag, st);
}

int agbsim_read_input(const char *path, char **text, size_t *len)
{
	struct agb_diag diag;
	int st = agb_read_input(path, agbsim_max_input_bytes(), text, len, &diag);
	return st == AGB_LOAD_OK ? AGBSIM_EXIT_OK : load_error(&diag, st);
}

int agbsim_replay_option(const char *cmd, int opt, const char *arg, struct agb_replay_config *cfg)
{
	switch (opt) {
	case AGBSIM_OPT_ARENA_BYTES:
		if (agbsim_parse_u32(arg, &cfg->arena_bytes) != 0 || cfg->arena_bytes == 0)
			return agbsim_usage_error(cmd, "--pool wants a positive integer, not '%s'",
						  arg);
		return AGBSIM_EXIT_OK;
	case AGBSIM_OPT_META:
		if (agbsim_parse_meta(arg, &cfg->meta) != 0)
			return agbsim_usage_error(cmd, "--meta wants ewram or iwram, not '%s'", arg);
		return AGBSIM_EXIT_OK;
	case AGBSIM_OPT_OBJ_BITMAP:
		cfg->core_flags |= AGB_HEAP_FLAG_OBJ_BITMAP_MODE;
		return AGBSIM_EXIT_OK;
	case AGBSIM_OPT_ROM_TILES: {
		uint32_t n;
		if (agbsim_parse_u32(arg, &n) != 0 || n == 0 || n > 65280u)
			return agbsim_usage_error(cmd, "--rom-tiles wants 1..65280, not '%s'", arg);
		cfg->core_flags = (cfg->core_flags & ~AGB_TILES_FLAG_ROM_TILES(0xFF00u)) |
				  AGB_TILES_FLAG_ROM_TILES(n);
		return AGBSIM_EXIT_OK;
	}
	case AGBSIM_OPT_SCREEN_MAPS: {
		uint32_t n;
		if (agbsim_parse_u32(arg, &n) != 0 || n > 14u)
			return agbsim_usage_error(cmd, "--screen-maps wants 0..14, not '%s'", arg);
		cfg->core_flags = (cfg->core_flags & ~(0xFu << 24)) | AGB_TILES_FLAG_MAPS(n);
		return AGBSIM_EXIT_OK;
	}
	default:
		return -1;
	}
}

/* "copy", "lz77" or a decimal number of cycles per byte with up to 3 decimals, in 1/1000. */
static int parse_load_cost(const char *s, uint32_t *milli)
{
	uint32_t whole = 0, frac = 0, scale = 1000;
	const char *p = s;
	if (strcmp(s, "copy") == 0 || strcmp(s, "lz77") == 0) {
		*milli = s[0] == 'c' ? AGB_LOAD_COST_COPY_MILLI : AGB_LOAD_COST_LZ77_MILLI;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10u + (uint32_t)(*p - '0');
		if (whole > 1000000u)
			return -1;
	}
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return -1;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale == 1u)
				return -1;
			scale /= 10u;
			frac += (uint32_t)(*p - '0') * scale;
		}
	}
	if (*p != '\0')
		return -1;
	*milli = whole * 1000u + frac;
	return 0;
}

int agbsim_stream_option(const char *cmd, int opt, const char *arg, struct agbsim_stream_opts *o)
{
	switch (opt) {
	case AGBSIM_OPT_CACHE:
		if (strcmp(arg, "lru") != 0)
			return agbsim_usage_error(cmd, "--cache wants lru, not '%s'", arg);
		return AGBSIM_EXIT_OK;
	case AGBSIM_OPT_THRASH_WINDOW:
		if (agbsim_parse_u32(arg, &o->thrash_window) != 0 || o->thrash_window == 0 ||
		    o->thrash_window > 0xFFFFFEu)
			return agbsim_usage_error(cmd, "--thrash-window wants 1..16777214 frames, not '%s'",
						  arg);
		return AGBSIM_EXIT_OK;
	case AGBSIM_OPT_LOAD_COST:
		if (parse_load_cost(arg, &o->load_cost_milli) != 0)
			return agbsim_usage_error(cmd,
						  "--load-cost wants copy, lz77 or cycles per byte "
						  "(0..1000000, up to 3 decimals), not '%s'",
						  arg);
		return AGBSIM_EXIT_OK;
	case AGBSIM_OPT_LOAD_RATE:
		if (agbsim_parse_u32(arg, &o->load_rate) != 0 || o->load_rate == 0)
			return agbsim_usage_error(cmd, "--load-rate wants bytes per frame (1..4294967295), not '%s'",
						  arg);
		return AGBSIM_EXIT_OK;
	default:
		return -1;
	}
}

int agbsim_output_open(struct agbsim_output *o, const char *path)
{
	int err;
	*o = (struct agbsim_output){0};
	o->path = path;
	if (strcmp(path, "-") == 0) {
		err = agb_memstream_open(&o->mem);
		o->f = o->mem.f;
	} else {
		err = agb_out_open(&o->file, path);
		o->f = o->file.f;
	}
	if (err != 0 || o->f == NULL) {
		agbsim_error("%s: cannot write: %s", path, strerror(err != 0 ? err : ENOMEM));
		*o = (struct agbsim_output){0};
		return AGBSIM_EXIT_IO;
	}
	return AGBSIM_EXIT_OK;
}

int agbsim_stdout_reported;

int agbsim_output_close(struct agbsim_output *o, int keep)
{
	int rc = AGBSIM_EXIT_OK, err = 0;
	int to_stdout;
	if (o->f == NULL)
		return AGBSIM_EXIT_OK;
	to_stdout = o->f == o->mem.f;
	if (to_stdout) {
		err = agb_memstream_close(&o->mem);
		if (keep && err == 0) {
			if (o->mem.len != 0 && fwrite(o->mem.data, 1, o->mem.len, stdout) != o->mem.len)
				err = errno != 0 ? errno : EIO;
			if (err == 0 && fflush(stdout) != 0)
				err = errno != 0 ? errno : EIO;
		}
	} else {
		err = agb_out_close(&o->file, keep);
	}
	if (keep && err != 0) {
		agbsim_error("%s: cannot write: %s", to_stdout ? "stdout" : o->path, strerror(err));
		agbsim_stdout_reported |= to_stdout;
		rc = AGBSIM_EXIT_IO;
	}
	free(o->mem.data);
	*o = (struct agbsim_output){0};
	return rc;
}
