/* platform.h on Linux and other POSIX systems. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream, realpath, lstat, fsync, MAP_FIXED_NOREPLACE */
#endif
#include "platform/platform_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void agb_platform_init(void)
{
	signal(SIGPIPE, SIG_IGN);
}

double agb_now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

unsigned agb_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n <= 0 ? 1u : n > 4096 ? 4096u : (unsigned)n;
}

struct thread_job {
	void (*fn)(void *);
	void *arg;
};

static void *thread_main(void *p)
{
	const struct thread_job *job = p;
	job->fn(job->arg);
	return NULL;
}

unsigned agb_run_threads(unsigned n, void (*fn)(void *arg), void *arg)
{
	struct thread_job job = {fn, arg};
	pthread_t *tid = calloc((size_t)n + 1u, sizeof *tid); /* +1: never calloc(0) */
	unsigned started = 0;
	if (tid == NULL)
		return 0;
	for (; started < n; started++)
		if (pthread_create(&tid[started], NULL, thread_main, &job) != 0)
			break;
	for (unsigned k = 0; k < started; k++)
		pthread_join(tid[k], NULL);
	free(tid);
	return started;
}

enum agb_path_kind agb_path_kind(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return AGB_PATH_MISSING;
	return S_ISREG(sb.st_mode) ? AGB_PATH_FILE : S_ISDIR(sb.st_mode) ? AGB_PATH_DIR : AGB_PATH_OTHER;
}

int agb_dir_list(const char *dir, int (*each)(void *ctx, const char *name), void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (d == NULL)
		return errno;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && each(ctx, e->d_name))
			break;
	closedir(d);
	return 0;
}

int agb_open_errno(const char *path, int err)
{
	(void)path;
	return err;
}

int agb_path_is_sep(char c)
{
	return c == '/';
}

const char *agb_path_last_sep(const char *path)
{
	return strrchr(path, '/');
}

int agb_path_is_absolute(const char *path)
{
	return path[0] == '/';
}

int agb_self_dir(char *buf, size_t n)
{
	ssize_t len;
	char *slash;
	if (n < 2)
		return -1;
	len = readlink("/proc/self/exe", buf, n - 1);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	slash = strrchr(buf, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	return 0;
}

const char *agb_replace_target(const char *path, char **resolved)
{
	struct stat st;
	*resolved = NULL;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? path : NULL;
	if (S_ISREG(st.st_mode))
		return path;
	if (!S_ISLNK(st.st_mode) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	*resolved = realpath(path, NULL);
	return *resolved;
}

int agb_file_replace(const char *tmp, const char *final)
{
	return rename(tmp, final) == 0 ? 0 : errno;
}

int agb_file_sync(FILE *f)
{
	return fsync(fileno(f)) == 0 ? 0 : errno;
}

int agb_memstream_open(struct agb_memstream *m)
{
	*m = (struct agb_memstream){0};
	m->f = open_memstream(&m->data, &m->len);
	return m->f != NULL ? 0 : errno != 0 ? errno : ENOMEM;
}

int agb_memstream_close(struct agb_memstream *m)
{
	int err = 0;
	errno = 0;
	if (fflush(m->f) != 0 || ferror(m->f))
		err = errno != 0 ? errno : EIO;
	return agb_platform_memstream_finish(m, err);
}

int agb_glob_match(const char *pattern, const char *s)
{
	return fnmatch(pattern, s, 0) == 0;
}

FILE *agb_popen_read(const char *const *argv)
{
	/* Single quotes hold anything but a single quote. */
	char *cmd = agb_platform_command_line(argv, '\'', "", "");
	FILE *p = cmd != NULL ? popen(cmd, "r") : NULL;
	free(cmd);
	return p;
}

int agb_pclose(FILE *f)
{
	return pclose(f);
}

int agb_map_fixed(uintptr_t addr, size_t size)
{
	void *want = (void *)addr;
	void *got = mmap(want, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	return got == want ? 0 : -1;
}

int agb_file_view_open(FILE *f, size_t size, struct agb_file_view *v)
{
	*v = (struct agb_file_view){0};
	if (size == 0)
		return EINVAL;
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
	if (p == MAP_FAILED)
		return errno != 0 ? errno : ENOMEM;
	/* Each pass goes front to back (the loader makes three or four): read-ahead helps. */
	(void)posix_madvise(p, size, POSIX_MADV_SEQUENTIAL);
	v->data = p;
	v->len = size;
	return 0;
}

size_t agb_file_view_pass(const struct agb_file_view *v, size_t from, size_t upto)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (v->data == NULL || page == 0)
		return from;
	if (upto > v->len)
		upto = v->len;
	size_t first = from + (page - from % page) % page; /* whole pages: the rest may be read */
	upto -= upto % page;
	if (first >= upto)
		return from;
	/* MADV_DONTNEED drops the pages of a private read-only file mapping from this process
	 * (its resident set); touching them again reads them back from the page cache. */
	(void)madvise((char *)v->data + first, upto - first, MADV_DONTNEED);
	return upto;
}

void agb_file_view_close(struct agb_file_view *v)
{
	if (v->data != NULL)
		munmap((void *)v->data, v->len);
	*v = (struct agb_file_view){0};
}

FILE *agb_spool_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	int n = snprintf(path, sizeof path, "%s/agbsim-spool-XXXXXX", dir);
	if (n < 0 || (size_t)n >= sizeof path)
		return NULL;
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	(void)unlink(path); /* gone with the last descriptor */
	FILE *f = fdopen(fd, "w+b");
	if (f == NULL)
		close(fd);
	return f;
}
