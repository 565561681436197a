/* mtrace.c - convert a glibc mtrace log into an agbsim v1 trace (JSON).
 * See mtrace.h for the accepted input and the produced output. */
#include "mtrace.h"
#include "trace/elf_syms.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "trace/json_out.h"

#define DEFAULT_ARENA_BYTES 262144UL
#define MAX_ID 0x7fffffffUL
#define MAX_LINE ((size_t)1 << 16) /* line buffer cap: a longer line is an error */

enum ev_op { EV_ALLOC, EV_FREE, EV_REALLOC, EV_FRAME, EV_FRAME_LOAD };

/* The id of a block the caller filter left out: its frees and reallocs are not written. */
#define FILTERED 0xffffffffU

struct ev {
    uint32_t id;
    uint32_t size;
    unsigned char op;
};

/* ---- address -> id map: open addressing, linear probing, backward-shift
 * deletion.  Key 0 marks an empty slot (a traced pointer is never NULL). */
struct slot {
    uint64_t key;
    uint32_t id;
};

struct addrmap {
    struct slot *slots;
    size_t cap; /* power of two */
    size_t count;
};

static size_t hash_addr(uint64_t k, size_t mask)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return (size_t)k & mask;
}

static int map_grow(struct addrmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 1024;
    struct slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key) {
            size_t j = hash_addr(m->slots[i].key, ncap - 1);
            while (ns[j].key)
                j = (j + 1) & (ncap - 1);
            ns[j] = m->slots[i];
        }
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    return 0;
}

/* Returns the slot holding KEY, or (size_t)-1. Key 0 marks an empty slot, so it is never found
 * (the parser rejects a null '<' or '>' address). */
static size_t map_find(const struct addrmap *m, uint64_t key)
{
    if (!m->cap || key == 0)
        return (size_t)-1;
    size_t mask = m->cap - 1;
    for (size_t i = hash_addr(key, mask);; i = (i + 1) & mask) {
        if (m->slots[i].key == key)
            return i;
        if (!m->slots[i].key)
            return (size_t)-1;
    }
}

/* KEY must not be present. */
static int map_insert(struct addrmap *m, uint64_t key, uint32_t id)
{
    if ((m->count + 1) * 4 > m->cap * 3 && map_grow(m))
        return -1;
    size_t mask = m->cap - 1;
    size_t i = hash_addr(key, mask);
    while (m->slots[i].key)
        i = (i + 1) & mask;
    m->slots[i].key = key;
    m->slots[i].id = id;
    m->count++;
    return 0;
}

static void map_remove_at(struct addrmap *m, size_t i)
{
    size_t mask = m->cap - 1;
    size_t j = i;
    m->slots[i].key = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (!m->slots[j].key)
            break;
        size_t home = hash_addr(m->slots[j].key, mask);
        /* Move slot j back to the hole at i if its home is not in (i, j]. */
        int in_range = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            m->slots[i] = m->slots[j];
            m->slots[j].key = 0;
            i = j;
        }
    }
    m->count--;
}

/* ---- call sites: one entry per distinct caller text, holding its name and filter decision ---- */
struct site {
    char *raw;                /* the caller as printed, without "@ " */
    char name[96];            /* BASENAME:SYMBOL or BASENAME:[0xADDR] */
    unsigned long allocs, bytes;
    int keep;
};

/* An object's symbols, loaded once (ok 0: it could not be read). */
struct objsyms {
    char *path;
    int ok;
    struct agb_elf_symbols syms;
};

struct sites {
    struct site *v;
    size_t n, cap;
    size_t *index;            /* open addressing over v, SIZE_MAX empty */
    size_t index_cap;         /* power of two */
    struct objsyms *objs;
    size_t nobjs;
};

static uint64_t hash_text(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static void sites_release(struct sites *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].raw);
    for (size_t i = 0; i < t->nobjs; i++) {
        free(t->objs[i].path);
        agb_elf_symbols_release(&t->objs[i].syms);
    }
    free(t->v);
    free(t->index);
    free(t->objs);
}

/* ---- converter state ---- */
struct conv {
    const char *in_name;
    char *err;
    size_t errlen;
    struct agb_mtrace_options opt;
    struct agb_mtrace_result res;
    struct addrmap map;
    struct sites sites;
    uint32_t *sizes;    /* requested size by id (valid while live) */
    size_t nids, ids_cap;
    uint32_t *free_ids; /* LIFO of released ids */
    size_t nfree, free_cap;
    struct ev *evs;
    size_t nev, ev_cap;
    unsigned long live, live_count;
    int stopped;        /* truncated: no more events are written */
    /* line reader */
    char *buf;
    size_t buf_cap;
    unsigned long bytes, max_bytes; /* read so far; the most read (opt.max_bytes or 1 GiB) */
};

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void set_err(struct conv *c, unsigned long line, size_t col, const char *fmt, ...);

static void set_err(struct conv *c, unsigned long line, size_t col, const char *fmt, ...)
{
    if (!c->errlen)
        return;
    int n;
    if (line)
        n = snprintf(c->err, c->errlen, "%s:%lu:%lu: ", c->in_name, line, (unsigned long)col);
    else
        n = snprintf(c->err, c->errlen, "%s: ", c->in_name);
    if (n < 0)
        n = 0;
    if ((size_t)n >= c->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

static int push_ev(struct conv *c, unsigned char op, uint32_t id, uint32_t size)
{
    if (c->nev == c->ev_cap) {
        size_t ncap = c->ev_cap ? c->ev_cap * 2 : 4096;
        struct ev *n = realloc(c->evs, ncap * sizeof *n);
        if (!n)
            return -1;
        c->evs = n;
        c->ev_cap = ncap;
    }
    c->evs[c->nev].op = op;
    c->evs[c->nev].id = id;
    c->evs[c->nev].size = size;
    c->nev++;
    c->res.events++;
    return 0;
}

static void note_peak(struct conv *c)
{
    if (c->live > c->res.peak_live_bytes)
        c->res.peak_live_bytes = c->live;
    if (c->live_count > c->res.peak_live_count)
        c->res.peak_live_count = c->live_count;
}

/* Allocates an id (smallest-recently-freed first). Returns -1 on error. */
static int new_id(struct conv *c, uint32_t *out)
{
    if (c->nfree) {
        *out = c->free_ids[--c->nfree];
        return 0;
    }
    if (c->nids >= MAX_ID)
        return -1;
    if (c->nids == c->ids_cap) {
        size_t ncap = c->ids_cap ? c->ids_cap * 2 : 1024;
        uint32_t *n = realloc(c->sizes, ncap * sizeof *n);
        if (!n)
            return -1;
        c->sizes = n;
        c->ids_cap = ncap;
    }
    *out = (uint32_t)c->nids++;
    return 0;
}

static int release_id(struct conv *c, uint32_t id)
{
    if (c->nfree == c->free_cap) {
        size_t ncap = c->free_cap ? c->free_cap * 2 : 1024;
        uint32_t *n = realloc(c->free_ids, ncap * sizeof *n);
        if (!n)
            return -1;
        c->free_ids = n;
        c->free_cap = ncap;
    }
    c->free_ids[c->nfree++] = id;
    return 0;
}

#define NOMEM (-2)
#define TOO_LONG (-3)
#define TOO_BIG (-4)

/* Frees the live allocation in map slot I and writes a free event. */
static int do_free_slot(struct conv *c, size_t slot)
{
    uint32_t id = c->map.slots[slot].id;
    map_remove_at(&c->map, slot);
    if (id == FILTERED) {
        c->res.filtered_frees++;
        return 0;
    }
    c->live -= c->sizes[id];
    c->live_count--;
    if (push_ev(c, EV_FREE, id, 0) || release_id(c, id))
        return NOMEM;
    c->res.frees++;
    return 0;
}

/* Returns 1 (and marks the trace as truncated) if NEW_LIVE is over the limit. */
static int over_limit(struct conv *c, unsigned long new_live, unsigned long line)
{
    if (c->opt.max_live && new_live > c->opt.max_live) {
        c->stopped = 1;
        c->res.truncated = 1;
        c->res.truncated_at_line = line;
        return 1;
    }
    return 0;
}

static int check_size(struct conv *c, unsigned long size, unsigned long line, size_t col)
{
    if (size > c->opt.arena_bytes) {
        set_err(c, line, col, "allocation of %lu bytes exceeds arena_bytes (%lu); use a max-live limit to truncate the trace",
                size, c->opt.arena_bytes);
        return -1;
    }
    return 0;
}

/* A block the caller filter leaves out: remembered, so its free and reallocs are left out too. */
static int ev_alloc_filtered(struct conv *c, uint64_t addr)
{
    size_t slot = map_find(&c->map, addr);
    if (slot != (size_t)-1) {
        c->res.implicit_frees++;
        if (do_free_slot(c, slot))
            return NOMEM;
    }
    if (map_insert(&c->map, addr, FILTERED))
        return NOMEM;
    c->res.filtered_allocs++;
    return 0;
}

static int ev_alloc(struct conv *c, uint64_t addr, unsigned long size, unsigned long line, size_t size_col,
                    int keep)
{
    if (!keep)
        return ev_alloc_filtered(c, addr);
    if (size == 0) {
        size = 1; /* malloc(0) returns a real, unique block */
        c->res.zero_sizes++;
    }
    if (over_limit(c, c->live + size, line))
        return 0;
    if (check_size(c, size, line, size_col))
        return -1;
    size_t slot = map_find(&c->map, addr);
    if (slot != (size_t)-1) {
        c->res.implicit_frees++;
        if (do_free_slot(c, slot))
            return NOMEM;
    }
    uint32_t id;
    if (new_id(c, &id) || map_insert(&c->map, addr, id))
        return NOMEM;
    c->sizes[id] = (uint32_t)size;
    c->live += size;
    c->live_count++;
    if (push_ev(c, EV_ALLOC, id, (uint32_t)size))
        return NOMEM;
    c->res.allocs++;
    note_peak(c);
    return 0;
}

static int ev_free(struct conv *c, uint64_t addr)
{
    size_t slot = map_find(&c->map, addr);
    if (slot == (size_t)-1) {
        c->res.dropped_unknown_frees++;
        return 0;
    }
    return do_free_slot(c, slot);
}

static int ev_realloc(struct conv *c, uint64_t old, uint64_t addr, unsigned long size,
                      unsigned long line, size_t size_col, int keep)
{
    size_t slot = map_find(&c->map, old);
    if (slot == (size_t)-1) {
        /* Block allocated before tracing started (or skipped): from here on
         * it is a new allocation of SIZE bytes. */
        if (c->stopped)
            return 0;
        unsigned long before = c->res.allocs;
        int r = ev_alloc(c, addr, size, line, size_col, keep);
        if (c->res.allocs != before)
            c->res.unknown_reallocs++;
        return r;
    }
    if (c->map.slots[slot].id == FILTERED) {
        /* Left out when allocated: it moves, still left out. */
        map_remove_at(&c->map, slot);
        c->res.filtered_reallocs++;
        int r = ev_alloc_filtered(c, addr);
        c->res.filtered_allocs--; /* the same block, not another one */
        return r;
    }
    if (size == 0) { /* not produced by glibc (realloc(p,0) logs "- p") */
        size = 1;
        c->res.zero_sizes++;
    }
    uint32_t id = c->map.slots[slot].id;
    if (over_limit(c, c->live - c->sizes[id] + size, line))
        return 0;
    if (check_size(c, size, line, size_col))
        return -1;
    map_remove_at(&c->map, slot);
    size_t other = map_find(&c->map, addr);
    if (other != (size_t)-1) {
        c->res.implicit_frees++;
        if (do_free_slot(c, other))
            return NOMEM;
    }
    if (map_insert(&c->map, addr, id))
        return NOMEM;
    c->live = c->live - c->sizes[id] + size;
    c->sizes[id] = (uint32_t)size;
    if (push_ev(c, EV_REALLOC, id, (uint32_t)size))
        return NOMEM;
    c->res.reallocs++;
    note_peak(c);
    return 0;
}

/* ---- parsing ---- */

/* Reads one line into c->buf (without the newline), byte by byte so that a NUL byte ends the
 * line where it is (the caller rejects it at its column: /dev/zero is an error on line 1, not
 * an endless read). Returns 1 on a line, 0 at end of file, -1 on read error, NOMEM when out of
 * memory, TOO_LONG past MAX_LINE bytes, TOO_BIG past the input limit. */
static int read_line(struct conv *c, FILE *in, size_t *len_out)
{
    size_t len = 0;
    int ch = EOF;
    if (!c->buf) {
        c->buf_cap = 256;
        c->buf = malloc(c->buf_cap);
        if (!c->buf)
            return NOMEM;
    }
    while ((ch = getc(in)) != EOF) {
        if (++c->bytes > c->max_bytes)
            return TOO_BIG;
        if (ch == '\n')
            break;
        if (len + 1 >= c->buf_cap) {
            if (c->buf_cap >= MAX_LINE)
                return TOO_LONG;
            char *n = realloc(c->buf, c->buf_cap * 2);
            if (!n)
                return NOMEM;
            c->buf = n;
            c->buf_cap *= 2;
        }
        c->buf[len++] = (char)ch;
        if (ch == '\0')
            break;
    }
    if (ch == EOF) {
        if (ferror(in))
            return -1;
        if (len == 0)
            return 0; /* (a last line without newline is a line) */
    }
    c->buf[len] = '\0';
    if (len > 0 && c->buf[len - 1] == '\r')
        c->buf[--len] = '\0';
    *len_out = len;
    return 1;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Parses "0x<hex>" (or "0" when ALLOW_ZERO, as printed by "%#lx") or, when
 * ALLOW_NIL, "(nil)" (-> 0).  Returns the number of characters consumed, 0 on
 * a syntax error, -1 (as (size_t)-1) on overflow. */
static size_t parse_hex(const char *s, uint64_t *v, int allow_nil, int allow_zero)
{
    if (allow_nil && strncmp(s, "(nil)", 5) == 0) {
        *v = 0;
        return 5;
    }
    if (allow_zero && s[0] == '0' && s[1] != 'x' && hexval(s[1]) < 0) {
        *v = 0;
        return 1;
    }
    if (s[0] != '0' || s[1] != 'x' || hexval(s[2]) < 0)
        return 0;
    uint64_t x = 0;
    size_t i = 2;
    for (; hexval(s[i]) >= 0; i++) {
        if (x >> 60)
            return (size_t)-1;
        x = (x << 4) | (uint64_t)hexval(s[i]);
    }
    *v = x;
    return i;
}

/* ---- callers ---- */

/* A caller as glibc prints it: "FILE:(SYMBOL+0xOFF)[0xADDR]", "FILE:[0xOFF]" or "[0xADDR]". */
struct caller {
    char object[256];
    char symbol[128];
    char offset[24];          /* "+0x1f" after the symbol, as printed or resolved */
    uint64_t addr;
    int has_addr;
};

static void copy_span(char *dst, size_t cap, const char *from, const char *to)
{
    size_t n = (size_t)(to - from);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, from, n);
    dst[n] = '\0';
}

/* The last occurrence of CH in [from, to), or NULL. */
static const char *last_of(const char *from, const char *to, char ch)
{
    while (to > from)
        if (*--to == ch)
            return to;
    return NULL;
}

static void parse_caller(const char *raw, size_t n, struct caller *k)
{
    memset(k, 0, sizeof *k);
    const char *end = raw + n, *lb = last_of(raw, end, '[');
    if (!lb)
        return;
    size_t m = parse_hex(lb + 1, &k->addr, 0, 0);
    k->has_addr = m != 0 && m != (size_t)-1 && lb + 1 + m < end && lb[1 + m] == ']';
    const char *head = lb;
    if (head > raw && head[-1] == ')') {
        const char *lp = last_of(raw, head - 1, '(');
        if (lp) {
            const char *plus = last_of(lp + 1, head - 1, '+'), *minus = last_of(lp + 1, head - 1, '-');
            const char *sign = plus > minus ? plus : minus;
            copy_span(k->symbol, sizeof k->symbol, lp + 1, sign ? sign : head - 1);
            if (sign)
                copy_span(k->offset, sizeof k->offset, sign, head - 1);
            head = lp;
        }
    }
    if (head > raw && head[-1] == ':')
        head--;
    copy_span(k->object, sizeof k->object, raw, head);
}

static char *dup_text(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* The symbols naming callers in object PATH: --symbols when its basename is PATH's, else PATH
 * itself. NULL when they cannot be read (loaded once per object). */
static const struct agb_elf_symbols *object_symbols(struct conv *c, const char *path)
{
    const char *file = path;
    if (c->opt.symbols && strcmp(base_name(c->opt.symbols), base_name(path)) == 0)
        file = c->opt.symbols;
    for (size_t i = 0; i < c->sites.nobjs; i++)
        if (strcmp(c->sites.objs[i].path, file) == 0)
            return c->sites.objs[i].ok ? &c->sites.objs[i].syms : NULL;
    struct objsyms *n = realloc(c->sites.objs, (c->sites.nobjs + 1) * sizeof *n);
    if (!n)
        return NULL;
    c->sites.objs = n;
    struct objsyms *o = &n[c->sites.nobjs];
    memset(o, 0, sizeof *o);
    o->path = dup_text(file, strlen(file));
    if (!o->path)
        return NULL;
    c->sites.nobjs++;
    char why[128];
    o->ok = agb_elf_symbols_load(file, &o->syms, why, sizeof why) == 0;
    return o->ok ? &o->syms : NULL;
}

/* Whether PAT names this caller: an address range "0xLO-0xHI", else a glob on the symbol, the
 * object's basename or NAME. */
static int pattern_matches(const char *pat, const struct caller *k, const char *name)
{
    unsigned long long lo, hi;
    char tail;
    if (sscanf(pat, "0x%llx-0x%llx%c", &lo, &hi, &tail) == 2)
        return k->has_addr && k->addr >= lo && k->addr < hi;
    return (k->symbol[0] && agb_glob_match(pat, k->symbol)) ||
           (k->object[0] && agb_glob_match(pat, base_name(k->object))) || agb_glob_match(pat, name);
}

static int caller_kept(const struct conv *c, const struct caller *k, const char *name)
{
    int keep = c->opt.caller_include_count == 0;
    for (size_t i = 0; i < c->opt.caller_include_count && !keep; i++)
        keep = pattern_matches(c->opt.caller_include[i], k, name);
    for (size_t i = 0; i < c->opt.caller_exclude_count && keep; i++)
        keep = !pattern_matches(c->opt.caller_exclude[i], k, name);
    return keep;
}

/* Fills a new site from its caller text: name (resolved from the object's symbols when glibc
 * printed none) and filter decision. */
static void site_init(struct conv *c, struct site *st)
{
    struct caller k;
    uint64_t off = 0;
    parse_caller(st->raw, strlen(st->raw), &k);
    if (!k.symbol[0] && k.object[0] && k.has_addr) {
        const struct agb_elf_symbols *syms = object_symbols(c, k.object);
        const char *sym = syms ? agb_elf_symbol_at(syms, k.addr, &off) : NULL;
        if (sym) {
            copy_span(k.symbol, sizeof k.symbol, sym, sym + strlen(sym));
            snprintf(k.offset, sizeof k.offset, "+%#llx", (unsigned long long)off);
        }
    }
    if (k.symbol[0])
        snprintf(st->name, sizeof st->name, "%.32s:%.40s%.20s", base_name(k.object), k.symbol, k.offset);
    else
        snprintf(st->name, sizeof st->name, "%.40s%s[%#llx]", base_name(k.object), k.object[0] ? ":" : "",
                 (unsigned long long)k.addr);
    st->keep = caller_kept(c, &k, st->name);
}

static int sites_grow_index(struct sites *t)
{
    size_t ncap = t->index_cap ? t->index_cap * 2 : 256;
    size_t *ix = malloc(ncap * sizeof *ix);
    if (!ix)
        return -1;
    for (size_t i = 0; i < ncap; i++)
        ix[i] = SIZE_MAX;
    for (size_t k = 0; k < t->n; k++) {
        size_t i = (size_t)hash_text(t->v[k].raw, strlen(t->v[k].raw)) & (ncap - 1);
        while (ix[i] != SIZE_MAX)
            i = (i + 1) & (ncap - 1);
        ix[i] = k;
    }
    free(t->index);
    t->index = ix;
    t->index_cap = ncap;
    return 0;
}

/* The site of caller text RAW (N bytes), created on first sight; SIZE_MAX when out of memory. */
static size_t site_of(struct conv *c, const char *raw, size_t n)
{
    struct sites *t = &c->sites;
    if ((t->n + 1) * 2 > t->index_cap && sites_grow_index(t))
        return SIZE_MAX;
    size_t mask = t->index_cap - 1;
    for (size_t i = (size_t)hash_text(raw, n) & mask;; i = (i + 1) & mask) {
        size_t k = t->index[i];
        if (k != SIZE_MAX) {
            if (strncmp(t->v[k].raw, raw, n) == 0 && t->v[k].raw[n] == '\0')
                return k;
            continue;
        }
        if (t->n == t->cap) {
            size_t ncap = t->cap ? t->cap * 2 : 64;
            struct site *v = realloc(t->v, ncap * sizeof *v);
            if (!v)
                return SIZE_MAX;
            t->v = v;
            t->cap = ncap;
        }
        struct site *st = &t->v[t->n];
        memset(st, 0, sizeof *st);
        st->raw = dup_text(raw, n);
        if (!st->raw)
            return SIZE_MAX;
        site_init(c, st);
        t->index[i] = t->n;
        return t->n++;
    }
}

/* Whether an allocation made from this line's caller is kept; counts it for the summary.
 * -1 when out of memory. */
static int allocation_kept(struct conv *c, const char *raw, size_t n, unsigned long size)
{
    if (!raw)
        return c->opt.caller_include_count == 0;
    size_t k = site_of(c, raw, n);
    if (k == SIZE_MAX)
        return -1;
    c->sites.v[k].allocs++;
    c->sites.v[k].bytes += size;
    return c->sites.v[k].keep;
}

/* The call sites with the most allocations, into the result. O(sites x AGB_MTRACE_TOP_CALLERS). */
static void top_callers(struct conv *c)
{
    const struct sites *t = &c->sites;
    size_t chosen[AGB_MTRACE_TOP_CALLERS] = {0};
    c->res.call_sites = (unsigned long)t->n;
    c->res.top_count = 0;
    for (size_t slot = 0; slot < AGB_MTRACE_TOP_CALLERS; slot++) {
        size_t best = SIZE_MAX;
        for (size_t k = 0; k < t->n; k++) {
            int taken = 0;
            for (size_t j = 0; j < slot; j++)
                taken |= chosen[j] == k;
            if (!taken && t->v[k].allocs && (best == SIZE_MAX || t->v[k].allocs > t->v[best].allocs))
                best = k;
        }
        if (best == SIZE_MAX)
            break;
        chosen[slot] = best;
        struct agb_mtrace_caller *o = &c->res.top[c->res.top_count++];
        snprintf(o->name, sizeof o->name, "%s", t->v[best].name);
        o->allocs = t->v[best].allocs;
        o->bytes = t->v[best].bytes;
        o->kept = t->v[best].keep;
    }
}

struct parsed {
    const char *caller;       /* the text after "@ ", up to its ']'; NULL: no caller */
    size_t caller_len;
    char op;
    uint64_t addr;
    uint64_t size;
    size_t op_col, addr_col, size_col;
};

/* Parses one event line. Returns 0 = event, 1 = ignorable line, -1 = error. */
static int parse_line(struct conv *c, const char *s, size_t len, unsigned long line, struct parsed *p)
{
    size_t i = 0;
    p->caller = NULL;
    p->caller_len = 0;
    if (len == 0 || s[0] == '=')
        return 1; /* "= Start", "= End", blank */
    if (s[0] == '@') {
        if (s[1] != ' ') {
            set_err(c, line, 2, "expected a space after '@'");
            return -1;
        }
        /* The caller ("FILE:(SYM+OFF)[0xOFF]" or "[0xADDR]") ends at the
         * last ']' of the line: the event part never contains one. */
        const char *rb = strrchr(s, ']');
        if (!rb) {
            set_err(c, line, 3, "caller after '@' has no closing ']'");
            return -1;
        }
        i = (size_t)(rb - s) + 1;
        p->caller = s + 2;
        p->caller_len = i - 2;
        if (s[i] != ' ') {
            set_err(c, line, i + 1, "expected a space after the caller");
            return -1;
        }
        i++;
    }
    p->op = s[i];
    p->op_col = i + 1;
    if (!strchr("+-<>!", p->op) || p->op == '\0') {
        set_err(c, line, i + 1, "unknown mtrace event '%c' (expected one of + - < > !)", p->op ? p->op : '?');
        return -1;
    }
    if (s[i + 1] != ' ') {
        set_err(c, line, i + 2, "expected a space after '%c'", p->op);
        return -1;
    }
    i += 2;
    p->addr_col = i + 1;
    /* glibc prints a null pointer as "(nil)": in '+' (a failed malloc), '-' (free(NULL)) and
     * '!' (a failed realloc(NULL, n)). Its '<' and '>' always name a real block. */
    size_t n = parse_hex(s + i, &p->addr, p->op == '+' || p->op == '-' || p->op == '!', 0);
    if (n == 0 || n == (size_t)-1) {
        set_err(c, line, i + 1, n ? "address does not fit in 64 bits" : "expected a hexadecimal address (0x...)");
        return -1;
    }
    if (p->addr == 0 && strncmp(s + i, "(nil)", 5) != 0) {
        /* "0x0", "0x000", ...: no block lives at 0, and 0 marks an empty slot of the map. */
        set_err(c, line, i + 1, "null address must be written (nil)");
        return -1;
    }
    i += n;
    p->size = 0;
    p->size_col = 0;
    if (p->op == '+' || p->op == '>' || p->op == '!') {
        /* s is NUL-terminated by read_line: s[i] is at most its terminator. */
        if (s[i] != ' ') { /* NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult) */
            set_err(c, line, i + 1, "expected a space and a size after the address");
            return -1;
        }
        i++;
        p->size_col = i + 1;
        n = parse_hex(s + i, &p->size, 0, 1);
        if (n == 0 || n == (size_t)-1) {
            set_err(c, line, i + 1, n ? "size does not fit in 64 bits" : "expected a hexadecimal size (0x...)");
            return -1;
        }
        i += n;
    }
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    if (i != len) {
        set_err(c, line, i + 1, "unexpected text after the event");
        return -1;
    }
    return 0;
}

/* ---- output ---- */

/* The converter's figures, one line in the trace's "mtrace" member. */
static void write_stats(struct agbsim_json *w, const struct conv *c)
{
    const struct agb_mtrace_result *r = &c->res;
    const struct {
        const char *key;
        unsigned long v;
    } figures[] = {
        {"events_in", r->mtrace_events},           {"skipped", r->skipped},
        {"dropped_unknown_frees", r->dropped_unknown_frees},
        {"unknown_reallocs", r->unknown_reallocs}, {"dropped_failed", r->dropped_failed},
        {"zero_sizes", r->zero_sizes},             {"implicit_frees", r->implicit_frees},
        {"peak_live_bytes", r->peak_live_bytes},   {"peak_live_count", r->peak_live_count},
    };
    agbsim_json_object(w, AGBSIM_JSON_INLINE);
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
        agbsim_json_member_u64(w, figures[i].key, figures[i].v);
    }
    agbsim_json_key(w, "truncated");
    agbsim_json_bool(w, r->truncated);
    if (r->frames) {
        agbsim_json_member_u64(w, "frames", r->frames);
        agbsim_json_member_u64(w, "load_frames", r->load_frames);
    }
    if (c->opt.caller_include_count || c->opt.caller_exclude_count) {
        agbsim_json_member_u64(w, "filtered_allocs", r->filtered_allocs);
        agbsim_json_member_u64(w, "filtered_frees", r->filtered_frees);
        agbsim_json_member_u64(w, "filtered_reallocs", r->filtered_reallocs);
    }
    if (c->opt.max_live) {
        agbsim_json_member_u64(w, "max_live", c->opt.max_live);
    }
    if (r->truncated) {
        agbsim_json_member_u64(w, "truncated_at_line", r->truncated_at_line);
    }
    agbsim_json_end(w);
}

static int write_trace(struct conv *c, FILE *out)
{
    static const char *const op_name[] = {[EV_ALLOC] = "alloc", [EV_FREE] = "free",
                                          [EV_REALLOC] = "realloc", [EV_FRAME] = "frame",
                                          [EV_FRAME_LOAD] = "frame"};
    struct agbsim_json w;
    agbsim_json_init(&w, out);
    agbsim_json_object(&w, AGBSIM_JSON_LINES);
    agbsim_json_member_u32(&w, "version", 1);
    agbsim_json_member_string(&w, "arena", c->opt.arena);
    agbsim_json_member_u64(&w, "arena_bytes", c->opt.arena_bytes);
    agbsim_json_member_string(&w, "name", c->opt.name);
    if (c->opt.source) {
        agbsim_json_member_string(&w, "source", c->opt.source);
    }
    agbsim_json_key(&w, "mtrace");
    write_stats(&w, c);
    agbsim_json_key(&w, "events");
    agbsim_json_array(&w, AGBSIM_JSON_ROWS);
    for (size_t i = 0; i < c->nev; i++) {
        const struct ev *e = &c->evs[i];
        agbsim_json_array(&w, AGBSIM_JSON_COMPACT);
        agbsim_json_string(&w, op_name[e->op]);
        if (e->op == EV_FRAME_LOAD)
            agbsim_json_string(&w, "load");
        else if (e->op != EV_FRAME)
            agbsim_json_u64(&w, e->id);
        if (e->op == EV_ALLOC || e->op == EV_REALLOC)
            agbsim_json_u64(&w, e->size);
        agbsim_json_end(&w);
    }
    agbsim_json_end(&w);
    agbsim_json_end(&w);
    agbsim_json_finish(&w);
    return (fflush(out) || ferror(out)) ? -1 : 0;
}

void agb_mtrace_options_init(struct agb_mtrace_options *opt)
{
    memset(opt, 0, sizeof *opt);
}

/* The end of input: a '<' must not be left open; the final figures. */
static int finish(struct conv *c, int have_old, unsigned long old_line)
{
    if (have_old) {
        set_err(c, old_line, 1, "'<' (realloc) without the following '>' line");
        return AGB_MTRACE_EPARSE;
    }
    top_callers(c);
    c->res.final_live_bytes = c->live;
    c->res.final_live_count = c->live_count;
    c->res.ids_used = (unsigned long)c->nids;
    return AGB_MTRACE_OK;
}

/* The next line into c->buf: 1 with *line its number, or 0 with *status AGB_MTRACE_OK at the end
 * of the input, else the AGB_MTRACE_* error (set_err says why). (A status of its own, as
 * AGB_MTRACE_EPARSE is 1 too.) */
static int next_line(struct conv *c, FILE *in, size_t *len, unsigned long *line, int *status)
{
    int r = read_line(c, in, len);
    *status = AGB_MTRACE_OK;
    if (r == 1) {
        *line = ++c->res.lines;
        if (!memchr(c->buf, '\0', *len))
            return 1;
        set_err(c, *line, strlen(c->buf) + 1, "NUL byte in input (not a text file?)");
        *status = AGB_MTRACE_EPARSE;
    } else if (r == NOMEM) {
        *status = AGB_MTRACE_ENOMEM;
    } else if (r == TOO_LONG) {
        set_err(c, c->res.lines + 1, MAX_LINE, "line longer than %lu bytes (not an mtrace log?)",
                (unsigned long)MAX_LINE - 1);
        *status = AGB_MTRACE_EPARSE;
    } else if (r == TOO_BIG) {
        set_err(c, 0, 0, "larger than %lu bytes, the most agbsim reads from one input",
                c->max_bytes);
        *status = AGB_MTRACE_EPARSE;
    } else if (r < 0) {
        set_err(c, 0, 0, "read error");
        *status = AGB_MTRACE_EIO;
    }
    return 0;
}

static int is_frame_mark(uint64_t size)
{
    return size == AGB_MTRACE_FRAME_SIZE64 || size == AGB_MTRACE_FRAME_SIZE64 + 1 ||
           size == AGB_MTRACE_FRAME_SIZE32 || size == AGB_MTRACE_FRAME_SIZE32 + 1;
}

/* A frame mark (AGBSIM_FRAME / AGBSIM_LOAD_FRAME): a frame event. */
static int frame_mark(struct conv *c, uint64_t size)
{
    int load = (size & 1u) != 0;
    if (push_ev(c, load ? EV_FRAME_LOAD : EV_FRAME, 0, 0))
        return NOMEM;
    if (load)
        c->res.load_frames++;
    c->res.frames++;
    return 0;
}

/* One complete mtrace event (a '>' with the address of its '<' in old_addr) into the trace.
 * Returns AGB_MTRACE_OK or the error. */
static int apply_event(struct conv *c, const struct parsed *p, uint64_t old_addr,
                       unsigned long line)
{
    unsigned long size = p->size > 0xffffffffUL ? 0xffffffffUL /* rejected by the arena check */
                                                : (unsigned long)p->size;
    int rr = 0, keep = 1;
    if ((p->op == '+' && p->addr != 0) || p->op == '>') {
        keep = allocation_kept(c, p->caller, p->caller_len, size);
        if (keep < 0)
            return AGB_MTRACE_ENOMEM;
    }
    switch (p->op) {
    case '+':
        if (p->addr == 0 && is_frame_mark(p->size))
            rr = c->stopped ? 0 : frame_mark(c, p->size);
        else if (p->addr == 0)
            c->res.dropped_failed++;
        else if (!c->stopped)
            rr = ev_alloc(c, p->addr, size, line, p->size_col, keep);
        break;
    case '-':
        if (p->addr != 0 && !c->stopped)
            rr = ev_free(c, p->addr);
        break;
    case '!':
        c->res.dropped_failed++;
        break;
    case '>':
        if (!c->stopped)
            rr = ev_realloc(c, old_addr, p->addr, size, line, p->size_col, keep);
        break;
    default:
        break;
    }
    if (rr == NOMEM)
        return AGB_MTRACE_ENOMEM;
    return rr ? AGB_MTRACE_EPARSE : AGB_MTRACE_OK;
}

static int convert(struct conv *c, FILE *in)
{
    int have_old = 0;
    uint64_t old_addr = 0;
    unsigned long old_line = 0, line = 0;
    struct parsed p;
    for (;;) {
        size_t len = 0;
        int status, r;
        if (!next_line(c, in, &len, &line, &status))
            return status == AGB_MTRACE_OK ? finish(c, have_old, old_line) : status;
        /* c->buf stays owned by the conv: agb_mtrace_convert frees it on every path. */
        r = parse_line(c, c->buf, len, line, &p); /* NOLINT(clang-analyzer-unix.Malloc) */
        if (r < 0)
            return AGB_MTRACE_EPARSE;
        if (r > 0)
            continue;
        if (have_old && p.op != '>') {
            set_err(c, line, p.op_col, "expected '>' completing the realloc started by '<' on line %lu", old_line);
            return AGB_MTRACE_EPARSE;
        }
        if (p.op == '<') {
            have_old = 1;
            old_addr = p.addr;
            old_line = line;
            continue;
        }
        if (p.op == '>' && !have_old) {
            set_err(c, line, p.op_col, "'>' without a preceding '<'");
            return AGB_MTRACE_EPARSE;
        }
        have_old = 0;
        c->res.mtrace_events++;
        if (c->res.mtrace_events <= c->opt.skip_events) {
            c->res.skipped++;
            continue;
        }
        r = apply_event(c, &p, old_addr, line);
        if (r != AGB_MTRACE_OK)
            return r;
    }
}

int agb_mtrace_convert(FILE *in, const char *in_name, FILE *out,
                       const struct agb_mtrace_options *opt,
                       struct agb_mtrace_result *res, char *err, size_t errlen)
{
    struct conv c;
    memset(&c, 0, sizeof c);
    c.in_name = in_name ? in_name : "<input>";
    c.err = err;
    c.errlen = err ? errlen : 0;
    if (c.errlen)
        err[0] = '\0';
    if (opt)
        c.opt = *opt;
    if (!c.opt.name)
        c.opt.name = "mtrace";
    if (!c.opt.arena)
        c.opt.arena = "ewram";
    if (!c.opt.arena_bytes)
        c.opt.arena_bytes = DEFAULT_ARENA_BYTES;
    c.max_bytes = c.opt.max_bytes ? c.opt.max_bytes : AGB_MTRACE_MAX_BYTES;

    int rc = convert(&c, in);
    if (rc == AGB_MTRACE_ENOMEM)
        set_err(&c, 0, 0, "out of memory");
    if (rc == AGB_MTRACE_OK && write_trace(&c, out)) {
        set_err(&c, 0, 0, "write error on output");
        rc = AGB_MTRACE_EIO;
    }
    if (res)
        *res = c.res;
    free(c.map.slots);
    sites_release(&c.sites);
    free(c.sizes);
    free(c.free_ids);
    free(c.evs);
    free(c.buf);
    return rc;
}
