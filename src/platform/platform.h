/* The host tool's portability layer: the few operating-system services agbsim needs beyond C11,
 * with one implementation per system (platform_posix.c: Linux and other POSIX systems;
 * platform_win32.c: Windows, built with mingw-w64). Nothing else in the host tool names a
 * POSIX or Win32 call, so the commands compile unchanged on both.
 *
 * Errors are errno values (0 for success) so callers report them with strerror as before. */
#ifndef AGB_PLATFORM_H
#define AGB_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Process start-up: a write to a closed pipe becomes an EPIPE error instead of a fatal signal
 * (POSIX); standard streams carry bytes unchanged, no CR/LF translation (Windows), so reports
 * are byte-identical on both systems. Call once, first thing in main. */
void agb_platform_init(void);

/* Seconds on a monotonic clock (arbitrary origin), for timing only. */
double agb_now_seconds(void);

/* Processors online; at least 1. */
unsigned agb_cpu_count(void);

/* Runs fn(arg) on up to n new threads and waits for all of them. Returns how many were
 * started (0: none could be, and fn has not run). fn must be safe to run concurrently. */
unsigned agb_run_threads(unsigned n, void (*fn)(void *arg), void *arg);

/* What is at a path (following links). */
enum agb_path_kind { AGB_PATH_MISSING, AGB_PATH_FILE, AGB_PATH_DIR, AGB_PATH_OTHER };
enum agb_path_kind agb_path_kind(const char *path);

/* Calls each(ctx, name) for every entry of directory dir (not "." and ".."), in the system's
 * order, until it returns nonzero. Returns 0, or an errno value when dir cannot be listed. */
int agb_dir_list(const char *dir, int (*each)(void *ctx, const char *name), void *ctx);

/* The errno to report for a failed fopen(path) that set err: the same, except that Windows
 * refuses to open a directory with EACCES, which is reported as EISDIR there as on Linux. */
int agb_open_errno(const char *path, int err);

/* 1 when c separates directories in a path on this system ('/'; also '\\' on Windows). */
int agb_path_is_sep(char c);
/* The last directory separator in path, or NULL. */
const char *agb_path_last_sep(const char *path);
/* 1 when path does not depend on the current directory ("/x"; "C:\x", "\\srv\x" on Windows). */
int agb_path_is_absolute(const char *path);

/* The directory holding the running executable into buf (no trailing separator). Returns 0,
 * or -1 when it cannot be found or does not fit in n bytes. */
int agb_self_dir(char *buf, size_t n);

/* Whole-or-nothing outputs (written to a temporary file, then put in place): the path to
 * replace for an output named path, or NULL when it must be written in place (a device, a
 * FIFO, a dangling link: replacing it would turn it into a regular file). A symlink to a
 * regular file resolves to its target (*resolved owns that string, to free; else NULL). */
const char *agb_replace_target(const char *path, char **resolved);
/* Puts tmp in place of final (which may exist), atomically where the system can. 0 or errno. */
int agb_file_replace(const char *tmp, const char *final);
/* Pushes f's written data to the disk. 0, or errno (EINVAL: f cannot be synced, e.g. a pipe). */
int agb_file_sync(FILE *f);

/* A stream whose bytes end up in memory: open, write to f, then close; on success data (malloc'd,
 * to free) and len hold everything written. Both return 0 or an errno value; after a failed
 * close, data is NULL. */
struct agb_memstream {
	FILE *f;
	char *data;
	size_t len;
};
int agb_memstream_open(struct agb_memstream *m);
int agb_memstream_close(struct agb_memstream *m);

/* Shell-style wildcard match of a whole string (*, ?, [set], [!set], backslash escapes), as
 * fnmatch(pattern, s, 0). Returns 1 on a match, else 0. */
int agb_glob_match(const char *pattern, const char *s);

/* Starts argv[0] (a path) with arguments argv[1..] (NULL-terminated), its standard output
 * readable from the returned stream; NULL when it cannot be started or an argument cannot be
 * quoted for the system's shell. Close with agb_pclose (its exit status, or -1). */
FILE *agb_popen_read(const char *const *argv);
int agb_pclose(FILE *f);

/* Makes size bytes of zeroed, writable memory exist at address addr exactly, failing rather
 * than replacing anything already there. 0, or -1. (agbsim-plain's GBA regions.) */
int agb_map_fixed(uintptr_t addr, size_t size);

/* A regular file's bytes in memory, read only, for a reader that goes through a big file front
 * to back (the trace loader: up to 1 GiB of text). Where the system can, the file is mapped
 * instead of copied, and the reader hands back what it has passed (agb_file_view_pass), so a
 * pass over the file holds a window of it in memory, not all of it: the loader's peak stays
 * near its event array. The bytes stay readable after a pass (the error path goes back to count
 * lines); they are read again from the file. A file changed or cut while it is viewed gives
 * undefined contents (on POSIX, cutting it is fatal), as with any mapped reader. */
struct agb_file_view {
	const char *data; /* len bytes, not NUL-terminated */
	size_t len;
};
/* Views the first size bytes (size > 0) of the regular file open as f. Returns 0, or an errno
 * value: ENOTSUP where the system does not map files (Windows build; the caller reads the file
 * instead), or what mapping failed with. */
int agb_file_view_open(FILE *f, size_t size, struct agb_file_view *v);
/* The reader has passed the bytes [from, upto) and will not come back to them soon: their memory
 * may be given back now (whole pages inside the range). Returns where the next call may start
 * so that no page is left behind: upto rounded down to a page (from where nothing was given
 * back). O(pages in the range). */
size_t agb_file_view_pass(const struct agb_file_view *v, size_t from, size_t upto);
/* Ends the view; *v is zeroed. Safe on a zeroed view. */
void agb_file_view_close(struct agb_file_view *v);
/* A new temporary file, read-write, that no other program can open and that is gone once
 * closed: for a copy of a stream (a pipe) to be viewed. It is made in $TMPDIR, else the system's
 * temporary directory. NULL where it cannot be made, or where files are not viewed (Windows: a
 * copy would only be read back whole, so the caller reads the stream itself). */
FILE *agb_spool_file(void);

#endif
