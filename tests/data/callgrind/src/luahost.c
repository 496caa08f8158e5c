/* a minimal Lua interpreter: runs the script named on the command line */
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	int rc = argc > 1 ? luaL_dofile(L, argv[1]) : 1;
	if (rc)
		fprintf(stderr, "%s\n", lua_tostring(L, -1));
	lua_close(L);
	return rc;
}
