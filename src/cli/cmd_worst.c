/* agbsim worst: search op sequences for a core's most expensive call (worst_search.h), write the
 * trace that reproduces it, and with --confirm measure that trace in mGBA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/cores.h"
#include "cli/agbsim.h"
#include "cli/cli_opts.h"
#include "cli/measure.h"
#include "cli/options.h"
#include "run/worst_search.h"
#include "trace/json_out.h"
#include "trace/trace_load.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: agbsim worst --allocator=NAME [OPTIONS] -o WORST.json\n\n"
		"Searches op sequences for the core's most expensive single call of one op (and, with\n"
		"--frame-ops, the most expensive run of N consecutive calls): a fuzzer whose fitness is\n"
		"the host cycle model's cost of each call. Prints the worst call found and how long it\n"
		"searched, and writes the trace that reproduces it (v1 JSON, ending with that call).\n\n"
		"Options:\n"
		"  --allocator=NAME     core to search (required; see 'agbsim list')\n"
		"  --op=OP              alloc (default), free, realloc; tile cores: ref (default), unref\n"
		"  --arena=NAME         ewram, obj_vram or bg_vram (default: the core's first)\n"
		"  --pool=BYTES         pool size (default: the whole region)\n"
		"  --seed=N             MT19937 seed (default 1)\n"
		"  --budget=N | Ns      N evaluations (deterministic; default 20000) or N seconds\n"
		"  --frame-ops=N        also find the costliest N consecutive calls (a frame's work)\n"
		"  --max-ops=N          longest op sequence tried (default 1500)\n"
		"  --max-align=N        also request alignments up to N bytes (a power of two; default\n"
		"                       1: none, as malloc and sprite graphics ask)\n"
		"  -o FILE              the worst call's trace ('-': stdout)\n"
		"  --frame-out=FILE     the worst frame's trace (with --frame-ops)\n"
		"  --confirm            replay the worst trace in mGBA (as 'agbsim measure') and print\n"
		"                       the call's measured cycles beside the model's\n"
		"  --meta=REGION, --rom-tiles=N, --screen-maps=N, --obj-bitmap   as for 'replay'\n"
		"  -h, --help           show this help\n\n"
		"With an evaluation budget the same options give the same trace on every machine; a\n"
		"seconds budget stops at the clock. Exit status: 0 ok, 2 bad usage, 3 I/O error.\n");
}

struct worst_args {
	const char *allocator, *out_path, *frame_out, *op_name, *arena_name, *budget;
	uint32_t pool, seed, frame_ops, max_ops, max_align;
	int confirm;
	struct agb_worst_params p;
};

static int parse_budget(struct worst_args *a, const char *arg)
{
	size_t n = strlen(arg);
	char num[32];
	uint32_t v;
	int secs = n > 0 && arg[n - 1] == 's';
	if (n == 0 || n >= sizeof num)
		goto bad;
	memcpy(num, arg, n + 1);
	if (secs)
		num[n - 1] = '\0';
	if (agbsim_parse_u32(num, &v) != 0 || v == 0)
		goto bad;
	if (secs) {
		a->p.max_seconds = v;
		a->p.max_evals = 0;
	} else {
		a->p.max_evals = v;
		a->p.max_seconds = 0;
	}
	return AGBSIM_EXIT_OK;
bad:
	return agbsim_usage_error("worst", "--budget wants a positive number of evaluations (20000) "
					   "or seconds (30s), not '%s'", arg);
}

static int worst_option(void *ctx, int opt, const char *arg)
{
	struct worst_args *a = ctx;
	uint32_t v;
	switch (opt) {
	case 'P':
		if (agbsim_parse_u32(arg, &a->pool) != 0 || a->pool == 0)
			return agbsim_usage_error("worst", "--pool wants a positive integer, not '%s'", arg);
		return AGBSIM_EXIT_OK;
	case 's':
		if (agbsim_parse_u32(arg, &a->seed) != 0)
			return agbsim_usage_error("worst", "--seed wants an integer 0..4294967295, not '%s'",
						  arg);
		return AGBSIM_EXIT_OK;
	case 'b':
		return parse_budget(a, arg);
	case 'F':
		if (agbsim_parse_u32(arg, &v) != 0 || v == 0 || v > 100000u)
			return agbsim_usage_error("worst", "--frame-ops wants 1..100000, not '%s'", arg);
		a->frame_ops = v;
		return AGBSIM_EXIT_OK;
	case 'M':
		if (agbsim_parse_u32(arg, &v) != 0 || v < 2u || v > 200000u)
			return agbsim_usage_error("worst", "--max-ops wants 2..200000, not '%s'", arg);
		a->max_ops = v;
		return AGBSIM_EXIT_OK;
	case 'L':
		if (agbsim_parse_u32(arg, &v) != 0 || v == 0 || (v & (v - 1u)) != 0)
			return agbsim_usage_error("worst", "--max-align wants a power of two, not '%s'", arg);
		a->max_align = v;
		return AGBSIM_EXIT_OK;
	case 'c':
		a->confirm = 1;
		return AGBSIM_EXIT_OK;
	default:
		return AGBSIM_CLI_UNKNOWN;
	}
}

static int parse_op(const char *name, enum agb_op *op)
{
	static const enum agb_op ops[] = {AGB_OP_ALLOC, AGB_OP_FREE, AGB_OP_REALLOC, AGB_OP_REF,
					  AGB_OP_UNREF};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strcmp(name, agb_op_name(ops[i])) == 0) {
			*op = ops[i];
			return 0;
		}
	return -1;
}

/* The core, its arena, the op and the pool, checked against each other. */
static int resolve(struct worst_args *a)
{
	struct agb_worst_params *p = &a->p;
	const struct agb_heap_core *core;
	if (a->allocator == NULL)
		return agbsim_usage_error("worst", "no core given (--allocator=NAME)");
	core = agb_heap_core_find(a->allocator);
	if (core == NULL)
		return agbsim_usage_error("worst", "unknown allocator '%s' (see 'agbsim list')",
					  a->allocator);
	p->core = core;
	if (a->arena_name != NULL) {
		int found = 0;
		for (int k = 0; k < AGB_ARENA_COUNT; k++)
			if (strcmp(a->arena_name, agb_arena_name((enum agb_arena)k)) == 0) {
				p->arena = (enum agb_arena)k;
				found = 1;
			}
		if (!found)
			return agbsim_usage_error("worst", "--arena wants ewram, obj_vram or bg_vram, not '%s'",
						  a->arena_name);
		if ((core->arenas & AGB_ARENA_BIT(p->arena)) == 0)
			return agbsim_usage_error("worst", "allocator '%s' cannot manage %s", core->name,
						  a->arena_name);
	} else {
		int k;
		for (k = 0; k < AGB_ARENA_COUNT && (core->arenas & AGB_ARENA_BIT(k)) == 0; k++)
			;
		p->arena = (enum agb_arena)k;
	}
	if (p->arena == AGB_ARENA_PAL_RAM || p->arena >= AGB_ARENA_COUNT)
		return agbsim_usage_error("worst", "allocator '%s' manages palettes: no search for it yet",
					  core->name);
	if (a->op_name != NULL) {
		if (parse_op(a->op_name, &p->op) != 0)
			return agbsim_usage_error("worst", "--op wants alloc, free, realloc, ref or unref, "
							   "not '%s'", a->op_name);
	} else {
		p->op = p->arena == AGB_ARENA_BG_VRAM ? AGB_OP_REF : AGB_OP_ALLOC;
	}
	if ((p->op == AGB_OP_REF || p->op == AGB_OP_UNREF) != (p->arena == AGB_ARENA_BG_VRAM))
		return agbsim_usage_error("worst", "--op=%s does not apply to %s (%s)", a->op_name,
					  core->name, agb_arena_name(p->arena));
	if ((p->op == AGB_OP_REF || p->op == AGB_OP_UNREF) && core->ref == NULL)
		return agbsim_usage_error("worst", "allocator '%s' has no ref/unref", core->name);
	if (p->op == AGB_OP_FREE && core->free == NULL)
		return agbsim_usage_error("worst", "allocator '%s' has no free", core->name);
	if (p->arena != AGB_ARENA_BG_VRAM && core->alloc == NULL)
		return agbsim_usage_error("worst", "allocator '%s' has no alloc", core->name);
	p->pool_bytes = a->pool != 0 ? a->pool : agb_arena_region_bytes(p->arena);
	if (p->cfg.arena_bytes != 0)
		p->pool_bytes = p->cfg.arena_bytes;
	if (p->pool_bytes > agb_arena_region_bytes(p->arena))
		return agbsim_usage_error("worst", "--pool %u is larger than %s (%u bytes)", p->pool_bytes,
					  agb_arena_name(p->arena), agb_arena_region_bytes(p->arena));
	if (p->pool_bytes < 64u)
		return agbsim_usage_error("worst", "--pool wants at least 64 bytes");
	p->seed = a->seed;
	p->frame_ops = a->frame_ops;
	p->max_ops = a->max_ops;
	p->max_align = a->max_align;
	if (a->frame_out != NULL && a->frame_ops == 0)
		return agbsim_usage_error("worst", "--frame-out needs --frame-ops=N");
	if (a->out_path == NULL)
		return agbsim_usage_error("worst", "no output file given (-o WORST.json)");
	return AGBSIM_EXIT_OK;
}

static int parse_args(struct worst_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'}, {"op", required_argument, NULL, 'O'},
		{"arena", required_argument, NULL, 'A'},     {"pool", required_argument, NULL, 'P'},
		{"seed", required_argument, NULL, 's'},      {"budget", required_argument, NULL, 'b'},
		{"frame-ops", required_argument, NULL, 'F'}, {"max-ops", required_argument, NULL, 'M'},
		{"output", required_argument, NULL, 'o'},    {"frame-out", required_argument, NULL, 'f'},
		{"confirm", no_argument, NULL, 'c'},         {"help", no_argument, NULL, 'h'},
		{"max-align", required_argument, NULL, 'L'},
		AGBSIM_REPLAY_LONGOPTS,                      {NULL, 0, NULL, 0},
	};
	static const struct agbsim_cli_text texts[] = {
		AGBSIM_CLI_TEXT('a', struct worst_args, allocator),
		AGBSIM_CLI_TEXT('O', struct worst_args, op_name),
		AGBSIM_CLI_TEXT('A', struct worst_args, arena_name),
		AGBSIM_CLI_TEXT('o', struct worst_args, out_path),
		AGBSIM_CLI_TEXT('f', struct worst_args, frame_out), {0, 0}};
	const struct agbsim_cli cli = {"worst", "o:", longopts, usage, worst_option,
				       a, &a->p.cfg, texts};
	int first, rc;
	a->seed = 1;
	a->p.max_evals = 20000;
	rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	if (first < argc)
		return agbsim_usage_error("worst", "unexpected operand '%s'", argv[first]);
	rc = resolve(a);
	return rc == AGBSIM_EXIT_OK ? AGBSIM_CLI_RUN : rc;
}

struct meta_ctx {
	const struct worst_args *a;
	const struct agb_worst_result *r;
	const struct agb_worst_found *f;
	int frame;
};

/* The search that made the trace: loaders ignore it; `agbsim worst` readers and the bounds
 * script read it. No clock figures: the same search writes the same bytes. */
static void write_meta(struct agbsim_json *w, void *ctx)
{
	const struct meta_ctx *m = ctx;
	const struct agb_worst_params *p = &m->a->p;
	agbsim_json_key(w, "worst");
	agbsim_json_object(w, AGBSIM_JSON_INLINE);
	agbsim_json_member_string(w, "allocator", p->core->name);
	agbsim_json_member_string(w, "op", m->frame ? "frame" : agb_op_name(p->op));
	agbsim_json_member_u32(w, "event", m->f->index);
	if (m->frame) {
		agbsim_json_member_u32(w, "last_event", m->f->last);
		agbsim_json_member_u32(w, "frame_ops", p->frame_ops);
	}
	agbsim_json_member_u32(w, "model_cycles", m->f->cycles);
	agbsim_json_member_u32(w, "seed", p->seed);
	if (p->max_evals != 0u)
		agbsim_json_member_u64(w, "budget_evals", p->max_evals);
	else
		agbsim_json_member_u32(w, "budget_seconds", (uint32_t)p->max_seconds);
	agbsim_json_end(w);
}

static int write_found(const struct worst_args *a, const struct agb_worst_result *r,
		       const struct agb_worst_found *f, const char *path, int frame)
{
	struct agb_trace t;
	struct agbsim_output out = {0};
	struct meta_ctx mc = {a, r, f, frame};
	char name[96];
	int rc, bad;
	agb_worst_trace(&a->p, f, &t);
	snprintf(name, sizeof name, "worst-%s-%s", a->p.core->name,
		 frame ? "frame" : agb_op_name(a->p.op));
	t.name = name;
	t.source = "agbsim worst";
	rc = agbsim_output_open(&out, path);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	bad = agb_trace_write_json_meta(out.f, &t, write_meta, &mc) != 0;
	rc = agbsim_output_close(&out, !bad);
	if (bad && rc == AGBSIM_EXIT_OK) {
		agbsim_error("%s: cannot write the trace", path);
		rc = AGBSIM_EXIT_IO;
	}
	return rc;
}

/* The worst trace in mGBA (agbsim measure's path): the call's and the frame's measured cycles. */
static int confirm(const struct worst_args *a, const struct agb_worst_found *f, const char *what,
		   FILE *out)
{
	struct agbsim_run run;
	struct agbsim_measure_opts mo = {PLACEMENT_ROM, 0, NULL, NULL, 1};
	struct agbsim_measured pe = {0};
	struct agb_trace t;
	uint64_t model = 0, mgba = 0;
	int rc;
	if (!agbsim_measure_available()) {
		agbsim_error("worst: --confirm needs libmgba and the GBA ROMs; %s", AGBSIM_MGBA_HINT);
		return AGBSIM_EXIT_IO;
	}
	agb_worst_trace(&a->p, f, &t);
	t.name = "worst";
	memset(&run, 0, sizeof run);
	run.trace_path = a->out_path;
	run.trace = &t;
	run.core = a->p.core;
	run.cfg = a->p.cfg;
	run.cfg.arena_bytes = a->p.pool_bytes;
	run.cfg.flags = AGB_REPLAY_CANARIES;
	rc = agbsim_measure_run(&run, 0, &mo, &pe);
	if (rc != AGBSIM_EXIT_OK) {
		agbsim_error("%s", run.error);
		agbsim_measured_free(&pe);
		return rc;
	}
	for (uint32_t i = f->index; i <= f->last; i++) {
		uint8_t op = t.events[i].op;
		if (op == AGB_OP_FRAME)
			continue;
		model += pe.model[i];
		mgba += pe.mgba[i];
	}
	fprintf(out, "  %s in mGBA (Thumb in ROM, %s): %llu cycles (model %llu, %+.1f %%)\n", what,
		run.direct_calls ? "direct calls" : "through the core table",
		(unsigned long long)mgba, (unsigned long long)model,
		mgba != 0 ? 100.0 * ((double)model - (double)mgba) / (double)mgba : 0.0);
	agbsim_measured_free(&pe);
	return AGBSIM_EXIT_OK;
}

struct verify_ctx {
	uint32_t from, to;
	uint64_t sum;
};

static void verify_observe(void *ctx, const struct agb_replay_obs *o)
{
	struct verify_ctx *v = ctx;
	if (o->index >= v->from && o->index <= v->to && o->outcome != AGB_OUTCOME_SKIPPED)
		v->sum += o->cycles;
}

/* The found trace replayed as `agbsim replay` would (canaries on): the same cost, or an
 * internal error. Notes when the model extrapolated on it. */
static int verify(const struct worst_args *a, const struct agb_worst_found *f, FILE *out)
{
	struct agbsim_run run;
	struct verify_ctx v = {f->index, f->last, 0};
	struct agbsim_tap tap = {verify_observe, &v};
	struct agb_trace t;
	int rc;
	agb_worst_trace(&a->p, f, &t);
	memset(&run, 0, sizeof run);
	run.trace_path = a->out_path;
	run.trace = &t;
	run.core = a->p.core;
	run.cfg = a->p.cfg;
	run.cfg.arena_bytes = a->p.pool_bytes;
	run.cfg.flags = AGB_REPLAY_CANARIES;
	rc = agbsim_run_replay(&run, 0, &tap);
	if (rc != AGBSIM_EXIT_OK) {
		agbsim_error("worst: the found trace does not replay: %s", run.error);
		return AGBSIM_EXIT_IO;
	}
	if (v.sum != f->cycles) {
		agbsim_error("worst: internal error: the found trace replays at %llu cycles, not %u",
			     (unsigned long long)v.sum, f->cycles);
		return AGBSIM_EXIT_IO;
	}
	if (run.result.extrapolated_ops != 0)
		fprintf(out, "  note: the model extrapolated on %u ops of it (from event %u): "
			     "--confirm measures it\n", run.result.extrapolated_ops,
			run.result.first_extrapolated);
	return AGBSIM_EXIT_OK;
}

static void print_call(FILE *out, const struct worst_args *a, const struct agb_worst_found *f)
{
	const struct agb_event *e = &f->events[f->index];
	if (e->op == AGB_OP_REF || e->op == AGB_OP_UNREF)
		fprintf(out, "  worst call: event %u, %s of ROM tile %u at %ubpp: %u cycles (model)\n",
			f->index, agb_op_name((enum agb_op)e->op), e->id, e->size, f->cycles);
	else if (e->op == AGB_OP_FREE)
		fprintf(out, "  worst call: event %u, free of id %u: %u cycles (model)\n", f->index,
			e->id, f->cycles);
	else
		fprintf(out, "  worst call: event %u, %s of %u bytes%s: %u cycles (model)\n", f->index,
			agb_op_name((enum agb_op)e->op), e->size,
			e->align > 1u ? " (aligned)" : "", f->cycles);
	(void)a;
}

int agbsim_cmd_worst(int argc, char **argv)
{
	struct worst_args a;
	struct agb_worst_result r;
	FILE *out = stdout;
	int rc;
	memset(&a, 0, sizeof a);
	rc = parse_args(&a, argc, argv);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	if (strcmp(a.out_path, "-") == 0 || (a.frame_out != NULL && strcmp(a.frame_out, "-") == 0))
		out = stderr; /* the trace owns stdout */
	rc = agb_worst_search(&a.p, &r);
	if (rc < 0) {
		agbsim_error("worst: out of memory");
		agb_worst_release(&r);
		return AGBSIM_EXIT_IO;
	}
	if (rc > 0) {
		agbsim_error("worst: core '%s' on %s (%u bytes): the replay stopped at event %u: %s",
			     a.p.core->name, agb_arena_name(a.p.arena), a.p.pool_bytes, r.bad_event,
			     r.why != NULL ? r.why : "refused");
		agb_worst_release(&r);
		return AGBSIM_EXIT_USAGE;
	}
	fprintf(out, "worst %s on %s, %s pool of %u bytes, seed %u\n", agb_op_name(a.p.op),
		a.p.core->name, agb_arena_name(a.p.arena), a.p.pool_bytes, a.p.seed);
	if (a.p.max_evals != 0u)
		fprintf(out, "  searched: %llu evaluations (budget %llu) in %.1f s; the worst first "
			     "reached at evaluation %u\n",
			(unsigned long long)r.evals, (unsigned long long)a.p.max_evals, r.seconds,
			r.first_found_eval);
	else
		fprintf(out, "  searched: %llu evaluations in %.1f s (budget %.0f s); the worst first "
			     "reached at evaluation %u\n",
			(unsigned long long)r.evals, r.seconds, a.p.max_seconds, r.first_found_eval);
	if (!r.call.found) {
		agbsim_error("worst: no %s call was made in %llu evaluations",
			     agb_op_name(a.p.op), (unsigned long long)r.evals);
		agb_worst_release(&r);
		return AGBSIM_EXIT_IO;
	}
	print_call(out, &a, &r.call);
	rc = verify(&a, &r.call, out);
	if (rc == AGBSIM_EXIT_OK)
		rc = write_found(&a, &r, &r.call, a.out_path, 0);
	if (rc == AGBSIM_EXIT_OK)
		fprintf(out, "  trace: %s (%u events; the worst call is the last)\n", a.out_path,
			r.call.event_count);
	if (rc == AGBSIM_EXIT_OK && a.confirm)
		rc = confirm(&a, &r.call, "the call", out);
	if (rc == AGBSIM_EXIT_OK && a.p.frame_ops != 0u && r.frame.found) {
		fprintf(out, "  worst frame of %u calls: events %u..%u: %u cycles (model)\n",
			a.p.frame_ops, r.frame.index, r.frame.last, r.frame.cycles);
		rc = verify(&a, &r.frame, out);
		if (rc == AGBSIM_EXIT_OK && a.frame_out != NULL) {
			rc = write_found(&a, &r, &r.frame, a.frame_out, 1);
			if (rc == AGBSIM_EXIT_OK)
				fprintf(out, "  frame trace: %s (%u events)\n", a.frame_out,
					r.frame.event_count);
		}
		if (rc == AGBSIM_EXIT_OK && a.confirm)
			rc = confirm(&a, &r.frame, "the frame", out);
	}
	agb_worst_release(&r);
	return rc;
}
