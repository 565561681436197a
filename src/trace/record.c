/* record.c — trace events from what `agbsim record` saw (see record.h). */
#include "trace/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the event list ----------------------------------------------------------------------- */
static void push(struct agb_rec_events *e, uint8_t op, uint32_t id, uint32_t size, uint32_t align)
{
	if (e->oom)
		return;
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2u : 1024u;
		struct agb_event *n = realloc(e->ev, cap * sizeof *n);
		if (n == NULL) {
			e->oom = 1;
			return;
		}
		e->ev = n;
		e->cap = cap;
	}
	e->ev[e->n++] = (struct agb_event){.op = op, .id = id, .size = size, .align = align};
}

void agb_rec_events_release(struct agb_rec_events *e)
{
	free(e->ev);
	memset(e, 0, sizeof *e);
}

void agb_rec_frame(struct agb_rec_events *e)
{
	agb_rec_frame_kind(e, 0);
}

void agb_rec_frame_kind(struct agb_rec_events *e, int load)
{
	push(e, AGB_OP_FRAME, 0, load ? AGB_FRAME_LOAD : 0u, 0);
	e->frames++;
	e->load_frames += load != 0;
}

int agb_rec_is_loading_frame(uint16_t dispcnt_line0, uint16_t dispcnt_end, int line0)
{
	const uint16_t forced_blank = 0x0080u, layers = 0x1F00u;
	if (dispcnt_end & forced_blank)
		return 1;
	return line0 && ((dispcnt_line0 & forced_blank) || (dispcnt_line0 & layers) == 0);
}

/* ---- heap mode: live blocks by address (linear probing, backward-shift deletion) ---------- */
static size_t home(uint32_t key, size_t slots)
{
	return (size_t)((key >> 2) * 2654435761u) & (slots - 1u);
}

static size_t find(const struct agb_rec_heap *h, uint32_t key)
{
	size_t i = home(key, h->slots);
	while (h->keys[i] != 0 && h->keys[i] != key)
		i = (i + 1u) & (h->slots - 1u);
	return i;
}

static int grow(struct agb_rec_heap *h)
{
	size_t slots = h->slots ? h->slots * 2u : 1024u;
	uint32_t *k = calloc(slots, sizeof *k), *id = calloc(slots, sizeof *id),
	         *sz = calloc(slots, sizeof *sz);
	if (k == NULL || id == NULL || sz == NULL) {
		free(k);
		free(id);
		free(sz);
		return -1;
	}
	struct agb_rec_heap old = *h;
	h->keys = k;
	h->ids = id;
	h->sizes = sz;
	h->slots = slots;
	for (size_t i = 0; i < old.slots; i++)
		if (old.keys[i] != 0) {
			size_t j = find(h, old.keys[i]);
			h->keys[j] = old.keys[i];
			h->ids[j] = old.ids[i];
			h->sizes[j] = old.sizes[i];
		}
	free(old.keys);
	free(old.ids);
	free(old.sizes);
	return 0;
}

static void put(struct agb_rec_heap *h, uint32_t addr, uint32_t id, uint32_t size)
{
	if ((h->live + 1u) * 2u > h->slots && grow(h) != 0) {
		h->out.oom = 1;
		return;
	}
	size_t i = find(h, addr);
	h->live += h->keys[i] == 0;
	h->keys[i] = addr;
	h->ids[i] = id;
	h->sizes[i] = size;
	if (addr < h->lo)
		h->lo = addr;
	if (addr + size > h->hi)
		h->hi = addr + size;
}

/* Removes addr; returns its id, 0 when it is not live. */
static uint32_t take(struct agb_rec_heap *h, uint32_t addr)
{
	if (h->slots == 0 || addr == 0)
		return 0;
	size_t i = find(h, addr), j = i;
	uint32_t id = h->ids[i];
	if (h->keys[i] == 0)
		return 0;
	h->keys[i] = 0;
	h->live--;
	for (;;) { /* shift back the entries whose probe run crossed the hole */
		j = (j + 1u) & (h->slots - 1u);
		if (h->keys[j] == 0)
			break;
		size_t k = home(h->keys[j], h->slots);
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			h->keys[i] = h->keys[j];
			h->ids[i] = h->ids[j];
			h->sizes[i] = h->sizes[j];
			h->keys[j] = 0;
			i = j;
		}
	}
	return id;
}

void agb_rec_heap_init(struct agb_rec_heap *h)
{
	memset(h, 0, sizeof *h);
	h->next_id = 1;
	h->lo = UINT32_MAX;
}

void agb_rec_heap_release(struct agb_rec_heap *h)
{
	agb_rec_events_release(&h->out);
	free(h->keys);
	free(h->ids);
	free(h->sizes);
	memset(h, 0, sizeof *h);
}

static void heap_alloc(struct agb_rec_heap *h, uint32_t size, uint32_t align, uint32_t result)
{
	uint32_t id = h->next_id++;
	if (size == 0)
		size = 1; /* the game got a block: the trace asks for the least one */
	push(&h->out, AGB_OP_ALLOC, id, size,
	     align > 1u && (align & (align - 1u)) == 0 ? align : 1u);
	put(h, result, id, size);
}

/* A request the game's allocator refused (it got NULL): an event, so a replay asks each core
 * the same (docs/trace-format.md, "refused"). */
#define AGB_REC_MAX_ALIGN 4096u /* a larger alignment is written as 1: the trace's pool may be small */

static void heap_refused(struct agb_rec_heap *h, uint64_t size, uint32_t align)
{
	h->failed++;
	push(&h->out, AGB_OP_REFUSED, 0, size == 0 ? 1u : size > UINT32_MAX ? UINT32_MAX : (uint32_t)size,
	     align > 1u && (align & (align - 1u)) == 0 && align <= AGB_REC_MAX_ALIGN ? align : 1u);
}

static void heap_realloc(struct agb_rec_heap *h, uint32_t old, uint32_t size, uint32_t result)
{
	if (old == 0) { /* realloc(NULL, n) is malloc(n) */
		if (result != 0)
			heap_alloc(h, size, 1u, result);
		else
			heap_refused(h, size, 1u);
		return;
	}
	if (result == 0 && size != 0) {
		heap_refused(h, size, 1u); /* the old block stays as it was */
		return;
	}
	uint32_t id = take(h, old);
	if (id == 0) {
		h->unknown++;
		if (result != 0)
			heap_alloc(h, size, 1u, result);
		return;
	}
	if (result == 0) { /* realloc(p, 0) that freed p */
		push(&h->out, AGB_OP_FREE, id, 0, 0);
		return;
	}
	push(&h->out, AGB_OP_REALLOC, id, size != 0 ? size : 1u, 0);
	put(h, result, id, size != 0 ? size : 1u);
}

void agb_rec_heap_call(struct agb_rec_heap *h, enum agb_rec_fn fn, uint32_t a, uint32_t b,
                       uint32_t result)
{
	h->calls++;
	switch (fn) {
	case AGB_REC_MALLOC:
	case AGB_REC_CALLOC:
	case AGB_REC_MEMALIGN: {
		uint64_t size = fn == AGB_REC_MALLOC   ? a
		                : fn == AGB_REC_CALLOC ? (uint64_t)a * b
		                                       : b;
		if (result == 0)
			heap_refused(h, size, fn == AGB_REC_MEMALIGN ? a : 1u);
		else if (size > UINT32_MAX)
			h->failed++; /* a block for a size that wrapped: not a request a trace can hold */
		else
			heap_alloc(h, (uint32_t)size, fn == AGB_REC_MEMALIGN ? a : 1u, result);
		break;
	}
	case AGB_REC_REALLOC:
		heap_realloc(h, a, b, result);
		break;
	case AGB_REC_FREE: {
		uint32_t id = a != 0 ? take(h, a) : 0;
		if (a == 0)
			h->free_null++;
		else if (id == 0)
			h->unknown++;
		else
			push(&h->out, AGB_OP_FREE, id, 0, 0);
		break;
	}
	}
}

int agb_rec_heap_arena(const struct agb_rec_heap *h, enum agb_arena *arena, uint32_t *bytes,
                       char *why, size_t why_len)
{
	static const struct {
		enum agb_arena arena;
		uint32_t base, end;
	} regions[] = {{AGB_ARENA_EWRAM, 0x02000000u, 0x02040000u},
	               {AGB_ARENA_OBJ_VRAM, 0x06010000u, 0x06018000u}};
	if (h->lo > h->hi) {
		snprintf(why, why_len, "no block to infer the arena from");
		return -1;
	}
	for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++)
		if (h->lo >= regions[i].base && h->hi <= regions[i].end) {
			*arena = regions[i].arena;
			*bytes = regions[i].end - (h->lo & ~1023u);
			return 0;
		}
	snprintf(why, why_len,
	         "the allocator's blocks lie at 0x%08x..0x%08x, not inside EWRAM or OBJ VRAM "
	         "(the arenas an alloc trace can describe)",
	         (unsigned)h->lo, (unsigned)h->hi);
	return -1;
}

/* ---- OBJ VRAM from OAM -------------------------------------------------------------------- */
void agb_rec_obj_init(struct agb_rec_obj *o)
{
	memset(o, 0, sizeof *o);
	o->next_id = 1;
}

/* Tiles (8x8, width x height) of OBJ shape s (0 square, 1 wide, 2 tall), size z. */
static uint32_t obj_tiles(uint32_t s, uint32_t z)
{
	static const uint8_t w[3][4] = {{1, 2, 4, 8}, {2, 4, 4, 8}, {1, 1, 2, 4}};
	static const uint8_t hgt[3][4] = {{1, 2, 4, 8}, {1, 1, 2, 4}, {2, 4, 4, 8}};
	return (uint32_t)w[s][z] * hgt[s][z];
}

void agb_rec_obj_sample(struct agb_rec_obj *o, const uint16_t *oam, uint16_t dispcnt)
{
	uint16_t now[1024] = {0};
	uint8_t deep[1024] = {0};
	if ((dispcnt & 0x40u) == 0)
		o->saw_2d = 1;
	for (size_t i = 0; i < 128u; i++) {
		uint32_t a0 = oam[i * 4u], a1 = oam[i * 4u + 1u], a2 = oam[i * 4u + 2u];
		uint32_t shape = a0 >> 14, first = a2 & 0x3FFu, n;
		if ((a0 & 0x300u) == 0x200u || shape == 3u)
			continue; /* hidden, or the prohibited shape */
		n = obj_tiles(shape, a1 >> 14) * ((a0 & 0x2000u) ? 2u : 1u);
		if (n > 1024u - first)
			n = 1024u - first;
		if (n > now[first])
			now[first] = (uint16_t)n;
		deep[first] |= (a0 & 0x2000u) != 0;
	}
	for (uint32_t t = 0; t < 1024u; t++) /* frees first: the game's blocks that went */
		if (o->live[t] != 0 && now[t] != o->tiles[t]) {
			push(&o->out, AGB_OP_FREE, o->live[t], 0, 0);
			o->live[t] = 0;
		}
	for (uint32_t t = 0; t < 1024u; t++)
		if (now[t] != 0 && o->live[t] == 0) {
			o->live[t] = o->next_id++;
			o->tiles[t] = now[t];
			o->blocks++;
			push(&o->out, AGB_OP_ALLOC, o->live[t], now[t] * 32u, deep[t] ? 64u : 1u);
		}
}

/* ---- BG VRAM from the visible screen maps ------------------------------------------------- */
uint64_t agb_rec_fnv64(const uint8_t *p, size_t n)
{
	uint64_t h = 0xCBF29CE484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001B3ull;
	}
	return h;
}

int agb_rec_bg_init(struct agb_rec_bg *b)
{
	memset(b, 0, sizeof *b);
	b->cell = calloc(AGB_REC_BG_CELLS, sizeof *b->cell);
	b->cell_next = calloc(AGB_REC_BG_CELLS, sizeof *b->cell_next);
	b->cap = 256;
	b->hash = calloc(b->cap, sizeof *b->hash);
	b->table_slots = 1024;
	b->table = calloc(b->table_slots, sizeof *b->table);
	b->ids = 1; /* id 0: the transparent tile */
	if (b->cell == NULL || b->cell_next == NULL || b->hash == NULL || b->table == NULL) {
		agb_rec_bg_release(b);
		return -1;
	}
	return 0;
}

void agb_rec_bg_release(struct agb_rec_bg *b)
{
	agb_rec_events_release(&b->out);
	free(b->cell);
	free(b->cell_next);
	free(b->hash);
	free(b->table);
	memset(b, 0, sizeof *b);
}

static size_t hash_home(uint64_t h, size_t slots)
{
	return (size_t)(h ^ (h >> 29)) & (slots - 1u);
}

static int table_grow(struct agb_rec_bg *b)
{
	size_t slots = b->table_slots * 2u;
	uint32_t *t = calloc(slots, sizeof *t);
	if (t == NULL)
		return -1;
	for (size_t id = 1; id < b->ids; id++) {
		size_t i = hash_home(b->hash[id], slots);
		while (t[i] != 0)
			i = (i + 1u) & (slots - 1u);
		t[i] = (uint32_t)id;
	}
	free(b->table);
	b->table = t;
	b->table_slots = slots;
	return 0;
}

/* The id of the tile with these bytes: 0 when all are zero, else a new id on first sight.
 * Returns -1 out of memory. */
static int64_t tile_id(struct agb_rec_bg *b, const uint8_t *p, size_t n)
{
	size_t z = 0;
	while (z < n && p[z] == 0)
		z++;
	if (z == n)
		return 0;
	uint64_t h = agb_rec_fnv64(p, n);
	size_t i = hash_home(h, b->table_slots);
	while (b->table[i] != 0) {
		if (b->hash[b->table[i]] == h)
			return b->table[i];
		i = (i + 1u) & (b->table_slots - 1u);
	}
	if (b->ids == b->cap) {
		uint64_t *nh = realloc(b->hash, b->cap * 2u * sizeof *nh);
		if (nh == NULL)
			return -1;
		b->hash = nh;
		b->cap *= 2u;
	}
	b->hash[b->ids] = h;
	b->table[i] = (uint32_t)b->ids;
	if ((b->ids + 1u) * 2u > b->table_slots && table_grow(b) != 0)
		return -1;
	return (int64_t)b->ids++;
}

/* Text BG n: its visible cells' tiles into b->cell_next (layer n's 128x128 grid). */
static int text_bg(struct agb_rec_bg *b, const uint16_t *io, const uint16_t *vram, uint32_t n)
{
	uint32_t cnt = io[4u + n], hofs = io[8u + 2u * n] & 0x1FFu, vofs = io[9u + 2u * n] & 0x1FFu;
	uint32_t wc = (cnt & 0x4000u) ? 64u : 32u, hc = (cnt & 0x8000u) ? 64u : 32u;
	uint32_t charbase = ((cnt >> 2) & 3u) * 0x4000u, screen = ((cnt >> 8) & 31u) * 0x800u;
	uint32_t deep = (cnt >> 7) & 1u, bytes = deep ? 64u : 32u;
	uint32_t *grid = b->cell_next + (size_t)n * 128u * 128u;
	for (uint32_t sy = vofs / 8u; sy <= (vofs + 159u) / 8u; sy++)
		for (uint32_t sx = hofs / 8u; sx <= (hofs + 239u) / 8u; sx++) {
			uint32_t x = sx % wc, y = sy % hc;
			uint32_t block = (x / 32u) + (y / 32u) * (wc / 32u);
			uint32_t at = screen + block * 0x800u + ((y % 32u) * 32u + x % 32u) * 2u;
			if (at + 2u > 0x10000u)
				continue;
			uint32_t tile = vram[at / 2u] & 0x3FFu, addr = charbase + tile * bytes;
			if (addr + bytes > 0x10000u)
				continue; /* past BG VRAM: the hardware shows nothing */
			int64_t id = tile_id(b, (const uint8_t *)vram + addr, bytes);
			if (id < 0)
				return -1;
			grid[y * 128u + x] = id != 0 ? (uint32_t)id | deep << 31 : 0u;
		}
	return 0;
}

/* Affine BG n (8bpp, byte map): the cells under any screen pixel, with wraparound or not. */
static int affine_bg(struct agb_rec_bg *b, const uint16_t *io, const uint16_t *vram, uint32_t n)
{
	uint32_t cnt = io[4u + n], r = (n - 2u) * 8u;
	uint32_t side = 128u << ((cnt >> 14) & 3u), cells = side / 8u;
	uint32_t charbase = ((cnt >> 2) & 3u) * 0x4000u, screen = ((cnt >> 8) & 31u) * 0x800u;
	int32_t pa = (int16_t)io[0x10u + r], pb = (int16_t)io[0x11u + r];
	int32_t pc = (int16_t)io[0x12u + r], pd = (int16_t)io[0x13u + r];
	int32_t x0 = (int32_t)((uint32_t)io[0x14u + r] | (uint32_t)io[0x15u + r] << 16) << 4 >> 4;
	int32_t y0 = (int32_t)((uint32_t)io[0x16u + r] | (uint32_t)io[0x17u + r] << 16) << 4 >> 4;
	uint32_t *grid = b->cell_next + (size_t)n * 128u * 128u;
	const uint8_t *bytes = (const uint8_t *)vram;
	for (int32_t sy = 0; sy < 160; sy++)
		for (int32_t sx = 0; sx < 240; sx++) {
			int32_t tx = (x0 + pa * sx + pb * sy) >> 8,
			        ty = (y0 + pc * sx + pd * sy) >> 8;
			if (cnt & 0x2000u) {
				tx &= (int32_t)side - 1;
				ty &= (int32_t)side - 1;
			} else if (tx < 0 || ty < 0 || tx >= (int32_t)side || ty >= (int32_t)side) {
				continue;
			}
			uint32_t x = (uint32_t)tx / 8u, y = (uint32_t)ty / 8u,
			         at = screen + y * cells + x;
			if (grid[y * 128u + x] != 0 || at >= 0x10000u)
				continue;
			uint32_t addr = charbase + bytes[at] * 64u;
			if (addr + 64u > 0x10000u)
				continue;
			int64_t id = tile_id(b, bytes + addr, 64u);
			if (id < 0)
				return -1;
			grid[y * 128u + x] = id != 0 ? (uint32_t)id | 1u << 31 : 0u;
		}
	return 0;
}

int agb_rec_bg_sample(struct agb_rec_bg *b, const uint16_t *io, const uint16_t *vram)
{
	uint32_t dispcnt = io[0], mode = dispcnt & 7u;
	memset(b->cell_next, 0, AGB_REC_BG_CELLS * sizeof *b->cell_next);
	for (uint32_t n = 0; n < 4u && (dispcnt & 0x80u) == 0; n++) {
		int affine = (mode == 1u && n == 2u) || (mode == 2u && n >= 2u);
		int text = mode == 0u || (mode == 1u && n < 2u);
		int rc = 0;
		if ((dispcnt & (0x100u << n)) == 0)
			continue;
		if (text)
			rc = text_bg(b, io, vram, n);
		else if (affine)
			rc = affine_bg(b, io, vram, n);
		if (rc != 0)
			return -1;
	}
	for (size_t c = 0; c < AGB_REC_BG_CELLS; c++) {
		uint32_t now = b->cell_next[c], was = b->cell[c];
		if (now == was)
			continue;
		if (now != 0)
			push(&b->out, AGB_OP_REF, now & 0x7FFFFFFFu, (now >> 31) ? 8u : 4u, 0);
		if (was != 0)
			push(&b->out, AGB_OP_UNREF, was & 0x7FFFFFFFu, (was >> 31) ? 8u : 4u, 0);
	}
	uint32_t *t = b->cell;
	b->cell = b->cell_next;
	b->cell_next = t;
	return b->out.oom ? -1 : 0;
}
