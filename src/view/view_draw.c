/* Drawing the memory map and the side panel (see view_draw.h). The map is composed in a pixel
 * buffer and copied once: exact pixels on every renderer, and cheap for EWRAM's 32768 cells. */
#define _GNU_SOURCE /* open_memstream, lstat, realpath, fsync */
#include "view/view_draw.h"
#include "platform/output_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <SDL_image.h>
#include <SDL_test_font.h>

#include "agbsim/metrics.h"
#include "view/view.h"

#define PANEL_X (MAP_X + MAP_W + 16)
#define PANEL_W (AGB_VIEW_WIDTH - PANEL_X - 8)
#define LINE 12

/* Set once any text was drawn: SDLTest_CleanupTextDrawing dereferences its cache list
 * unconditionally, so it must not run before the first glyph. */
static int text_used;

void view_text_cleanup(void)
{
	if (text_used)
		SDLTest_CleanupTextDrawing();
	text_used = 0;
}

/* ---- the map ------------------------------------------------------------------------------ */

static uint32_t px_map[MAP_W * MAP_H];

static void fill(int x0, int y0, int w, int h, uint32_t rgb)
{
	for (int y = y0; y < y0 + h && y < MAP_H; y++)
		for (int x = x0; x < x0 + w && x < MAP_W; x++)
			px_map[y * MAP_W + x] = 0xff000000u | rgb;
}

static int in_largest(uint64_t u, uint32_t lo, uint32_t hi)
{
	return u >= lo && u < hi;
}

static void draw_map(const struct view_model *vm, const struct view_ui *ui,
		     const struct view_layout *L)
{
	const int gap_x = L->cell_w >= 6, gap_y = L->cell_h >= 6;
	uint32_t lo = 0, hi = 0;
	for (size_t i = 0; i < (size_t)MAP_W * MAP_H; i++)
		px_map[i] = 0xff000000u | AGB_VIEW_RGB_BACKGROUND;
	for (uint32_t row = 0; row < L->vis_rows; row++) {
		for (uint32_t col = 0; col < L->cols; col++) {
			uint32_t u = (L->first_row + row) * L->cols + col;
			int x = L->x0 + (int)col * L->cell_w, y = (int)row * L->cell_h;
			int w = L->cell_w - gap_x, h = L->cell_h - gap_y;
			if (u >= vm->units)
				break;
			fill(x, y, w, h, view_unit_rgb(vm, u, ui->flash));
			if (vm->kind[u] == VK_META)
				/* Hatched: metadata is neither free nor anyone's allocation. */
				for (int yy = 0; yy < h; yy++)
					for (int xx = 0; xx < w; xx++)
						if ((xx + yy) % 4 == 0)
							px_map[(y + yy) * MAP_W + x + xx] =
								0xff000000u | AGB_VIEW_RGB_META_HATCH;
		}
	}
	/* The largest free run, outlined where its cells border anything else. Units fully inside
	 * the run only: that is what a request could get. */
	if (vm->largest_bytes != 0) {
		uint32_t off = vm->largest_addr - vm->base;
		lo = (off + vm->unit_bytes - 1u) / vm->unit_bytes;
		hi = (off + vm->largest_bytes) / vm->unit_bytes;
	}
	for (uint32_t u = lo; u < hi; u++) {
		uint32_t row = u / L->cols, col = u % L->cols;
		int x, y, w = L->cell_w, h = L->cell_h, t = L->cell_w >= 12 ? 2 : 1;
		if (row < L->first_row || row >= L->first_row + L->vis_rows)
			continue;
		x = L->x0 + (int)col * L->cell_w;
		y = (int)(row - L->first_row) * L->cell_h;
		if (u < L->cols || !in_largest((uint64_t)u - L->cols, lo, hi))
			fill(x, y, w, t, AGB_VIEW_RGB_LARGEST);
		if (!in_largest((uint64_t)u + L->cols, lo, hi))
			fill(x, y + h - t, w, t, AGB_VIEW_RGB_LARGEST);
		if (col == 0 || !in_largest((uint64_t)u - 1u, lo, hi))
			fill(x, y, t, h, AGB_VIEW_RGB_LARGEST);
		if (col + 1u == L->cols || !in_largest((uint64_t)u + 1u, lo, hi))
			fill(x + w - t, y, t, h, AGB_VIEW_RGB_LARGEST);
	}
}

/* ---- text and panel ----------------------------------------------------------------------- */

void view_set_rgb(SDL_Renderer *r, uint32_t rgb)
{
	SDL_SetRenderDrawColor(r, (Uint8)(rgb >> 16), (Uint8)(rgb >> 8), (Uint8)rgb, 255);
}

void view_text(SDL_Renderer *r, int x, int y, uint32_t rgb, const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	view_set_rgb(r, rgb);
	text_used = 1;
	SDLTest_DrawString(r, x, y, buf);
}

static void rect(SDL_Renderer *r, int x, int y, int w, int h, uint32_t rgb, int filled)
{
	SDL_Rect q = {x, y, w, h};
	view_set_rgb(r, rgb);
	if (filled)
		SDL_RenderFillRect(r, &q);
	else
		SDL_RenderDrawRect(r, &q);
}

static void sparkline(SDL_Renderer *r, const struct view_model *vm, int x, int y, int w, int h)
{
	rect(r, x, y, w, h, 0x2a2d36u, 1);
	rect(r, x, y, w, h, 0x555a66u, 0);
	if (vm->nspark == 0)
		return;
	view_set_rgb(r, 0x78c8ffu);
	for (int i = 0; i < w - 2; i++) {
		/* Each column shows the worst sample it covers: spikes must not vanish. */
		uint64_t a = (uint64_t)i * vm->nspark / (uint64_t)(w - 2);
		uint64_t b = (uint64_t)(i + 1) * vm->nspark / (uint64_t)(w - 2);
		float v = 0.0f;
		if (vm->nspark < (uint32_t)(w - 2)) {
			a = (uint64_t)i * vm->nspark / (uint64_t)(w - 2);
			b = a + 1u;
		}
		for (uint64_t k = a; k < b && k < vm->nspark; k++)
			if (vm->spark[k] > v)
				v = vm->spark[k];
		SDL_RenderDrawLine(r, x + 1 + i, y + h - 2, x + 1 + i,
				   y + h - 2 - (int)(v * (float)(h - 3) + 0.5f));
	}
}

static const char *op_label(const struct view_model *vm, const struct agb_replay_obs *o, char *buf,
			    size_t n)
{
	static const char *const outcome[] = {"", " FAILED", " skipped"};
	switch (o->op) {
	case AGB_OP_ALLOC:
	case AGB_OP_REALLOC:
		if (o->outcome == AGB_OUTCOME_OK)
			snprintf(buf, n, "%s id %u, %u B at +0x%x (%u B)", agb_op_name(o->op), o->id,
				 o->requested, o->addr - vm->base, o->granted);
		else
			snprintf(buf, n, "%s id %u, %u B%s", agb_op_name(o->op), o->id, o->requested,
				 outcome[o->outcome]);
		break;
	case AGB_OP_FREE:
		snprintf(buf, n, "free id %u%s", o->id, outcome[o->outcome]);
		break;
	case AGB_OP_REF:
	case AGB_OP_UNREF:
		snprintf(buf, n, "%s tile %u %ubpp%s%s", agb_op_name(o->op), o->id, o->requested,
			 (o->result & AGB_VERB_UPLOADED) != 0   ? " upload"
			 : (o->result & AGB_VERB_REVIVED) != 0  ? " revive"
			 : (o->result & AGB_VERB_RELEASED) != 0 ? " release"
									 : "",
			 outcome[o->outcome]);
		break;
	case AGB_OP_FRAME:
		snprintf(buf, n, "V-blank: frame boundary");
		break;
	case AGB_OP_PAL_LOAD:
	case AGB_OP_PAL_FREE:
	case AGB_OP_PAL_PUSH:
	case AGB_OP_PAL_POP: {
		const struct agb_event *ev = &vm->t->events[o->index];
		const char *side = AGB_PAL_EV_SIDE(ev->align) != 0 ? "OBJ" : "BG";
		/* The line above names the op: here the palette and what became of it. */
		if (o->op == AGB_OP_PAL_LOAD && o->outcome == AGB_OUTCOME_OK)
			snprintf(buf, n, "id %u %s bank %u, %uc %s", o->id, side,
			         (o->addr - vm->base) / AGB_PAL_BANK_BYTES % AGB_PAL_BANKS,
			         ev->size,
			         (o->result & AGB_VERB_SHARED) != 0 ? "shared" : "upload");
		else
			snprintf(buf, n, "id %u %s %uc%s%s", o->id, side, ev->size,
				 (o->result & AGB_VERB_RELEASED) != 0 ? " release" : "",
				 outcome[o->outcome]);
		break;
	}
	default:
		snprintf(buf, n, "%s %u%s", agb_op_name(o->op), o->id, outcome[o->outcome]);
		break;
	}
	return buf;
}

/* Extent of the run of same-kind units around u (for hovering free space and metadata). */
static void run_around(const struct view_model *vm, uint32_t u, uint32_t *a, uint32_t *b)
{
	*a = u;
	*b = u + 1u;
	while (*a > 0 && vm->kind[*a - 1u] == vm->kind[u] && vm->owner[*a - 1u] == vm->owner[u])
		(*a)--;
	while (*b < vm->units && vm->kind[*b] == vm->kind[u] && vm->owner[*b] == vm->owner[u])
		(*b)++;
}

/* A palette RAM swatch: its bank and colour, the owner, references or stack frame, age. */
static void pal_hover(SDL_Renderer *r, const struct view_model *vm, uint32_t u, int x, int y)
{
	uint32_t k = u / AGB_PAL_BANKS, a = k, e = k + 1u;
	const struct view_pal_bank *b = &vm->pal->shown[k];
	const char *side = k < AGB_PAL_BANKS ? "BG" : "OBJ";
	view_text(r, x, y, 0xffffffu, "%s bank %u colour %u: 0x%04x", side, k % AGB_PAL_BANKS,
	          u % AGB_PAL_BANKS, vm->pal->ram[u]);
	if (vm->kind[u] != VK_USED) {
		while (a % AGB_PAL_BANKS > 0 &&
		       vm->kind[(size_t)(a - 1u) * AGB_PAL_BANKS] == vm->kind[u])
			a--;
		while (e % AGB_PAL_BANKS > 0 && vm->kind[(size_t)e * AGB_PAL_BANKS] == vm->kind[u])
			e++;
		view_text(r, x, y + LINE, 0xffffffu, "free: %s banks %u-%u", side,
		          a % AGB_PAL_BANKS, (e - 1u) % AGB_PAL_BANKS);
		return;
	}
	if (!b->live) {
		view_text(r, x, y + LINE, 0xffffffu, "used (no event of the trace)");
		return;
	}
	view_text(r, x, y + LINE, 0xffffffu, "owner id %u, key %u, %u colours", b->id, b->key, b->colors);
	if (b->level != 0)
		view_text(r, x, y + 2 * LINE, 0xffffffu, "stack frame %u of %u, age %u fr",
		          b->level, vm->pal->depth[k / AGB_PAL_BANKS], vm->frames - b->birth_frame);
	else
		view_text(r, x, y + 2 * LINE, 0xffffffu, "refs %u%s, age %u frames", b->refs,
		     b->refs > 1u ? " (shared)" : "", vm->frames - b->birth_frame);
}

static void hover_panel(SDL_Renderer *r, const struct view_model *vm, const struct view_ui *ui,
			const struct view_layout *L, int x, int y)
{
	int64_t hu = view_layout_hit(L, vm->units, ui->hover_x, ui->hover_y);
	uint32_t u, a, b;
	if (hu < 0) {
		view_text(r, x, y, 0x808690u, "hover a %s for details", vm->pal != NULL ? "colour" : "block");
		return;
	}
	u = (uint32_t)hu;
	if (vm->pal != NULL) {
		pal_hover(r, vm, u, x, y);
		return;
	}
	view_text(r, x, y, 0xffffffu, "block %u at +0x%x", u, u * vm->unit_bytes);
	if (vm->kind[u] == VK_USED && vm->owner[u] != 0) {
		const struct view_rec *rec = &vm->rec[vm->owner[u] - 1u];
		if (rec->tile)
			view_text(r, x, y + LINE, 0xffffffu, "tile %u %ubpp, +0x%x, %u refs", rec->id,
			     rec->requested, rec->addr - vm->base,
			     view_model_tile_refs(vm, rec->id, rec->requested));
		else
			view_text(r, x, y + LINE, 0xffffffu, "id %u: +0x%x size %u (%u B)", rec->id,
			     rec->addr - vm->base, rec->requested, rec->granted);
		view_text(r, x, y + 2 * LINE, 0xffffffu, "age %u frames", vm->frames - rec->birth_frame);
		return;
	}
	run_around(vm, u, &a, &b);
	view_text(r, x, y + LINE, 0xffffffu, "%s: +0x%x, %u B",
	     vm->kind[u] == VK_FREE ? "free run" : vm->kind[u] == VK_META ? "metadata" : "used",
	     a * vm->unit_bytes, (b - a) * vm->unit_bytes);
}

static void swatch(SDL_Renderer *r, int x, int y, uint32_t rgb, const char *label)
{
	rect(r, x, y, 8, 8, rgb, 1);
	view_text(r, x + 12, y, 0xb0b4bcu, "%s", label);
}

/* Palette RAM's label column: side and bank per row, then a tag: Sn for a palette stack frame,
 * xN for a bank N loads share. */
static void pal_labels(SDL_Renderer *r, const struct view_model *vm, const struct view_layout *L)
{
	for (uint32_t k = 0; k < VIEW_PAL_BANKS && k < L->rows; k++) {
		const struct view_pal_bank *b = &vm->pal->shown[k];
		int used = k * AGB_PAL_BANKS < vm->units &&
		           vm->kind[(size_t)k * AGB_PAL_BANKS] == VK_USED;
		int y = MAP_Y + (int)k * L->cell_h + (L->cell_h - 8) / 2;
		view_text(r, MAP_X + 2, y, used ? 0xd0d4dcu : 0x5a5f6au, "%s%2u",
		          k < AGB_PAL_BANKS ? "BG " : "OBJ", k % AGB_PAL_BANKS);
		if (!used || !b->live)
			continue;
		if (b->level != 0)
			view_text(r, MAP_X + 47, y, 0x78c8ffu, b->level < 10u ? "S%u" : "S+", b->level);
		else if (b->refs > 1u)
			view_text(r, MAP_X + 47, y, 0xffdc00u, b->refs < 10u ? "x%u" : "x+", b->refs);
	}
}

/* The map, composed in px_map, as one texture at its place; the red frame of a failure. */
static int draw_map_texture(SDL_Renderer *r, const struct view_model *vm,
			    const struct view_ui *ui, const struct view_layout *L)
{
	SDL_Rect dst = {MAP_X, MAP_Y, MAP_W, MAP_H};
	SDL_Texture *tex;
	draw_map(vm, ui, L);
	tex = SDL_CreateTexture(r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STATIC, MAP_W, MAP_H);
	if (tex == NULL)
		return -1;
	SDL_SetTextureBlendMode(tex, SDL_BLENDMODE_NONE);
	SDL_UpdateTexture(tex, NULL, px_map, MAP_W * (int)sizeof px_map[0]);
	view_set_rgb(r, AGB_VIEW_RGB_BACKGROUND);
	SDL_RenderClear(r);
	SDL_RenderCopy(r, tex, NULL, &dst);
	SDL_DestroyTexture(tex);
	if (ui->flash) {
		rect(r, MAP_X - 3, MAP_Y - 3, MAP_W + 6, MAP_H + 6, AGB_VIEW_RGB_FAIL_BORDER, 0);
		rect(r, MAP_X - 2, MAP_Y - 2, MAP_W + 4, MAP_H + 4, AGB_VIEW_RGB_FAIL_BORDER, 0);
	}
	if (vm->pal != NULL)
		pal_labels(r, vm, L);
	return 0;
}

/* The panel's head: title, core and arena, the map's scale. Returns the next line's y. */
static int panel_head(SDL_Renderer *r, const struct view_model *vm, const struct view_ui *ui,
		      const struct view_layout *L, int x, int y)
{
	const struct agb_trace *t = vm->t;
	view_text(r, x, y, 0xffffffu, "agbsim view: %.26s", ui->title != NULL ? ui->title : "");
	y += LINE;
	view_text(r, x, y, 0xb0b4bcu, "%s on %s, %u B", vm->core->name, agb_arena_name(t->arena),
	     vm->arena_bytes);
	y += LINE;
	if (vm->pal != NULL) {
		uint32_t used[2] = {0, 0};
		for (uint32_t k = 0; k < VIEW_PAL_BANKS && k * AGB_PAL_BANKS < vm->units; k++)
			used[k / AGB_PAL_BANKS] += vm->kind[(size_t)k * AGB_PAL_BANKS] == VK_USED;
		view_text(r, x, y, 0xb0b4bcu, "a bank of 16 colours per row");
		view_text(r, x, y + LINE, 0x808690u, "rows 0-15 BG, 16-31 OBJ; Sn stack,");
		view_text(r, x, y + 2 * LINE, 0x808690u, "xN shared by N loads");
		view_text(r, x, y + 3 * LINE, 0xd0d4dcu, "banks used BG %u OBJ %u, stack %u/%u", used[0],
		     used[1], vm->pal->depth[0], vm->pal->depth[1]);
		y += 2 * LINE;
	} else {
		view_text(r, x, y, 0xb0b4bcu, "%u B per block, %u per row%s", vm->unit_bytes, L->cols,
		     L->vis_rows < L->rows ? " (scroll)" : "");
	}
	y += LINE;
	if (t->arena == AGB_ARENA_BG_VRAM && ui->zoom == 0 && L->cols == 64u) {
		view_text(r, x, y, 0x808690u, "rows 0-15 4/8bpp, 16+ 8bpp only,");
		view_text(r, x, y + LINE, 0x808690u, "hatched rows: the screen maps");
	}
	return y + 2 * LINE + 4;
}

/* Tile traces: resident tiles and their reference counts (what "live bytes" is for allocations:
 * a tile is held by references, not by bytes asked for). Returns the next line's y. */
static int panel_tiles(SDL_Renderer *r, const struct view_model *vm, int x, int y)
{
	struct view_tile_summary ts;
	view_model_tile_summary(vm, &ts);
	view_text(r, x, y, 0xd0d4dcu, "resident tiles %u, %u B", ts.resident, ts.bytes);
	y += LINE;
	view_text(r, x, y, 0xd0d4dcu, "references     %u", ts.refs);
	y += LINE;
	if (ts.max_refs != 0)
		view_text(r, x, y, 0xb0b4bcu, "  most: tile %u %ubpp, %u refs", ts.max_tile, ts.max_bpp,
		     ts.max_refs);
	else
		view_text(r, x, y, 0xb0b4bcu, "  no tile referenced");
	y += LINE;
	view_text(r, x, y, 0xb0b4bcu, "  by refs 1:%u 2:%u 3-4:%u 5+:%u", ts.hist[0], ts.hist[1],
	     ts.hist[2], ts.hist[3]);
	return y + LINE;
}

/* The event shown and the figures after it (with the free-space sparkline). Returns the next
 * line's y. */
static int panel_figures(SDL_Renderer *r, const struct view_model *vm, int x, int y)
{
	const struct agb_trace *t = vm->t;
	double frag = vm->have_stats ? agb_frag_external(&vm->stats) : 0.0;
	char buf[128];
	if (vm->index < 0) {
		view_text(r, x, y, 0xffffffu, "event -/%u (not started)", t->event_count);
		y += 2 * LINE;
	} else {
		view_text(r, x, y, 0xffffffu, "event %lld/%u: %s", (long long)vm->index, t->event_count,
		     agb_op_name(vm->last.op));
		y += LINE;
		view_text(r, x, y, vm->last.outcome == AGB_OUTCOME_FAILED ? 0xff6060u : 0xd0d4dcu, "  %s",
		     op_label(vm, &vm->last, buf, sizeof buf));
		y += LINE;
	}
	view_text(r, x, y, 0xd0d4dcu, "frame          %u/%u", vm->frames, t->frame_count);
	y += LINE;
	if (view_model_has_tiles(vm)) {
		y = panel_tiles(r, vm, x, y);
	} else {
		view_text(r, x, y, 0xd0d4dcu, "live bytes     %u", vm->last.live_bytes);
		y += LINE;
	}
	view_text(r, x, y, 0xd0d4dcu, "free bytes     %u", vm->stats.free_bytes);
	y += LINE;
	view_text(r, x, y, 0xffdc00u, "largest free   %u", vm->stats.largest_free);
	y += LINE;
	view_text(r, x, y, 0xd0d4dcu, "free runs      %u", vm->stats.free_runs);
	y += LINE;
	view_text(r, x, y, 0x78c8ffu, "frag_external  %.3f", frag);
	y += LINE + 2;
	sparkline(r, vm, x, y, PANEL_W, 40);
	y += 44;
	view_text(r, x, y, vm->failures != 0 ? 0xff6060u : 0xd0d4dcu, "failures       %u", vm->failures);
	y += LINE;
	if (vm->fail_index >= 0) {
		view_text(r, x, y, 0xff6060u, "  last: event %lld, %u B", (long long)vm->fail_index,
		     vm->fail.requested);
	}
	y += LINE;
	view_text(r, x, y, 0xd0d4dcu, "last op cycles %u (model)", vm->last.cycles);
	y += LINE;
	view_text(r, x, y, 0xd0d4dcu, "metadata       %u B", vm->overhead);
	return y + LINE + 6;
}

/* Playing, paused or at the end. Returns the next line's y. */
static int panel_mode(SDL_Renderer *r, const struct view_ui *ui, int x, int y)
{
	switch (ui->mode) {
	case VIEW_MODE_PLAYING:
		view_text(r, x, y, 0x60ff80u, "PLAYING  %u events/s", ui->speed);
		break;
	case VIEW_MODE_PAUSED:
		view_text(r, x, y, 0xffc040u, "PAUSED   (speed %u events/s)", ui->speed);
		break;
	case VIEW_MODE_END:
		view_text(r, x, y, 0xb0b4bcu, "END of trace (home restarts)");
		break;
	default:
		break;
	}
	return y + LINE + 6;
}

/* The colour legend, the status line, the key help (or the snapshot's title) at the bottom. */
static void panel_foot(SDL_Renderer *r, const struct view_model *vm, const struct view_ui *ui,
		       int x, int y)
{
	swatch(r, x, y, AGB_VIEW_RGB_FREE, "free");
	if (vm->pal != NULL)
		swatch(r, x + 80, y, AGB_VIEW_RGB_PAL_SPARE, "spare");
	else
		swatch(r, x + 80, y, AGB_VIEW_RGB_META_HATCH, "metadata");
	swatch(r, x + 184, y, AGB_VIEW_RGB_UNTRACKED, "untracked");
	y += LINE;
	swatch(r, x, y, AGB_VIEW_RGB_LARGEST, "largest free run");
	swatch(r, x + 184, y, AGB_VIEW_RGB_FREE_FLASH, "failure");
	y += LINE;
	if (vm->cache != NULL) {
		swatch(r, x, y, view_hsv(38u, 85u, 95u), "locked");
		swatch(r, x + 80, y, view_hsv(205u, 70u, 95u), "unlocked (dark: LRU)");
		y += LINE;
	} else if (vm->sides) {
		swatch(r, x, y, view_hsv(130u, 55u, 92u), "low side sections");
		swatch(r, x + 184, y, view_hsv(275u, 55u, 92u), "high side");
		y += LINE;
	}
	y += 4;
	if (ui->status[0] != '\0')
		view_text(r, x, y, 0xb0b4bcu, "%.38s", ui->status);

	if (ui->mode != VIEW_MODE_SNAPSHOT)
		view_text(r, MAP_X, AGB_VIEW_HEIGHT - 14, 0x9098a4u,
		     "space play/pause  > step  shift+> frame  +/- speed  home restart"
		     "  [ ] zoom  s PNG  q quit");
	else
		view_text(r, MAP_X, AGB_VIEW_HEIGHT - 14, 0x9098a4u, "agbsim view --snapshot: %s",
		     ui->title != NULL ? ui->title : "");
}

/* ---- the per-frame cycle strip ---------------------------------------------------------- */

void view_strip_range(uint32_t col, uint32_t nframes, uint32_t width, uint32_t *a, uint32_t *b)
{
	if (nframes == 0 || width == 0 || col >= width) {
		*a = *b = nframes;
		return;
	}
	/* Frames spread over the whole width: several per column, or one over several columns. */
	*a = (uint32_t)((uint64_t)col * nframes / width);
	*b = (uint32_t)((uint64_t)(col + 1u) * nframes / width);
	if (*b <= *a)
		*b = *a + 1u;
}

/* The worst gameplay and loading frame in [a, b). */
static void strip_worst(const struct agb_view_scan *sc, uint32_t a, uint32_t b, uint32_t *game,
			uint32_t *load)
{
	*game = *load = 0;
	for (uint32_t f = a; f < b; f++) {
		uint32_t *w = sc->frame_load[f] ? load : game;
		if (sc->frame_cycles[f] > *w)
			*w = sc->frame_cycles[f];
	}
}

/* One bar from the strip's floor, clipped at its top; at least 1 px for any cost. */
static void strip_bar(SDL_Renderer *r, int x, int w, int floor_y, int ih, uint32_t v, double top,
		      uint32_t rgb)
{
	int h;
	if (v == 0)
		return;
	h = (int)((double)v * ih / top + 0.5);
	h = h < 1 ? 1 : h > ih ? ih : h;
	rect(r, x, floor_y - h, w, h, rgb, 1);
}

/* Cycles per frame (model) along the bottom: gameplay frames green (orange over the budget),
 * loading frames grey, the shown frame white on a lighter band, the 10% budget line red. The
 * scale tops out a little above the worst gameplay frame or the budget, whichever is higher;
 * loading frames above it are cut. */
static void draw_cycle_strip(SDL_Renderer *r, const struct view_model *vm,
			     const struct agb_view_scan *sc)
{
	const int x = STRIP_X, y = STRIP_BOX_Y, w = STRIP_W, h = STRIP_BOX_H;
	const int iw = w - 2, ih = h - 2, floor_y = y + 1 + ih;
	const double budget = (double)AGB_FRAME_CYCLES * AGB_FRAME_BUDGET_PCT / 100.0;
	uint32_t worst = 0, cur, a, b, game, load;
	double top;
	int budget_y;
	rect(r, x, y, w, h, 0x1a1c22u, 1);
	rect(r, x, y, w, h, 0x555a66u, 0);
	if (sc == NULL || !sc->any_frame || sc->nframes == 0) {
		view_text(r, STRIP_X, STRIP_Y, 0xb0b4bcu, "cycles per frame: this trace has no frame events");
		return;
	}
	strip_worst(sc, 0, sc->nframes, &worst, &load);
	top = (worst > budget ? (double)worst : budget) * 1.15;
	cur = view_model_current_frame(vm);
	if (cur >= sc->nframes)
		cur = sc->nframes - 1u;
	/* The shown frame's columns: on a lighter band one column wider each side, a tick above. */
	for (uint32_t c = 0; c < (uint32_t)iw; c++) {
		view_strip_range(c, sc->nframes, (uint32_t)iw, &a, &b);
		if (cur >= a && cur < b) {
			int cx = x + 1 + (int)c;
			rect(r, cx - 1, y + 1, 3, ih, 0x3c4250u, 1);
			rect(r, cx - 1, y - 3, 3, 3, AGB_VIEW_RGB_STRIP_CURRENT, 1);
		}
	}
	for (uint32_t c = 0; c < (uint32_t)iw; c++) {
		int cx = x + 1 + (int)c;
		view_strip_range(c, sc->nframes, (uint32_t)iw, &a, &b);
		if (cur >= a && cur < b) {
			strip_bar(r, cx, 1, floor_y, ih, sc->frame_cycles[cur], top,
				  AGB_VIEW_RGB_STRIP_CURRENT);
			continue;
		}
		strip_worst(sc, a, b, &game, &load);
		strip_bar(r, cx, 1, floor_y, ih, load, top, AGB_VIEW_RGB_STRIP_LOAD);
		strip_bar(r, cx, 1, floor_y, ih, game, top,
			  game > budget ? AGB_VIEW_RGB_STRIP_OVER : AGB_VIEW_RGB_STRIP_BAR);
	}
	budget_y = floor_y - (int)(budget * ih / top + 0.5);
	view_set_rgb(r, AGB_VIEW_RGB_STRIP_BUDGET);
	for (int bx = x + 1; bx < x + 1 + iw; bx += 6)
		SDL_RenderDrawLine(r, bx, budget_y, bx + 3 < x + iw ? bx + 3 : x + iw, budget_y);
	view_text(r, STRIP_X, STRIP_Y, 0xd0d4dcu,
	     "cycles per frame (model): frame %u/%u %u (%.2f%%), worst gameplay %.2f%%", cur + 1u,
	     sc->nframes, sc->frame_cycles[cur], sc->frame_cycles[cur] * 100.0 / AGB_FRAME_CYCLES,
	     worst * 100.0 / AGB_FRAME_CYCLES);
	view_text(r, STRIP_X + STRIP_W - 17 * 8, STRIP_Y, AGB_VIEW_RGB_STRIP_BUDGET, "- - 10%% budget");
}

int view_draw(SDL_Renderer *r, const struct view_model *vm, const struct view_ui *ui)
{
	struct view_layout L;
	int x = PANEL_X, y = MAP_Y;

	view_layout_make(vm->t->arena, vm->units, ui->zoom, ui->scroll_row, &L);
	if (draw_map_texture(r, vm, ui, &L) != 0)
		return -1;
	y = panel_head(r, vm, ui, &L, x, y);
	y = panel_figures(r, vm, x, y);
	y = panel_mode(r, ui, x, y);
	if (ui->mode != VIEW_MODE_SNAPSHOT)
		hover_panel(r, vm, ui, &L, x, y);
	panel_foot(r, vm, ui, x, y + 3 * LINE + 6);
	draw_cycle_strip(r, vm, ui->scan);
	return 0;
}

/* Encodes S as a PNG into *BUF (malloc'd, *LEN bytes). Returns 0, or -1 (SDL's error set). */
int view_encode_png(SDL_Surface *s, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	SDL_RWops *rw = f != NULL ? SDL_RWFromFP(f, SDL_FALSE) : NULL;
	int rc = rw != NULL ? IMG_SavePNG_RW(s, rw, 1) : -1;
	if (f == NULL)
		SDL_SetError("%s", strerror(errno));
	if (f != NULL && fclose(f) != 0 && rc == 0) {
		SDL_SetError("%s", strerror(errno));
		rc = -1;
	}
	if (rc != 0) {
		free(f != NULL ? *buf : NULL);
		*buf = NULL;
	}
	return rc;
}

/* Writes LEN bytes of BUF to PATH whole or not at all, as the CLI's other outputs do
 * (src/platform/output_file.h). Returns 0, or -1 with ERR set. */
int view_write_whole(const char *path, const char *buf, size_t len, char *err, size_t n)
{
	struct agb_out_file o;
	int e = agb_out_open(&o, path), bad;
	if (e == 0) {
		errno = 0;
		bad = len != 0 && fwrite(buf, 1, len, o.f) != len;
		e = bad ? (errno != 0 ? errno : EIO) : 0;
		int c = agb_out_close(&o, !bad);
		if (e == 0)
			e = c;
	}
	if (e != 0)
		snprintf(err, n, "%s: cannot write: %s", path, strerror(e));
	return e != 0 ? -1 : 0;
}

int view_render_png(const char *path, int w, int h, int (*draw)(SDL_Renderer *r, void *ctx),
		    void *ctx, char *err, size_t n)
{
	SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
	SDL_Renderer *r = s != NULL ? SDL_CreateSoftwareRenderer(s) : NULL;
	char *png = NULL;
	size_t len = 0;
	int rc = -1;
	if (s == NULL || r == NULL) {
		snprintf(err, n, "cannot render off screen: %s", SDL_GetError());
		goto out;
	}
	if (draw(r, ctx) != 0) {
		snprintf(err, n, "cannot draw: %s", SDL_GetError());
		goto out;
	}
	SDL_RenderPresent(r); /* flushes the render batch into the surface */
	if (view_encode_png(s, &png, &len) != 0) {
		snprintf(err, n, "%s: cannot encode PNG: %s", path, IMG_GetError());
		goto out;
	}
	rc = view_write_whole(path, png, len, err, n);
out:
	/* Glyph textures belong to their renderer: drop them all before it goes. */
	view_text_cleanup();
	if (r != NULL)
		SDL_DestroyRenderer(r);
	if (s != NULL)
		SDL_FreeSurface(s);
	free(png);
	return rc;
}

struct model_picture {
	const struct view_model *vm;
	const struct view_ui *ui;
};

static int draw_model(SDL_Renderer *r, void *ctx)
{
	const struct model_picture *p = ctx;
	return view_draw(r, p->vm, p->ui);
}

int view_save_png(const struct view_model *vm, const struct view_ui *ui, const char *path, char *err,
		  size_t n)
{
	struct model_picture p = {vm, ui};
	return view_render_png(path, AGB_VIEW_WIDTH, AGB_VIEW_HEIGHT, draw_model, &p, err, n);
}
