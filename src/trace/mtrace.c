/* mtrace.c - convert a glibc mtrace log into an agbsim v1 trace (JSON).
 * See mtrace.h for the accepted input and the produced output. */
#include "mtrace.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ARENA_BYTES 262144UL
#define MAX_ID 0x7fffffffUL
#define MAX_LINE ((size_t)1 << 16) /* line buffer cap: a longer line is an error */

enum ev_op { EV_ALLOC, EV_FREE, EV_REALLOC };

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

/* Returns the slot index holding KEY, or (size_t)-1. */
static size_t map_find(const struct addrmap *m, uint64_t key)
{
    if (!m->cap)
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

/* ---- converter state ---- */
struct conv {
    const char *in_name;
    char *err;
    size_t errlen;
    struct agb_mtrace_options opt;
    struct agb_mtrace_result res;
    struct addrmap map;
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

static int ev_alloc(struct conv *c, uint64_t addr, unsigned long size, unsigned long line, size_t size_col)
{
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
                      unsigned long line, size_t size_col)
{
    size_t slot = map_find(&c->map, old);
    if (slot == (size_t)-1) {
        /* Block allocated before tracing started (or skipped): from here on
         * it is a new allocation of SIZE bytes. */
        if (c->stopped)
            return 0;
        unsigned long before = c->res.allocs;
        int r = ev_alloc(c, addr, size, line, size_col);
        if (c->res.allocs != before)
            c->res.unknown_reallocs++;
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

struct parsed {
    char op;
    uint64_t addr;
    uint64_t size;
    size_t op_col, addr_col, size_col;
};

/* Parses one event line. Returns 0 = event, 1 = ignorable line, -1 = error. */
static int parse_line(struct conv *c, const char *s, size_t len, unsigned long line, struct parsed *p)
{
    size_t i = 0;
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
    size_t n = parse_hex(s + i, &p->addr, p->op == '+' || p->op == '-', 0);
    if (n == 0 || n == (size_t)-1) {
        set_err(c, line, i + 1, n ? "address does not fit in 64 bits" : "expected a hexadecimal address (0x...)");
        return -1;
    }
    if (p->addr == 0 && n != 5) {
        set_err(c, line, i + 1, "null address must be written (nil)");
        return -1;
    }
    i += n;
    p->size = 0;
    p->size_col = 0;
    if (p->op == '+' || p->op == '>' || p->op == '!') {
        if (s[i] != ' ') {
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

static void put_json_string(FILE *out, const char *s)
{
    putc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", (unsigned)*p);
            else
                putc((int)*p, out);
        }
    }
    putc('"', out);
}

static int write_trace(struct conv *c, FILE *out)
{
    const struct agb_mtrace_result *r = &c->res;
    fputs("{\n  \"version\": 1,\n  \"arena\": ", out);
    put_json_string(out, c->opt.arena);
    fprintf(out, ",\n  \"arena_bytes\": %lu,\n  \"name\": ", c->opt.arena_bytes);
    put_json_string(out, c->opt.name);
    if (c->opt.source) {
        fputs(",\n  \"source\": ", out);
        put_json_string(out, c->opt.source);
    }
    fprintf(out,
            ",\n  \"mtrace\": {\"events_in\": %lu, \"skipped\": %lu, \"dropped_unknown_frees\": %lu, "
            "\"unknown_reallocs\": %lu, \"dropped_failed\": %lu, \"zero_sizes\": %lu, \"implicit_frees\": %lu, "
            "\"peak_live_bytes\": %lu, \"peak_live_count\": %lu, \"truncated\": %s",
            r->mtrace_events, r->skipped, r->dropped_unknown_frees, r->unknown_reallocs, r->dropped_failed,
            r->zero_sizes, r->implicit_frees, r->peak_live_bytes, r->peak_live_count,
            r->truncated ? "true" : "false");
    if (c->opt.max_live)
        fprintf(out, ", \"max_live\": %lu", c->opt.max_live);
    if (r->truncated)
        fprintf(out, ", \"truncated_at_line\": %lu", r->truncated_at_line);
    fputs("},\n  \"events\": [\n", out);
    for (size_t i = 0; i < c->nev; i++) {
        const struct ev *e = &c->evs[i];
        const char *sep = (i + 1 < c->nev) ? "," : "";
        switch (e->op) {
        case EV_ALLOC: fprintf(out, "[\"alloc\",%lu,%lu]%s\n", (unsigned long)e->id, (unsigned long)e->size, sep); break;
        case EV_FREE: fprintf(out, "[\"free\",%lu]%s\n", (unsigned long)e->id, sep); break;
        default: fprintf(out, "[\"realloc\",%lu,%lu]%s\n", (unsigned long)e->id, (unsigned long)e->size, sep); break;
        }
    }
    fputs("  ]\n}\n", out);
    return (fflush(out) || ferror(out)) ? -1 : 0;
}

void agb_mtrace_options_init(struct agb_mtrace_options *opt)
{
    memset(opt, 0, sizeof *opt);
}

static int convert(struct conv *c, FILE *in)
{
    int have_old = 0;
    uint64_t old_addr = 0;
    unsigned long old_line = 0;
    struct parsed p;
    for (;;) {
        size_t len = 0;
        int r = read_line(c, in, &len);
        if (r == NOMEM)
            return AGB_MTRACE_ENOMEM;
        if (r == TOO_LONG) {
            set_err(c, c->res.lines + 1, MAX_LINE, "line longer than %lu bytes (not an mtrace log?)",
                    (unsigned long)MAX_LINE - 1);
            return AGB_MTRACE_EPARSE;
        }
        if (r == TOO_BIG) {
            set_err(c, 0, 0, "larger than %lu bytes, the most agbsim reads from one input",
                    c->max_bytes);
            return AGB_MTRACE_EPARSE;
        }
        if (r < 0) {
            set_err(c, 0, 0, "read error");
            return AGB_MTRACE_EIO;
        }
        if (r == 0)
            break;
        unsigned long line = ++c->res.lines;
        if (memchr(c->buf, '\0', len)) {
            set_err(c, line, strlen(c->buf) + 1, "NUL byte in input (not a text file?)");
            return AGB_MTRACE_EPARSE;
        }
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
        c->res.mtrace_events++;
        if (c->res.mtrace_events <= c->opt.skip_events) {
            c->res.skipped++;
            have_old = 0;
            continue;
        }
        if (p.size > 0xffffffffUL)
            p.size = 0xffffffffUL; /* rejected by the arena check below */
        unsigned long size = (unsigned long)p.size;
        int rr = 0;
        switch (p.op) {
        case '+':
            if (p.addr == 0)
                c->res.dropped_failed++;
            else if (!c->stopped)
                rr = ev_alloc(c, p.addr, size, line, p.size_col);
            break;
        case '-':
            if (p.addr != 0 && !c->stopped)
                rr = ev_free(c, p.addr);
            break;
        case '!':
            c->res.dropped_failed++;
            break;
        case '>':
            have_old = 0;
            if (!c->stopped)
                rr = ev_realloc(c, old_addr, p.addr, size, line, p.size_col);
            break;
        default:
            break;
        }
        if (rr == NOMEM)
            return AGB_MTRACE_ENOMEM;
        if (rr)
            return AGB_MTRACE_EPARSE;
    }
    if (have_old) {
        set_err(c, old_line, 1, "'<' (realloc) without the following '>' line");
        return AGB_MTRACE_EPARSE;
    }
    c->res.final_live_bytes = c->live;
    c->res.final_live_count = c->live_count;
    c->res.ids_used = (unsigned long)c->nids;
    return AGB_MTRACE_OK;
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
    free(c.sizes);
    free(c.free_ids);
    free(c.evs);
    free(c.buf);
    return rc;
}
