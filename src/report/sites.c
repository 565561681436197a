/* Call sites grouped (sites.h). */
#include "report/sites.h"

#include <stdlib.h>
#include <string.h>

#include "trace/trace_load.h"

const char *agbsim_trace_site(const void *ctx, const struct agb_trace *t, uint32_t event)
{
	(void)ctx;
	return agb_trace_event_site(t, event);
}

/* The entry of site s in tot[0..*n), added when new (up to cap). */
static struct agbsim_site_total *site_entry(struct agbsim_site_total *tot, size_t *n, size_t cap,
					    const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(tot[i].site, s) == 0)
			return &tot[i];
	if (*n == cap)
		return NULL;
	tot[*n] = (struct agbsim_site_total){.site = s};
	return &tot[(*n)++];
}

static int by_bytes(const void *a, const void *b)
{
	const struct agbsim_site_total *x = a, *y = b;
	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : strcmp(x->site, y->site);
}

static int by_live_bytes(const void *a, const void *b)
{
	const struct agbsim_site_total *x = a, *y = b;
	return x->live_bytes < y->live_bytes ? 1 : x->live_bytes > y->live_bytes
						     ? -1
						     : strcmp(x->site, y->site);
}

size_t agbsim_top_sites(const struct agb_trace *t, agbsim_site_fn site, const void *ctx,
			int by_live, struct agbsim_site_total *out, size_t max)
{
	size_t cap = 4096, n = 0, kept = 0;
	struct agbsim_site_total *tot = calloc(cap, sizeof *tot);
	/* Per slot: the site and bytes of the live block it holds (NULL: none live). */
	const char **slot_site = calloc((size_t)t->slots + 1u, sizeof *slot_site);
	uint32_t *slot_bytes = calloc((size_t)t->slots + 1u, sizeof *slot_bytes);
	if (tot == NULL || slot_site == NULL || slot_bytes == NULL)
		goto out;
	for (uint32_t i = 0; i < t->event_count; i++) {
		const struct agb_event *e = &t->events[i];
		const char *s;
		struct agbsim_site_total *x;
		if (e->op == AGB_OP_FREE && e->slot < t->slots) {
			slot_site[e->slot] = NULL;
			continue;
		}
		if ((e->op != AGB_OP_ALLOC && e->op != AGB_OP_REALLOC) || e->slot >= t->slots)
			continue;
		s = site(ctx, t, i);
		if (s == NULL)
			continue;
		x = site_entry(tot, &n, cap, s);
		if (x == NULL)
			continue;
		x->bytes += e->size;
		x->count++;
		slot_site[e->slot] = s;
		slot_bytes[e->slot] = e->size;
	}
	for (uint32_t k = 0; k < t->slots; k++) {
		struct agbsim_site_total *x;
		if (slot_site[k] == NULL)
			continue;
		x = site_entry(tot, &n, cap, slot_site[k]);
		if (x != NULL) {
			x->live_bytes += slot_bytes[k];
			x->live_count++;
		}
	}
	if (n > 1)
		qsort(tot, n, sizeof *tot, by_live ? by_live_bytes : by_bytes);
	for (size_t i = 0; i < n && kept < max; i++)
		if (!by_live || tot[i].live_bytes != 0)
			out[kept++] = tot[i];
out:
	free(tot);
	free(slot_site);
	free(slot_bytes);
	return kept;
}
