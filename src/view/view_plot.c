/* The resource cache's trade-off curve as a PNG (agbsim bench --cache=lru --arena-bytes=LIST
 * --plot OUT.png): hit rate and load cycles per frame against the pool size, one line per
 * (trace, core) pair, drawn with the viewer's software renderer and 8x8 font. */
#include <stdio.h>

#include "view/view.h"
#include "view/view_draw.h"


#define PLOT_W 720
#define PLOT_H 480
#define LEFT 72
#define RIGHT 240 /* the legend */
#define TOP 28
#define GAP 36    /* between the two charts (the x labels of the upper one) */
#define CHART_H ((PLOT_H - TOP - GAP - 40) / 2)

/* The x range: smallest and largest pool over all series. */
static void x_range(const struct agb_view_curve *c, size_t n, uint32_t *lo, uint32_t *hi)
{
	*lo = UINT32_MAX;
	*hi = 0;
	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < c[s].n; i++) {
			if (c[s].p[i].pool_bytes < *lo)
				*lo = c[s].p[i].pool_bytes;
			if (c[s].p[i].pool_bytes > *hi)
				*hi = c[s].p[i].pool_bytes;
		}
	if (*hi <= *lo)
		*hi = *lo + 1u;
}

static int x_at(uint32_t pool, uint32_t lo, uint32_t hi)
{
	return LEFT + (int)((double)(pool - lo) * (PLOT_W - LEFT - RIGHT) / (double)(hi - lo));
}

/* One chart's frame, y labels (value = frac x top, shown with `unit`) and x ticks. */
static void chart_frame(SDL_Renderer *r, int y0, const char *title, double top, const char *unit,
			const struct agb_view_curve *c, size_t n, uint32_t lo, uint32_t hi)
{
	SDL_Rect box = {LEFT, y0, PLOT_W - LEFT - RIGHT, CHART_H};
	view_set_rgb(r, 0x404040);
	for (int k = 1; k < 4; k++)
		SDL_RenderDrawLine(r, LEFT, y0 + CHART_H * k / 4, PLOT_W - RIGHT, y0 + CHART_H * k / 4);
	view_set_rgb(r, 0xA0A0A0);
	SDL_RenderDrawRect(r, &box);
	view_text(r, LEFT, y0 - 11, 0xFFFFFF, "%s", title);
	for (int k = 0; k <= 4; k++)
		view_text(r, 4, y0 + CHART_H - CHART_H * k / 4 - 4, 0xC0C0C0, "%7.0f%s", top * k / 4.0, unit);
	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < c[s].n; i++) {
			int x = x_at(c[s].p[i].pool_bytes, lo, hi);
			view_set_rgb(r, 0xA0A0A0);
			SDL_RenderDrawLine(r, x, y0 + CHART_H, x, y0 + CHART_H + 3);
			if (s == 0)
				view_text(r, x - 12, y0 + CHART_H + 6, 0xC0C0C0, "%uK",
				      (unsigned)(c[s].p[i].pool_bytes / 1024u));
		}
}

/* One series in one chart: a polyline with a square at each point. */
static void series(SDL_Renderer *r, int y0, const struct agb_view_curve *c, int upper, double top,
		   uint32_t lo, uint32_t hi, uint32_t rgb)
{
	int px = 0, py = 0;
	const int chart_h = CHART_H; /* pixels, a whole number before the scaling */
	view_set_rgb(r, rgb);
	for (size_t i = 0; i < c->n; i++) {
		double v = upper ? c->p[i].hit_rate * 100.0 : c->p[i].load_cycles_per_frame;
		int x = x_at(c->p[i].pool_bytes, lo, hi);
		int y = y0 + chart_h - (int)(v / top * chart_h + 0.5);
		SDL_Rect dot = {x - 2, y - 2, 5, 5};
		SDL_RenderFillRect(r, &dot);
		if (i != 0)
			SDL_RenderDrawLine(r, px, py, x, y);
		px = x;
		py = y;
	}
}

/* A round upper bound for the load chart: 1, 2 or 5 x 10^k at or above the largest value. */
static double nice_top(double v)
{
	double step = 1.0;
	while (step * 10.0 <= v)
		step *= 10.0;
	if (v <= step)
		return step;
	return v <= 2.0 * step ? 2.0 * step : v <= 5.0 * step ? 5.0 * step : 10.0 * step;
}

static void draw_plot(SDL_Renderer *r, const char *title, const struct agb_view_curve *c,
		      size_t n)
{
	uint32_t lo, hi;
	double load_top = 0;
	const int y_hit = TOP + 12, y_load = TOP + 12 + CHART_H + GAP;
	x_range(c, n, &lo, &hi);
	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < c[s].n; i++)
			if (c[s].p[i].load_cycles_per_frame > load_top)
				load_top = c[s].p[i].load_cycles_per_frame;
	load_top = nice_top(load_top > 0 ? load_top : 1.0);
	view_set_rgb(r, 0x101018);
	SDL_RenderClear(r);
	view_text(r, 8, 6, 0xFFFFFF, "%.88s", title);
	chart_frame(r, y_hit, "hit rate", 100.0, "%", c, n, lo, hi);
	chart_frame(r, y_load, "load cycles per frame", load_top, "", c, n, lo, hi);
	view_text(r, LEFT, PLOT_H - 12, 0xC0C0C0, "pool size (bytes)");
	static const uint32_t hues[] = {0x66CCFF, 0xFFCC44, 0x88EE66, 0xFF77CC,
					0xCC99FF, 0x44DDBB, 0xFFAA66, 0xE0E0E0};
	for (size_t s = 0; s < n; s++) {
		uint32_t rgb = hues[s % (sizeof hues / sizeof hues[0])];
		series(r, y_hit, &c[s], 1, 100.0, lo, hi, rgb);
		series(r, y_load, &c[s], 0, load_top, lo, hi, rgb);
		view_text(r, PLOT_W - RIGHT + 12, y_hit + (int)s * 12, rgb, "%.28s", c[s].label);
	}
}

struct curve_picture {
	const char *title;
	const struct agb_view_curve *c;
	size_t n;
};

static int draw_curves(SDL_Renderer *r, void *ctx)
{
	const struct curve_picture *p = ctx;
	draw_plot(r, p->title, p->c, p->n);
	return 0;
}

int agb_view_plot_curves(const char *path, const char *title, const struct agb_view_curve *c,
			 size_t n, char *err, size_t errn)
{
	struct curve_picture p = {title, c, n};
	return view_render_png(path, PLOT_W, PLOT_H, draw_curves, &p, err, errn);
}
