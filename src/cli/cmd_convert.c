/* agbsim convert: recordings and maps into v1 traces. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agbsim.h"
#include "cli/options.h"
#include "trace/mtrace.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: agbsim convert IN -o OUT [--from mtrace] [OPTIONS]\n\n"
		"Turns a recording into a v1 trace (JSON).\n\n"
		"Sources:\n"
		"  --from mtrace        a glibc mtrace log (record one with scripts/record-mtrace)\n\n"
		"Options:\n"
		"  -o, --output=OUT     trace to write ('-' for stdout); written whole or not at all\n"
		"  --name=NAME          the trace's name\n"
		"  --source=TEXT        how it was recorded (the exact command)\n"
		"  --arena-bytes=N      pool size recorded in the trace (default 262144)\n"
		"  --skip=N             drop the first N recorded events (program start-up)\n"
		"  --max-live=BYTES     end the trace before live bytes would exceed BYTES\n"
		"  -h, --help           show this help\n");
}

/* Writes through a temporary file beside OUT, renamed when complete. */
static int convert_mtrace(const char *in_path, const char *out_path,
			  const struct agb_mtrace_options *opt)
{
	FILE *in = strcmp(in_path, "-") == 0 ? stdin : fopen(in_path, "r");
	FILE *out;
	char tmp[4096], err[1024];
	struct agb_mtrace_result res;
	int to_stdout = strcmp(out_path, "-") == 0, rc;

	if (in == NULL) {
		agbsim_error("%s: cannot open: %s", in_path, strerror(errno));
		return AGBSIM_EXIT_IO;
	}
	snprintf(tmp, sizeof tmp, "%s.part", out_path);
	out = to_stdout ? stdout : fopen(tmp, "w");
	if (out == NULL) {
		agbsim_error("%s: cannot write: %s", out_path, strerror(errno));
		if (in != stdin)
			fclose(in);
		return AGBSIM_EXIT_IO;
	}
	rc = agb_mtrace_convert(in, in_path, out, opt, &res, err, sizeof err);
	if (in != stdin)
		fclose(in);
	if (!to_stdout) {
		if (fclose(out) != 0 && rc == AGB_MTRACE_OK) {
			snprintf(err, sizeof err, "%s: cannot write: %s", out_path, strerror(errno));
			rc = AGB_MTRACE_EIO;
		}
		if (rc == AGB_MTRACE_OK && rename(tmp, out_path) != 0) {
			snprintf(err, sizeof err, "%s: cannot write: %s", out_path, strerror(errno));
			rc = AGB_MTRACE_EIO;
		}
		if (rc != AGB_MTRACE_OK)
			remove(tmp);
	}
	if (rc != AGB_MTRACE_OK) {
		agbsim_error("%s", err);
		return rc == AGB_MTRACE_EPARSE ? AGBSIM_EXIT_USAGE : AGBSIM_EXIT_IO;
	}
	fprintf(stderr,
		"agbsim: %s: %lu events (%lu alloc, %lu free, %lu realloc), peak live %lu bytes; "
		"skipped %lu, dropped %lu unknown frees, %lu failed%s\n",
		out_path, res.events, res.allocs, res.frees, res.reallocs, res.peak_live_bytes,
		res.skipped, res.dropped_unknown_frees, res.dropped_failed,
		res.truncated ? "; truncated by --max-live" : "");
	return AGBSIM_EXIT_OK;
}

int agbsim_cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"from", required_argument, NULL, 'F'},   {"output", required_argument, NULL, 'o'},
		{"name", required_argument, NULL, 'n'},   {"source", required_argument, NULL, 's'},
		{"arena-bytes", required_argument, NULL, 'b'}, {"skip", required_argument, NULL, 'k'},
		{"max-live", required_argument, NULL, 'L'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *from = "mtrace", *out = NULL;
	struct agb_mtrace_options mo;
	uint32_t v;
	int opt;

	agb_mtrace_options_init(&mo);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			from = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'n':
			mo.name = optarg;
			break;
		case 's':
			mo.source = optarg;
			break;
		case 'b':
		case 'k':
		case 'L':
			if (agbsim_parse_u32(optarg, &v) != 0)
				return agbsim_usage_error("convert", "'%s' is not a non-negative integer", optarg);
			if (opt == 'b')
				mo.arena_bytes = v;
			else if (opt == 'k')
				mo.skip_events = v;
			else
				mo.max_live = v;
			break;
		case 'h':
			usage(stdout);
			return AGBSIM_EXIT_OK;
		case ':':
			return agbsim_usage_error("convert", "option '%s' needs a value", argv[optind - 1]);
		default:
			return agbsim_usage_error("convert", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return agbsim_usage_error("convert", "exactly one input file expected");
	if (out == NULL)
		return agbsim_usage_error("convert", "no output given (-o OUT)");
	if (strcmp(from, "mtrace") == 0)
		return convert_mtrace(argv[optind], out, &mo);
	return agbsim_usage_error("convert", "unknown source format '%s' (mtrace)", from);
}
