/*
 * gate.h - the server's front door: accepts connections and hands one to the HTTP library only
 * once its first request's head has fully arrived.
 *
 * A client that opens connections and trickles its headers (slowloris) would otherwise hold the
 * library's connection slots for as long as it keeps sending a byte now and then. The gate keeps
 * such connections in its own bounded list instead: at most GATE_PENDING of them, the oldest
 * dropped first when a new one arrives (so a new request always gets in), each given
 * GATE_DEADLINE_MS to send its whole head (else 408). It peeks at the bytes (MSG_PEEK: nothing is
 * consumed), checks the head's shape — a request line, header lines, no body (GET and HEAD have
 * none) — answers what is malformed itself (400, 431, 408, 503, with the same security headers
 * as every other answer, and "Connection: close"), and passes good connections to
 * MHD_add_connection, which reads the request from the start. Pipelined and keep-alive requests
 * after the first are the library's.
 *
 * The library holds at most max_live connections; a whole request that comes when it is full
 * waits in the gate's queue, in turn (at most GATE_READY of them, each GATE_QUEUE_MS at most,
 * else 503 "too many connections"), so a burst of ordinary requests from one client (1,000 at
 * once) is served rather than refused, while slow clients still wait only in the first list.
 */
#ifndef PV_WEB_GATE_H
#define PV_WEB_GATE_H

#include <microhttpd.h>
#include <stdatomic.h>
#include <stdint.h>

#define GATE_PENDING	 1024  /* connections waiting for their head */
#define GATE_READY	 4096  /* whole requests waiting for room in the library */
#define GATE_QUEUE_MS	 10000 /* the longest one waits for it (then 503) */
#define GATE_DEADLINE_MS 10000 /* to send a whole request head, by default */
#define GATE_HEAD_MAX	 32768 /* bytes of a request head */

struct gate;

/* The headers every answer carries besides its type (defined in gate.c, below server.c:
 * the server adds them to its answers, the gate to its own). */
struct server_header {
	const char *name, *value;
};
extern const struct server_header server_headers[];
extern const size_t server_nr_headers;

/* Starts the gate's thread on the listening socket lfd (taken over), feeding d; a client has
 * deadline_ms (0: GATE_DEADLINE_MS) to send its head. *live counts the connections d holds
 * (the server's MHD_OPTION_NOTIFY_CONNECTION keeps it); past max_live the gate queues whole
 * requests itself, so the library never meets its own connection limit (libmicrohttpd 0.9.75 can
 * deadlock its workers on that path; each worker of its pool has the limit divided by the
 * pool's size and sockets are not spread evenly over them, so the server sets the library's
 * limit to max_live for each worker). Returns NULL when out of memory or threads. */
struct gate *gate_start(int lfd, struct MHD_Daemon *d, int deadline_ms, atomic_uint *live,
			unsigned max_live);
/* Stops the thread, closes the waiting connections and the listening socket. NULL is a no-op. */
void gate_stop(struct gate *g);

/* Checks a complete request head (up to and without its blank line): 0 when the library may
 * have it, else the HTTP status to answer with. Exposed for the tests. */
unsigned gate_check_head(const char *head, size_t len);

#endif
