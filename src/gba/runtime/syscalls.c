/* syscalls.c — the newlib system calls a GBA game needs, for agbmem's runtime (crt0.s, gba.ld).
 *
 * Output: _write to fd 1 or 2 goes to mGBA's debug log (0x04FFF600, one line per '\n' or 255
 * bytes, a last line without '\n' is not shown; stdout at level "info", stderr at "error");
 * on hardware, or an emulator without that channel, it is dropped. Input: _read returns 0 (end of file). No files: _close, _lseek fail
 * with EBADF, _open with ENOENT; _fstat and _isatty say "a terminal" for 0-2 (so stdio
 * line-buffers stdout). No clock: _gettimeofday and _times fail with ENOSYS (time() and clock()
 * return -1).
 * A return from main comes to _agb_main_return: what exit() does (atexit handlers, stdio
 * flushed), through weak references, so a program that uses neither links neither.
 * _exit writes the status to the exit block (struct agb_results at 0x03000000, which agbsim's
 * runner polls) and halts; _kill fails with EINVAL, _getpid is 1.
 * _sbrk hands newlib's malloc the EWRAM the linker left free (__ewram_free_start to
 * __agb_ewram_end, the end of EWRAM) and never more: past it, errno = ENOMEM and (void *)-1. A
 * game on the drop-in heap (libagbmalloc) does not call it. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>

#include "agb_gba_abi.h"

/* The exit block; the project's test harness (src/gba/roms/agb_gba.c) fills the same block. */
volatile struct agb_results agb_results __attribute__((section(".agb_results"), used));

extern uint8_t __ewram_free_start[];
extern uint8_t __agb_ewram_end[];

/* Weak: a game's own definition of any of these wins. */
#define WEAK __attribute__((weak))
WEAK int _write(int fd, const void *buf, size_t len);
WEAK int _read(int fd, void *buf, size_t len);
WEAK int _close(int fd);
WEAK int _fstat(int fd, struct stat *st);
WEAK int _isatty(int fd);
WEAK int _lseek(int fd, int off, int whence);
WEAK void _exit(int status) __attribute__((noreturn));
WEAK int _kill(int pid, int sig);
WEAK int _getpid(void);
WEAK void *_sbrk(ptrdiff_t incr);
WEAK int _open(const char *path, int flags, int mode);
WEAK int _gettimeofday(struct timeval *tv, void *tz);
WEAK clock_t _times(struct tms *t);
void _agb_main_return(int status) __attribute__((noreturn));

extern void __call_exitprocs(int code, void *dso) __attribute__((weak));
extern int fflush(void *stream) __attribute__((weak)); /* linked with any stdio output */

#define DEBUG_STRING 0x04FFF600u
#define DEBUG_FLAGS 0x04FFF700u
#define DEBUG_ENABLE 0x04FFF780u
#define DEBUG_MAX 255u
#define REG16(a) (*(volatile uint16_t *)(uintptr_t)(a))
#define REG8(a) (*(volatile uint8_t *)(uintptr_t)(a))

static int debug_state; /* 0 not probed, 1 present, 2 absent */
static uint32_t line_len[2];

static int debug_present(void)
{
	if (debug_state == 0) {
		REG16(DEBUG_ENABLE) = 0xC0DE;
		debug_state = REG16(DEBUG_ENABLE) == 0x1DEA ? 1 : 2;
	}
	return debug_state == 1;
}

/* The channel has one buffer: a line of stdout and one of stderr interleaved would mix, so a
 * switch of stream sends the pending line first. */
static int line_owner; /* 0 none, else the stream + 1 */

static void flush_line(int stream)
{
	/* mGBA levels: 1 error, 3 info. */
	REG8(DEBUG_STRING + line_len[stream]) = 0;
	REG16(DEBUG_FLAGS) = (uint16_t)(0x100u | (stream ? 1u : 3u));
	line_len[stream] = 0;
	line_owner = 0;
}

int _write(int fd, const void *buf, size_t len)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	if (!debug_present())
		return (int)len;
	int stream = fd - 1;
	const char *s = buf;
	for (size_t i = 0; i < len; i++) {
		if (line_owner != 0 && line_owner != stream + 1 && line_len[line_owner - 1] > 0)
			flush_line(line_owner - 1);
		line_owner = stream + 1;
		if (s[i] == '\n') {
			flush_line(stream);
			continue;
		}
		REG8(DEBUG_STRING + line_len[stream]) = (uint8_t)s[i];
		if (++line_len[stream] == DEBUG_MAX)
			flush_line(stream);
	}
	return (int)len;
}

int _read(int fd, void *buf, size_t len)
{
	(void)buf;
	(void)len;
	if (fd != 0) {
		errno = EBADF;
		return -1;
	}
	return 0;
}

int _close(int fd)
{
	(void)fd;
	errno = EBADF;
	return -1;
}

int _fstat(int fd, struct stat *st)
{
	if (fd < 0 || fd > 2) {
		errno = EBADF;
		return -1;
	}
	st->st_mode = S_IFCHR;
	return 0;
}

int _isatty(int fd)
{
	if (fd >= 0 && fd <= 2)
		return 1;
	errno = EBADF;
	return 0;
}

int _lseek(int fd, int off, int whence)
{
	(void)fd;
	(void)off;
	(void)whence;
	errno = ESPIPE;
	return -1;
}

void _exit(int status)
{
	agb_results.status = status;
	agb_results.version = AGB_RESULTS_VERSION;
	agb_results.magic = AGB_RESULTS_MAGIC;
	agb_results.done = 1;
	for (;;)
		;
}

int _open(const char *path, int flags, int mode)
{
	(void)path;
	(void)flags;
	(void)mode;
	errno = ENOENT;
	return -1;
}

int _gettimeofday(struct timeval *tv, void *tz)
{
	(void)tv;
	(void)tz;
	errno = ENOSYS;
	return -1;
}

clock_t _times(struct tms *t)
{
	(void)t;
	errno = ENOSYS;
	return (clock_t)-1;
}

void _agb_main_return(int status)
{
	if (__call_exitprocs)
		__call_exitprocs(status, NULL);
	if (fflush)
		fflush(NULL);
	_exit(status);
}

int _kill(int pid, int sig)
{
	(void)pid;
	(void)sig;
	errno = EINVAL;
	return -1;
}

int _getpid(void)
{
	return 1;
}

void *_sbrk(ptrdiff_t incr)
{
	/* Linker symbols: compared as addresses. */
	static uintptr_t brk;
	uintptr_t lo = (uintptr_t)__ewram_free_start, hi = (uintptr_t)__agb_ewram_end;
	if (brk == 0)
		brk = lo;
	uintptr_t old = brk;
	if (incr > 0 ? (uintptr_t)incr > hi - brk : (uintptr_t)-incr > brk - lo) {
		errno = ENOMEM;
		return (void *)-1;
	}
	brk += (uintptr_t)incr;
	return (void *)old;
}
