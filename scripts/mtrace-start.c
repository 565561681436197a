/* mtrace-start.c - tiny LD_PRELOAD object used by scripts/record-mtrace.
 *
 * glibc >= 2.34 moved the malloc tracing hooks into libc_malloc_debug.so;
 * tracing only happens when that library is preloaded AND mtrace() is
 * called.  This constructor calls mtrace() (which opens $MALLOC_TRACE and
 * writes "= Start"), then removes MALLOC_TRACE from the environment so that
 * child processes started by the traced program do not reopen (and
 * truncate) the same log file.  muntrace() is deliberately not called:
 * the log is flushed by glibc's exit-time stream cleanup, so frees done
 * late in exit are still recorded. */
#include <mcheck.h>
#include <stdlib.h>

__attribute__((constructor)) static void agb_mtrace_start(void)
{
    mtrace();
    unsetenv("MALLOC_TRACE");
}
