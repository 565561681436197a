/* Fuzz target: a Tiled tile layer's `data` decoder (src/trace/tiled_data.c): CSV, base64, and
 * base64 of zlib, gzip or zstd. Byte 0 picks the encoding and compression, bytes 1-2 the cell
 * count (1..4096); the rest is the text. Checks: a failure's offset lies within the text, and a
 * success fills every cell (the output buffer is exactly count cells: overruns are ASan's). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tiled_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const enc[] = {"csv", "base64", "", NULL};
	static const char *const comp[] = {"", "zlib", "gzip", "zstd", NULL, "lz4"};
	if (size < 3)
		return 0;
	uint32_t count = 1u + (((uint32_t)data[1] | (uint32_t)data[2] << 8) & 0xFFFu);
	size_t len = size - 3;
	char *text = malloc(len ? len : 1);
	uint32_t *out = malloc(count * sizeof *out);
	char why[256];
	size_t at = 0;
	if (text == NULL || out == NULL) {
		free(text);
		free(out);
		return 0;
	}
	memcpy(text, data + 3, len);
	memset(out, 0xA5, count * sizeof *out);
	if (agb_tiled_decode_data(text, len, enc[data[0] & 3u], comp[(data[0] >> 2) % 6u], out,
				  count, why, sizeof why, &at) != 0) {
		if (at > len || why[0] == '\0')
			abort();
	}
	free(text);
	free(out);
	return 0;
}
