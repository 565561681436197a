/* outside_lua_config.h — forced into every Lua source of the GBA build (-include): one of Lua's
 * own configuration hooks, nothing patched (numbers stay luaconf.h's default, 64-bit integers
 * and doubles). A fixed string-hash seed (lstate.c's luai_makeseed) instead of time(NULL) mixed
 * with addresses: the GBA has no clock, and a seed from heap addresses would make two heaps
 * hash, and so allocate, differently. */
#define luai_makeseed(L) 0x5eed5eedu
