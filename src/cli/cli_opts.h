/* One command-line parser for the subcommands: the getopt_long loop, -h/--help, the messages for
 * a missing value or an unknown option, and the replay options several commands share
 * (AGBSIM_REPLAY_LONGOPTS), written once. A command supplies its options and a handler. */
#ifndef AGBSIM_CLI_OPTS_H
#define AGBSIM_CLI_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "agbsim/replay.h"

/* agbsim_cli_parse(): the command line is fine, run the command. */
#define AGBSIM_CLI_RUN (-1)
/* A handler's answer for an option that is not its own. */
#define AGBSIM_CLI_UNKNOWN (-2)

/* An option whose value is only kept: its argument goes to the `const char *` at `offset` in the
 * command's ctx. A command lists them in a table ended by {0, 0}. */
struct agbsim_cli_text {
	int opt;
	size_t offset;
};
#define AGBSIM_CLI_TEXT(opt, type, member) {(opt), offsetof(type, member)}

struct agbsim_cli {
	const char *cmd;               /* the subcommand's name, for messages */
	const char *shortopts;         /* short options beyond -h ("j:"), or "" */
	const struct option *longopts; /* with {"help", no_argument, NULL, 'h'} */
	void (*usage)(FILE *out);      /* --help text */
	/* Applies option `opt` (its value `arg`, or NULL). Returns AGBSIM_EXIT_OK, an exit status
	 * after printing why the value is bad, or AGBSIM_CLI_UNKNOWN. May be NULL. */
	int (*option)(void *ctx, int opt, const char *arg);
	void *ctx;
	/* Where the shared replay options go (options.h, AGBSIM_REPLAY_LONGOPTS), or NULL when the
	 * command has none. */
	struct agb_replay_config *replay_cfg;
	/* The options that only keep their argument (in ctx), or NULL. Tried before `option`. */
	const struct agbsim_cli_text *texts;
};

/* Parses argv[1..argc-1]. Returns AGBSIM_CLI_RUN with *operands set to the index of the first
 * operand; AGBSIM_EXIT_OK after printing --help to stdout; or AGBSIM_EXIT_USAGE (or the
 * handler's status) after printing why. O(argc). Not reentrant (getopt's globals). */
int agbsim_cli_parse(const struct agbsim_cli *cli, int argc, char **argv, int *operands);

/* Exactly one TRACE operand at argv[first]: stores it in *trace and returns AGBSIM_CLI_RUN, or
 * prints "no TRACE given" / "exactly one TRACE expected" and returns AGBSIM_EXIT_USAGE. */
int agbsim_cli_one_trace(const char *cmd, int argc, char **argv, int first, const char **trace);

/* --format=table|json|csv|md into *format (enum agbsim_format). Returns AGBSIM_EXIT_OK or
 * AGBSIM_EXIT_USAGE after printing why. */
int agbsim_cli_format(const char *cmd, const char *arg, int *format);

#endif
