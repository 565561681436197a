/* agbsim: GBA allocator cores on an emulated machine. Dispatches to one file per subcommand. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/agbsim.h"
#include "cli/measure.h"
#include "cli/options.h"

static const struct agbsim_command commands[] = {
	{"replay", "replay a trace on a core and report fragmentation, overhead and cycles",
	 agbsim_cmd_replay},
	{"bench", "run every core on every trace and compare them side by side", agbsim_cmd_bench},
	{"gate", "bench against a baseline: fail CI on a regression, a leak or a changed arena",
	 agbsim_cmd_gate},
	{"convert", "turn a recording (glibc mtrace log) into a trace", agbsim_cmd_convert},
	{"list", "list the cores and what they manage", agbsim_cmd_list},
	{"perf", "measure agbsim's own speed: trace loading and replay", agbsim_cmd_perf},
	{"gen", "generate a game-like scenario trace (seeded MT19937)", agbsim_cmd_gen},
	{"measure", "replay a trace in mGBA (the GBA build) and report measured cycles",
	 agbsim_cmd_measure},
	{"record", "run a GBA game in mGBA and write the trace of its allocations or VRAM use",
	 agbsim_cmd_record},
	{"budget", "run a GBA game in mGBA and report its whole memory budget", agbsim_cmd_budget},
	{"worst", "search op sequences for a core's most expensive call (a cycle-guided fuzzer)",
	 agbsim_cmd_worst},
	{"view", "show a replay as a live memory map (SDL2 window) or a PNG snapshot", agbsim_cmd_view},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

void agbsim_error(const char *fmt, ...)
{
	va_list ap;
	fputs("agbsim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int agbsim_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "agbsim: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'agbsim %s --help'.\n", cmd);
	return AGBSIM_EXIT_USAGE;
}

int agbsim_parse_format(const char *s)
{
	static const char *const names[] = {"table", "json", "csv", "md"};
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: agbsim COMMAND [ARGS...]\n"
		     "       agbsim --help | --version\n\n"
		     "Runs Game Boy Advance memory allocators on an emulated GBA bus and measures\n"
		     "fragmentation, overhead and cycle costs.\n\nCommands:\n");
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'agbsim COMMAND --help' describes a command.\n"
		     "Exit status: 0 ok, 1 regression found by the gate, 2 bad usage or input,\n"
		     "3 I/O or internal error.\n");
}

/* The exit status once stdout is closed: a report that did not reach stdout in full (a full
 * disk, a closed pipe) is an I/O error, exit 3 with a message, never a silent success. */
static int finish_stdout(int rc)
{
	int err = 0, earlier = errno; /* the failed write inside an earlier printf set it */
	errno = 0;
	if (fflush(stdout) != 0)
		err = errno != 0 ? errno : EIO;
	else if (ferror(stdout))
		err = earlier != 0 ? earlier : EIO;
	if (fclose(stdout) != 0 && err == 0)
		err = errno != 0 ? errno : EIO;
	if (err == 0 || agbsim_stdout_reported)
		return rc;
	agbsim_error("stdout: cannot write: %s", strerror(err));
	return rc == AGBSIM_EXIT_USAGE ? rc : AGBSIM_EXIT_IO;
}

static int dispatch(int argc, char **argv)
{
#ifdef AGB_PLAIN_MEMORY
	if (agb_plain_map_regions() != 0) {
		agbsim_error("cannot map the GBA regions at their addresses (plain-memory build)");
		return AGBSIM_EXIT_IO;
	}
#endif
	if (argc < 2) {
		usage(stderr);
		return AGBSIM_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return AGBSIM_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("agbsim %s\n", AGBSIM_VERSION);
		return AGBSIM_EXIT_OK;
	}
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	agbsim_error("unknown command '%s'", argv[1]);
	fprintf(stderr, "Try 'agbsim --help'.\n");
	return AGBSIM_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	/* A closed pipe (agbsim ... | head) is a write error (EPIPE) reported by finish_stdout,
	 * not a death by SIGPIPE; on Windows, no CR/LF translation of the reports. */
	agb_platform_init();
	return finish_stdout(dispatch(argc, argv));
}
