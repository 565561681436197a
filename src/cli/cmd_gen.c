/* agbsim gen: write a scenario trace made by the seeded MT19937 generator (src/trace/gen.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agbsim.h"
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
		"  levels-linear  the same allocations released with mark/reset (bump, stack2)\n\n"
		"Options:\n"
		"  --seed N      MT19937 seed (default 5489, the reference default)\n"
		"  --frames N    frames to generate (default: 1800 shmup, ai-scratch; 3600 rpg,\n"
		"                levels, strips; 1200 particles)\n"
		"  -o FILE       output file ('-' for stdout)\n"
		"  --name NAME   the trace's name (default: the scenario; reports and the gate key\n"
		"                runs by it, so traces compared together need distinct names)\n"
		"  -h, --help    show this help\n");
}

int agbsim_cmd_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"seed", required_argument, NULL, 's'}, {"frames", required_argument, NULL, 'n'},
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
		{"name", required_argument, NULL, 'N'},
		{NULL, 0, NULL, 0},
	};
	const char *out_path = NULL, *scenario, *name = NULL;
	uint32_t seed = 5489, frames = 0;
	struct agb_gen_trace t;
	FILE *out;
	int opt, r, bad;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (agbsim_parse_u32(optarg, &seed) != 0)
				return agbsim_usage_error("gen", "--seed wants an integer 0..4294967295, not '%s'",
							  optarg);
			break;
		case 'n':
			if (agbsim_parse_u32(optarg, &frames) != 0 || frames == 0 || frames > 10000000u)
				return agbsim_usage_error("gen", "--frames wants an integer 1..10000000, not '%s'",
							  optarg);
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'N':
			if (optarg[0] == '\0' || strlen(optarg) >= sizeof t.name)
				return agbsim_usage_error("gen", "--name wants 1..63 characters");
			name = optarg;
			break;
		case 'h':
			usage(stdout);
			return AGBSIM_EXIT_OK;
		case ':':
			return agbsim_usage_error("gen", "option '%s' needs a value", argv[optind - 1]);
		default:
			return agbsim_usage_error("gen", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return agbsim_usage_error("gen", optind >= argc ? "no SCENARIO given"
							       : "exactly one SCENARIO expected");
	scenario = argv[optind];
	if (out_path == NULL)
		return agbsim_usage_error("gen", "no output file given (-o OUT.json)");
	if (agb_gen_default_frames(scenario) == 0)
		return agbsim_usage_error("gen", "unknown scenario '%s' (shmup, rpg, particles, strips, ai-scratch, levels, "
					  "levels-linear)",
					  scenario);
	if (frames == 0)
		frames = agb_gen_default_frames(scenario);
	r = agb_gen(scenario, seed, frames, &t);
	if (r != 0) {
		agbsim_error("gen: out of memory");
		return AGBSIM_EXIT_IO;
	}
	if (name != NULL)
		snprintf(t.name, sizeof t.name, "%s", name); /* trace.name points at it */
	out = strcmp(out_path, "-") == 0 ? stdout : fopen(out_path, "w");
	if (out == NULL) {
		agbsim_error("%s: cannot write: %s", out_path, strerror(errno));
		agb_gen_release(&t);
		return AGBSIM_EXIT_IO;
	}
	bad = agb_trace_write_json(out, &t.trace) != 0;
	if (out != stdout)
		bad |= fclose(out) != 0;
	else
		bad |= fflush(out) != 0;
	agb_gen_release(&t);
	if (bad) {
		agbsim_error("%s: cannot write: %s", out_path, strerror(errno));
		return AGBSIM_EXIT_IO;
	}
	return AGBSIM_EXIT_OK;
}
