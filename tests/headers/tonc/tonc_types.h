/* Stand-in for libtonc's tonc_types.h (tests/headers only): the names a libtonc game has in
 * scope, spelled and defined as libtonc defines them, so that including an agbmem header after
 * it shows any clash. Written for this test; not libtonc's file. */
#ifndef TONC_TYPES
#define TONC_TYPES

#define IWRAM_DATA __attribute__((section(".iwram")))
#define EWRAM_DATA __attribute__((section(".ewram")))
#define EWRAM_BSS __attribute__((section(".sbss")))
#define IWRAM_CODE __attribute__((section(".iwram"), long_call))
#define EWRAM_CODE __attribute__((section(".ewram"), long_call))
#define ALIGN(n) __attribute__((aligned(n)))
#define ALIGN4 __attribute__((aligned(4)))
#define PACKED __attribute__((packed))
#define DEPRECATED __attribute__((deprecated))
#define INLINE static inline

typedef unsigned char u8, byte, uchar, echar;
typedef unsigned short u16, hword, ushort, eshort;
typedef unsigned int u32, word, uint, eint;
typedef unsigned long long u64;
typedef signed char s8;
typedef signed short s16;
typedef signed int s32;
typedef signed long long s64;

typedef volatile u8 vu8;
typedef volatile u16 vu16;
typedef volatile u32 vu32;
typedef volatile u64 vu64;
typedef volatile s8 vs8;
typedef volatile s16 vs16;
typedef volatile s32 vs32;
typedef volatile s64 vs64;

typedef const u8 cu8;
typedef const u16 cu16;
typedef const u32 cu32;
typedef const s32 cs32;

typedef struct { u32 data[8]; } BLOCK;
typedef s32 FIXED;
typedef u16 COLOR;
typedef u16 SCR_ENTRY, SE;
typedef struct { u32 data[8]; } TILE, TILE4;
typedef struct { u32 data[16]; } TILE8;

#ifndef __cplusplus
#ifndef __bool_true_false_are_defined
typedef enum { false, true } bool;
#endif
#endif

#ifndef BOOL
typedef u8 BOOL;
#define TRUE 1
#define FALSE 0
#endif

typedef void (*fnptr)(void);

typedef struct OBJ_ATTR {
	u16 attr0;
	u16 attr1;
	u16 attr2;
	s16 fill;
} ALIGN4 OBJ_ATTR;

typedef COLOR PALBANK[16];
typedef TILE CHARBLOCK[512];
typedef SCR_ENTRY SCREENBLOCK[1024];

#ifndef NULL
#define NULL (void *)0
#endif

#endif
