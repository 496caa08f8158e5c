/*
 * mhd_load.c - the MHD_* functions the server uses, forwarded to libmicrohttpd opened with
 * dlopen on first use (mhd_load.h says why). The program does not link the library, so these
 * definitions are not exported and the library's own calls stay inside it.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <microhttpd.h>

#include "mhd_load.h"

/* The library's soname (libmicrohttpd 0.9.x, e.g. Debian's libmicrohttpd12). */
#define MHD_SONAME "libmicrohttpd.so.12"

static struct {
	struct MHD_Daemon *(*start_daemon_va)(unsigned, uint16_t, MHD_AcceptPolicyCallback, void *,
					      MHD_AccessHandlerCallback, void *, va_list);
	void (*stop_daemon)(struct MHD_Daemon *);
	enum MHD_Result (*add_connection)(struct MHD_Daemon *, MHD_socket, const struct sockaddr *,
					  socklen_t);
	const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind,
					       const char *);
	enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned, struct MHD_Response *);
	struct MHD_Response *(*create_response_from_buffer)(size_t, void *,
							    enum MHD_ResponseMemoryMode);
	void (*destroy_response)(struct MHD_Response *);
	enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
} fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[256] = "libmicrohttpd could not be loaded";

static void *sym(void *h, const char *name, bool *ok)
{
	void *p = dlsym(h, name);
	if (!p && *ok) {
		snprintf(why, sizeof(why), "%s: no %s in it", MHD_SONAME, name);
		*ok = false;
	}
	return p;
}

static void load(void)
{
	/* the soname, else whichever one the development link (libmicrohttpd-dev) names */
	void *h = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libmicrohttpd.so", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, sizeof(why),
			 "cannot open %s nor libmicrohttpd.so (Debian: libmicrohttpd12)",
			 MHD_SONAME);
		return;
	}
	bool ok = true;
	/* dlsym's void * to a function pointer: POSIX guarantees it, ISO C does not say */
	*(void **)&fn.start_daemon_va = sym(h, "MHD_start_daemon_va", &ok);
	*(void **)&fn.stop_daemon = sym(h, "MHD_stop_daemon", &ok);
	*(void **)&fn.add_connection = sym(h, "MHD_add_connection", &ok);
	*(void **)&fn.lookup_connection_value = sym(h, "MHD_lookup_connection_value", &ok);
	*(void **)&fn.queue_response = sym(h, "MHD_queue_response", &ok);
	*(void **)&fn.create_response_from_buffer = sym(h, "MHD_create_response_from_buffer", &ok);
	*(void **)&fn.destroy_response = sym(h, "MHD_destroy_response", &ok);
	*(void **)&fn.add_response_header = sym(h, "MHD_add_response_header", &ok);
	if (!ok) {
		dlclose(h);
		memset(&fn, 0, sizeof(fn));
		return;
	}
	loaded = true;
}

bool mhd_load(void)
{
	pthread_once(&once, load);
	return loaded;
}

const char *mhd_load_error(void)
{
	return why;
}

/*
 * The forwarders. Only MHD_start_daemon can be the first call (every other one takes what it,
 * or a handler it started, returned), so only it loads.
 */
struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc,
				    void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
	if (!mhd_load())
		return NULL;
	va_list ap;
	va_start(ap, dh_cls);
	struct MHD_Daemon *d = fn.start_daemon_va(flags, port, apc, apc_cls, dh, dh_cls, ap);
	va_end(ap);
	return d;
}

void MHD_stop_daemon(struct MHD_Daemon *daemon)
{
	fn.stop_daemon(daemon);
}

enum MHD_Result MHD_add_connection(struct MHD_Daemon *daemon, MHD_socket client_socket,
				   const struct sockaddr *addr, socklen_t addrlen)
{
	return fn.add_connection(daemon, client_socket, addr, addrlen);
}

const char *MHD_lookup_connection_value(struct MHD_Connection *connection, enum MHD_ValueKind kind,
					const char *key)
{
	return fn.lookup_connection_value(connection, kind, key);
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status_code,
				   struct MHD_Response *response)
{
	return fn.queue_response(connection, status_code, response);
}

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buffer,
						     enum MHD_ResponseMemoryMode mode)
{
	return fn.create_response_from_buffer(size, buffer, mode);
}

void MHD_destroy_response(struct MHD_Response *response)
{
	fn.destroy_response(response);
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *response, const char *header,
					const char *content)
{
	return fn.add_response_header(response, header, content);
}
