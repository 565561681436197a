/* Option values shared by several subcommands. */
#include "cli/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/cores.h"
#include "agb/tiles.h"
#include "cli/agbsim.h"
#include "trace/trace_load.h"

int agbsim_parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;
	if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
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

int agbsim_load_trace(const char *path, struct agb_loaded_trace *out)
{
	struct agb_diag diag;
	int st = agb_trace_load_file(path, out, &diag);
	char msg[1024];
	if (st == AGB_LOAD_OK)
		return AGBSIM_EXIT_OK;
	agb_diag_format(&diag, msg, sizeof msg);
	agbsim_error("%s", msg);
	return st == AGB_LOAD_IO_ERROR ? AGBSIM_EXIT_IO : AGBSIM_EXIT_USAGE;
}

int agbsim_replay_option(const char *cmd, int opt, const char *arg, struct agb_replay_config *cfg)
{
	switch (opt) {
	case AGBSIM_OPT_ARENA_BYTES:
		if (agbsim_parse_u32(arg, &cfg->arena_bytes) != 0 || cfg->arena_bytes == 0)
			return agbsim_usage_error(cmd, "--arena-bytes wants a positive integer, not '%s'",
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

int agbsim_output_open(struct agbsim_output *o, const char *path)
{
	*o = (struct agbsim_output){0};
	o->path = path;
	if (strcmp(path, "-") == 0) {
		o->f = open_memstream(&o->mem, &o->mem_len);
	} else {
		size_t n = strlen(path) + 6;
		o->tmp = malloc(n);
		if (o->tmp != NULL) {
			snprintf(o->tmp, n, "%s.part", path);
			o->f = fopen(o->tmp, "w");
		}
	}
	if (o->f == NULL) {
		agbsim_error("%s: cannot write: %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return AGBSIM_EXIT_IO;
	}
	return AGBSIM_EXIT_OK;
}

int agbsim_output_close(struct agbsim_output *o, int keep)
{
	int rc = AGBSIM_EXIT_OK, bad;
	if (o->f == NULL)
		return AGBSIM_EXIT_OK;
	bad = ferror(o->f) | fclose(o->f);
	o->f = NULL;
	if (keep && bad == 0) {
		if (o->tmp == NULL)
			bad = fwrite(o->mem, 1, o->mem_len, stdout) != o->mem_len;
		else
			bad = rename(o->tmp, o->path) != 0;
	}
	if (keep && bad != 0) {
		agbsim_error("%s: cannot write: %s", o->path, strerror(errno));
		rc = AGBSIM_EXIT_IO;
	}
	if (o->tmp != NULL && (!keep || bad != 0))
		remove(o->tmp);
	free(o->tmp);
	free(o->mem);
	o->tmp = NULL;
	o->mem = NULL;
	return rc;
}
