/* What platform_posix.c and platform_win32.c share (platform_common.c); not for other callers. */
#ifndef AGB_PLATFORM_INTERNAL_H
#define AGB_PLATFORM_INTERNAL_H

#include "platform/platform.h"

/* argv joined into one shell command line, each argument between two `quote` characters and the
 * whole line between `outer` and `outer` (may be ""). NULL when an argument holds a character of
 * `refuse` (it could not be quoted) or memory runs out; else malloc'd, to free. */
char *agb_platform_command_line(const char *const *argv, char quote, const char *refuse,
				const char *outer);

/* The end of agb_memstream_close: closes m->f, keeping err (the first error so far, or 0) or
 * the close's; on an error frees and clears m->data. Returns that error. */
int agb_platform_memstream_finish(struct agb_memstream *m, int err);

#endif
