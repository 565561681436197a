/* Whole-or-nothing outputs: what both systems share (output_file.h has the policy). */
#include "platform/output_file.h"

#include <errno.h>
#include <stdlib.h>

int agb_out_open(struct agb_out_file *o, const char *path)
{
	*o = (struct agb_out_file){0};
	int err = agb_out_platform_open(o, path);
	if (err != 0) {
		free(o->final);
		free(o->tmp);
		*o = (struct agb_out_file){0};
	}
	return err;
}

/* Flushes F and reports its first error (a full device reports ENOSPC here), then syncs it to
 * disk when asked (a stream that cannot be synced, e.g. a pipe, is not an error). */
static int flush_stream(FILE *f, int sync)
{
	int err = 0, e;
	errno = 0;
	if (fflush(f) != 0 || ferror(f))
		err = errno != 0 ? errno : EIO;
	if (err == 0 && sync && (e = agb_out_platform_sync(f)) != 0 && e != EINVAL)
		err = e;
	return err;
}

static int close_stream(FILE *f, int err)
{
	errno = 0;
	if (fclose(f) != 0 && err == 0)
		err = errno != 0 ? errno : EIO;
	return err;
}

/* Copies the spool (read from its start) into FINAL, truncated first. 0 or errno. */
static int copy_in(FILE *spool, const char *final)
{
	char buf[65536];
	size_t n;
	int err = 0;
	errno = 0;
	if (fseek(spool, 0, SEEK_SET) != 0)
		return errno != 0 ? errno : EIO;
	FILE *out = fopen(final, "wb");
	if (out == NULL)
		return errno != 0 ? errno : EIO;
	while (err == 0 && (n = fread(buf, 1, sizeof buf, spool)) != 0)
		if (fwrite(buf, 1, n, out) != n)
			err = errno != 0 ? errno : EIO;
	if (err == 0 && ferror(spool))
		err = EIO;
	if (err == 0)
		err = flush_stream(out, 1);
	return close_stream(out, err);
}

int agb_out_close(struct agb_out_file *o, int keep)
{
	int err = 0;
	if (o->f == NULL)
		return 0;
	if (keep)
		err = flush_stream(o->f, o->mode == AGB_OUT_REPLACE);
	if (keep && err == 0 && o->mode == AGB_OUT_COPY_IN)
		err = copy_in(o->f, o->final);
	err = close_stream(o->f, err);
	if (o->mode == AGB_OUT_REPLACE) {
		if (keep && err == 0)
			err = agb_out_platform_replace(o->tmp, o->final);
		if (!keep || err != 0)
			(void)remove(o->tmp);
	}
	free(o->final);
	free(o->tmp);
	*o = (struct agb_out_file){0};
	return err;
}
