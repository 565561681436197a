/* From the cores' GBA addresses (uint32_t) to C pointers and back, on the GBA and on the host.
 *
 * Every agbmem call takes and returns a GBA address: agb_tlsf_alloc returns 0x0200xxxx, not a
 * pointer. On the GBA an address is a pointer once cast; on the host (agbsim, unit tests, a
 * game's host build) the address lives in an agb_machine's emulated memory and the pointer is
 * into that machine's storage. These two macros hide the difference, so game code that touches
 * what it allocated compiles and runs unchanged on both:
 *
 *   struct enemy *e = AGB_PTR(m, struct enemy, agb_tlsf_alloc(&heap, sizeof *e, 4, NULL));
 *   agb_tlsf_free(&heap, AGB_ADDR(m, e));
 *
 * `m` is the agb_machine * the core was initialised with (a game passes NULL on the GBA; it is
 * not evaluated there). AGB_PTR of AGB_NULL is NULL on both sides.
 *
 * On the host, accesses through the pointer are not counted by the machine (they are the game's
 * own accesses, not the allocator's), and the pointer is only valid for sizeof(type) bytes inside
 * one RAM region (agb_machine_host's contract); AGB_PTR_N takes an explicit length for arrays.
 * Freestanding. */
#ifndef AGB_PTR_H
#define AGB_PTR_H

#include <stddef.h>
#include <stdint.h>

#include "agb/machine.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(AGB_TARGET_GBA) || defined(AGB_PLAIN_MEMORY)

#define AGB_PTR_N(m, type, addr, bytes) ((void)(m), (void)(bytes), (type *)(uintptr_t)(addr))
#define AGB_ADDR(m, ptr) ((void)(m), (uint32_t)(uintptr_t)(ptr))

#else /* host: the address is inside the machine's storage */

/* GBA address of a host pointer into m's RAM regions, AGB_NULL for NULL. O(regions). */
static inline uint32_t agb_machine_addr(const agb_machine *m, const void *p)
{
	static const struct {
		uint32_t base;
		size_t offset, bytes;
	} r[] = {
	        {AGB_MEM_EWRAM, offsetof(agb_machine, ewram), AGB_EWRAM_SIZE},
	        {AGB_MEM_IWRAM, offsetof(agb_machine, iwram), AGB_IWRAM_SIZE},
	        {AGB_MEM_VRAM, offsetof(agb_machine, vram), AGB_VRAM_SIZE},
	        {AGB_MEM_OAM, offsetof(agb_machine, oam), AGB_OAM_SIZE},
	        {AGB_MEM_PAL, offsetof(agb_machine, pal), AGB_PAL_SIZE},
	};
	const uint8_t *q = (const uint8_t *)p, *base = (const uint8_t *)m;
	if (q == NULL)
		return AGB_NULL;
	for (unsigned i = 0; i < sizeof r / sizeof r[0]; i++)
		if (q >= base + r[i].offset && q < base + r[i].offset + r[i].bytes)
			return r[i].base + (uint32_t)(q - (base + r[i].offset));
	return AGB_NULL;
}

/* Host pointer to `bytes` at GBA address a (each argument evaluated once), NULL for AGB_NULL. */
static inline void *agb_machine_ptr(agb_machine *m, uint32_t a, uint32_t bytes)
{
	return a == AGB_NULL ? (void *)0 : (void *)agb_machine_host(m, a, bytes);
}

#define AGB_PTR_N(m, type, addr, bytes) ((type *)agb_machine_ptr((m), (addr), (bytes)))
#define AGB_ADDR(m, ptr) agb_machine_addr((m), (ptr))

#endif

/* A pointer to one `type` at GBA address `addr` (NULL for AGB_NULL). */
#define AGB_PTR(m, type, addr) AGB_PTR_N(m, type, addr, (uint32_t)sizeof(type))

#ifdef __cplusplus
}
#endif

#endif
