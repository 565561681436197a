/* Drawing one picture of a view_model, shared by the window and PNG snapshots. Internal. */
#ifndef AGB_VIEW_DRAW_H
#define AGB_VIEW_DRAW_H

#include <SDL.h>

#include "view/view.h"
#include "view/view_map.h"
#include "view/view_model.h"

/* What the window adds to the model: mode, speed, zoom, hover, messages. */
struct view_ui {
	const char *title;      /* trace name */
	int zoom;               /* 0..3: cells 1x, 2x, 4x, 8x */
	uint32_t scroll_row;
	int hover_x, hover_y;   /* mouse, -1: none */
	int mode;               /* VIEW_MODE_* */
	uint32_t speed;         /* events per second while playing */
	int flash;              /* draw the failure flash */
	char status[128];       /* last message (snapshot saved, ...) */
	const struct agb_view_scan *scan; /* the whole trace: the cycle strip (NULL: none) */
};

enum { VIEW_MODE_SNAPSHOT, VIEW_MODE_PLAYING, VIEW_MODE_PAUSED, VIEW_MODE_END };

/* Draws the whole picture with r (any renderer: window or software). Returns 0 or -1 on SDL
 * errors. */
int view_draw(SDL_Renderer *r, const struct view_model *vm, const struct view_ui *ui);

/* Renders the picture off screen with the software renderer and writes a PNG (temp file +
 * rename). Returns 0 or -1 with a message in err. */
int view_save_png(const struct view_model *vm, const struct view_ui *ui, const char *path, char *err,
		  size_t n);

/* The strip's bars: `width` columns over `nframes` frames, spread over the whole width. Column
 * col shows frames [*a, *b) (the worst of them): several per column when there are more frames
 * than columns, else one frame over one or more neighbouring columns. *a == *b == nframes for
 * a column beyond the width or with no frames. Pure. */
void view_strip_range(uint32_t col, uint32_t nframes, uint32_t width, uint32_t *a, uint32_t *b);

/* Sets the draw colour 0xRRGGBB. */
void view_set_rgb(SDL_Renderer *r, uint32_t rgb);

/* Draws printf-formatted text (at most 159 characters) in the 8x8 font at (x, y) in colour rgb;
 * view_text_cleanup releases the glyphs. */
void view_text(SDL_Renderer *r, int x, int y, uint32_t rgb, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Renders a w x h picture off screen with the software renderer (draw returns 0, or -1 on SDL
 * errors) and writes it as a PNG whole or not at all. Returns 0 or -1 with a message in err. */
int view_render_png(const char *path, int w, int h, int (*draw)(SDL_Renderer *r, void *ctx),
		    void *ctx, char *err, size_t n);

/* Encodes surface s as PNG into *buf (malloc'd, *len bytes). Returns 0, or -1 (IMG_GetError). */
int view_encode_png(SDL_Surface *s, char **buf, size_t *len);

/* Writes LEN bytes to PATH whole or not at all (src/platform/output_file.h: a temporary file
 * renamed into place; a device or FIFO written through). Returns 0, or -1 with ERR set. */
int view_write_whole(const char *path, const char *buf, size_t len, char *err, size_t n);

/* Releases the glyph textures of every renderer (before any renderer is destroyed). */
void view_text_cleanup(void);

#endif
