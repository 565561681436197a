/* The subcommands' command-line parser (cli_opts.h). */
#include "cli/cli_opts.h"

#include <stdlib.h>
#include <string.h>

#include "cli/agbsim.h"
#include "cli/options.h"

/* getopt's option string: ':' first (a missing value is reported as ':'), -h, the command's. */
static int build_shortopts(const char *extra, char *buf, size_t n)
{
	int len = snprintf(buf, n, ":h%s", extra != NULL ? extra : "");
	return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* One parsed option: a kept argument, else the command's handler, then the shared replay
 * options. */
static int dispatch(const struct agbsim_cli *cli, int opt, char **argv)
{
	int rc = AGBSIM_CLI_UNKNOWN;
	for (const struct agbsim_cli_text *t = cli->texts; t != NULL && t->opt != 0; t++)
		if (t->opt == opt) {
			*(const char **)(void *)((char *)cli->ctx + t->offset) = optarg;
			return AGBSIM_EXIT_OK;
		}
	if (cli->option != NULL)
		rc = cli->option(cli->ctx, opt, optarg);
	if (rc == AGBSIM_CLI_UNKNOWN && cli->replay_cfg != NULL) {
		rc = agbsim_replay_option(cli->cmd, opt, optarg, cli->replay_cfg);
		if (rc == -1)
			rc = AGBSIM_CLI_UNKNOWN;
	}
	if (rc == AGBSIM_CLI_UNKNOWN)
		return agbsim_usage_error(cli->cmd, "unknown option '%s'", argv[optind - 1]);
	return rc;
}

int agbsim_cli_parse(const struct agbsim_cli *cli, int argc, char **argv, int *operands)
{
	char shortopts[64];
	int opt;
	if (build_shortopts(cli->shortopts, shortopts, sizeof shortopts) != 0)
		abort(); /* a command's option string is a constant: a bug, not input */
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, cli->longopts, NULL)) != -1) {
		int rc;
		if (opt == 'h') {
			cli->usage(stdout);
			return AGBSIM_EXIT_OK;
		}
		if (opt == ':')
			return agbsim_usage_error(cli->cmd, "option '%s' needs a value", argv[optind - 1]);
		if (opt == '?')
			return agbsim_usage_error(cli->cmd, "unknown option '%s'", argv[optind - 1]);
		rc = dispatch(cli, opt, argv);
		if (rc != AGBSIM_EXIT_OK)
			return rc;
	}
	*operands = optind;
	return AGBSIM_CLI_RUN;
}

int agbsim_cli_one_trace(const char *cmd, int argc, char **argv, int first, const char **trace)
{
	if (first != argc - 1)
		return agbsim_usage_error(cmd, first >= argc ? "no TRACE given"
							     : "exactly one TRACE expected");
	*trace = argv[first];
	return AGBSIM_CLI_RUN;
}

int agbsim_cli_format(const char *cmd, const char *arg, int *format)
{
	int f = agbsim_parse_format(arg);
	if (f < 0)
		return agbsim_usage_error(cmd, "unknown format '%s' (table, json, csv, md)", arg);
	*format = f;
	return AGBSIM_EXIT_OK;
}
