/*
 * test_server.c - the HTTP server of `profview serve` (web/server.c) over a loopback socket with
 * plain POSIX sockets: the token, the Host check, the methods, the assets and the API, bad input
 * (malformed request lines, garbage bytes, a huge header), 1,000 concurrent connections, and the
 * source endpoint's refusal of paths the profile does not name (doc/api.md).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "gate.h"
#include "pv/import.h"
#include "pv/serve.h"
#include "t.h"
#include "tbin.h"
#include "tp.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

struct fixture {
	struct pv_api *a;
	struct pv_server *s;
	uint16_t port;
	char dir[64]; /* a profile folder with a source file and a symlink */
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		t_fail(__FILE__, __LINE__, "cannot write %s", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* A speedscope profile naming two sources: ok.c (a file beside it) and link.c (a symlink to
 * /etc/passwd beside it). */
static bool setup_opts(struct fixture *fx, int head_timeout_ms)
{
	memset(fx, 0, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/pv-server-XXXXXX");
	if (!mkdtemp(fx->dir)) {
		t_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return false;
	}
	char path[256];
	snprintf(path, sizeof(path), "%s/ok.c", fx->dir);
	write_file(path, "int main(void)\n{\n\treturn 0;\n}\n");
	snprintf(path, sizeof(path), "%s/link.c", fx->dir);
	if (symlink("/etc/passwd", path) != 0)
		t_fail(__FILE__, __LINE__, "symlink: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/prof.json", fx->dir);
	write_file(
	    path,
	    "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":"
	    "{\"frames\":[{\"name\":\"main\",\"file\":\"ok.c\",\"line\":1},{\"name\":\"evil\","
	    "\"file\":\"link.c\",\"line\":1}]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"t\","
	    "\"unit\":\"none\",\"startValue\":0,\"endValue\":4,\"samples\":[[0],[0,1],[0,1],[0]],"
	    "\"weights\":[1,1,1,1]}]}\n");
	struct pv_profile *p = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_import_file(path, NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "import: %s", err.msg);
		return false;
	}
	T_EQ_INT(pv_api_new(&fx->a, NULL), 0);
	pv_api_add_profile(fx->a, path, p);
	struct pv_serve_opts o = {.token = TOKEN, .quiet = 1, .head_timeout_ms = head_timeout_ms};
	char *url = NULL;
	if (pv_server_start(fx->a, &o, &fx->s, &url, &err)) {
		t_fail(__FILE__, __LINE__, "server: %s", err.msg);
		pv_api_free(fx->a);
		return false;
	}
	fx->port = pv_server_port(fx->s);
	char want[128];
	snprintf(want, sizeof(want), "http://127.0.0.1:%u/" TOKEN "/", (unsigned)fx->port);
	T_EQ_STR(url, want);
	T_TRUE(fx->port != 0);
	free(url);
	return true;
}

static bool setup(struct fixture *fx)
{
	return setup_opts(fx, 0);
}

static void teardown(struct fixture *fx)
{
	pv_server_stop(fx->s);
	pv_api_free(fx->a);
	char path[256];
	const char *names[] = {"ok.c", "link.c", "prof.json"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", fx->dir, names[i]);
		unlink(path);
	}
	rmdir(fx->dir);
}

static int connect_to(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	struct timeval tv = {.tv_sec = 20};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool send_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t k = send(fd, buf, n, MSG_NOSIGNAL);
		if (k <= 0)
			return false;
		buf += k;
		n -= (size_t)k;
	}
	return true;
}

/* The whole answer (the server closes: requests say Connection: close); malloc'ed. */
static char *read_all(int fd)
{
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	for (;;) {
		if (n + 1024 > cap) {
			cap *= 2;
			b = realloc(b, cap);
		}
		ssize_t k = recv(fd, b + n, cap - n - 1, 0);
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	b[n] = 0;
	return b;
}

static int status_of(const char *resp)
{
	int st = 0;
	if (sscanf(resp, "HTTP/1.%*d %d", &st) != 1)
		return 0;
	return st;
}

/* One raw request; the status (0 when no answer) and the answer in *resp when asked. */
static int raw(uint16_t port, const char *req, size_t len, char **resp)
{
	int fd = connect_to(port);
	if (fd < 0)
		return 0;
	send_all(fd, req, len);
	shutdown(fd, SHUT_WR);
	char *b = read_all(fd);
	close(fd);
	int st = status_of(b);
	if (resp)
		*resp = b;
	else
		free(b);
	return st;
}

/* GET path with Host 127.0.0.1:PORT (or host) */
static int get(const struct fixture *fx, const char *method, const char *path, const char *host,
	       char **resp)
{
	char req[8192], h[128];
	if (!host) {
		snprintf(h, sizeof(h), "127.0.0.1:%u", (unsigned)fx->port);
		host = h;
	}
	int n =
	    snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
		     method, path, host);
	return raw(fx->port, req, (size_t)n, resp);
}

static const char *body_of(const char *resp)
{
	const char *b = strstr(resp, "\r\n\r\n");
	return b ? b + 4 : "";
}

T_TEST(server_token_host_method)
{
	struct fixture fx;
	if (!setup(&fx))
		return;
	char *r = NULL;
	char host[64];
	/* the page, with its headers */
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/", NULL, &r), 200);
	T_CONTAINS(r, "Content-Type: text/html; charset=utf-8\r\n");
	T_CONTAINS(r, "Cache-Control: no-store\r\n");
	T_CONTAINS(r, "X-Content-Type-Options: nosniff\r\n");
	T_CONTAINS(r, "Content-Security-Policy: default-src 'none'; script-src 'self';");
	T_CONTAINS(r, "Referrer-Policy: no-referrer\r\n");
	T_CONTAINS(body_of(r), "<html");
	free(r);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/index.html", NULL, NULL), 200);
	/* every embedded asset is served with its type */
	for (size_t i = 0; i < pv_nr_assets; i++) {
		char path[512];
		snprintf(path, sizeof(path), "/" TOKEN "/%s", pv_assets[i].path);
		T_EQ_INT(get(&fx, "GET", path, NULL, &r), 200);
		char want[256];
		snprintf(want, sizeof(want), "Content-Type: %s\r\n", pv_assets[i].content_type);
		T_CONTAINS(r, want);
		T_EQ_U64(strlen(body_of(r)) >= pv_assets[i].len ? pv_assets[i].len : 0,
			 pv_assets[i].len);
		free(r);
	}
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/nope.js", NULL, NULL), 404);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/../" TOKEN "/index.html", NULL, NULL), 404);
	/* no token, a wrong one, a prefix of it, the token without its slash */
	T_EQ_INT(get(&fx, "GET", "/", NULL, NULL), 403);
	T_EQ_INT(get(&fx, "GET", "/index.html", NULL, NULL), 403);
	T_EQ_INT(get(&fx, "GET", "/ffffffffffffffffffffffffffffffff/", NULL, NULL), 403);
	T_EQ_INT(get(&fx, "GET", "/0123456789abcdef/", NULL, NULL), 403);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN, NULL, NULL), 403);
	T_EQ_INT(get(&fx, "GET", "/api/status", NULL, NULL), 403);
	T_EQ_INT(get(&fx, "GET", "/x/" TOKEN "/", NULL, NULL), 403);
	/* Host: loopback names with the port only */
	snprintf(host, sizeof(host), "evil.com:%u", (unsigned)fx.port);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/", host, NULL), 403);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/", "127.0.0.1", NULL), 403);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/", "localhost:1", NULL), 403);
	snprintf(host, sizeof(host), "localhost:%u", (unsigned)fx.port);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/", host, NULL), 200);
	snprintf(host, sizeof(host), "[::1]:%u", (unsigned)fx.port);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/", host, NULL), 200);
	{
		char req[256];
		int n = snprintf(req, sizeof(req), "GET /" TOKEN "/ HTTP/1.0\r\n\r\n");
		int st = raw(fx.port, req, (size_t)n, NULL);
		T_TRUE(st == 403 || st == 400); /* no Host at all */
	}
	/* methods */
	T_EQ_INT(get(&fx, "POST", "/" TOKEN "/", NULL, &r), 405);
	T_CONTAINS(r, "Allow: GET, HEAD\r\n");
	free(r);
	T_EQ_INT(get(&fx, "PUT", "/" TOKEN "/api/status", NULL, NULL), 405);
	T_EQ_INT(get(&fx, "DELETE", "/" TOKEN "/api/status", NULL, NULL), 405);
	T_EQ_INT(get(&fx, "HEAD", "/" TOKEN "/", NULL, &r), 200);
	T_EQ_STR(body_of(r), "");
	free(r);
	teardown(&fx);
}

T_TEST(server_api)
{
	struct fixture fx;
	if (!setup(&fx))
		return;
	char *r = NULL;
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/api/status", NULL, &r), 200);
	T_CONTAINS(r, "Content-Type: application/json; charset=utf-8\r\n");
	T_CONTAINS(body_of(r), "{\"state\": \"ready\", \"files\": [");
	free(r);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/api/nope", NULL, &r), 404);
	T_JSON_EQ(body_of(r), "{\"error\": \"no endpoint 'nope'\"}");
	free(r);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/api/profile?p=7", NULL, NULL), 404);
	/* the raw query reaches the API: repeated keys in order, escapes decoded once */
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/api/activity?buckets=2&thread=t&thread=t", NULL, &r),
		 200);
	free(r);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/api/activity?metric=%6Eope", NULL, &r), 400);
	T_JSON_EQ(body_of(r), "{\"error\": \"no metric named 'nope'\"}");
	free(r);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/api/profile", NULL, &r), 200);
	T_CONTAINS(body_of(r), "{\"id\": 0, \"path\": \"ok.c\", \"available\": true}");
	T_CONTAINS(body_of(r), "{\"id\": 1, \"path\": \"link.c\", \"available\": false}");
	free(r);
	teardown(&fx);
}

/* The source endpoint serves only files the profile names, by their id: no path from the
 * request, no symlink. */
T_TEST(server_source_paths)
{
	struct fixture fx;
	if (!setup(&fx))
		return;
	char *r = NULL;
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/api/source?file=0", NULL, &r), 200);
	T_CONTAINS(body_of(r), "\"text\": \"int main(void)\"");
	free(r);
	/* none asked: the hottest readable file (ok.c; link.c, a symbolic link, never) */
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/api/source", NULL, &r), 200);
	T_CONTAINS(body_of(r), "{\"id\": 0, \"path\": \"ok.c\", ");
	T_CONTAINS(body_of(r), "\"addresses\": false"); /* speedscope has none: no addr column */
	T_TRUE(strstr(body_of(r), "\"addr\"") == NULL);
	free(r);
	static const char *const bad[] = {
	    "file=../../etc/passwd",
	    "file=/etc/passwd",
	    "file=%2Fetc%2Fpasswd",
	    "file=..%2F..%2Fetc%2Fpasswd",
	    "file=0/../../../etc/passwd",
	    "file=1",
	    "file=2",
	    "file=-1",
	    "file=0%00",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[256];
		snprintf(path, sizeof(path), "/" TOKEN "/api/source?%s", bad[i]);
		int st = get(&fx, "GET", path, NULL, &r);
		if (st != 404 && !(st == 400 && strstr(bad[i], "%00")))
			t_fail(__FILE__, __LINE__, "source?%s: %d, not 404", bad[i], st);
		T_TRUE(!strstr(r, "root:"));
		free(r);
	}
	teardown(&fx);
}

T_TEST(server_bad_requests)
{
	struct fixture fx;
	if (!setup(&fx))
		return;
	static const char *const reqs[] = {
	    "GARBAGE\r\n\r\n",
	    "GET\r\n\r\n",
	    "GET / HTTP/9.9\r\n\r\n",
	    "\r\n\r\n\r\n",
	    "GET /" TOKEN "/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n",
	    "GET /" TOKEN "/ HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n",
	    "GET /%zz%00 HTTP/1.1\r\nHost: x\r\n\r\n",
	    "POST /" TOKEN "/api/status HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "zzzz\r\n",
	};
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++)
		raw(fx.port, reqs[i], strlen(reqs[i]), NULL);
	/* binary garbage */
	char junk[4096];
	unsigned x = 12345;
	for (size_t i = 0; i < sizeof(junk); i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (char)(x >> 16);
	}
	raw(fx.port, junk, sizeof(junk), NULL);
	/* a huge header and a huge URL: refused, the server lives on */
	size_t big = 1 << 20;
	char *req = malloc(big + 256);
	int n = snprintf(req, 256, "GET /" TOKEN "/ HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nX-Big: ",
			 (unsigned)fx.port);
	memset(req + n, 'a', big);
	memcpy(req + n + big, "\r\n\r\n", 4);
	int st = raw(fx.port, req, (size_t)n + big + 4, NULL);
	T_TRUE(st == 0 || st >= 400);
	n = snprintf(req, 256, "GET /" TOKEN "/");
	memset(req + n, 'b', big);
	memcpy(req + n + big, " HTTP/1.1\r\n\r\n", 13);
	st = raw(fx.port, req, (size_t)n + big + 13, NULL);
	T_TRUE(st == 0 || st >= 400);
	free(req);
	/* a connection that sends half a request and stalls does not block the others */
	int stall = connect_to(fx.port);
	send_all(stall, "GET /", 5);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/api/status", NULL, NULL), 200);
	close(stall);
	teardown(&fx);
}

T_TEST(server_many_connections)
{
	struct fixture fx;
	if (!setup(&fx))
		return;
	enum { N = 1000 };
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < 2 * N + 100 && rl.rlim_max >= 2 * N + 100) {
		rl.rlim_cur = 2 * N + 100;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	getrlimit(RLIMIT_NOFILE, &rl);
	uint32_t n = rl.rlim_cur >= 2 * N + 100 ? N : (uint32_t)(rl.rlim_cur - 100) / 2;
	int *fds = malloc(n * sizeof(*fds));
	char req[256];
	int len = snprintf(req, sizeof(req),
			   "GET /" TOKEN "/api/status HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
			   "Connection: close\r\n\r\n",
			   (unsigned)fx.port);
	/* open them all, then send on each, then read each answer */
	uint32_t opened = 0, ok = 0;
	for (uint32_t i = 0; i < n; i++) {
		fds[i] = connect_to(fx.port);
		opened += fds[i] >= 0;
	}
	for (uint32_t i = 0; i < n; i++)
		if (fds[i] >= 0 && !send_all(fds[i], req, (size_t)len)) {
			close(fds[i]);
			fds[i] = -1;
		}
	for (uint32_t i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		char *r = read_all(fds[i]);
		ok += status_of(r) == 200;
		free(r);
		close(fds[i]);
	}
	free(fds);
	/* every one answered: past the library's share they wait in the gate's queue */
	T_EQ_INT(opened, N);
	if (ok != n)
		t_fail(__FILE__, __LINE__, "%u of %u answered", ok, n);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/api/status", NULL, NULL), 200);
	T_EQ_INT(get(&fx, "GET", "/" TOKEN "/", NULL, NULL), 200);
	teardown(&fx);
}

T_TEST(server_bind_errors)
{
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	struct pv_server *s1 = NULL, *s2 = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_serve_opts o = {.quiet = 1};
	char *url = NULL;
	T_EQ_INT(pv_server_start(a, &o, &s1, &url, &err), 0);
	/* a random token: 32 hex digits */
	const char *tok = url ? strrchr(url, ':') : NULL;
	tok = tok ? strchr(tok, '/') : NULL;
	T_TRUE(tok && strlen(tok) == 34 && strspn(tok + 1, "0123456789abcdef") == 32);
	free(url);
	/* the same port again: one line saying why */
	o.port = pv_server_port(s1);
	T_EQ_INT(pv_server_start(a, &o, &s2, &url, &err), PV_EIO);
	T_CONTAINS(err.msg, "cannot listen on 127.0.0.1 port");
	T_EQ_INT(pv_server_public(s1), 0);
	o.port = 0;
	/* every address of the machine: public (the CLI warns) */
	o.host = "0.0.0.0";
	T_EQ_INT(pv_server_start(a, &o, &s2, &url, &err), 0);
	T_EQ_INT(pv_server_public(s2), 1);
	free(url);
	pv_server_stop(s2);
	o.host = NULL;
	o.token = "bad token/";
	T_EQ_INT(pv_server_start(a, &o, &s2, &url, &err), PV_EINVAL);
	o.token = NULL;
	o.host = "no.such.host.invalid";
	T_TRUE(pv_server_start(a, &o, &s2, &url, &err) == PV_EIO);
	pv_server_stop(s1);
	pv_api_free(a);
}

/* Room for n client sockets besides the server's own (the gate's list, the library's). */
static uint32_t raise_fd_limit(uint32_t n)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rlim_t want = 2 * (rlim_t)n + 1200;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	getrlimit(RLIMIT_NOFILE, &rl);
	return rl.rlim_cur >= want ? n
				   : (uint32_t)(rl.rlim_cur > 1300 ? (rl.rlim_cur - 1300) / 2 : 0);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The status and time of one ordinary request. */
static int timed_get(const struct fixture *fx, const char *path, double *secs)
{
	double t0 = now_s();
	int st = get(fx, "GET", path, NULL, NULL);
	*secs = now_s() - t0;
	return st;
}

/*
 * Slowloris: 600 connections that send a request head a line at a time and never finish it. An
 * ordinary request is still answered within a second while they trickle; when their time is up
 * each gets 408 with the usual security headers; past the gate's list the oldest is dropped:
 * with 2,000 waiting connections (twice the list) a probe is still answered within a second.
 */
T_TEST(server_slow_clients)
{
	struct fixture fx;
	if (!setup_opts(&fx, 2500))
		return;
	uint32_t n = raise_fd_limit(2000);
	T_EQ_INT(n, 2000);
	int *fds = malloc(n * sizeof(*fds));
	char line[128];
	snprintf(line, sizeof(line), "GET /" TOKEN "/api/status HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n",
		 (unsigned)fx.port);
	for (uint32_t i = 0; i < 600; i++) {
		fds[i] = connect_to(fx.port);
		if (fds[i] >= 0)
			send_all(fds[i], line, strlen(line));
	}
	double secs;
	for (int round = 0; round < 3; round++) {
		for (uint32_t i = 0; i < 600; i++) /* a header line now and then */
			if (fds[i] >= 0)
				send_all(fds[i], "X-Slow: 1\r\n", 11);
		T_EQ_INT(timed_get(&fx, "/" TOKEN "/api/status", &secs), 200);
		if (secs > 1.0)
			t_fail(__FILE__, __LINE__, "an ordinary request took %.3f s", secs);
		struct timespec ts = {0, 300 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	/* their time is up: 408, with the headers every answer has */
	struct timespec wait = {3, 0};
	nanosleep(&wait, NULL);
	char *r = read_all(fds[0]);
	T_EQ_INT(status_of(r), 408);
	T_CONTAINS(r, "Content-Security-Policy: default-src 'none';");
	T_CONTAINS(r, "X-Content-Type-Options: nosniff\r\n");
	T_CONTAINS(r, "Connection: close\r\n");
	T_CONTAINS(body_of(r), "{\"error\": \"request head not received in time\"}");
	free(r);
	for (uint32_t i = 0; i < 600; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* more waiting connections than the gate keeps: the oldest makes room for the newest */
	for (uint32_t i = 0; i < n; i++) {
		fds[i] = connect_to(fx.port);
		if (fds[i] >= 0)
			send_all(fds[i], "GET /", 5);
	}
	T_EQ_INT(timed_get(&fx, "/" TOKEN "/api/status", &secs), 200);
	if (secs > 1.0)
		t_fail(__FILE__, __LINE__, "with %u waiting connections a request took %.3f s", n,
		       secs);
	r = read_all(fds[0]);
	T_EQ_INT(status_of(r), 503);
	T_CONTAINS(body_of(r), "too many connections waiting");
	free(r);
	for (uint32_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	teardown(&fx);
}

/*
 * Ctrl-C while /api/disasm waits on an objdump that never ends (tbin.h's stand-in): the server
 * stops within a second (pv_server_stop ends the answer: objdump killed), not after the
 * answer's 5 s.
 */
T_TEST(server_stop_mid_disasm)
{
#if defined(__x86_64__)
	char dir[64];
	uint64_t addr[2];
	if (!tb_nop_binary(dir, 2, 64, false, addr) || !tb_slow_objdump(dir))
		return;
	size_t len = 0;
	char *text = tb_nop_profile(dir, 2, 64, addr, &len);
	struct pv_profile *p = text ? t_load_mem("nops.callgrind", text, len) : NULL;
	free(text);
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	if (!p || !a) {
		pv_profile_free(p);
		pv_api_free(a);
		return;
	}
	pv_api_add_profile(a, "nops.callgrind", p);
	struct pv_serve_opts o = {.token = TOKEN, .quiet = 1};
	struct pv_server *s = NULL;
	struct pv_error err;
	T_EQ_INT(pv_server_start(a, &o, &s, NULL, &err), 0);
	char *saved = tb_path_first(dir);
	uint16_t port = pv_server_port(s);
	int fd = connect_to(port);
	char req[256];
	int n = snprintf(req, sizeof(req),
			 "GET /" TOKEN "/api/disasm?file=0&line=1 HTTP/1.1\r\n"
			 "Host: 127.0.0.1:%u\r\nConnection: close\r\n\r\n",
			 (unsigned)port);
	T_TRUE(fd >= 0 && send_all(fd, req, (size_t)n));
	struct timespec ts = {0, 300 * 1000 * 1000};
	nanosleep(&ts, NULL);
	double t0 = now_s();
	pv_server_stop(s);
	double secs = now_s() - t0;
	tb_path_restore(saved);
	if (secs > 1.0)
		t_fail(__FILE__, __LINE__, "the server took %.3f s to stop", secs);
	if (fd >= 0)
		close(fd);
	pv_api_free(a);
	tb_remove(dir);
#endif
}

/* Keep-alive: two requests on one connection, the second pipelined behind the first. */
T_TEST(server_keep_alive_and_pipelining)
{
	struct fixture fx;
	if (!setup(&fx))
		return;
	char req[512];
	int n = snprintf(req, sizeof(req),
			 "GET /" TOKEN "/api/status HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n"
			 "GET /" TOKEN "/api/profile HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
			 "Connection: close\r\n\r\n",
			 (unsigned)fx.port, (unsigned)fx.port);
	int fd = connect_to(fx.port);
	T_TRUE(fd >= 0);
	send_all(fd, req, (size_t)n);
	char *r = read_all(fd);
	close(fd);
	const char *second = strstr(r + 1, "HTTP/1.1 200");
	T_EQ_INT(status_of(r), 200);
	T_TRUE(second != NULL);
	T_CONTAINS(r, "{\"state\": \"ready\"");
	T_CONTAINS(second ? second : "", "\"nr_sources\"");
	free(r);
	teardown(&fx);
}

/* What the gate refuses itself carries the same headers as every other answer. */
T_TEST(server_gate_answers)
{
	struct fixture fx;
	if (!setup(&fx))
		return;
	static const struct {
		const char *req;
		int status;
		const char *error;
	} cases[] = {
	    {"GARBAGE\r\n\r\n", 400, "malformed request"},
	    {"GET /x HTTP/2.0\r\nHost: h\r\n\r\n", 400, "malformed request"},
	    {"GET /x HTTP/1.1\r\nHost h\r\n\r\n", 400, "malformed request"},
	    {"POST /" TOKEN "/api/status HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
	     413, "a request body is not accepted"},
	    {"POST /" TOKEN "/ HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	     501, "a request body is not accepted"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *r = NULL;
		T_EQ_INT(raw(fx.port, cases[i].req, strlen(cases[i].req), &r), cases[i].status);
		T_CONTAINS(r, "Content-Security-Policy: default-src 'none';");
		T_CONTAINS(r, "Cache-Control: no-store\r\n");
		T_CONTAINS(r, "Connection: close\r\n");
		char want[128];
		snprintf(want, sizeof(want), "{\"error\": \"%s\"}", cases[i].error);
		T_EQ_STR(body_of(r), want);
		free(r);
	}
	/* a head larger than the gate reads */
	size_t big = GATE_HEAD_MAX + 100;
	char *req = malloc(big + 64);
	int n = snprintf(req, 64, "GET /" TOKEN "/ HTTP/1.1\r\nX-Big: ");
	memset(req + n, 'a', big);
	memcpy(req + n + big, "\r\n\r\n", 4);
	char *r = NULL;
	T_EQ_INT(raw(fx.port, req, (size_t)n + big + 4, &r), 431);
	T_CONTAINS(r, "X-Frame-Options: DENY\r\n");
	free(r);
	free(req);
	/* the server's own refusals close the connection too */
	T_EQ_INT(get(&fx, "GET", "/", NULL, &r), 403);
	T_CONTAINS(r, "Connection: close\r\n");
	free(r);
	teardown(&fx);
}

/* gate_check_head of a head written as a C string */
static unsigned check(const char *head)
{
	return gate_check_head(head, strlen(head));
}

T_TEST(server_gate_check_head)
{
	T_EQ_INT(check("GET / HTTP/1.1\r\nHost: a"), 0);
	T_EQ_INT(check("HEAD /x?y=1 HTTP/1.0"), 0);
	T_EQ_INT(check("GET / HTTP/1.1\r\nContent-Length: 0"), 0);
	T_EQ_INT(check("GET  / HTTP/1.1"), 400);
	T_EQ_INT(check("GET /\x01 HTTP/1.1"), 400);
	T_EQ_INT(check("GET / HTTP/1.1\r\n: x"), 400);
	T_EQ_INT(check("GET / HTTP/1.1\r\nA: b\x01"), 400);
	T_EQ_INT(check("GET / HTTP/1.1\r\ncontent-length: 12"), 413);
}
