/* The HTML report (html_report.h): sample a replay per frame, draw the samples as inline SVG
 * charts, draw the memory map at two moments with the viewer's code (agb_view_map_svg), and
 * wrap it all in one page with its CSS inline. No script, no font, no URL is loaded. */
#include "report/html_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/machine.h"
#include "agbsim/metrics.h"
#include "report/bench_recommend.h"
#include "cli/frame_at.h"
#include "cli/options.h"
#include "report/sites.h"
#include "view/view.h"

/* One frame's figures (or one event's, for a trace without frames). */
struct sample {
	uint32_t cycles, live, free_bytes;
	float frag;
	uint8_t load, failed;
};

struct sampler {
	struct sample *v, cur;
	size_t n, cap;
	int open, oom, framed;
};

static void push(struct sampler *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct sample *nv = realloc(s->v, cap * sizeof *nv);
		if (nv == NULL) {
			s->oom = 1;
			return;
		}
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = s->cur;
	s->cur.cycles = 0;
	s->cur.failed = 0;
	s->cur.load = 0;
	s->open = 0;
}

static void sample_observe(void *ctx, const struct agb_replay_obs *o)
{
	struct sampler *s = ctx;
	s->open = 1;
	s->cur.cycles += o->cycles;
	s->cur.live = o->live_bytes;
	if (o->sampled != AGB_SAMPLE_NONE) {
		s->cur.free_bytes = o->stats.free_bytes;
		s->cur.frag = (float)agb_frag_external(&o->stats);
	}
	s->cur.failed |= o->outcome == AGB_OUTCOME_FAILED;
	if (o->op == AGB_OP_FRAME) {
		s->cur.load = o->requested == AGB_FRAME_LOAD;
		push(s);
	} else if (!s->framed) {
		push(s);
	}
}

/* Replays the run's trace on its core, one sample per frame. Returns 0 or -1. */
static int sample_run(const struct agbsim_run *r, struct sampler *s)
{
	agb_machine *m = malloc(sizeof *m);
	size_t wsb = agb_replay_workspace_bytes(r->trace);
	void *ws = malloc(wsb);
	struct agb_replay_result res;
	int rc = -1;
	memset(s, 0, sizeof *s);
	s->framed = r->trace->frame_count != 0;
	if (m != NULL && ws != NULL) {
		agb_machine_init(m, AGB_WAITCNT_DEFAULT);
		agb_replay_run(r->trace, &r->cfg, m, ws, wsb, sample_observe, s, &res);
		if (s->open)
			push(s);
		rc = res.status == AGB_REPLAY_OK && !s->oom ? 0 : -1;
	}
	free(m);
	free(ws);
	return rc;
}

/* ---- charts ------------------------------------------------------------------------------ */

#define CHART_W 860
#define CHART_H 170
#define PLOT_X 70
#define PLOT_W (CHART_W - PLOT_X - 10)
#define PLOT_Y 10
#define PLOT_H (CHART_H - 40)

/* Columns: one per sample, or PLOT_W of them each covering several; column c of cols covers
 * samples [*a, *b). */
static size_t columns(size_t n)
{
	return n < PLOT_W ? n : PLOT_W;
}

static void span(size_t c, size_t cols, size_t n, size_t *a, size_t *b)
{
	*a = c * n / cols;
	*b = (c + 1) * n / cols;
}

static double y_of(double v, double top)
{
	return PLOT_Y + PLOT_H - (top > 0 ? v / top : 0) * PLOT_H;
}

static void axes(FILE *out, const char *title, double top, const char *unit, size_t n,
		 const char *xunit)
{
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" "
		     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">",
		CHART_W, CHART_H, CHART_W, CHART_H, title);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"plot\"/>", PLOT_X,
		PLOT_Y, PLOT_W, PLOT_H);
	for (int k = 0; k <= 4; k++) {
		double v = top * k / 4.0;
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%.*f%s</text>",
			PLOT_X - 4, y_of(v, top) + 4, top < 10 ? 2 : 0, v, k == 4 ? unit : "");
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"tick\">1</text><text x=\"%d\" y=\"%d\" "
		     "class=\"tick\" text-anchor=\"end\">%zu %s</text>",
		PLOT_X, CHART_H - 14, PLOT_X + PLOT_W, CHART_H - 14, n, xunit);
}

/* A line of one figure per column (the column's largest, or smallest when low). */
static void line(FILE *out, const struct sampler *s, size_t field_off, int is_float, int low,
		 double top, const char *cls)
{
	size_t cols = columns(s->n);
	double w = cols ? (double)PLOT_W / (double)cols : 1;
	fprintf(out, "<polyline class=\"%s\" points=\"", cls);
	for (size_t c = 0; c < cols; c++) {
		size_t a, b;
		double v = 0;
		span(c, cols, s->n, &a, &b);
		for (size_t i = a; i < b; i++) {
			const char *p = (const char *)&s->v[i] + field_off;
			double x = is_float ? (double)*(const float *)(const void *)p
					    : (double)*(const uint32_t *)(const void *)p;
			if (i == a || (low ? x < v : x > v))
				v = x;
		}
		fprintf(out, "%.1f,%.1f ", PLOT_X + (c + 0.5) * w, y_of(v, top));
	}
	fputs("\"/>", out);
}

static void memory_chart(FILE *out, const struct sampler *s, uint32_t arena, const char *xunit)
{
	axes(out, "live and free bytes", arena, " B", s->n, xunit);
	line(out, s, offsetof(struct sample, live), 0, 0, arena, "live");
	line(out, s, offsetof(struct sample, free_bytes), 0, 1, arena, "free");
	fputs("</svg>\n", out);
}

static void frag_chart(FILE *out, const struct sampler *s, const char *xunit)
{
	axes(out, "external fragmentation", 1.0, "", s->n, xunit);
	line(out, s, offsetof(struct sample, frag), 1, 0, 1.0, "frag");
	fputs("</svg>\n", out);
}

/* Bars of the worst frame per column: gameplay within the budget, over it, loading; the budget
 * line across. */
static void cycles_chart(FILE *out, const struct sampler *s, const char *xunit)
{
	const double budget = AGB_FRAME_BUDGET_PCT / 100.0 * AGB_FRAME_CYCLES;
	double top = budget * 1.25;
	size_t cols = columns(s->n);
	double w = cols ? (double)PLOT_W / (double)cols : 1;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].cycles > top)
			top = s->v[i].cycles;
	axes(out, "cycles per frame", top, "", s->n, xunit);
	for (size_t c = 0; c < cols; c++) {
		size_t a, b;
		uint32_t game = 0, load = 0;
		int any_game = 0;
		span(c, cols, s->n, &a, &b);
		for (size_t i = a; i < b && i < s->n; i++) {
			if (s->v[i].load) {
				load = s->v[i].cycles > load ? s->v[i].cycles : load;
			} else {
				any_game = 1;
				game = s->v[i].cycles > game ? s->v[i].cycles : game;
			}
		}
		if (load > game || !any_game)
			fprintf(out, "<rect class=\"bar load\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" "
				     "height=\"%.1f\"/>",
				PLOT_X + c * w, y_of(load, top), w, PLOT_Y + PLOT_H - y_of(load, top));
		if (any_game)
			fprintf(out, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" "
				     "height=\"%.1f\"/>",
				game > budget ? "over" : "game", PLOT_X + c * w, y_of(game, top), w,
				PLOT_Y + PLOT_H - y_of(game, top));
	}
	fprintf(out, "<line class=\"budget\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
		     "<text class=\"tick budget-label\" x=\"%d\" y=\"%.1f\">%.0f%% budget (%.0f "
		     "cycles)</text></svg>\n",
		PLOT_X, PLOT_X + PLOT_W, y_of(budget, top), y_of(budget, top), PLOT_X + 6,
		y_of(budget, top) - 4, AGB_FRAME_BUDGET_PCT, budget);
}

/* ---- the page ---------------------------------------------------------------------------- */

static void esc(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;background:#0c0c10;color:#dde;margin:16px 24px}"
	"h1{font-size:20px}h2{font-size:16px;margin-top:24px;border-bottom:1px solid #333}"
	"table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #222;"
	"text-align:right}td:first-child,th:first-child{text-align:left}"
	".plot{fill:#15161c;stroke:#333}.tick{fill:#99a;font-size:11px}"
	".live{fill:none;stroke:#50b48c;stroke-width:1.5}.free{fill:none;stroke:#6c8cff;"
	"stroke-width:1.5}.frag{fill:none;stroke:#ffb43c;stroke-width:1.5}"
	".bar.game{fill:#50b48c}.bar.over{fill:#ff8c3c}.bar.load{fill:#5a6070}"
	".budget{stroke:#ff4646;stroke-dasharray:4 3}.budget-label{fill:#ff7070}"
	".key span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}"
	".maps{display:flex;gap:24px;flex-wrap:wrap}.maps figure{margin:0}"
	"pre{background:#15161c;padding:8px;overflow:auto}.rec{font-weight:bold;color:#8fe}";

static void page_head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; img-src data:\"><title>agbsim: ",
	      out);
	esc(out, title);
	fprintf(out, "</title><style>%s</style></head><body>\n<h1>agbsim report: ", css);
	esc(out, title);
	fputs("</h1>\n", out);
}

static void figures_table(FILE *out, const struct agbsim_run *r)
{
	const struct agb_metrics *m = &r->metrics;
	fprintf(out, "<table class=\"figures\"><tr><th>figure</th><th>value</th></tr>"
		     "<tr><td>core</td><td>%s (cycles: %s)</td></tr>"
		     "<tr><td>arena</td><td>%s, %u bytes</td></tr>"
		     "<tr><td>events</td><td>%u (%u frames, %u loading)</td></tr>"
		     "<tr><td>peak live</td><td>%u bytes</td></tr>"
		     "<tr><td>live at the end</td><td>%u bytes</td></tr>"
		     "<tr><td>failures</td><td>%u (%u from fragmentation)</td></tr>",
		r->core->name, r->cycle_source != NULL ? r->cycle_source : "model",
		agb_arena_name(r->trace->arena), m->arena_bytes, m->events, m->frames, m->load_frames,
		m->peak_live_bytes, m->live_bytes_end, m->failures, m->frag_failures);
	if (m->min_arena_bytes != 0)
		fprintf(out, "<tr><td>min arena</td><td>%u bytes</td></tr>", m->min_arena_bytes);
	fprintf(out, "<tr><td>fragmentation (external)</td><td>mean %.4f, max %.4f</td></tr>"
		     "<tr><td>alloc cycles</td><td>mean %.0f, max %u</td></tr>"
		     "<tr><td>free cycles</td><td>mean %.0f, max %u</td></tr>",
		m->frag_external.mean, m->frag_external.max, m->cycles[AGB_OP_ALLOC].mean,
		m->cycles[AGB_OP_ALLOC].max, m->cycles[AGB_OP_FREE].mean, m->cycles[AGB_OP_FREE].max);
	if (m->frames > m->load_frames)
		fprintf(out, "<tr><td>worst gameplay frame</td><td>frame %u (event %u, %u ops): "
			     "%.2f%% of a frame, %.0f%% of the budget</td></tr>",
			m->frame_max_index + 1u, m->frame_max_first_event, m->frame_max_ops,
			m->max_frame_pct, m->max_frame_pct * 100.0 / AGB_FRAME_BUDGET_PCT);
	if (m->load_frames != 0)
		fprintf(out, "<tr><td>worst loading frame</td><td>frame %u (event %u, %u ops): "
			     "%.2f%% of a frame (not judged)</td></tr>",
			m->load_frame_max_index + 1u, m->load_frame_max_first_event,
			m->load_frame_max_ops, m->max_load_frame_pct);
	fputs("</table>\n", out);
}

/* The map at one moment, with its caption. */
static void map_figure(FILE *out, const struct agbsim_run *r, int64_t at, const char *what)
{
	struct agb_view_config vc = {r->trace_path, r->trace, r->cfg, -1, 0, NULL, NULL};
	char err[256];
	fputs("<figure>", out);
	if (at < 0 || agb_view_map_svg(out, &vc, (uint32_t)at, err, sizeof err) != 0)
		fprintf(out, "<p>%s: %s</p>", what, at < 0 ? "does not occur" : err);
	else
		fprintf(out, "<figcaption>%s: after event %lld (frame %u)</figcaption>", what,
			(long long)at, agbsim_frame_of_event(r->trace, (uint32_t)at));
	fputs("</figure>", out);
}

static void sites_section(FILE *out, const struct agbsim_run *r)
{
	struct agbsim_site_total top[10];
	size_t n = agbsim_top_sites(r->trace, agbsim_trace_site, NULL, 0, top, 10);
	fputs("<h2>Top call sites</h2>\n", out);
	if (n == 0) {
		fputs("<p>This trace names no call sites.</p>\n", out);
		return;
	}
	fputs("<table><tr><th>site</th><th>allocs</th><th>bytes</th><th>live at the end</th></tr>",
	      out);
	for (size_t i = 0; i < n; i++) {
		fputs("<tr><td>", out);
		esc(out, top[i].site);
		fprintf(out, "</td><td>%u</td><td>%llu</td><td>%u</td></tr>", top[i].count,
			(unsigned long long)top[i].bytes, top[i].live_bytes);
	}
	fputs("</table>\n", out);
}

/* One run's section: figures, charts, maps, sites. Returns 0 or -1. */
static int run_section(FILE *out, const struct agbsim_run *r)
{
	struct sampler s;
	struct agb_view_scan scan;
	const char *xunit = r->trace->frame_count != 0 ? "frames" : "events";
	memset(&scan, 0, sizeof scan);
	if (sample_run(r, &s) != 0 || agb_view_scan_run(&scan, r->trace, &r->cfg) != 0) {
		free(s.v);
		agb_view_scan_free(&scan);
		return -1;
	}
	fputs("<h2>", out);
	esc(out, agbsim_trace_name(r));
	fprintf(out, " on %s</h2>\n", r->core->name);
	figures_table(out, r);
	fprintf(out, "<h3>Live bytes and free bytes per %s</h3>\n<p class=\"key\"><span "
		     "style=\"background:#50b48c\"></span>live (requested)<span "
		     "style=\"background:#6c8cff\"></span>free</p>\n",
		r->trace->frame_count != 0 ? "frame" : "event");
	memory_chart(out, &s, r->metrics.arena_bytes, xunit);
	fputs("<h3>External fragmentation</h3>\n", out);
	frag_chart(out, &s, xunit);
	fputs("<h3>Cycles per frame</h3>\n<p class=\"key\"><span style=\"background:#50b48c\">"
	      "</span>gameplay<span style=\"background:#ff8c3c\"></span>gameplay over the budget"
	      "<span style=\"background:#5a6070\"></span>loading (not judged)</p>\n",
	      out);
	cycles_chart(out, &s, xunit);
	fputs("<h3>Memory map</h3>\n<div class=\"maps\">", out);
	map_figure(out, r, scan.peak, "at peak");
	map_figure(out, r, scan.first_failure, "at the first failure");
	fputs("</div>\n", out);
	sites_section(out, r);
	free(s.v);
	agb_view_scan_free(&scan);
	return 0;
}

static int finish(struct agbsim_output *o, int ok, const char *path)
{
	int rc;
	if (!ok)
		agbsim_error("%s: cannot make the report (out of memory, or the replay stopped)", path);
	rc = agbsim_output_close(o, ok);
	return ok ? rc : AGBSIM_EXIT_IO;
}

int agbsim_html_replay(const char *path, const struct agbsim_run *run)
{
	struct agbsim_output o = {0};
	int rc = agbsim_output_open(&o, path), ok;
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	page_head(o.f, agbsim_trace_name(run));
	ok = run_section(o.f, run) == 0;
	fputs("</body></html>\n", o.f);
	return finish(&o, ok, path);
}

/* The bench's cores side by side: one row per run with numbers. */
static void cores_table(FILE *out, const struct agbsim_run *runs, size_t n)
{
	fputs("<table><tr><th>trace</th><th>core</th><th>failures</th><th>min arena</th>"
	      "<th>frag max</th><th>alloc mean/max</th><th>free mean/max</th><th>worst op</th>"
	      "<th>worst frame</th></tr>\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct agbsim_run *r = &runs[i];
		const struct agb_metrics *m = &r->metrics;
		fputs("<tr><td>", out);
		esc(out, agbsim_trace_name(r));
		fprintf(out, "</td><td>%s</td>", r->core->name);
		if (r->status != AGBSIM_EXIT_OK) {
			fputs("<td colspan=\"7\">n/a</td></tr>\n", out);
			continue;
		}
		fprintf(out, "<td>%u</td><td>", m->failures + m->tile_failures);
		if (m->min_arena_bytes != 0)
			fprintf(out, "%u", m->min_arena_bytes);
		else
			fputs("-", out);
		fprintf(out, "</td><td>%.3f</td><td>%.0f/%u</td><td>%.0f/%u</td><td>%u</td><td>%.2f%%"
			     "</td></tr>\n",
			m->frag_external.max, m->cycles[AGB_OP_ALLOC].mean, m->cycles[AGB_OP_ALLOC].max,
			m->cycles[AGB_OP_FREE].mean, m->cycles[AGB_OP_FREE].max, m->all_ops.max,
			m->max_frame_pct);
	}
	fputs("</table>\n", out);
}

/* bench_recommend's text, verbatim, through a temporary file (portable: no open_memstream). */
static void recommendation(FILE *out, const struct agbsim_run *runs, size_t n, int searched)
{
	FILE *tmp = tmpfile();
	char buf[512];
	if (tmp == NULL)
		return;
	agbsim_bench_recommend(tmp, FORMAT_TABLE, runs, n, searched);
	rewind(tmp);
	fputs("<pre class=\"rec\">", out);
	while (fgets(buf, sizeof buf, tmp) != NULL)
		esc(out, buf);
	fputs("</pre>\n", out);
	fclose(tmp);
}

int agbsim_html_bench(const char *path, const struct agbsim_run *runs, size_t n,
		      int min_arena_searched)
{
	struct agbsim_output o = {0};
	int rc = agbsim_output_open(&o, path), ok = 1;
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	page_head(o.f, "bench");
	fputs("<h2>What to use</h2>\n", o.f);
	recommendation(o.f, runs, n, min_arena_searched);
	fputs("<h2>The cores side by side</h2>\n", o.f);
	cores_table(o.f, runs, n);
	/* Each arena's recommended core, on each of its traces. */
	for (int a = 0; a < AGB_ARENA_COUNT && ok; a++) {
		static struct agbsim_recommendation rec;
		if (!agbsim_recommend(runs, n, (enum agb_arena)a, min_arena_searched, &rec) ||
		    rec.chosen == NULL)
			continue;
		for (size_t i = 0; i < n && ok; i++)
			if (runs[i].trace->arena == (enum agb_arena)a &&
			    runs[i].core == rec.chosen->core && runs[i].status == AGBSIM_EXIT_OK)
				ok = run_section(o.f, &runs[i]) == 0;
	}
	fputs("</body></html>\n", o.f);
	return finish(&o, ok, path);
}
