/* output_file.h on POSIX systems. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* realpath, fchown, O_CLOEXEC */
#endif
#include "platform/output_file.h"
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A new file next to FINAL, made with O_CREAT|O_EXCL under a name no other run picks
 * (".NAME.PID.COUNTER.RANDOM.tmp": a planted name is skipped, never opened), mode 0666 less the
 * umask. Returns its descriptor with *tmp its malloc'd path, or -1 with errno set. */
static int make_temp(const char *final, char **tmp)
{
	static unsigned counter;
	const char *sep = strrchr(final, '/');
	size_t dirlen = sep != NULL ? (size_t)(sep - final) + 1 : 0;
	const char *base = final + dirlen;
	size_t n = strlen(final) + 64;
	struct timespec ts;
	char *p = malloc(n);
	if (p == NULL) {
		errno = ENOMEM;
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	uint32_t seed = (uint32_t)ts.tv_nsec ^ ((uint32_t)getpid() << 16) ^ (uint32_t)(uintptr_t)p;
	for (int tries = 0; tries < 100; tries++) {
		seed = seed * 1664525u + 1013904223u; /* any value will do: O_EXCL makes it safe */
		snprintf(p, n, "%.*s.%s.%ld.%u.%08x.tmp", (int)dirlen, final, base, (long)getpid(),
			 counter++, (unsigned)seed);
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd >= 0) {
			*tmp = p;
			return fd;
		}
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	free(p);
	errno = e;
	return -1;
}

/* An existing regular file the caller may write; refused like a shell's `>` refuses it, and
 * also when it has no write bit at all (root passes access() but must not replace it). */
static int writable(const char *path, const struct stat *st)
{
	if (access(path, W_OK) != 0)
		return errno;
	return (st->st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 ? EACCES : 0;
}

int agb_out_platform_open(struct agb_out_file *o, const char *path)
{
	struct stat st;
	int exists = 1, err;
	if (lstat(path, &st) != 0) {
		if (errno != ENOENT)
			return errno;
		exists = 0;
	} else if (S_ISLNK(st.st_mode)) {
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			if (S_ISDIR(st.st_mode))
				return EISDIR;
			goto through; /* dangling, or a link to a device or FIFO */
		}
	} else if (S_ISDIR(st.st_mode)) {
		return EISDIR;
	} else if (!S_ISREG(st.st_mode)) {
		goto through;
	}
	o->final = exists ? realpath(path, NULL) : strdup(path);
	if (o->final == NULL)
		return errno != 0 ? errno : ENOMEM;
	if (exists && (err = writable(o->final, &st)) != 0)
		return err;
	if (!exists || st.st_nlink <= 1) {
		int fd = make_temp(o->final, &o->tmp);
		if (fd >= 0) {
			if (exists) {
				/* Owner first: chown clears set-id bits, the chmod puts them back. */
				(void)fchown(fd, st.st_uid, st.st_gid);
				if (fchmod(fd, st.st_mode & 07777) != 0) {
					err = errno;
					close(fd);
					remove(o->tmp);
					return err;
				}
			}
			o->f = fdopen(fd, "wb");
			if (o->f == NULL) {
				err = errno;
				close(fd);
				remove(o->tmp);
				return err;
			}
			o->mode = AGB_OUT_REPLACE;
			return 0;
		}
		if (!exists)
			return errno;
		/* A directory where only OUT is writable: copy in below. */
	}
	o->mode = AGB_OUT_COPY_IN;
	o->f = agb_spool_file();
	if (o->f != NULL)
		return 0;
	free(o->final);
	o->final = NULL;
through:
	o->mode = AGB_OUT_THROUGH;
	o->f = fopen(path, "wb");
	return o->f != NULL ? 0 : errno != 0 ? errno : EIO;
}

int agb_out_platform_replace(const char *tmp, const char *final)
{
	return rename(tmp, final) == 0 ? 0 : errno;
}

int agb_out_platform_sync(FILE *f)
{
	return fsync(fileno(f)) == 0 ? 0 : errno;
}

#include "platform/path_link.h"

int agb_path_is_link(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}
