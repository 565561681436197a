/* agbsim gen: write a scenario trace made by the seeded MT19937 generator (src/trace/gen.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agbsim.h"
#include "cli/cli_opts.h"
#include "cli/options.h"
#include "trace/gen.h"
#include "trace/trace_load.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: agbsim gen SCENARIO [--seed N] [--frames N] [--name NAME] -o OUT.json\n\n"
		"Writes a game-like trace (JSON, format v1 with the spr_* extension) made by an\n"
		"MT19937 generator. The same scenario, seed and frame count give byte-identical\n"
		"output on every run and machine.\n\n"
		"Scenarios:\n"
		"  shmup       OBJ VRAM: shoot-'em-up (font, waves, bullets, explosions, a boss)\n"
		"  rpg         OBJ VRAM: walking between rooms, loading and unloading sprite sets\n"
		"  particles   OBJ VRAM: overlapping particle bursts\n"
		"  strips      OBJ VRAM: animation strips of 3-48 tiles streamed by fighters\n"
		"  ai-scratch  EWRAM: a 4 KiB AI scratch pool (enemy state, paths, temporaries)\n"
		"  levels      EWRAM: loading levels and rooms, nested lifetimes, freed block by block\n"
		"  levels-linear  the same allocations released with mark/reset (bump, stack2)\n"
		"  sections    EWRAM: an open-world side-scroller streaming uneven sections (stack2)\n"
		"  pal-action, pal-crowded, pal-menus  palette RAM: rooms, enemy variants, menus\n"
		"  cache-sprites  OBJ VRAM: sprite graphics through the resource cache: enemies on\n"
		"              screen lock their type's graphics, one-shot effects touch theirs\n"
		"  cache-anims EWRAM: animation clips locked while they play (6 actors, 600 clips)\n"
		"  cache-sprites-touch, cache-anims-touch  the same with the Touch protocol only\n\n"
		"Options:\n"
		"  --seed N      MT19937 seed (default 5489, the reference default)\n"
		"  --frames N    frames to generate (default: 1800 shmup, ai-scratch, cache-*; 3600\n"
		"                rpg, levels, strips, sections; 1200 particles)\n"
		"  -o FILE       output file ('-' for stdout)\n"
		"  --name NAME   the trace's name (default: the scenario; reports and the gate key\n"
		"                runs by it, so traces compared together need distinct names)\n"
		"  -h, --help    show this help\n");
}

struct gen_args {
	const char *out_path, *scenario, *name;
	uint32_t seed, frames; /* frames 0: the scenario's default */
};

static int gen_option(void *ctx, int opt, const char *arg)
{
	struct gen_args *a = ctx;
	switch (opt) {
	case 's':
		if (agbsim_parse_u32(arg, &a->seed) != 0)
			return agbsim_usage_error("gen", "--seed wants an integer 0..4294967295, not '%s'",
						  arg);
		return AGBSIM_EXIT_OK;
	case 'n':
		if (agbsim_parse_u32(arg, &a->frames) != 0 || a->frames == 0 || a->frames > 10000000u)
			return agbsim_usage_error("gen", "--frames wants an integer 1..10000000, not '%s'",
						  arg);
		return AGBSIM_EXIT_OK;
	case 'N':
		if (arg[0] == '\0' || strlen(arg) >= sizeof ((struct agb_gen_trace *)0)->name)
			return agbsim_usage_error("gen", "--name wants 1..63 characters");
		a->name = arg;
		return AGBSIM_EXIT_OK;
	default:
		return AGBSIM_CLI_UNKNOWN;
	}
}

static int parse_args(struct gen_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"seed", required_argument, NULL, 's'}, {"frames", required_argument, NULL, 'n'},
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
		{"name", required_argument, NULL, 'N'},
		{NULL, 0, NULL, 0},
	};
	static const struct agbsim_cli_text texts[] = {
		AGBSIM_CLI_TEXT('o', struct gen_args, out_path), {0, 0}};
	const struct agbsim_cli cli = {"gen", "o:", longopts, usage, gen_option, a, NULL, texts};
	int first, rc;
	a->seed = 5489;
	rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	if (first != argc - 1)
		return agbsim_usage_error("gen", first >= argc ? "no SCENARIO given"
							       : "exactly one SCENARIO expected");
	a->scenario = argv[first];
	if (a->out_path == NULL)
		return agbsim_usage_error("gen", "no output file given (-o OUT.json)");
	if (agb_gen_default_frames(a->scenario) == 0)
		return agbsim_usage_error("gen", "unknown scenario '%s' (shmup, rpg, particles, strips, ai-scratch, levels, "
					  "levels-linear, sections, pal-action, pal-crowded, pal-menus, cache-sprites, "
					  "cache-sprites-touch, cache-anims, cache-anims-touch)",
					  a->scenario);
	if (a->frames == 0)
		a->frames = agb_gen_default_frames(a->scenario);
	return AGBSIM_CLI_RUN;
}

/* The trace, written whole or not at all ('-': stdout). */
static int write_trace(const char *path, const struct agb_trace *t)
{
	struct agbsim_output out = {0};
	int rc = agbsim_output_open(&out, path), bad;
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	bad = agb_trace_write_json(out.f, t) != 0;
	rc = agbsim_output_close(&out, !bad);
	if (bad && rc == AGBSIM_EXIT_OK) {
		agbsim_error("%s: cannot write the trace", path);
		rc = AGBSIM_EXIT_IO;
	}
	return rc;
}

int agbsim_cmd_gen(int argc, char **argv)
{
	struct gen_args a = {0};
	struct agb_gen_trace t;
	int rc = parse_args(&a, argc, argv);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	if (agb_gen(a.scenario, a.seed, a.frames, &t) != 0) {
		agbsim_error("gen: out of memory");
		return AGBSIM_EXIT_IO;
	}
	if (a.name != NULL)
		snprintf(t.name, sizeof t.name, "%s", a.name); /* trace.name points at it */
	rc = write_trace(a.out_path, &t.trace);
	agb_gen_release(&t);
	return rc;
}
