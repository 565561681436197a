/* view_guard.h on POSIX systems: a SIGBUS handler that jumps back to the guard of its thread. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "platform/view_guard.h"

#include <setjmp.h>
#include <signal.h>
#include <stddef.h>

static _Thread_local sigjmp_buf *guard_jmp;

static void on_sigbus(int sig)
{
	if (guard_jmp != NULL)
		siglongjmp(*guard_jmp, 1);
	/* Not in a guarded reader: the default action, as without this handler. */
	signal(sig, SIG_DFL);
	raise(sig);
}

int agb_view_guard(void (*fn)(void *ctx), void *ctx)
{
	sigjmp_buf here;
	sigjmp_buf *volatile outer = guard_jmp;
	struct sigaction sa, old;
	volatile int faulted = 0;
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(here, 1) == 0) {
		guard_jmp = &here;
		fn(ctx);
	} else {
		faulted = 1;
	}
	guard_jmp = outer;
	sigaction(SIGBUS, &old, NULL);
	return faulted;
}
