/* The budget report as a table, JSON or markdown; its limits and its baseline (budget.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/budget.h"
#include "cli/options.h"
#include "trace/json_out.h"
#include "trace/json_util.h"

/* The figures a limit may name (every one the report has). */
static const char *const known[] = {"stack.peak",
                                    "stack.irq_peak",
                                    "stack.room",
                                    "stack.irq_room",
                                    "iwram.free",
                                    "iwram.static",
                                    "iwram.code",
                                    "ewram.static",
                                    "ewram.heap_peak",
                                    "ewram.written",
                                    "ewram.never_written",
                                    "ewram.free",
                                    "rom.bytes",
                                    "libc.iwram",
                                    "libc.ewram",
                                    "vram.obj_tiles_peak",
                                    "vram.obj_tiles_end",
                                    "vram.bg_peak",
                                    "vram.bg_maps_at_peak",
                                    "vram.bg_tiles_at_peak",
                                    "oam.peak",
                                    "oam.end",
                                    "pal.bg_banks_peak",
                                    "pal.obj_banks_peak",
                                    NULL};

int budget_limit_parse(const char *text, struct budget_limit *out, char *why, size_t why_len)
{
	const char *op = strstr(text, "<=");
	memset(out, 0, sizeof *out);
	out->text = text;
	if (op == NULL && (op = strstr(text, ">=")) != NULL)
		out->at_least = 1;
	if (op == NULL || op == text || (size_t)(op - text) >= sizeof out->metric) {
		snprintf(why, why_len, "not METRIC<=VALUE or METRIC>=VALUE");
		return -1;
	}
	memcpy(out->metric, text, (size_t)(op - text));
	out->metric[op - text] = '\0';
	size_t k;
	for (k = 0; known[k] != NULL; k++)
		if (strcmp(known[k], out->metric) == 0)
			break;
	if (known[k] == NULL) {
		snprintf(why, why_len,
		         "unknown figure '%s' (stack.peak, stack.irq_peak, iwram.free, "
		         "ewram.heap_peak, ... : see docs/budget.md)",
		         out->metric);
		return -1;
	}
	const char *v = op + 2;
	char *end;
	errno = 0;
	unsigned long long n = (*v >= '0' && *v <= '9') ? strtoull(v, &end, 10) : 0;
	if (!(*v >= '0' && *v <= '9') || errno != 0) {
		snprintf(why, why_len, "the value must be an integer (with K or M), not '%s'", v);
		return -1;
	}
	if (*end == 'K' || *end == 'k')
		n *= 1024ull, end++;
	else if (*end == 'M' || *end == 'm')
		n *= 1024ull * 1024ull, end++;
	if (*end != '\0' || n > 0xFFFFFFFFull) {
		snprintf(why, why_len, "the value must be an integer (with K or M), not '%s'", v);
		return -1;
	}
	out->value = (uint32_t)n;
	return 0;
}

static void verdict_line(struct budget_verdict *v, const char *fmt, const char *a, uint32_t x,
                         uint32_t y)
{
	if (v->n < sizeof v->lines / sizeof v->lines[0])
		snprintf(v->lines[v->n++], sizeof v->lines[0], fmt, a, x, y);
}

static void hold(const struct budget_report *r, const struct budget_limit *l, const char *origin,
                 struct budget_verdict *v)
{
	const struct budget_figure *f = budget_figure(r, l->metric);
	if (f == NULL)
		return;
	v->limits_checked++;
	if (l->at_least ? f->value < l->value : f->value > l->value) {
		char fmt[160];
		snprintf(fmt, sizeof fmt, "limit %s broken (%s): %%s is %%u, the limit %s %%u",
		         l->text, origin, l->at_least ? ">=" : "<=");
		verdict_line(v, fmt, f->name, f->value, l->value);
	}
}

void budget_judge(const struct budget_report *r, const struct budget_limit *limits, size_t n,
                  const struct budget_baseline *base, struct budget_verdict *v)
{
	memset(v, 0, sizeof *v);
	for (size_t i = 0; i < n; i++)
		hold(r, &limits[i], "--limit", v);
	if (base == NULL)
		return;
	for (size_t i = 0; i < base->n_limits; i++)
		hold(r, &base->limits[i], "baseline", v);
	for (size_t i = 0; i < base->n; i++) {
		const struct budget_figure *f = budget_figure(r, base->names[i]);
		if (f == NULL)
			continue;
		v->figures_compared++;
		uint32_t was = base->values[i];
		if (f->higher_is_better ? f->value < was : f->value > was)
			verdict_line(v, "regression: %s is %u, the baseline's %u", f->name,
			             f->value, was);
	}
}

/* ---- the baseline file ---------------------------------------------------------------------- */
static int baseline_error(const char *path, const char *text, size_t len, const char *at,
                          const char *msg)
{
	struct agb_diag d;
	char line[1024];
	memset(&d, 0, sizeof d);
	snprintf(d.file, sizeof d.file, "%s", path);
	agb_json_locate(text, len, at, &d);
	snprintf(d.message, sizeof d.message, "%s", msg);
	agb_diag_format(&d, line, sizeof line);
	agbsim_error("%s", line);
	return AGBSIM_EXIT_USAGE;
}

int budget_baseline_load(const char *path, struct budget_baseline *b)
{
	char *text = NULL;
	size_t len = 0;
	cJSON *root = NULL;
	struct agb_diag diag;
	int rc = agbsim_read_input(path, &text, &len);
	memset(b, 0, sizeof *b);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	if (agb_json_parse(path, text, len, &root, &diag) != AGB_LOAD_OK) {
		char msg[1024];
		agb_diag_format(&diag, msg, sizeof msg);
		agbsim_error("%s", msg);
		free(text);
		return AGBSIM_EXIT_USAGE;
	}
	const cJSON *figs = cJSON_GetObjectItemCaseSensitive(root, "figures"), *f;
	if (!cJSON_IsObject(root) ||
	    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, "agbsim_budget")))
		rc = baseline_error(path, text, len, "",
		                    "not an agbsim budget baseline: no "
		                    "\"agbsim_budget\" key");
	else if (!cJSON_IsObject(figs))
		rc = baseline_error(path, text, len, "", "\"figures\" must be an object");
	const cJSON *each = rc == AGBSIM_EXIT_OK ? figs : NULL;
	cJSON_ArrayForEach(f, each)
	{
		char at[96];
		snprintf(at, sizeof at, "figures/%s", f->string);
		if (!cJSON_IsNumber(f) || f->valuedouble < 0 || f->valuedouble > 4294967295.0 ||
		    f->valuedouble != (double)(uint32_t)f->valuedouble) {
			rc = baseline_error(path, text, len, at,
			                    "a figure is an integer 0..4294967295");
			break;
		}
		if (b->n == BUDGET_MAX_FIGURES || strlen(f->string) >= sizeof b->names[0]) {
			rc = baseline_error(path, text, len, at,
			                    "too many figures, or a name too long");
			break;
		}
		snprintf(b->names[b->n], sizeof b->names[0], "%s", f->string);
		b->values[b->n++] = (uint32_t)f->valuedouble;
	}
	const cJSON *limits =
	        rc == AGBSIM_EXIT_OK ? cJSON_GetObjectItemCaseSensitive(root, "limits") : NULL;
	if (limits != NULL && !cJSON_IsArray(limits))
		rc = baseline_error(path, text, len, "limits",
		                    "\"limits\" must be an array of strings");
	int i = 0;
	each = rc == AGBSIM_EXIT_OK ? limits : NULL;
	cJSON_ArrayForEach(f, each)
	{
		char at[32], why[160];
		snprintf(at, sizeof at, "limits/%d", i++);
		if (!cJSON_IsString(f) || strlen(f->valuestring) >= sizeof b->limit_text[0] ||
		    b->n_limits == sizeof b->limits / sizeof b->limits[0]) {
			rc = baseline_error(path, text, len, at,
			                    "a limit is a string METRIC<=VALUE");
			break;
		}
		snprintf(b->limit_text[b->n_limits], sizeof b->limit_text[0], "%s", f->valuestring);
		if (budget_limit_parse(b->limit_text[b->n_limits], &b->limits[b->n_limits], why,
		                       sizeof why) != 0) {
			rc = baseline_error(path, text, len, at, why);
			break;
		}
		b->limits[b->n_limits].text = b->limit_text[b->n_limits];
		b->n_limits++;
	}
	cJSON_Delete(root);
	free(text);
	return rc;
}

/* The figures a baseline holds: the game's, not the run's length or the report's layout. */
int budget_baseline_write(const char *path, const struct budget_report *r,
                          const struct budget_baseline *keep)
{
	struct agbsim_output out;
	struct agbsim_json w;
	int rc = agbsim_output_open(&out, path);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	agbsim_json_init(&w, out.f);
	agbsim_json_object(&w, AGBSIM_JSON_LINES);
	agbsim_json_member_u32(&w, "agbsim_budget", 1);
	agbsim_json_member_u32(&w, "frames", r->frames);
	agbsim_json_key(&w, "figures");
	agbsim_json_object(&w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < r->n_fig; i++)
		agbsim_json_member_u32(&w, r->fig[i].name, r->fig[i].value);
	agbsim_json_end(&w);
	agbsim_json_key(&w, "limits");
	agbsim_json_array(&w, AGBSIM_JSON_LINES);
	for (size_t i = 0; keep != NULL && i < keep->n_limits; i++)
		agbsim_json_string(&w, keep->limit_text[i]);
	agbsim_json_end(&w);
	agbsim_json_end(&w);
	agbsim_json_finish(&w);
	return agbsim_output_close(&out, !ferror(out.f));
}

/* ---- text ------------------------------------------------------------------------------------ */
static uint32_t fig(const struct budget_report *r, const char *name)
{
	const struct budget_figure *f = budget_figure(r, name);
	return f != NULL ? f->value : 0u;
}

static const char *file_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s != NULL ? s + 1 : path;
}

/* A row: "| a | b | c |" in markdown, aligned columns in a table. */
static void row(FILE *out, int md, const char *a, const char *b, const char *c, const char *d)
{
	if (md)
		fprintf(out, "| %s | %s | %s | %s |\n", a, b, c, d);
	else
		fprintf(out, "  %-34s %10s %10s  %s\n", a, b, c, d);
}

static void head(FILE *out, int md, const char *title, const char *a, const char *b, const char *c,
                 const char *d)
{
	if (md) {
		fprintf(out, "\n**%s**\n\n| %s | %s | %s | %s |\n|---|---:|---:|---|\n", title, a,
		        b, c, d);
	} else {
		fprintf(out, "\n%s\n", title);
		row(out, 0, a, b, c, d);
	}
}

static void lines(FILE *out, int md, const char *title, const char *col3,
                  const struct budget_line *l, size_t n, int show_written)
{
	char b[32], c[32];
	if (n == 0)
		return;
	head(out, md, title, "name", "bytes", col3, "where");
	for (size_t i = 0; i < n; i++) {
		snprintf(b, sizeof b, "%u", l[i].bytes);
		if (show_written)
			snprintf(c, sizeof c, "%u", l[i].written);
		else
			snprintf(c, sizeof c, "0x%08x", (unsigned)l[i].addr);
		row(out, md, l[i].name, b, c, l[i].where);
	}
}

static void stack_text(FILE *out, int md, const struct budget_stack *s)
{
	char t[320], b[32], c[32], d[96];
	snprintf(t, sizeof t,
	         "%s stack: top 0x%08x, limit 0x%08x (%u bytes of room): peak %u bytes (paint %u, "
	         "store watch %u)%s",
	         s->name, (unsigned)s->top, (unsigned)s->limit, (unsigned)(s->top - s->limit),
	         (unsigned)s->peak, (unsigned)s->peak_paint, (unsigned)s->peak_watch,
	         s->overflowed ? ": OVERFLOW" : "");
	if (md)
		fprintf(out, "\n**%s**\n", t);
	else
		fprintf(out, "\n%s\n", t);
	if (s->overflowed) {
		snprintf(
		        t, sizeof t,
		        "overflow: frame %u, %s (pc 0x%08x) wrote 0x%08x with sp 0x%08x, below the "
		        "limit 0x%08x",
		        s->ov_frame, s->ov_function, (unsigned)s->ov_pc, (unsigned)s->ov_addr,
		        (unsigned)s->ov_sp, (unsigned)s->limit);
		fprintf(out, md ? "\n> **%s**\n" : "  %s\n", t);
	}
	if (s->n_chain == 0)
		return;
	snprintf(t, sizeof t, "deepest call chain (frame %u; callers from the stack, heuristic)",
	         s->deepest_frame);
	if (md)
		fprintf(out, "\n| %s | depth | pc | where |\n|---|---:|---:|---|\n", t);
	else
		row(out, 0, t, "depth", "pc", "where");
	for (size_t i = 0; i < s->n_chain; i++) {
		snprintf(b, sizeof b, "%u", s->chain[i].depth);
		snprintf(c, sizeof c, "0x%08x", (unsigned)s->chain[i].pc);
		snprintf(d, sizeof d, "%s", s->chain[i].where);
		row(out, md, s->chain[i].function, b, c, d);
	}
	if (s->libc_bytes != 0)
		fprintf(out,
		        md ? "\nnewlib's frames at the deep end of this chain: %u bytes\n"
		           : "  newlib's frames at the deep end of this chain: %u bytes\n",
		        s->libc_bytes);
}

static void write_text(FILE *out, int md, const struct budget_report *r,
                       const struct budget_verdict *v)
{
	char b[32], c[32], d[32];
	int ok = v->n == 0 && !r->overflow;
	if (md)
		fprintf(out, "### agbsim budget: %s — %s\n\n%u frames in mGBA. %s\n",
		        file_name(r->game), ok ? "ok" : "FAIL", r->frames,
		        v->limits_checked || v->figures_compared ? "" : "No limits given.");
	else
		fprintf(out, "agbsim budget: %s, %u frames in mGBA: %s\n", file_name(r->game),
		        r->frames, ok ? "ok" : "FAIL");
	for (size_t i = 0; i < v->n; i++)
		fprintf(out, md ? "- **%s**\n" : "  %s\n", v->lines[i]);
	if (v->limits_checked || v->figures_compared)
		fprintf(out,
		        md ? "\n%zu limits checked, %zu figures compared with the baseline.\n"
		           : "  %zu limits checked, %zu figures compared with the baseline\n",
		        v->limits_checked, v->figures_compared);

	head(out, md, "Regions", "region", "capacity", "used", "free");
#define REGION(name, cap, used)                                                                    \
	do {                                                                                       \
		snprintf(b, sizeof b, "%u", (unsigned)(cap));                                      \
		snprintf(c, sizeof c, "%u", (unsigned)(used));                                     \
		if ((used) > (cap)) /* an overflowed stack: say so, do not wrap */                 \
			snprintf(d, sizeof d, "over by %u", (unsigned)((used) - (cap)));           \
		else                                                                               \
			snprintf(d, sizeof d, "%u", (unsigned)((cap) - (used)));                   \
		row(out, md, name, b, c, d);                                                       \
	} while (0)
	uint32_t iw_used = 32768u - fig(r, "iwram.free");
	REGION("IWRAM (static + stacks + BIOS)", 32768u, iw_used);
	REGION("  static sections", fig(r, "iwram.static"), fig(r, "iwram.static"));
	REGION("  system stack (room / peak)", fig(r, "stack.room"), fig(r, "stack.peak"));
	REGION("  IRQ stack (room / peak)", fig(r, "stack.irq_room"), fig(r, "stack.irq_peak"));
	REGION("EWRAM (written at least once)", 262144u, fig(r, "ewram.written"));
	REGION("  static sections", fig(r, "ewram.static"), fig(r, "ewram.static"));
	REGION("  above them: heap peak", 262144u - fig(r, "ewram.static"),
	       fig(r, "ewram.heap_peak"));
	REGION("OBJ VRAM tiles (peak)", 1024u, fig(r, "vram.obj_tiles_peak"));
	REGION("BG VRAM bytes (peak)", 65536u, fig(r, "vram.bg_peak"));
	REGION("OAM entries (peak)", 128u, fig(r, "oam.peak"));
	REGION("BG palette banks (peak)", 16u, fig(r, "pal.bg_banks_peak"));
	REGION("OBJ palette banks (peak)", 16u, fig(r, "pal.obj_banks_peak"));
	REGION("ROM bytes", 33554432u, fig(r, "rom.bytes"));
#undef REGION
	fprintf(out,
	        md ? "\nIWRAM free at the deepest moment: %u bytes (from the static sections' "
	             "end 0x%08x to the system stack's deepest write). Heap: %s.\n"
	           : "  IWRAM free at the deepest moment: %u bytes (static end 0x%08x to the "
	             "system stack's deepest write); heap: %s\n",
	        fig(r, "iwram.free"), (unsigned)r->iwram_static_end, r->heap_source);
	stack_text(out, md, &r->stack[0]);
	stack_text(out, md, &r->stack[1]);
	lines(out, md, "IWRAM sections", "address", r->iwram_sections, r->n_iwram_sections, 0);
	lines(out, md, "IWRAM largest symbols", "written", r->iwram_symbols, r->n_iwram_symbols, 1);
	lines(out, md, "EWRAM sections", "written", r->ewram_sections, r->n_ewram_sections, 1);
	lines(out, md, "EWRAM largest symbols", "written", r->ewram_symbols, r->n_ewram_symbols, 1);
	lines(out, md, "ROM sections", "load address", r->rom_sections, r->n_rom_sections, 0);
	if (!r->have_map)
		fprintf(out,
		        md ? "\nNo link map (GAME.map, --map): newlib's share is not named.\n"
		           : "\n  no link map (GAME.map, --map): newlib's share is not named\n");
	else {
		char t[128];
		snprintf(t, sizeof t, "newlib in RAM (link map): %u bytes in IWRAM, %u in EWRAM",
		         (unsigned)r->libc_iwram, (unsigned)r->libc_ewram);
		if (r->n_libc != 0)
			lines(out, md, t, "address", r->libc, r->n_libc, 0);
		else
			fprintf(out, md ? "\n**%s**\n" : "\n%s\n", t);
	}
	head(out, md, "Figures (for --limit and the baseline)", "figure", "value", "", "what");
	for (size_t i = 0; i < r->n_fig; i++) {
		snprintf(b, sizeof b, "%u", r->fig[i].value);
		row(out, md, r->fig[i].name, b, "", r->fig[i].what);
	}
}

/* ---- JSON ------------------------------------------------------------------------------------ */
static void json_lines(struct agbsim_json *w, const char *key, const struct budget_line *l,
                       size_t n)
{
	agbsim_json_key(w, key);
	agbsim_json_array(w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < n; i++) {
		agbsim_json_object(w, AGBSIM_JSON_INLINE);
		agbsim_json_member_string(w, "name", l[i].name);
		agbsim_json_member_u32(w, "addr", l[i].addr);
		agbsim_json_member_u32(w, "bytes", l[i].bytes);
		agbsim_json_member_u32(w, "written", l[i].written);
		agbsim_json_member_string(w, "where", l[i].where);
		agbsim_json_end(w);
	}
	agbsim_json_end(w);
}

static void json_stack(struct agbsim_json *w, const struct budget_stack *s)
{
	agbsim_json_object(w, AGBSIM_JSON_LINES);
	agbsim_json_member_u32(w, "top", s->top);
	agbsim_json_member_u32(w, "limit", s->limit);
	agbsim_json_member_u32(w, "peak", s->peak);
	agbsim_json_member_u32(w, "peak_paint", s->peak_paint);
	agbsim_json_member_u32(w, "peak_watch", s->peak_watch);
	agbsim_json_member_u32(w, "deepest_frame", s->deepest_frame);
	agbsim_json_member_u32(w, "libc_bytes", s->libc_bytes);
	agbsim_json_key(w, "overflow");
	if (s->overflowed) {
		agbsim_json_object(w, AGBSIM_JSON_INLINE);
		agbsim_json_member_u32(w, "frame", s->ov_frame);
		agbsim_json_member_string(w, "function", s->ov_function);
		agbsim_json_member_u32(w, "pc", s->ov_pc);
		agbsim_json_member_u32(w, "addr", s->ov_addr);
		agbsim_json_member_u32(w, "sp", s->ov_sp);
		agbsim_json_end(w);
	} else {
		agbsim_json_null(w);
	}
	agbsim_json_key(w, "chain");
	agbsim_json_array(w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < s->n_chain; i++) {
		agbsim_json_object(w, AGBSIM_JSON_INLINE);
		agbsim_json_member_string(w, "function", s->chain[i].function);
		agbsim_json_member_u32(w, "depth", s->chain[i].depth);
		agbsim_json_member_u32(w, "pc", s->chain[i].pc);
		agbsim_json_member_string(w, "where", s->chain[i].where);
		agbsim_json_end(w);
	}
	agbsim_json_end(w);
	agbsim_json_end(w);
}

static void write_json(FILE *out, const struct budget_report *r, const struct budget_verdict *v)
{
	struct agbsim_json w;
	agbsim_json_init(&w, out);
	agbsim_json_object(&w, AGBSIM_JSON_LINES);
	agbsim_json_member_u32(&w, "agbsim_budget", 1);
	agbsim_json_member_string(&w, "game", file_name(r->game));
	agbsim_json_member_u32(&w, "frames", r->frames);
	agbsim_json_key(&w, "ok");
	agbsim_json_bool(&w, v->n == 0 && !r->overflow);
	agbsim_json_key(&w, "figures");
	agbsim_json_object(&w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < r->n_fig; i++)
		agbsim_json_member_u32(&w, r->fig[i].name, r->fig[i].value);
	agbsim_json_end(&w);
	agbsim_json_key(&w, "broken");
	agbsim_json_array(&w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < v->n; i++)
		agbsim_json_string(&w, v->lines[i]);
	agbsim_json_end(&w);
	agbsim_json_member_u32(&w, "iwram_static_end", r->iwram_static_end);
	agbsim_json_member_u32(&w, "ewram_static_end", r->ewram_static_end);
	agbsim_json_member_string(&w, "heap_source", r->heap_source);
	agbsim_json_key(&w, "stacks");
	agbsim_json_object(&w, AGBSIM_JSON_LINES);
	agbsim_json_key(&w, "system");
	json_stack(&w, &r->stack[0]);
	agbsim_json_key(&w, "irq");
	json_stack(&w, &r->stack[1]);
	agbsim_json_end(&w);
	json_lines(&w, "iwram_sections", r->iwram_sections, r->n_iwram_sections);
	json_lines(&w, "iwram_symbols", r->iwram_symbols, r->n_iwram_symbols);
	json_lines(&w, "ewram_sections", r->ewram_sections, r->n_ewram_sections);
	json_lines(&w, "ewram_symbols", r->ewram_symbols, r->n_ewram_symbols);
	json_lines(&w, "rom_sections", r->rom_sections, r->n_rom_sections);
	agbsim_json_key(&w, "libc");
	if (r->have_map) {
		agbsim_json_object(&w, AGBSIM_JSON_LINES);
		agbsim_json_member_u32(&w, "iwram", r->libc_iwram);
		agbsim_json_member_u32(&w, "ewram", r->libc_ewram);
		json_lines(&w, "members", r->libc, r->n_libc);
		agbsim_json_end(&w);
	} else {
		agbsim_json_null(&w);
	}
	agbsim_json_end(&w);
	agbsim_json_finish(&w);
}

void budget_write(FILE *out, enum agbsim_format fmt, const struct budget_report *r,
                  const struct budget_verdict *v)
{
	if (fmt == FORMAT_JSON)
		write_json(out, r, v);
	else
		write_text(out, fmt == FORMAT_MD, r, v);
}
