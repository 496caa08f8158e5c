/* cmd_serve.c - `profview serve FILE...`: the local web UI (doc/api.md). */
#include <stdio.h>

#include "pv/serve.h"

int cmd_serve(int argc, char **argv);
int cmd_serve(int argc, char **argv)
{
	(void)argc, (void)argv;
	fputs("profview: serve is not implemented yet\n", stderr);
	return 2;
}
