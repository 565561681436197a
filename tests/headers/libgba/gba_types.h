/* Stand-in for libgba's gba_types.h (tests/headers only): its type names, spelled as libgba
 * spells them. Written for this test; not libgba's file. */
#ifndef _gba_types_h_
#define _gba_types_h_

typedef unsigned char u8;
typedef unsigned short int u16;
typedef unsigned int u32;
typedef signed char s8;
typedef signed short int s16;
typedef signed int s32;
typedef volatile u8 vu8;
typedef volatile u16 vu16;
typedef volatile u32 vu32;
typedef volatile s8 vs8;
typedef volatile s16 vs16;
typedef volatile s32 vs32;

#ifndef __cplusplus
typedef enum { false, true } bool;
#endif

#endif
