/* Fuzz target: the level-map converters (src/trace/tiled.c, tmx.c): Tiled JSON, TMX and CSV.
 *
 * Byte 0 picks the parser (bit 0: CSV, else bit 6: TMX, else JSON), the camera path and speed;
 * the rest is the map text (every layer encoding: base64, zlib, gzip, zstd, infinite chunks).
 * An accepted map is streamed into a bg_vram trace (at most 64 camera moves, so a huge map
 * costs the fuzzer no more than a few ms) and that trace is replayed, checked after every event,
 * on the bg_vram default core: the converter's traces are balanced and loadable by contract. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_replay.h"
#include "trace/tiled.h"

static void stream(const struct agb_tilemap *map, uint8_t mode)
{
	struct agb_stream_options o;
	struct agb_trace t;
	struct agb_event *ev = NULL;
	char err[256];
	agb_stream_options_init(&o);
	o.path = (enum agb_camera_path)((mode >> 1) % 5u);
	o.speed = 1u + ((mode >> 4) & 7u);
	o.frames = 1u + (mode & 0x3fu);
	o.bpp = (mode & 0x80u) ? 8u : 4u;
	if (agb_tilemap_stream(map, &o, &t, &ev, err, sizeof err) == 0) {
		const struct agb_heap_core *core = agb_heap_core_default(AGB_ARENA_BG_VRAM);
		/* The checked replay walks the core's state after every event (~1 ms an event under
		 * ASan in BG VRAM): its first 2 000 events, a prefix being a valid trace, keep a
		 * run at tens of inputs a second. */
		if (t.event_count > 2000u)
			t.event_count = 2000u;
		if (core != NULL)
			fuzz_replay_checked(&t, core);
	}
	free(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	size_t len = size - 1;
	char *text = malloc(len ? len : 1); /* exact size: overreads are ASan reports */
	if (text == NULL)
		return 0;
	memcpy(text, data + 1, len);
	struct agb_tilemap map;
	struct agb_diag d;
	int st = (mode & 1)      ? agb_tilemap_parse_csv("fuzz.csv", text, len, 8u << ((mode >> 1) & 1),
							 &map, &d)
		 : (mode & 0x40) ? agb_tilemap_parse_tmx("fuzz.tmx", text, len, &map, &d)
				 : agb_tilemap_parse_tiled("fuzz.json", text, len, &map, &d);
	free(text);
	if (st == AGB_LOAD_OK) {
		stream(&map, mode);
		agb_tilemap_release(&map);
	} else if (st != AGB_LOAD_BAD_INPUT && st != AGB_LOAD_IO_ERROR) {
		abort();
	}
	return 0;
}
