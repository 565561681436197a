/* Stand-in for libgba's gba_video.h (tests/headers only): its palette and display names, as
 * libgba spells them. Written for this test. */
#ifndef _gba_video_h_
#define _gba_video_h_

#include "gba_base.h"

#define BG_COLORS ((u16 *)0x05000000)
#define BG_PALETTE ((u16 *)0x05000000)
#define OBJ_COLORS ((u16 *)0x05000200)
#define SPRITE_PALETTE ((u16 *)0x05000200)

#define REG_DISPCNT *((vu16 *)(REG_BASE + 0x00))

#define MODE_0 0
#define MODE_3 3
#define OBJ_ON (1 << 12)
#define BG0_ON (1 << 8)

#endif
