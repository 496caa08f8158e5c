/*
 * gate.c - accept, wait for the whole request head, then hand the connection to libmicrohttpd
 * (gate.h says why).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"

/* script-src 'self' and nothing from elsewhere; the page's own CSS may set inline styles */
#define CSP                                                                                  \
	"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "          \
	"img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; base-uri 'none'; " \
	"form-action 'none'; frame-ancestors 'none'"

/* every answer's headers besides its type (gate.h): the server's and the gate's own */
const struct server_header server_headers[] = {
    {MHD_HTTP_HEADER_CACHE_CONTROL, "no-store"},
    {"X-Content-Type-Options", "nosniff"},
    {"Content-Security-Policy", CSP},
    {"Referrer-Policy", "no-referrer"},
    {"X-Frame-Options", "DENY"},
    {"Cross-Origin-Resource-Policy", "same-origin"},
};
const size_t server_nr_headers = sizeof(server_headers) / sizeof(server_headers[0]);

struct pending {
	int fd;
	int64_t since_ms;
	struct sockaddr_storage addr;
	socklen_t alen;
};

struct gate {
	int lfd;
	int wake[2]; /* gate_stop writes to wake[1] */
	struct MHD_Daemon *d;
	int64_t deadline_ms;
	atomic_uint *live;
	unsigned max_live;
	pthread_t th;
	struct pending *p; /* oldest first */
	uint32_t n;
	/* whole requests waiting for room in the library: a ring of GATE_READY, since_ms the time
	 * their head was whole */
	struct pending *ready;
	uint32_t ready_head, nready;
	struct pollfd *pfd;
	char *buf; /* GATE_HEAD_MAX bytes for peeking */
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *reason(unsigned status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 408: return "Request Timeout";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 431: return "Request Header Fields Too Large";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}

/* Answers status with a one-line JSON error (best effort: the socket is non-blocking) and
 * closes the connection. */
static void refuse(int fd, unsigned status, const char *msg)
{
	char body[160], head[2048];
	int bn = snprintf(body, sizeof(body), "{\"error\": \"%s\"}", msg);
	int n = snprintf(head, sizeof(head), "HTTP/1.1 %u %s\r\nConnection: close\r\n", status,
			 reason(status));
	for (size_t i = 0; i < server_nr_headers && n > 0 && (size_t)n < sizeof(head); i++)
		n += snprintf(head + n, sizeof(head) - (size_t)n, "%s: %s\r\n",
			      server_headers[i].name, server_headers[i].value);
	if (n > 0 && (size_t)n < sizeof(head))
		n += snprintf(head + n, sizeof(head) - (size_t)n,
			      "Content-Type: application/json; charset=utf-8\r\n"
			      "Content-Length: %d\r\n\r\n%s",
			      bn, body);
	if (n > 0 && (size_t)n < sizeof(head))
		(void)!send(fd, head, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(fd, SHUT_RDWR);
	close(fd);
}

static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("!#$%&'*+-.^_`|~", c);
}

unsigned gate_check_head(const char *head, size_t len)
{
	const char *p = head, *end = head + len;
	/* request line: METHOD SP TARGET SP HTTP/1.x */
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	const char *le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
	const char *sp = p;
	while (sp < le && is_tchar((unsigned char)*sp))
		sp++;
	if (sp == p || sp >= le || *sp != ' ')
		return 400;
	const char *target = sp + 1, *sp2 = memchr(target, ' ', (size_t)(le - target));
	if (!sp2 || sp2 == target || le - sp2 - 1 != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return 400;
	for (const char *c = target; c < sp2; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return 400;
	/* header lines: NAME ":" VALUE; no body */
	for (p = eol + (eol < end); p < end; p = eol + (eol < end)) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
		if (le == p)
			continue;
		const char *colon = p;
		while (colon < le && is_tchar((unsigned char)*colon))
			colon++;
		if (colon == p || colon >= le || *colon != ':')
			return 400;
		size_t nl = (size_t)(colon - p);
		if (nl == 17 && strncasecmp(p, "transfer-encoding", 17) == 0)
			return 501;
		if (nl == 14 && strncasecmp(p, "content-length", 14) == 0) {
			const char *v = colon + 1;
			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			if (le - v != 1 || *v != '0')
				return 413; /* GET and HEAD carry no body */
		}
		for (const char *c = colon + 1; c < le; c++)
			if (((unsigned char)*c < ' ' && *c != '\t') || *c == 0x7f)
				return 400;
	}
	return 0;
}

/* Drops pending connection i (keeps the order). */
static void drop(struct gate *g, uint32_t i)
{
	memmove(g->p + i, g->p + i + 1, (g->n - i - 1) * sizeof(*g->p));
	g->n--;
}

static void accept_new(struct gate *g, int64_t now)
{
	for (int k = 0; k < 256; k++) {
		struct pending q = {.alen = sizeof(q.addr), .since_ms = now};
		q.fd = accept4(g->lfd, (struct sockaddr *)&q.addr, &q.alen,
			       SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (q.fd < 0)
			return; /* EAGAIN, or out of descriptors: the next round */
		if (g->n == GATE_PENDING) {
			/* full: the oldest waiting connection makes room for the new one */
			refuse(g->p[0].fd, 503, "too many connections waiting");
			drop(g, 0);
		}
		g->p[g->n++] = q;
	}
}

/* Looks at pending connection i: 1 when it left the list. */
static int examine(struct gate *g, uint32_t i, int64_t now)
{
	struct pending *q = &g->p[i];
	ssize_t k = recv(q->fd, g->buf, GATE_HEAD_MAX, MSG_PEEK | MSG_DONTWAIT);
	if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (k <= 0) { /* closed or failed before sending a request */
		close(q->fd);
		drop(g, i);
		return 1;
	}
	const char *end = NULL;
	for (ssize_t j = 3; j < k && !end; j++)
		if (g->buf[j] == '\n' && g->buf[j - 1] == '\r' && g->buf[j - 2] == '\n' &&
		    g->buf[j - 3] == '\r')
			end = g->buf + j - 3;
	if (!end) {
		if (k < GATE_HEAD_MAX)
			return 0; /* more to come */
		refuse(q->fd, 431, "request head too large");
		drop(g, i);
		return 1;
	}
	unsigned st = gate_check_head(g->buf, (size_t)(end - g->buf));
	if (st) {
		refuse(q->fd, st,
		       st == 400 ? "malformed request" : "a request body is not accepted");
		drop(g, i);
		return 1;
	}
	struct pending c = *q;
	drop(g, i);
	/* in turn behind those already waiting: drain() hands them over as the library has room */
	if (g->nready == GATE_READY) {
		refuse(c.fd, 503, "too many connections");
		return 1;
	}
	c.since_ms = now;
	g->ready[(g->ready_head + g->nready++) % GATE_READY] = c;
	return 1;
}

/*
 * The whole requests waiting, oldest first, to the library while it holds fewer than max_live
 * connections; one that waited GATE_QUEUE_MS gets 503.
 */
static void drain(struct gate *g, int64_t now)
{
	while (g->nready) {
		struct pending *c = &g->ready[g->ready_head];
		if (now - c->since_ms > GATE_QUEUE_MS) {
			refuse(c->fd, 503, "too many connections");
		} else if (atomic_load(g->live) >= g->max_live) {
			return;
		} else {
			/* counted here, uncounted when the library says it closed it (or refused it
			 * now); the library reads the request from its first byte */
			atomic_fetch_add(g->live, 1);
			if (MHD_add_connection(g->d, c->fd, (struct sockaddr *)&c->addr, c->alen) !=
			    MHD_YES)
				atomic_fetch_sub(g->live, 1);
		}
		g->ready_head = (g->ready_head + 1) % GATE_READY;
		g->nready--;
	}
}

static void *gate_main(void *arg)
{
	struct gate *g = arg;
	for (;;) {
		g->pfd[0] = (struct pollfd){.fd = g->wake[0], .events = POLLIN};
		g->pfd[1] = (struct pollfd){.fd = g->lfd, .events = POLLIN};
		for (uint32_t i = 0; i < g->n; i++)
			g->pfd[2 + i] = (struct pollfd){.fd = g->p[i].fd, .events = POLLIN};
		uint32_t n = g->n;
		/* while requests wait for room, look again soon: the library frees it */
		int r = poll(g->pfd, 2 + n, g->nready ? 5 : 250);
		if (r < 0 && errno != EINTR)
			break;
		if (g->pfd[0].revents)
			break;
		int64_t now = now_ms();
		/* pending connections first, newest last: indexes stay valid walking down */
		for (uint32_t i = n; i-- > 0;) {
			if (g->pfd[2 + i].revents && examine(g, i, now))
				continue;
			if (now - g->p[i].since_ms > g->deadline_ms) {
				refuse(g->p[i].fd, 408, "request head not received in time");
				drop(g, i);
			}
		}
		if (g->pfd[1].revents)
			accept_new(g, now);
		drain(g, now);
	}
	return NULL;
}

static void gate_free(struct gate *g)
{
	free(g->p);
	free(g->ready);
	free(g->pfd);
	free(g->buf);
	free(g);
}

struct gate *gate_start(int lfd, struct MHD_Daemon *d, int deadline_ms, atomic_uint *live,
			unsigned max_live)
{
	struct gate *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->deadline_ms = deadline_ms > 0 ? deadline_ms : GATE_DEADLINE_MS;
	g->live = live;
	g->max_live = max_live;
	g->lfd = lfd;
	g->d = d;
	g->p = malloc(GATE_PENDING * sizeof(*g->p));
	g->ready = malloc(GATE_READY * sizeof(*g->ready));
	g->pfd = malloc((GATE_PENDING + 2) * sizeof(*g->pfd));
	g->buf = malloc(GATE_HEAD_MAX);
	g->wake[0] = g->wake[1] = -1;
	if (g->p && g->ready && g->pfd && g->buf && pipe2(g->wake, O_CLOEXEC) == 0 &&
	    pthread_create(&g->th, NULL, gate_main, g) == 0)
		return g;
	if (g->wake[0] >= 0) {
		close(g->wake[0]);
		close(g->wake[1]);
	}
	gate_free(g);
	return NULL;
}

void gate_stop(struct gate *g)
{
	if (!g)
		return;
	(void)!write(g->wake[1], "x", 1);
	pthread_join(g->th, NULL);
	for (uint32_t i = 0; i < g->n; i++)
		close(g->p[i].fd);
	for (uint32_t i = 0; i < g->nready; i++)
		close(g->ready[(g->ready_head + i) % GATE_READY].fd);
	close(g->lfd);
	close(g->wake[0]);
	close(g->wake[1]);
	gate_free(g);
}
