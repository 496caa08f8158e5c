/* server.c - the HTTP side of `profview serve` (libmicrohttpd): token, Host check, assets. */
#include <microhttpd.h>

#include "api.h"

int pv_server_start(struct pv_api *a, const struct pv_serve_opts *o, struct pv_server **out,
		    char **url_out, struct pv_error *err)
{
	(void)a, (void)o, (void)out, (void)url_out, (void)err;
	return PV_EIO;
}

void pv_server_stop(struct pv_server *s)
{
	(void)s;
}

uint16_t pv_server_port(const struct pv_server *s)
{
	(void)s;
	return 0;
}
