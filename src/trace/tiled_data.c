/* A Tiled layer's encoded `data` into gids; see tiled_data.h. */
#include "trace/tiled_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static int fail(char *why, size_t why_len, size_t *at, size_t off, const char *msg)
{
	snprintf(why, why_len, "%s", msg);
	*at = off;
	return -1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* "1,2,0,\n3,..." (TMX's CSV: gids separated by commas and white space, a trailing comma). */
static int decode_csv(const char *t, size_t len, uint32_t *out, uint32_t count, char *why,
		      size_t why_len, size_t *at)
{
	uint32_t n = 0;
	size_t i = 0;
	for (;;) {
		while (i < len && (is_space(t[i]) || t[i] == ','))
			i++;
		if (i == len)
			break;
		if (t[i] < '0' || t[i] > '9')
			return fail(why, why_len, at, i, "layer data: expected a tile id");
		uint64_t v = 0;
		size_t start = i;
		while (i < len && t[i] >= '0' && t[i] <= '9') {
			v = v * 10u + (uint64_t)(t[i] - '0');
			if (v > 0xFFFFFFFFu)
				return fail(why, why_len, at, start,
					    "layer data: a tile id above 4294967295");
			i++;
		}
		if (i < len && !is_space(t[i]) && t[i] != ',')
			return fail(why, why_len, at, i, "layer data: expected ',' after a tile id");
		if (n == count)
			return fail(why, why_len, at, start, "layer data has more tile ids than the layer's cells");
		out[n++] = (uint32_t)v;
	}
	if (n != count)
		return fail(why, why_len, at, 0, "layer data has fewer tile ids than the layer's cells");
	return 0;
}

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* base64 (white space skipped, '=' padding) into a malloc'd buffer. */
static unsigned char *decode_base64(const char *t, size_t len, size_t *out_len, char *why,
				    size_t why_len, size_t *at)
{
	unsigned char *buf = calloc(len / 4u * 3u + 3u, 1u);
	size_t n = 0;
	uint32_t acc = 0;
	unsigned bits = 0, pad = 0;
	if (buf == NULL) {
		fail(why, why_len, at, 0, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)t[i];
		if (is_space((char)c))
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		int v = b64_value(c);
		if (v < 0 || pad != 0) {
			free(buf);
			fail(why, why_len, at, i, "layer data: not base64");
			return NULL;
		}
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[n++] = (unsigned char)(acc >> bits);
		}
	}
	*out_len = n;
	return buf;
}

/* zlib or gzip (windowBits 15, +16 for the gzip wrapper) into exactly `want` bytes. */
static int inflate_exact(const unsigned char *in, size_t in_len, unsigned char *out, size_t want,
			 int gzip)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, gzip ? 15 + 16 : 15) != Z_OK)
		return -1;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)in_len;
	z.next_out = out;
	z.avail_out = (uInt)want;
	int rc = inflate(&z, Z_FINISH);
	size_t got = want - z.avail_out;
	inflateEnd(&z);
	return rc == Z_STREAM_END && got == want ? 0 : -1;
}

int agb_tiled_decode_data(const char *text, size_t len, const char *encoding,
			  const char *compression, uint32_t *out, uint32_t count, char *why,
			  size_t why_len, size_t *at)
{
	if (why_len != 0)
		why[0] = '\0';
	*at = 0;
	if (encoding == NULL || encoding[0] == '\0' || strcmp(encoding, "csv") == 0) {
		if (compression != NULL && compression[0] != '\0')
			return fail(why, why_len, at, 0, "CSV layer data cannot be compressed");
		return decode_csv(text, len, out, count, why, why_len, at);
	}
	if (strcmp(encoding, "base64") != 0)
		return fail(why, why_len, at, 0, "unknown layer data encoding (csv or base64)");
	size_t raw_len = 0, want = (size_t)count * 4u;
	unsigned char *raw = decode_base64(text, len, &raw_len, why, why_len, at);
	unsigned char *bytes = raw;
	int rc = 0;
	if (raw == NULL)
		return -1;
	if (compression != NULL && compression[0] != '\0') {
		bytes = calloc(want != 0 ? want : 1u, 1u);
		if (bytes == NULL) {
			free(raw);
			return fail(why, why_len, at, 0, "out of memory");
		}
		if (strcmp(compression, "zlib") == 0 || strcmp(compression, "gzip") == 0)
			rc = inflate_exact(raw, raw_len, bytes, want, compression[0] == 'g');
		else if (strcmp(compression, "zstd") == 0)
			rc = ZSTD_decompress(bytes, want, raw, raw_len) == want ? 0 : -1;
		else
			rc = fail(why, why_len, at, 0,
				  "unknown layer data compression (zlib, gzip or zstd)");
		if (rc != 0 && why[0] == '\0')
			fail(why, why_len, at, 0, "layer data does not decompress to the layer's cells");
		raw_len = want;
		free(raw);
	}
	if (rc == 0 && raw_len != want)
		rc = fail(why, why_len, at, 0, "layer data does not hold one gid per cell");
	for (uint32_t i = 0; rc == 0 && i < count; i++) {
		const unsigned char *p = bytes + (size_t)i * 4u;
		out[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24;
	}
	free(bytes);
	return rc;
}
