/* The memory map's geometry and colours, shared by the SDL picture (view_draw.c) and the HTML
 * report's SVG map (view_map_svg): SDL-free, so the report builds without SDL2. Internal. */
#include "view/view_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/machine.h"
#include "agbsim/metrics.h"
#include "view/view.h"

/* ---- colours ------------------------------------------------------------------------------ */

static uint32_t mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	h *= 0x846ca68bu;
	h ^= h >> 16;
	return h;
}

/* HSV with hue in degrees (integer maths: the same colour on every host). */
uint32_t view_hsv(uint32_t hue, uint32_t sat_pct, uint32_t val_pct)
{
	uint32_t v = val_pct * 255u / 100u;
	uint32_t c = v * sat_pct / 100u;
	uint32_t hp = hue % 360u;
	uint32_t x = c * (60u - (hp % 120u >= 60u ? hp % 120u - 60u : 60u - hp % 120u)) / 60u;
	uint32_t m = v - c, r = 0, g = 0, b = 0;
	/* x above is c * (1 - |(h/60 mod 2) - 1|) */
	switch (hp / 60u) {
	case 0: r = c, g = x; break;
	case 1: r = x, g = c; break;
	case 2: g = c, b = x; break;
	case 3: g = x, b = c; break;
	case 4: r = x, b = c; break;
	default: r = c, b = x; break;
	}
	return ((r + m) << 16) | ((g + m) << 8) | (b + m);
}

static uint32_t hashed_rgb(uint32_t h)
{
	/* Hues 35..325: red (failure) stays unmistakable. */
	return view_hsv(35u + h % 291u, 45u + (h >> 12) % 36u, 78u + (h >> 20) % 20u);
}

uint32_t agb_view_id_rgb(uint32_t id)
{
	return hashed_rgb(mix32(id));
}

uint32_t agb_view_tile_rgb(uint32_t tile, uint32_t bpp)
{
	return hashed_rgb(mix32(tile * 2u + (bpp == 8u) + 0x51ed270bu));
}

uint16_t agb_view_pal_colour(uint32_t key, uint32_t index)
{
	/* Hue from the key (away from the failure red, like ids), shifted per bank of an 8bpp
	 * palette; brightness rising along the bank, from 40% so no colour passes for free space. */
	uint32_t h = mix32((key & 0x7FFu) + 0x9e3779b9u);
	uint32_t hue = 40u + (h % 260u + (index >> 4 & 15u) * 16u) % 260u;
	uint32_t rgb = view_hsv(hue, 45u + (h >> 12) % 36u, 40u + (index & 15u) * 4u);
	return (uint16_t)((rgb >> 19 & 31u) | (rgb >> 11 & 31u) << 5 | (rgb >> 3 & 31u) << 10);
}

uint32_t agb_view_bgr555_rgb(uint16_t c)
{
	uint32_t r = c & 31u, g = c >> 5 & 31u, b = c >> 10 & 31u;
	return (r << 3 | r >> 2) << 16 | (g << 3 | g >> 2) << 8 | (b << 3 | b >> 2);
}

/* ---- layout ------------------------------------------------------------------------------- */

/* Palette RAM: one row per bank (16 colours), BG banks then OBJ banks, after a label column. */
#define PAL_LABEL_W 64

static uint32_t base_cols(enum agb_arena arena)
{
	/* OBJ VRAM: 32 blocks per row (1024 blocks: 32 x 32). BG VRAM: 64 tiles per row, so a row
	 * is one 2 KiB screen map and the four maps are the last four rows. EWRAM: 256 blocks. */
	switch (arena) {
	case AGB_ARENA_OBJ_VRAM:
		return 32u;
	case AGB_ARENA_BG_VRAM:
		return 64u;
	default:
		return 256u;
	}
}

void view_layout_make(enum agb_arena arena, uint32_t units, int zoom, uint32_t scroll_row,
		      struct view_layout *L)
{
	uint32_t cols = view_fit_cols(base_cols(arena), units, MAP_W, MAP_H) >> zoom;
	if (arena == AGB_ARENA_PAL_RAM) {
		/* Always the whole of palette RAM: 32 banks of 16 colours, no zoom or scroll. */
		L->cols = AGB_PAL_BANKS;
		L->x0 = PAL_LABEL_W;
		L->cell_w = (MAP_W - PAL_LABEL_W) / (int)AGB_PAL_BANKS;
		L->rows = (units + AGB_PAL_BANKS - 1u) / AGB_PAL_BANKS;
		if (L->rows == 0)
			L->rows = 1;
		L->cell_h = MAP_H / (int)L->rows;
		L->vis_rows = L->rows;
		L->first_row = 0;
		(void)scroll_row;
		return;
	}
	if (cols < 8u)
		cols = 8u;
	L->x0 = 0;
	L->cols = cols;
	L->cell_w = MAP_W / (int)cols;
	L->rows = (units + cols - 1u) / cols;
	if (L->rows == 0)
		L->rows = 1;
	if (zoom == 0) {
		/* Overview: stretch rows to fill the map, at most twice as tall as wide. */
		int h = MAP_H / (int)L->rows;
		L->cell_h = h > 2 * L->cell_w ? 2 * L->cell_w : h < 1 ? 1 : h;
	} else {
		L->cell_h = L->cell_w;
	}
	L->vis_rows = (uint32_t)(MAP_H / L->cell_h);
	if (L->vis_rows > L->rows)
		L->vis_rows = L->rows;
	if (scroll_row + L->vis_rows > L->rows)
		scroll_row = L->rows - L->vis_rows;
	L->first_row = scroll_row;
}

int64_t view_layout_hit(const struct view_layout *L, uint32_t units, int x, int y)
{
	int col, row;
	uint64_t u;
	if (x < MAP_X + L->x0 || y < MAP_Y)
		return -1;
	col = (x - MAP_X - L->x0) / L->cell_w;
	row = (y - MAP_Y) / L->cell_h;
	if ((uint32_t)col >= L->cols || (uint32_t)row >= L->vis_rows)
		return -1;
	u = (uint64_t)(L->first_row + (uint32_t)row) * L->cols + (uint32_t)col;
	return u < units ? (int64_t)u : -1;
}

int agb_view_unit_centre(enum agb_arena arena, uint32_t arena_bytes, uint32_t unit, int *x, int *y)
{
	struct view_layout L;
	uint32_t ub = agb_view_unit_bytes(arena);
	uint32_t units = (arena_bytes + ub - 1u) / ub;
	if (unit >= units)
		return -1;
	view_layout_make(arena, units, 0, 0, &L);
	if (unit / L.cols >= L.vis_rows)
		return -1;
	*x = MAP_X + L.x0 + (int)(unit % L.cols) * L.cell_w + (L.cell_w - (L.cell_w >= 6)) / 2;
	*y = MAP_Y + (int)(unit / L.cols) * L.cell_h + (L.cell_h - (L.cell_h >= 6)) / 2;
	return 0;
}

/* ---- a unit's colour ---- */

/* A palette RAM colour: what palette RAM holds where a palette's colours are, else spare. */
static uint32_t pal_unit_rgb(const struct view_model *vm, uint32_t u)
{
	const struct view_pal_bank *b = &vm->pal->shown[u / AGB_PAL_BANKS];
	uint32_t i = (u / AGB_PAL_BANKS % AGB_PAL_BANKS - b->first) * 16u + u % AGB_PAL_BANKS;
	if (!b->live)
		return AGB_VIEW_RGB_UNTRACKED;
	return i < b->colors ? agb_view_bgr555_rgb(vm->pal->ram[u]) : AGB_VIEW_RGB_PAL_SPARE;
}

/* A resident cache entry: locked ones amber, the others blue; both brighter the more recently
 * used (the least recent, the next to go, darkest). */
static uint32_t cache_rgb(const struct view_model *vm, const struct view_rec *rec)
{
	uint32_t n = vm->cache_resident > 1u ? vm->cache_resident - 1u : 1u;
	uint32_t v = 95u - 55u * (rec->recency < n ? rec->recency : n) / n;
	return rec->locked ? view_hsv(38u, 85u, v) : view_hsv(205u, 70u, v);
}

/* A block of a two-sided pool's section: green hues on the low side, violet on the high side,
 * alternating in brightness from one section to the next. */
static uint32_t section_rgb(const struct view_rec *rec)
{
	uint32_t hue = rec->side == 1u ? 130u : 275u;
	return view_hsv(hue + (rec->section % 3u) * 12u, 55u, rec->section % 2u ? 92u : 68u);
}

uint32_t view_unit_rgb(const struct view_model *vm, uint32_t u, int flash)
{
	if (vm->pal != NULL && vm->kind[u] == VK_USED)
		return pal_unit_rgb(vm, u);
	switch (vm->kind[u]) {
	case VK_USED:
		if (vm->owner[u] != 0) {
			const struct view_rec *rec = &vm->rec[vm->owner[u] - 1u];
			if (rec->cached)
				return cache_rgb(vm, rec);
			if (rec->side != 0)
				return section_rgb(rec);
			return rec->tile ? agb_view_tile_rgb(rec->id, rec->requested)
					 : agb_view_id_rgb(rec->id);
		}
		return AGB_VIEW_RGB_UNTRACKED;
	case VK_META:
		return AGB_VIEW_RGB_META;
	default:
		return flash ? AGB_VIEW_RGB_FREE_FLASH : AGB_VIEW_RGB_FREE;
	}
}


/* ---- the map as SVG (the HTML report) ---------------------------------------------------- */

static void svg_observe(void *ctx, const struct agb_replay_obs *o)
{
	struct view_model *vm = ctx;
	view_model_apply(vm, vm->state_ws, o);
}

/* One row's cells as runs of one colour and kind: a rect each (metadata hatched over). */
static void svg_row(FILE *out, const struct view_model *vm, const struct view_layout *L,
		    uint32_t row, int flash)
{
	uint32_t col = 0;
	while (col < L->cols) {
		uint32_t u = row * L->cols + col, end = col + 1u, rgb;
		if (u >= vm->units)
			return;
		rgb = view_unit_rgb(vm, u, flash);
		while (end < L->cols && u + (end - col) < vm->units &&
		       view_unit_rgb(vm, u + (end - col), flash) == rgb &&
		       vm->kind[u + (end - col)] == vm->kind[u])
			end++;
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%06x\"%s/>",
			L->x0 + (int)col * L->cell_w, (int)row * L->cell_h,
			(int)(end - col) * L->cell_w, L->cell_h, rgb,
			vm->kind[u] == VK_META ? " class=\"meta\"" : "");
		if (vm->kind[u] == VK_META)
			fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				     "fill=\"url(#hatch)\"/>",
				L->x0 + (int)col * L->cell_w, (int)row * L->cell_h,
				(int)(end - col) * L->cell_w, L->cell_h);
		col = end;
	}
}

/* The largest free run outlined: its partial first row, its whole rows as one rect, its
 * partial last row. */
static void svg_outline(FILE *out, const struct view_layout *L, uint32_t u, uint32_t end_u,
			uint32_t rows)
{
	uint32_t row = u / L->cols;
	if (row >= L->vis_rows)
		return;
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		     "stroke=\"#%06x\" stroke-width=\"1.5\"/>",
		L->x0 + (int)(u % L->cols) * L->cell_w, (int)row * L->cell_h,
		(int)(rows > 1 ? L->cols : end_u - u) * L->cell_w, (int)rows * L->cell_h,
		AGB_VIEW_RGB_LARGEST);
}

static void svg_largest(FILE *out, const struct view_model *vm, const struct view_layout *L)
{
	uint32_t off, lo, hi, first_end, full;
	if (vm->largest_bytes == 0)
		return;
	off = vm->largest_addr - vm->base;
	lo = (off + vm->unit_bytes - 1u) / vm->unit_bytes;
	hi = (off + vm->largest_bytes) / vm->unit_bytes;
	if (hi <= lo)
		return;
	first_end = (lo / L->cols + 1u) * L->cols;
	if (lo % L->cols != 0 || hi < first_end) {
		svg_outline(out, L, lo, hi < first_end ? hi : first_end, 1);
		lo = hi < first_end ? hi : first_end;
	}
	full = (hi - lo) / L->cols;
	if (full != 0)
		svg_outline(out, L, lo, lo + full * L->cols, full);
	lo += full * L->cols;
	if (lo < hi)
		svg_outline(out, L, lo, hi, 1);
}

int agb_view_map_svg(FILE *out, const struct agb_view_config *c, uint32_t at_event, char *err,
		     size_t n)
{
	struct agb_trace upto = *c->trace;
	struct view_model vm;
	struct view_layout L;
	struct agb_replay_result res;
	agb_machine *m = malloc(sizeof *m);
	size_t wsb = agb_replay_workspace_bytes(c->trace);
	void *ws = malloc(wsb);
	int rc = 3, flash;
	if (view_model_init(&vm, c->trace, &c->replay) != 0 || m == NULL || ws == NULL) {
		snprintf(err, n, "out of memory, or the core refused the arena");
		goto out;
	}
	if (upto.event_count != 0 && at_event >= upto.event_count) {
		snprintf(err, n, "event %u is beyond the trace's %u events", at_event, upto.event_count);
		goto out;
	}
	/* A prefix stops the engine right after at_event (frame_count kept: the same samples). */
	if (upto.event_count != 0)
		upto.event_count = at_event + 1u;
	view_model_machine(&vm, m);
	vm.state_ws = ws;
	agb_replay_run(&upto, &c->replay, m, ws, wsb, svg_observe, &vm, &res);
	if (res.status != AGB_REPLAY_OK) {
		snprintf(err, n, "replay stopped at event %u: %s", res.failed_event,
			 res.why != NULL ? res.why : "the core cannot run this trace");
		goto out;
	}
	view_model_bind(&vm, ws);
	view_model_refresh(&vm);
	flash = vm.index >= 0 && vm.fail_index == vm.index;
	view_layout_make(c->trace->arena, vm.units, 0, 0, &L);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\" width=\"%d\" "
		     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><defs><pattern id=\"hatch\" "
		     "width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\"><path d=\"M0 4L4 0\" "
		     "stroke=\"#%06x\"/></pattern></defs><rect width=\"100%%\" height=\"100%%\" "
		     "fill=\"#%06x\"/>",
		MAP_W, MAP_H, MAP_W, MAP_H, AGB_VIEW_RGB_META_HATCH, AGB_VIEW_RGB_BACKGROUND);
	for (uint32_t row = 0; row < L.vis_rows; row++)
		svg_row(out, &vm, &L, row, flash);
	svg_largest(out, &vm, &L);
	if (flash)
		fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#%06x\" "
			     "stroke-width=\"3\"/>",
			MAP_W, MAP_H, AGB_VIEW_RGB_FAIL_BORDER);
	fputs("</svg>", out);
	rc = 0;
out:
	view_model_free(&vm);
	free(ws);
	free(m);
	return rc;
}
