/* A program that calls a newlib-only allocator function (mallinfo) and links the drop-in heap:
 * the link must fail, saying why (tests/gba/malloc_guard.cmake). */
#include <malloc.h>
#include <stdlib.h>

int main(void)
{
	void *p = malloc(16);
	struct mallinfo mi = mallinfo();
	free(p);
	return (int)(mi.arena & 1);
}
