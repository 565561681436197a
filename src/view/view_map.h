/* The memory map's geometry and colours (view_map.c), SDL-free: the SDL picture and the HTML
 * report's SVG map draw the same cells in the same colours. Internal to src/view. */
#ifndef AGB_VIEW_MAP_H
#define AGB_VIEW_MAP_H

#include <stdint.h>
#include <stdio.h>

#include "view/view.h"
#include "view/view_model.h"

#define MAP_X 8
#define MAP_Y 8
#define MAP_W 512
#define MAP_H 512

/* The per-frame cycle strip under the map: a label line, then the bar chart. */
#define STRIP_X MAP_X
#define STRIP_Y (MAP_Y + MAP_H + 6)
#define STRIP_W (AGB_VIEW_WIDTH - 2 * MAP_X)
#define STRIP_BOX_Y (STRIP_Y + 12)
#define STRIP_BOX_H (AGB_VIEW_STRIP_H - 14)

/* How the map is laid out: cols units per row, cells of cell_w x cell_h pixels from x0 pixels
 * into the map (palette RAM keeps a label column at the left), rows from first_row on screen. */
struct view_layout {
	uint32_t cols, rows, first_row, vis_rows;
	int cell_w, cell_h, x0;
};

/* The layout for an arena of `units` units at `zoom`, scrolled to `scroll_row` (clamped). */
void view_layout_make(enum agb_arena arena, uint32_t units, int zoom, uint32_t scroll_row,
		      struct view_layout *L);

/* The unit under map pixel (x, y) of the window, or -1. */
int64_t view_layout_hit(const struct view_layout *L, uint32_t units, int x, int y);

/* The colour (0xRRGGBB) of unit u as the map draws it (flash: free units of a failed request
 * in red). */
uint32_t view_unit_rgb(const struct view_model *vm, uint32_t u, int flash);

/* HSV to 0xRRGGBB, hue in degrees, saturation and value in percent (integer maths: the same
 * colour on every host). Pure. */
uint32_t view_hsv(uint32_t hue, uint32_t sat_pct, uint32_t val_pct);

#endif
