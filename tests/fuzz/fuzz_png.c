/* Fuzz target: the tileset PNG reader (agb_png_read_max in src/trace/tile_dedup.c, libpng's
 * simplified API behind it). The input is written to a file (the reader takes a path) and read
 * with a budget of 2^20 pixels. Checks: a success has a nonzero size within the budget and its
 * pixels (every one is read: uninitialised ones are MSan's, overruns ASan's); a failure has a
 * message and no pixels. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/tile_dedup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (path[0] == '\0')
		snprintf(path, sizeof path, "/tmp/agbsim-fuzz-png-%ld.png", (long)getpid());
	FILE *f = fopen(path, "wb");
	if (f == NULL)
		return 0;
	int ok = fwrite(data, 1, size, f) == size;
	if (fclose(f) != 0 || !ok)
		return 0;
	struct agb_image img;
	struct agb_diag d;
	int rc = agb_png_read_max(path, (uint64_t)1 << 20, &img, &d);
	if (rc == AGB_LOAD_OK) {
		uint32_t sum = 0;
		if (img.px == NULL || img.width == 0 || img.height == 0 ||
		    (uint64_t)img.width * img.height > ((uint64_t)1 << 20))
			abort();
		for (size_t i = 0; i < (size_t)img.width * img.height; i++)
			sum += img.px[i];
		if (sum == 0xFFFFFFFFu && img.width == 0)
			abort(); /* keeps the loop */
	} else if (img.px != NULL || d.message[0] == '\0') {
		abort();
	}
	agb_image_release(&img);
	return 0;
}
