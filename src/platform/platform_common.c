/* The parts of platform.h both systems implement the same way (platform_internal.h). */
#include "platform/platform_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *agb_platform_command_line(const char *const *argv, char quote, const char *refuse,
				const char *outer)
{
	size_t n = 2 * strlen(outer) + 1, k = 0;
	char *cmd;
	for (size_t i = 0; argv[i] != NULL; i++) {
		if (strchr(argv[i], quote) != NULL || strpbrk(argv[i], refuse) != NULL)
			return NULL;
		n += strlen(argv[i]) + 3;
	}
	cmd = malloc(n);
	if (cmd == NULL)
		return NULL;
	k += (size_t)snprintf(cmd, n, "%s", outer);
	for (size_t i = 0; argv[i] != NULL; i++)
		k += (size_t)snprintf(cmd + k, n - k, "%s%c%s%c", i != 0 ? " " : "", quote, argv[i], quote);
	snprintf(cmd + k, n - k, "%s", outer);
	return cmd;
}

int agb_platform_memstream_finish(struct agb_memstream *m, int err)
{
	if (fclose(m->f) != 0 && err == 0)
		err = errno != 0 ? errno : EIO;
	m->f = NULL;
	if (err != 0) {
		free(m->data);
		m->data = NULL;
		m->len = 0;
	}
	return err;
}
