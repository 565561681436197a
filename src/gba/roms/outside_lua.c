/* outside_lua.c — the Lua 5.4 interpreter (third_party/lua-5.4.4, unmodified) running a script
 * (outside_script.lua) on the GBA: the driver a game embedding Lua would have. The same objects
 * are linked with newlib's malloc and with -lagbmalloc (tests/gba/outside_check.py). Lua
 * allocates through lauxlib's l_alloc: realloc and free. */
#include <stdint.h>
#include <stdio.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

extern const char outside_script[];
extern const char outside_script_end[];

int main(void)
{
	static const luaL_Reg libs[] = { { LUA_GNAME, luaopen_base },
					 { LUA_COLIBNAME, luaopen_coroutine },
					 { LUA_TABLIBNAME, luaopen_table },
					 { LUA_STRLIBNAME, luaopen_string },
					 { LUA_MATHLIBNAME, luaopen_math },
					 { LUA_UTF8LIBNAME, luaopen_utf8 },
					 { NULL, NULL } };
	lua_State *L = luaL_newstate();
	if (L == NULL) {
		printf("lua: no memory for a state\n");
		return 1;
	}
	for (const luaL_Reg *lib = libs; lib->func != NULL; lib++) {
		luaL_requiref(L, lib->name, lib->func, 1);
		lua_pop(L, 1);
	}
	/* Two linker symbols: their distance as addresses. */
	size_t len = (size_t)((uintptr_t)outside_script_end - (uintptr_t)outside_script);
	if (luaL_loadbuffer(L, outside_script, len, "=outside_script.lua") != LUA_OK ||
	    lua_pcall(L, 0, 0, 0) != LUA_OK) {
		printf("lua: error: %s\n", lua_tostring(L, -1));
		lua_close(L);
		return 1;
	}
	printf("lua: done, %d KiB in use\n", lua_gc(L, LUA_GCCOUNT, 0));
	lua_close(L);
	return 0;
}
