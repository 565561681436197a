/* names.c — a C library the C++ game uses that allocates with malloc on its own (as a JSON or
 * script library would): under the drop-in heap its blocks come from the same heap as new's. */
#include <stdlib.h>
#include <string.h>

#include "names.h"

char *names_join(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = malloc(na + nb + 2);
	if (s == NULL)
		return NULL;
	memcpy(s, a, na);
	s[na] = ' ';
	memcpy(s + na + 1, b, nb + 1);
	return s;
}
