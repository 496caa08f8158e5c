/*
 * server.c - the HTTP side of `profview serve` (doc/api.md), over libmicrohttpd.
 *
 * Every request is checked in this order: the Host header must name the bound address or a
 * loopback name with the port (no DNS rebinding), the path must start with /TOKEN/ (403 for
 * either), and only GET and HEAD are served (405). Then /TOKEN/api/ENDPOINT?QUERY goes to
 * pv_api_call with the raw query string (kept from MHD's URI log callback, so repeated and
 * ordered parameters reach the API as they were sent), and any other path is an embedded file of
 * web/assets/ (pv_assets). libmicrohttpd runs a pool of 4 threads polling with poll(), limits the
 * connections and the memory of each, and times idle ones out, so a flood of connections or
 * malformed requests cannot take the server down. (Not epoll: with MHD 0.9.75's epoll pool, a
 * burst of 1,000 connections left one now and then unserved until its timeout.)
 */
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "api.h"

#define SERVER_THREADS 4
#define SERVER_CONNECTIONS 512
#define SERVER_TIMEOUT_S 30
#define SERVER_CONN_MEMORY (64 * 1024)
#define MAX_HOSTS 5

/* script-src 'self' and nothing from elsewhere; the page's own CSS may set inline styles */
#define CSP                                                                                        \
	"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "                \
	"img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; base-uri 'none'; "       \
	"form-action 'none'; frame-ancestors 'none'"

struct pv_server {
	struct MHD_Daemon *d;
	struct pv_api *a;
	char token[65];
	size_t token_len;
	uint16_t port;
	uint32_t nr_hosts;
	char hosts[MAX_HOSTS][300]; /* accepted Host header values */
};

/* ---- per request: the raw URI, kept by the URI log callback ---- */

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls, (void)c;
	return strdup(uri ? uri : "");
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
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Content-Security-Policy", CSP);
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Cross-Origin-Resource-Policy", "same-origin");
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
	const char *raw = *req_cls ? *req_cls : "";
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

static bool token_chars(const char *t)
{
	size_t n = strlen(t);
	if (n == 0 || n > 64)
		return false;
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') ||
		      *t == '-' || *t == '_'))
			return false;
	return true;
}

int pv_server_start(struct pv_api *a, const struct pv_serve_opts *o, struct pv_server **out,
		    char **url_out, struct pv_error *err)
{
	struct pv_server *s = calloc(1, sizeof(*s));
	if (!s)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	s->a = a;
	const char *host = o && o->host && *o->host ? o->host : "127.0.0.1";
	if (o && o->token) {
		if (!token_chars(o->token)) {
			free(s);
			return pv_error_set(err, PV_EINVAL, "--token takes 1 to 64 of A-Z a-z 0-9 - _");
		}
		snprintf(s->token, sizeof(s->token), "%s", o->token);
	} else {
		unsigned char r[16];
		size_t got = 0;
		while (got < sizeof(r)) {
			ssize_t k = getrandom(r + got, sizeof(r) - got, 0);
			if (k <= 0) {
				free(s);
				return pv_error_set(err, PV_EIO, "cannot get random bytes for the token");
			}
			got += (size_t)k;
		}
		for (size_t i = 0; i < sizeof(r); i++)
			snprintf(s->token + 2 * i, 3, "%02x", r[i]);
	}
	s->token_len = strlen(s->token);

	/* the address to bind */
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE}, *res = NULL;
	int gai = getaddrinfo(host, NULL, &hints, &res);
	if (gai || !res) {
		free(s);
		return pv_error_set(err, PV_EIO, "cannot resolve host '%s': %s", host,
				    gai ? gai_strerror(gai) : "no address");
	}
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, res->ai_addr, res->ai_addrlen < sizeof(ss) ? res->ai_addrlen : sizeof(ss));
	bool v6 = res->ai_family == AF_INET6;
	freeaddrinfo(res);
	uint16_t port = o ? o->port : 0;
	if (v6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
	char addr[INET6_ADDRSTRLEN] = "";
	inet_ntop(v6 ? AF_INET6 : AF_INET,
		  v6 ? (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
		     : (void *)&((struct sockaddr_in *)&ss)->sin_addr,
		  addr, sizeof(addr));

	unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | (v6 ? MHD_USE_IPv6 : 0);
	s->d = MHD_start_daemon(flags, port, NULL, NULL, handle, s,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_THREAD_POOL_SIZE, (unsigned)SERVER_THREADS,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)SERVER_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVER_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVER_CONN_MEMORY,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)0,
				MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024,
				MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL,
				MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
				MHD_OPTION_END);
	if (!s->d) {
		free(s);
		return pv_error_set(err, PV_EIO, "cannot listen on %s port %u (in use, or not an "
				    "address of this machine)", addr, (unsigned)port);
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : port;

	/* the Host values a browser sends for this server */
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

	if (url_out) {
		char url[512];
		const char *shown = v6 ? NULL : addr;
		if (v6)
			snprintf(url, sizeof(url), "http://[%s]:%u/%s/", addr, (unsigned)s->port, s->token);
		else
			snprintf(url, sizeof(url), "http://%s:%u/%s/", shown, (unsigned)s->port, s->token);
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
	if (s->d)
		MHD_stop_daemon(s->d);
	free(s);
}

uint16_t pv_server_port(const struct pv_server *s)
{
	return s ? s->port : 0;
}
