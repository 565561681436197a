/* view_guard.h on Windows: files are read, not viewed, so nothing can fault. */
#include "platform/view_guard.h"

int agb_view_guard(void (*fn)(void *ctx), void *ctx)
{
	fn(ctx);
	return 0;
}
