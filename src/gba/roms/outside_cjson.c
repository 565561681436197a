/* outside_cjson.c — cJSON 1.7.15 (third_party/cjson-1.7.15, unmodified) on the GBA: parses five
 * of cJSON's own test documents (json.org's examples), prints each back formatted (the text
 * cJSON's tests expect: tests/gba/outside_check.py compares) and minified, then frees the trees.
 * The same objects are linked with newlib's malloc and with -lagbmalloc. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cJSON.h"

extern const char outside_json[];
extern const char outside_json_end[];

static int count_items(const cJSON *item)
{
	int n = 0;
	for (; item != NULL; item = item->next)
		n += 1 + count_items(item->child);
	return n;
}

int main(void)
{
	int doc = 0, failures = 0;
	/* Two linker symbols: compared as addresses. */
	for (const char *p = outside_json; (uintptr_t)p < (uintptr_t)outside_json_end;
	     p += strlen(p) + 1) {
		doc++;
		cJSON *root = cJSON_Parse(p);
		if (root == NULL) {
			printf("cjson: document %d: parse error near '%.20s'\n", doc, cJSON_GetErrorPtr());
			failures++;
			continue;
		}
		char *text = cJSON_Print(root);
		char *mini = cJSON_PrintUnformatted(root);
		printf("cjson: document %d: %d items, formatted %u bytes, minified %u bytes\n", doc,
		       count_items(root), text ? (unsigned)strlen(text) : 0u,
		       mini ? (unsigned)strlen(mini) : 0u);
		printf("=== document %d\n%s\n=== end\n", doc, text ? text : "(no memory)");
		cJSON *copy = cJSON_Duplicate(root, 1);
		if (copy == NULL || !cJSON_Compare(root, copy, 1)) {
			printf("cjson: document %d: duplicate differs\n", doc);
			failures++;
		}
		cJSON_Delete(copy);
		cJSON_free(mini);
		cJSON_free(text);
		cJSON_Delete(root);
	}
	printf("cjson: %d documents, %d failures\n", doc, failures);
	return failures;
}
