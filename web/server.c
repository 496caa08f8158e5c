/*
 * server.c - the HTTP side of `profview serve` (doc/api.md), over libmicrohttpd.
 *
 * Every request is checked in this order: the Host header must name the bound address or a
 * loopback name with the port (no DNS rebinding), the path must start with /TOKEN/ (403 for
 * either), and only GET and HEAD are served (405). Then /TOKEN/api/ENDPOINT?QUERY goes to
 * pv_api_call with the raw query string (kept from MHD's URI log callback, so repeated and
 * ordered parameters reach the API as they were sent), and any other path is an embedded file of
 * web/assets/ (pv_assets). Connections come through the gate (gate.h): it accepts them and hands
 * one to libmicrohttpd only once its first request's head is complete, so clients that trickle
 * their headers wait in the gate's bounded list (oldest dropped first) and never hold the
 * library's slots. libmicrohttpd runs a pool of SERVER_THREADS threads polling with poll() (at
 * most SERVER_CONNECTIONS connections, idle keep-alive ones timed out). (Not epoll: with MHD
 * 0.9.75's epoll pool, a burst of 1,000 connections left one now and then unserved until its
 * timeout; and not a thread per connection, which deadlocked under the same burst.)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <unistd.h>

#include "api.h"
#include "gate.h"
#include "mhd_load.h"

#define SERVER_THREADS 4 /* the library's pool of polling threads */
#define SERVER_CONNECTIONS                                                                    \
	512		      /* connections past the gate (the library's own limit is above: \
			       * its workers' share of it never reached) */
#define SERVER_TIMEOUT_S   15 /* an idle keep-alive connection is closed after this */
#define SERVER_CONN_MEMORY (64 * 1024)
#define MAX_HOSTS	   5

struct pv_server {
	struct MHD_Daemon *d;
	struct gate *gate;
	atomic_uint live; /* connections the library holds (gate.h) */
	struct pv_api *a;
	char token[65];
	size_t token_len;
	uint16_t port;
	bool public; /* bound beyond the loopback */
	uint32_t nr_hosts;
	char hosts[MAX_HOSTS][300]; /* accepted Host header values */
};

/* ---- per request: the raw URI, kept by the URI log callback ---- */

/*
 * The request's state: its raw URI, and whether the handler has been called once. The first
 * call only returns: libmicrohttpd 0.9.75 closes a connection whose answer was queued in the
 * handler's first call (it may not have read the request's body), which would end every
 * keep-alive connection after one request.
 */
struct request {
	bool called;
	char uri[];
};

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls, (void)c;
	size_t n = strlen(uri ? uri : "");
	struct request *r = malloc(sizeof(*r) + n + 1);
	if (r) {
		r->called = false;
		memcpy(r->uri, uri ? uri : "", n + 1);
	}
	return r;
}

static void connection_note(void *cls, struct MHD_Connection *c, void **socket_ctx,
			    enum MHD_ConnectionNotificationCode code)
{
	(void)c, (void)socket_ctx;
	struct pv_server *s = cls;
	if (code == MHD_CONNECTION_NOTIFY_CLOSED)
		atomic_fetch_sub(&s->live, 1);
}

static void request_done(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls, (void)c, (void)toe;
	free(*req_cls);
	*req_cls = NULL;
}

static void add_headers(struct MHD_Response *r, const char *type)
{
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	for (size_t i = 0; i < server_nr_headers; i++)
		MHD_add_response_header(r, server_headers[i].name, server_headers[i].value);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
			     void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	add_headers(r, type);
	if (status >= 400) /* only a client that gets answers keeps its connection */
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned status, const char *msg)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "{\"error\": \"%s\"}", msg);
	char *body = strdup(buf);
	if (!body)
		return MHD_NO;
	return reply(c, status, "application/json; charset=utf-8", body, (size_t)n,
		     MHD_RESPMEM_MUST_FREE);
}

static bool host_ok(const struct pv_server *s, const char *host)
{
	if (!host)
		return false;
	for (uint32_t i = 0; i < s->nr_hosts; i++)
		if (strcasecmp(host, s->hosts[i]) == 0)
			return true;
	return false;
}

/* the token at the start of path, in time that does not depend on where it differs */
static bool token_ok(const struct pv_server *s, const char *path)
{
	if (path[0] != '/')
		return false;
	size_t n = strcspn(path + 1, "/");
	if (n != s->token_len || path[1 + n] != '/')
		return false;
	unsigned char diff = 0;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(path[1 + i] ^ s->token[i]);
	return diff == 0;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	(void)url, (void)version, (void)upload_data, (void)upload_data_size;
	struct pv_server *s = cls;
	struct request *req = *req_cls;
	if (req && !req->called) {
		req->called = true;
		return MHD_YES;
	}
	const char *raw = req ? req->uri : "";
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	if (!host_ok(s, host))
		return reply_error(c, MHD_HTTP_FORBIDDEN, "forbidden host");
	/* the path without the query, up to 8 KiB (MHD's memory limit keeps it far below) */
	char path[8192];
	size_t pl = strcspn(raw, "?");
	if (pl >= sizeof(path))
		return reply_error(c, MHD_HTTP_URI_TOO_LONG, "uri too long");
	memcpy(path, raw, pl);
	path[pl] = 0;
	const char *query = raw[pl] == '?' ? raw + pl + 1 : "";
	if (!token_ok(s, path))
		return reply_error(c, MHD_HTTP_FORBIDDEN, "forbidden");
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed");
	const char *rest = path + 1 + s->token_len + 1; /* after "/TOKEN/" */
	if (strncmp(rest, "api/", 4) == 0) {
		char *body = NULL;
		size_t len = 0;
		const char *type = "application/json; charset=utf-8";
		int st = pv_api_call(s->a, rest + 4, query, &body, &len, &type);
		if (!body)
			return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
		return reply(c, (unsigned)st, type, body, len, MHD_RESPMEM_MUST_FREE);
	}
	if (!*rest)
		rest = "index.html";
	for (size_t i = 0; i < pv_nr_assets; i++)
		if (strcmp(pv_assets[i].path, rest) == 0)
			return reply(c, MHD_HTTP_OK, pv_assets[i].content_type,
				     (void *)pv_assets[i].data, pv_assets[i].len,
				     MHD_RESPMEM_PERSISTENT);
	return reply_error(c, MHD_HTTP_NOT_FOUND, "not found");
}

/* ---- start and stop ---- */

/* A listening socket nobody can connect to: a Unix socket bound in a fresh private folder, its
 * name and folder removed at once. -1 on failure. */
static int unreachable_listener(void)
{
	char dir[] = "/tmp/profview-XXXXXX";
	if (!mkdtemp(dir))
		return -1;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/s", dir);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	bool ok =
	    fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(fd, 1) == 0;
	unlink(sa.sun_path);
	rmdir(dir);
	if (!ok && fd >= 0)
		close(fd);
	return ok ? fd : -1;
}

static bool token_chars(const char *t)
{
	size_t n = strlen(t);
	if (n == 0 || n > 64)
		return false;
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') ||
		      (*t >= '0' && *t <= '9') || *t == '-' || *t == '_'))
			return false;
	return true;
}

/* The URL's token: --token's (checked), else 16 random bytes in hex. */
static int server_token(struct pv_server *s, const struct pv_serve_opts *o, struct pv_error *err)
{
	if (o && o->token) {
		if (!token_chars(o->token))
			return pv_error_set(err, PV_EINVAL,
					    "--token takes 1 to 64 of A-Z a-z 0-9 - _");
		snprintf(s->token, sizeof(s->token), "%s", o->token);
	} else {
		unsigned char r[16];
		size_t got = 0;
		while (got < sizeof(r)) {
			ssize_t k = getrandom(r + got, sizeof(r) - got, 0);
			if (k <= 0)
				return pv_error_set(err, PV_EIO,
						    "cannot get random bytes for the token");
			got += (size_t)k;
		}
		for (size_t i = 0; i < sizeof(r); i++)
			snprintf(s->token + 2 * i, 3, "%02x", r[i]);
	}
	s->token_len = strlen(s->token);
	return 0;
}

/* The listening socket on host and port in *lfd (s->public, s->port set; the address as text
 * in addr, *v6 its family): 0, or the error. */
static int server_listen(struct pv_server *s, const char *host, uint16_t port, int *lfd_out,
			 bool *v6, char addr[INET6_ADDRSTRLEN], struct pv_error *err)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE},
			*res = NULL;
	int gai = getaddrinfo(host, NULL, &hints, &res);
	if (gai || !res) {
		return pv_error_set(err, PV_EIO, "cannot resolve host '%s': %s", host,
				    gai ? gai_strerror(gai) : "no address");
	}
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, res->ai_addr, res->ai_addrlen < sizeof(ss) ? res->ai_addrlen : sizeof(ss));
	*v6 = res->ai_family == AF_INET6;
	freeaddrinfo(res);
	if (*v6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
	s->public = *v6 ? !IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr)
			: (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) != 127;
	addr[0] = 0;
	inet_ntop(*v6 ? AF_INET6 : AF_INET,
		  *v6 ? (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
		      : (void *)&((struct sockaddr_in *)&ss)->sin_addr,
		  addr, INET6_ADDRSTRLEN);
	/* the listening socket is the gate's; the library only gets connections from it */
	int lfd = socket(*v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	socklen_t sl = *v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(lfd, (struct sockaddr *)&ss, sl) != 0 || listen(lfd, 1024) != 0) {
		int e = errno;
		if (lfd >= 0)
			close(lfd);
		return pv_error_set(err, PV_EIO,
				    "cannot listen on %s port %u: %s (in use, or not an address of "
				    "this machine)",
				    addr, (unsigned)port, strerror(e));
	}
	struct sockaddr_storage bound;
	socklen_t bl = sizeof(bound);
	getsockname(lfd, (struct sockaddr *)&bound, &bl);
	s->port = ntohs(*v6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
			    : ((struct sockaddr_in *)&bound)->sin_port);
	*lfd_out = lfd;
	return 0;
}

/* The library's daemon, fed by the gate on lfd (taken: closed on failure). */
static int server_library(struct pv_server *s, int lfd, const struct pv_serve_opts *o,
			  struct pv_error *err)
{
	/*
	 * The library's thread pool needs a listening socket of its own: one that no client can
	 * reach (a Unix socket whose name is removed at once), so every connection comes through
	 * the gate and MHD_add_connection.
	 */
	int dummy = unreachable_listener();
	unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ITC;
	s->d = dummy < 0 ? NULL
			 : MHD_start_daemon(
			       flags, 0, NULL, NULL, handle, s, MHD_OPTION_LISTEN_SOCKET, dummy,
			       MHD_OPTION_THREAD_POOL_SIZE, (unsigned)SERVER_THREADS,
			       /* per worker: the pool splits the limit, and its
				* sockets are not spread evenly (gate.h) */
			       MHD_OPTION_CONNECTION_LIMIT,
			       (unsigned)(SERVER_CONNECTIONS + 64) * SERVER_THREADS,
			       MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVER_TIMEOUT_S,
			       MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVER_CONN_MEMORY,
			       MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)0,
			       MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL,
			       MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
			       MHD_OPTION_NOTIFY_CONNECTION, connection_note, s, MHD_OPTION_END);
	if (!s->d && dummy >= 0)
		close(dummy);
	if (s->d)
		s->gate =
		    gate_start(lfd, s->d, o ? o->head_timeout_ms : 0, &s->live, SERVER_CONNECTIONS);
	if (!s->d || !s->gate) {
		if (s->d)
			MHD_stop_daemon(s->d);
		close(lfd);
		if (dummy >= 0 && !mhd_load())
			return pv_error_set(err, PV_EIO, "cannot start the HTTP server: %s",
					    mhd_load_error());
		return pv_error_set(err, PV_EIO, "cannot start the HTTP server's threads");
	}
	return 0;
}

/* The Host values a browser sends for this server. */
static void server_hosts(struct pv_server *s, const struct pv_serve_opts *o)
{
	const char *names[] = {"127.0.0.1", "localhost", "[::1]", NULL, NULL};
	char bracketed[INET6_ADDRSTRLEN + 2];
	uint32_t nn = 3;
	if (o && o->host && *o->host) {
		if (strchr(o->host, ':') && o->host[0] != '[') {
			snprintf(bracketed, sizeof(bracketed), "[%s]", o->host);
			names[nn++] = bracketed;
		} else {
			names[nn++] = o->host;
		}
	}
	for (uint32_t i = 0; i < nn; i++)
		snprintf(s->hosts[s->nr_hosts++], sizeof(s->hosts[0]), "%s:%u", names[i],
			 (unsigned)s->port);
}

int pv_server_start(struct pv_api *a, const struct pv_serve_opts *o, struct pv_server **out,
		    char **url_out, struct pv_error *err)
{
	struct pv_server *s = calloc(1, sizeof(*s));
	if (!s)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	s->a = a;
	const char *host = o && o->host && *o->host ? o->host : "127.0.0.1";
	bool v6 = false;
	char addr[INET6_ADDRSTRLEN] = "";
	int lfd = -1;
	int rc = server_token(s, o, err);
	if (!rc)
		rc = server_listen(s, host, o ? o->port : 0, &lfd, &v6, addr, err);
	if (!rc)
		rc = server_library(s, lfd, o, err);
	if (rc) {
		free(s);
		return rc;
	}
	server_hosts(s, o);
	if (url_out) {
		char url[512];
		const char *shown = v6 ? NULL : addr;
		if (v6)
			snprintf(url, sizeof(url), "http://[%s]:%u/%s/", addr, (unsigned)s->port,
				 s->token);
		else
			snprintf(url, sizeof(url), "http://%s:%u/%s/", shown, (unsigned)s->port,
				 s->token);
		*url_out = strdup(url);
		if (!*url_out) {
			pv_server_stop(s);
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		}
	}
	*out = s;
	return 0;
}

void pv_server_stop(struct pv_server *s)
{
	if (!s)
		return;
	gate_stop(s->gate); /* no new connection first */
	pv_api_stop(s->a);  /* answers under way end soon */
	if (s->d)
		MHD_stop_daemon(s->d);
	free(s);
}

uint16_t pv_server_port(const struct pv_server *s)
{
	return s ? s->port : 0;
}

int pv_server_public(const struct pv_server *s)
{
	return s && s->public;
}
