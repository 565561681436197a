/* tiled_data.h - a Tiled tile layer's `data` as Tiled saves it: a CSV text, or base64 of
 * little-endian 32-bit gids, uncompressed or compressed with zlib, gzip or zstd (Tiled's "Tile
 * Layer Format" setting; the JSON format's default is CSV, TMX's default base64+zlib in older
 * versions). Host only (zlib and libzstd from Debian). */
#ifndef AGB_TRACE_TILED_DATA_H
#define AGB_TRACE_TILED_DATA_H

#include <stddef.h>
#include <stdint.h>

/* Decodes `len` bytes of `text`, encoded as `encoding` ("csv" or "base64"; NULL or "" means csv)
 * and, for base64, compressed as `compression` (NULL or "", "zlib", "gzip", "zstd"), into exactly
 * `count` gids (flip flags kept) at `out`. Returns 0, or -1 with the reason in `why` and the
 * offset in `text` it concerns in *at (0 when it is about the whole text). O(len + count). */
int agb_tiled_decode_data(const char *text, size_t len, const char *encoding,
			  const char *compression, uint32_t *out, uint32_t count, char *why,
			  size_t why_len, size_t *at);

#endif
