/* platform.h on Windows (mingw-w64; runs under Wine too). */
#include "platform/platform_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <windows.h>

void agb_platform_init(void)
{
	/* Text mode would turn "\n" into "\r\n" and stop reading stdin at ^Z: reports and JSON must
	 * be the same bytes as on Linux, and a trace piped in must be read whole. */
	_setmode(_fileno(stdin), _O_BINARY);
	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
}

double agb_now_seconds(void)
{
	LARGE_INTEGER freq, now;
	QueryPerformanceFrequency(&freq);
	QueryPerformanceCounter(&now);
	return (double)now.QuadPart / (double)freq.QuadPart;
}

unsigned agb_cpu_count(void)
{
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	return si.dwNumberOfProcessors == 0 ? 1u : (unsigned)si.dwNumberOfProcessors;
}

struct thread_job {
	void (*fn)(void *);
	void *arg;
};

static DWORD WINAPI thread_main(LPVOID p)
{
	const struct thread_job *job = p;
	job->fn(job->arg);
	return 0;
}

unsigned agb_run_threads(unsigned n, void (*fn)(void *arg), void *arg)
{
	struct thread_job job = {fn, arg};
	HANDLE *h = calloc((size_t)n + 1u, sizeof *h); /* +1: never calloc(0) */
	unsigned started = 0;
	if (h == NULL)
		return 0;
	for (; started < n; started++)
		if ((h[started] = CreateThread(NULL, 0, thread_main, &job, 0, NULL)) == NULL)
			break;
	for (unsigned k = 0; k < started; k++) {
		WaitForSingleObject(h[k], INFINITE);
		CloseHandle(h[k]);
	}
	free(h);
	return started;
}

enum agb_path_kind agb_path_kind(const char *path)
{
	struct _stat64 sb;
	if (_stat64(path, &sb) != 0)
		return AGB_PATH_MISSING;
	return (sb.st_mode & _S_IFMT) == _S_IFREG   ? AGB_PATH_FILE
	       : (sb.st_mode & _S_IFMT) == _S_IFDIR ? AGB_PATH_DIR
						    : AGB_PATH_OTHER;
}

/* errno for the last Win32 error of a file operation. */
static int errno_from_win32(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
		return EACCES;
	case ERROR_DIRECTORY:
		return ENOTDIR;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	default:
		return EIO;
	}
}

int agb_dir_list(const char *dir, int (*each)(void *ctx, const char *name), void *ctx)
{
	WIN32_FIND_DATAA fd;
	HANDLE h;
	size_t n = strlen(dir);
	char *pattern = malloc(n + 3);
	if (pattern == NULL)
		return ENOMEM;
	memcpy(pattern, dir, n);
	strcpy(pattern + n, n != 0 && agb_path_is_sep(dir[n - 1]) ? "*" : "\\*");
	h = FindFirstFileA(pattern, &fd);
	free(pattern);
	if (h == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		if (e == ERROR_FILE_NOT_FOUND) /* an empty directory (no "." either: a drive root) */
			return 0;
		return agb_path_kind(dir) == AGB_PATH_FILE ? ENOTDIR : errno_from_win32(e);
	}
	do {
		if (strcmp(fd.cFileName, ".") != 0 && strcmp(fd.cFileName, "..") != 0 &&
		    each(ctx, fd.cFileName))
			break;
	} while (FindNextFileA(h, &fd));
	FindClose(h);
	return 0;
}

int agb_open_errno(const char *path, int err)
{
	return err == EACCES && agb_path_kind(path) == AGB_PATH_DIR ? EISDIR : err;
}

int agb_path_is_sep(char c)
{
	return c == '/' || c == '\\';
}

const char *agb_path_last_sep(const char *path)
{
	const char *last = NULL;
	for (const char *p = path; *p != '\0'; p++)
		if (agb_path_is_sep(*p))
			last = p;
	return last;
}

int agb_path_is_absolute(const char *path)
{
	if (agb_path_is_sep(path[0]))
		return 1; /* \x (the current drive's root) and \\server\share */
	return ((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
	       path[1] == ':' && agb_path_is_sep(path[2]);
}

int agb_self_dir(char *buf, size_t n)
{
	DWORD len;
	const char *sep;
	if (n < 2 || n > 0x7fffffffu)
		return -1;
	len = GetModuleFileNameA(NULL, buf, (DWORD)n);
	if (len == 0 || len >= n)
		return -1;
	sep = agb_path_last_sep(buf);
	if (sep == NULL)
		return -1;
	buf[sep - buf] = '\0';
	return 0;
}

/* 1 when Windows resolves path to a device (NUL, CON, COM1, also as "dir\nul.txt"). */
static int is_device_name(const char *path)
{
	char full[MAX_PATH];
	DWORD n = GetFullPathNameA(path, sizeof full, full, NULL);
	return n != 0 && n < sizeof full && strncmp(full, "\\\\.\\", 4) == 0;
}

/* Windows has no symlinks a program meets in practice (they need privileges to create): a
 * regular file or a missing one is replaced, anything else (NUL, CON, a pipe) written in place. */
const char *agb_replace_target(const char *path, char **resolved)
{
	DWORD attr;
	*resolved = NULL;
	if (is_device_name(path))
		return NULL;
	attr = GetFileAttributesA(path);
	if (attr == INVALID_FILE_ATTRIBUTES) {
		DWORD e = GetLastError();
		return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? path : NULL;
	}
	if (attr & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE | FILE_ATTRIBUTE_REPARSE_POINT))
		return NULL;
	return agb_path_kind(path) == AGB_PATH_FILE ? path : NULL;
}

int agb_file_replace(const char *tmp, const char *final)
{
	/* rename() refuses an existing target on Windows. */
	if (MoveFileExA(tmp, final, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
		return 0;
	return errno_from_win32(GetLastError());
}

int agb_file_sync(FILE *f)
{
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
	if (h == INVALID_HANDLE_VALUE || GetFileType(h) != FILE_TYPE_DISK)
		return EINVAL;
	return FlushFileBuffers(h) ? 0 : errno_from_win32(GetLastError());
}

/* No open_memstream: a temporary file deleted when closed, read back whole at the end. */
int agb_memstream_open(struct agb_memstream *m)
{
	char dir[MAX_PATH + 1], name[MAX_PATH + 1];
	HANDLE h;
	int fd;
	*m = (struct agb_memstream){0};
	if (GetTempPathA(sizeof dir, dir) == 0 || GetTempFileNameA(dir, "agb", 0, name) == 0)
		return errno_from_win32(GetLastError());
	h = CreateFileA(name, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
			FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		int err = errno_from_win32(GetLastError());
		DeleteFileA(name);
		return err;
	}
	fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY);
	if (fd < 0) {
		CloseHandle(h);
		return EMFILE;
	}
	m->f = _fdopen(fd, "w+b");
	if (m->f == NULL) {
		_close(fd);
		return EMFILE;
	}
	return 0;
}

/* The whole temporary file into m->data. 0 or errno. */
static int memstream_read_back(struct agb_memstream *m)
{
	long len;
	if (fflush(m->f) != 0 || ferror(m->f) || fseek(m->f, 0, SEEK_END) != 0 ||
	    (len = ftell(m->f)) < 0 || fseek(m->f, 0, SEEK_SET) != 0)
		return errno != 0 ? errno : EIO;
	m->data = malloc((size_t)len + 1u);
	if (m->data == NULL)
		return ENOMEM;
	if (fread(m->data, 1, (size_t)len, m->f) != (size_t)len)
		return errno != 0 ? errno : EIO;
	m->data[len] = '\0';
	m->len = (size_t)len;
	return 0;
}

int agb_memstream_close(struct agb_memstream *m)
{
	int err;
	errno = 0;
	err = memstream_read_back(m);
	return agb_platform_memstream_finish(m, err);
}

/* The set at p (just after '['), matched against c: 1/0, and *end just after its ']'; -1 when
 * the '[' opens no set (then it is an ordinary character, as in fnmatch). */
static int match_set(const char *p, char c, const char **end)
{
	int negate = *p == '!' || *p == '^', hit = 0;
	const char *q = p + negate;
	do {
		char lo = *q, hi;
		if (lo == '\0')
			return -1;
		if (lo == '\\' && q[1] != '\0')
			lo = *++q;
		hi = lo;
		if (q[1] == '-' && q[2] != ']' && q[2] != '\0') {
			q += 2;
			hi = *q == '\\' && q[1] != '\0' ? *++q : *q;
		}
		hit |= (unsigned char)c >= (unsigned char)lo && (unsigned char)c <= (unsigned char)hi;
		q++;
	} while (*q != ']');
	*end = q + 1;
	return hit != negate;
}

/* fnmatch(pattern, s, 0) without the C library's help: backtracking on the last '*' only,
 * which is enough because a later '*' can absorb whatever an earlier one could. */
int agb_glob_match(const char *p, const char *s)
{
	const char *star = NULL, *star_s = NULL;
	for (;;) {
		const char *next = p + 1;
		int ok;
		if (*p == '*') {
			star = ++p;
			star_s = s;
			continue;
		}
		if (*s == '\0' && *p == '\0')
			return 1;
		if (*s == '\0')
			ok = 0;
		else if (*p == '?')
			ok = 1;
		else if (*p == '[' && (ok = match_set(p + 1, *s, &next)) >= 0)
			;
		else if (*p == '\\' && p[1] != '\0')
			ok = p[1] == *s, next = p + 2;
		else
			ok = *p != '\0' && *p == *s;
		if (ok) {
			p = next;
			s++;
		} else if (star != NULL && *star_s != '\0') {
			p = star;
			s = ++star_s;
		} else {
			return 0;
		}
	}
}

FILE *agb_popen_read(const char *const *argv)
{
	/* cmd.exe strips one pair of quotes around the whole line: the outer pair is for it. Its
	 * own special characters are refused even inside quotes (% expands there). */
	char *cmd = agb_platform_command_line(argv, '"', "%^&|<>", "\"");
	FILE *p = cmd != NULL ? _popen(cmd, "rb") : NULL;
	free(cmd);
	return p;
}

int agb_pclose(FILE *f)
{
	return _pclose(f);
}

int agb_map_fixed(uintptr_t addr, size_t size)
{
	void *got = VirtualAlloc((void *)addr, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
	return got == (void *)addr ? 0 : -1;
}

/* Not mapped here: the loader reads the file into memory instead (see platform.h). */
int agb_file_view_open(FILE *f, size_t size, struct agb_file_view *v)
{
	(void)f;
	(void)size;
	*v = (struct agb_file_view){0};
	return ENOTSUP;
}

size_t agb_file_view_pass(const struct agb_file_view *v, size_t from, size_t upto)
{
	(void)v;
	(void)upto;
	return from;
}

void agb_file_view_close(struct agb_file_view *v)
{
	*v = (struct agb_file_view){0};
}

/* No views, so no spool: the loader reads a pipe into memory itself. */
FILE *agb_spool_file(void)
{
	return NULL;
}
