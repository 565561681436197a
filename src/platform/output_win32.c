/* output_file.h on Windows (mingw-w64). No symlinks a program meets in practice, no POSIX mode
 * bits: a regular or missing OUT is replaced through a temporary file made with
 * _O_CREAT|_O_EXCL, a read-only one refused, anything else (NUL, CON, a pipe) written in place. */
#include "platform/output_file.h"
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <windows.h>

static int device_name(const char *path)
{
	char full[MAX_PATH];
	DWORD n = GetFullPathNameA(path, sizeof full, full, NULL);
	return n != 0 && n < sizeof full && strncmp(full, "\\\\.\\", 4) == 0;
}

static int make_temp(const char *final, char **tmp)
{
	static unsigned counter;
	const char *sep = agb_path_last_sep(final);
	size_t dirlen = sep != NULL ? (size_t)(sep - final) + 1 : 0;
	size_t n = strlen(final) + 64;
	char *p = malloc(n);
	if (p == NULL)
		return -(errno = ENOMEM);
	uint32_t seed = (uint32_t)GetTickCount() ^ ((uint32_t)GetCurrentProcessId() << 16) ^
			(uint32_t)(uintptr_t)p;
	for (int tries = 0; tries < 100; tries++) {
		seed = seed * 1664525u + 1013904223u;
		snprintf(p, n, "%.*s.%s.%lu.%u.%08x.tmp", (int)dirlen, final, final + dirlen,
			 (unsigned long)GetCurrentProcessId(), counter++, (unsigned)seed);
		int fd = _open(p, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, _S_IREAD | _S_IWRITE);
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

int agb_out_platform_open(struct agb_out_file *o, const char *path)
{
	DWORD attr;
	if (device_name(path))
		goto through;
	attr = GetFileAttributesA(path);
	if (attr != INVALID_FILE_ATTRIBUTES) {
		if (attr & FILE_ATTRIBUTE_DIRECTORY)
			return EISDIR;
		if (attr & (FILE_ATTRIBUTE_DEVICE | FILE_ATTRIBUTE_REPARSE_POINT) ||
		    agb_path_kind(path) != AGB_PATH_FILE)
			goto through;
		if (attr & FILE_ATTRIBUTE_READONLY)
			return EACCES;
	} else {
		DWORD e = GetLastError();
		if (e != ERROR_FILE_NOT_FOUND && e != ERROR_PATH_NOT_FOUND)
			goto through;
	}
	o->final = _strdup(path);
	if (o->final == NULL)
		return ENOMEM;
	int fd = make_temp(o->final, &o->tmp);
	if (fd < 0)
		return errno;
	o->f = _fdopen(fd, "wb");
	if (o->f == NULL) {
		int err = errno;
		_close(fd);
		remove(o->tmp);
		return err;
	}
	o->mode = AGB_OUT_REPLACE;
	return 0;
through:
	o->mode = AGB_OUT_THROUGH;
	o->f = fopen(path, "wb");
	return o->f != NULL ? 0 : errno != 0 ? errno : EIO;
}

static int errno_of(DWORD e)
{
	return e == ERROR_ACCESS_DENIED || e == ERROR_SHARING_VIOLATION ? EACCES
	       : e == ERROR_DISK_FULL || e == ERROR_HANDLE_DISK_FULL    ? ENOSPC
								     : EIO;
}

int agb_out_platform_replace(const char *tmp, const char *final)
{
	/* rename() refuses an existing target on Windows. */
	if (MoveFileExA(tmp, final, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
		return 0;
	return errno_of(GetLastError());
}

int agb_out_platform_sync(FILE *f)
{
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
	if (h == INVALID_HANDLE_VALUE || GetFileType(h) != FILE_TYPE_DISK)
		return EINVAL;
	return FlushFileBuffers(h) ? 0 : errno_of(GetLastError());
}

#include "platform/path_link.h"

int agb_path_is_link(const char *path)
{
	DWORD attr = GetFileAttributesA(path);
	return attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
}
