/* Binary trace packer for the bench ROM (see trace_bin.h and src/gba/abi/bench_abi.h). Written field
 * by field in little-endian so the blob is the same whatever the host's struct layout. */
#include "trace/trace_bin.h"

#include <stdlib.h>
#include <string.h>

#include "bench_abi.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put_name(uint8_t *p, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;
	if (n > AGB_BIN_NAME_BYTES - 1u)
		n = AGB_BIN_NAME_BYTES - 1u;
	memset(p, 0, AGB_BIN_NAME_BYTES);
	if (n != 0)
		memcpy(p, s, n); /* NOLINT(bugprone-not-null-terminated-result): p is zeroed, n < size */
}

int agb_trace_pack(const struct agb_trace *t, const struct agb_bin_run *run, void **out,
		   size_t *len)
{
	const size_t hdr = sizeof(struct agb_bin_header);
	size_t total = hdr + (size_t)t->event_count * AGB_BIN_EVENT_BYTES;
	uint8_t *b, *p;

	*out = NULL;
	*len = 0;
	if ((uint64_t)total > 0x1000000u) /* leaves room for the ROM image in 32 MiB */
		return -1;
	b = calloc(1, total);
	if (b == NULL)
		return -1;
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): an 8-byte magic, no terminator */
	memcpy(b + offsetof(struct agb_bin_header, magic), AGB_BIN_MAGIC, 8);
#define H(field, v) put32(b + offsetof(struct agb_bin_header, field), (uint32_t)(v))
	H(version, AGB_BIN_VERSION);
	H(header_bytes, hdr);
	H(arena, t->arena);
	H(arena_bytes, t->arena_bytes);
	H(event_count, t->event_count);
	H(slots, t->slots);
	H(frame_count, t->frame_count);
	H(event_bytes, AGB_BIN_EVENT_BYTES);
	H(events_offset, hdr);
	H(core_index, run->core_index);
	H(cfg_arena_bytes, run->cfg.arena_bytes);
	H(cfg_meta, run->cfg.meta);
	H(cfg_core_flags, run->cfg.core_flags);
	H(cfg_flags, run->cfg.flags);
	H(bench_flags, run->bench_flags);
#undef H
	put_name(b + offsetof(struct agb_bin_header, core_name), run->core->name);
	put_name(b + offsetof(struct agb_bin_header, trace_name), t->name);
	p = b + hdr;
	for (uint32_t i = 0; i < t->event_count; i++, p += AGB_BIN_EVENT_BYTES) {
		const struct agb_event *e = &t->events[i];
		p[0] = e->op;
		put32(p + 4, e->id);
		put32(p + 8, e->slot);
		put32(p + 12, e->size);
		put32(p + 16, e->align);
	}
	*out = b;
	*len = total;
	return 0;
}
