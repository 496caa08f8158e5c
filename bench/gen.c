/*
 * gen.c - seeded, deterministic generator of large benchmark inputs.
 *
 *   gen firefox   SIZE_MB OUT [SEED]   a Firefox Profiler processed profile (format v70)
 *   gen collapsed SIZE_MB OUT [SEED]   collapsed stacks, one "frame;frame;...;leaf COUNT" a line
 *   gen perf      SIZE_MB OUT [SEED]   `perf script` text (perf record -g, cpu-clock)
 *   gen callgrind SIZE_MB OUT [SEED]   a callgrind file (callgrind 3.19, positions: line, Ir)
 *
 * Shapes that cost memory, time or output per frame or per row (issue 11, bench/RESULTS.md "Deep
 * stacks" and "Memory per unique stack and per sample"), N a count, no seed (no randomness):
 *   gen deep-collapsed N OUT   one stack N frames deep: "f0;f1;...;fN-1 1"
 *   gen flat-collapsed N OUT   as many bytes as deep-collapsed N: lines "fK 1", one frame each
 *   gen deep-chrome    N OUT   a Chrome trace of N nested events f0 > f1 > ... (B at K us, E at
 *                              2N - K us: 2 us of each event's own time)
 *   gen flat-chrome    N OUT   N events side by side, B at 2K us, E at 2K + 1 us (the same
 *                              events, so within a few bytes the size of deep-chrome N)
 *   gen unique-stacks  N OUT   N distinct stacks of one distinct frame each: lines "fK 1"
 *   gen cpuprofile     N OUT   a V8 .cpuprofile of 4 nodes and N samples (a node and a time
 *                              delta of 90-109 us each)
 *   gen flame-boxes    N OUT   folded stacks whose flame graph has exactly N boxes: a random
 *                              recursive tree of N functions "mJ::fK" (node K's parent drawn
 *                              from nodes 1..K-1 by a hash of K: depth about ln N, at most
 *                              about 3 ln N), one line per leaf (1-1000) and per inner node
 *                              with a self count (a third of them)
 *
 * SIZE_MB is in units of 1,000,000 bytes (the output is within a few kB of it); OUT "-" is
 * standard output. The same arguments give the same bytes on every run and machine: the only
 * randomness is our own splitmix64 streams, integer-only (no rand(), no libm, no hash order).
 *
 * What the inputs look like (bench/README.md has the figures). Everything scales linearly with
 * SIZE_MB, so the 25/50/100 % inputs of bench/run.sh have the same shape:
 *   - 50,000 functions per 200 MB: C++ names (namespaces, templates, argument lists, lambdas,
 *     60-150 bytes), some Rust, some C in system libraries, 10 % JavaScript with source URLs;
 *     8 libraries, most code in libxul.so; 1-8 frames (addresses / lines) per function.
 *   - one call tree for all threads, grown path by path: a new path copies a hot existing path
 *     (Zipf-like choice) up to some depth, then walks a fixed random call graph in which each
 *     function has 8 callees of falling likelihood, to a depth of 20-60 frames. Stacks are
 *     deduplicated by (prefix, frame), so the tree has the shared hot paths of a real program.
 *   - firefox: 8 threads in 2 processes; the shared stack table has 800,000 rows per 200 MB;
 *     samples pick leaf stacks with a Zipf-like law (30 % repeat the previous sample's stack,
 *     10 % are an ancestor of a leaf), 1 ms apart with jitter, idle gaps and the floating-point
 *     noise of real timeDeltas; ~300 markers a thread. Samples fill the byte budget.
 *   - collapsed: the same threads as "comm-PID/TID" first frames (stackcollapse-perf.pl --tid),
 *     some kernel frames ("_[k]"), one line per distinct stack, unsorted, heavy-tailed counts;
 *     ~1 M distinct stacks (prefix-tree rows) per 200 MB.
 *   - callgrind: ~350,000 functions and ~690,000 call edges per 100 MB, one block a function
 *     (gen_callgrind says what it holds); consistent inclusive costs, so callgrind_annotate and
 *     profview must agree on every function.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE	   UINT32_MAX
#define NTHREADS   8
#define NLIBS	   8
#define MAX_DEPTH  60 /* frames of the deepest stack */
#define ROOT_CHAIN 3  /* thread-specific frames below "(root)" */

/* ---------------------------------------------------------------- errors and memory */

static void die(const char *what)
{
	fprintf(stderr, "gen: %s\n", what);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die("out of memory");
	return q;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		die("out of memory");
	return p;
}

#define GROW(ptr, cap, need)                                         \
	do {                                                         \
		if ((need) > (cap)) {                                \
			size_t c_ = (cap) ? (size_t)(cap)*2 : 64;    \
			while (c_ < (size_t)(need))                  \
				c_ *= 2;                             \
			(ptr) = xrealloc((ptr), c_ * sizeof *(ptr)); \
			(cap) = c_;                                  \
		}                                                    \
	} while (0)

/* ---------------------------------------------------------------- random numbers */

struct rng {
	uint64_t s;
};

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* splitmix64 */
static uint64_t rng_next(struct rng *r)
{
	return mix64(r->s += 0x9e3779b97f4a7c15ULL);
}

static struct rng rng_make(uint64_t seed, uint64_t stream)
{
	struct rng r = {mix64(seed ^ mix64(stream + 0x5851f42d4c957f2dULL))};
	return r;
}

/* Uniform in [0, n). */
static uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

static int rng_percent(struct rng *r, uint32_t pct)
{
	return rng_below(r, 100) < pct;
}

/* Zipf-like (P(k) ~ 1/(k+1)) in [0, n): a uniform bit length, then uniform within it. */
static uint32_t rng_zipf(struct rng *r, uint32_t n)
{
	if (n <= 1)
		return 0;
	uint32_t bits = 0;
	while (bits < 32 && (UINT64_C(1) << bits) <= n)
		bits++;
	for (;;) {
		uint32_t b = rng_below(r, bits);
		uint64_t lo = UINT64_C(1) << b;
		uint64_t v = lo + rng_below(r, (uint32_t)lo);
		if (v <= n)
			return (uint32_t)(v - 1);
	}
}

#define PICK(r, arr) ((arr)[rng_below((r), (uint32_t)(sizeof(arr) / sizeof((arr)[0])))])

/* ---------------------------------------------------------------- buffered output */

struct out {
	FILE *f; /* NULL: only count */
	char *buf;
	size_t len, cap;
	uint64_t flushed;
};

static void out_flush(struct out *o)
{
	if (o->f && o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
		die("write error");
	o->flushed += o->len;
	o->len = 0;
}

static uint64_t out_total(const struct out *o)
{
	return o->flushed + o->len;
}

static void out_mem(struct out *o, const char *p, size_t n)
{
	if (o->len + n > o->cap) {
		out_flush(o);
		if (n > o->cap) {
			if (o->f && fwrite(p, 1, n, o->f) != n)
				die("write error");
			o->flushed += n;
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void out_str(struct out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

static void out_ch(struct out *o, char c)
{
	if (o->len == o->cap)
		out_flush(o);
	o->buf[o->len++] = c;
}

static size_t fmt_u64(char *tmp, uint64_t v)
{
	char rev[24];
	size_t n = 0;
	do {
		rev[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		tmp[i] = rev[n - 1 - i];
	return n;
}

static void out_u64(struct out *o, uint64_t v)
{
	char tmp[24];
	out_mem(o, tmp, fmt_u64(tmp, v));
}

/* Microseconds as milliseconds with at most 3 decimals: 1000 -> 1, 1020 -> 1.02. */
static size_t fmt_ms(char *tmp, uint64_t us)
{
	size_t n = fmt_u64(tmp, us / 1000);
	uint32_t frac = (uint32_t)(us % 1000);
	if (frac) {
		tmp[n++] = '.';
		tmp[n++] = (char)('0' + frac / 100);
		frac %= 100;
		if (frac) {
			tmp[n++] = (char)('0' + frac / 10);
			frac %= 10;
			if (frac)
				tmp[n++] = (char)('0' + frac);
		}
	}
	return n;
}

static void out_ms(struct out *o, uint64_t us)
{
	char tmp[32];
	out_mem(o, tmp, fmt_ms(tmp, us));
}

/* A JSON string literal; our strings hold no control characters, but quote what needs it. */
static void out_jstr(struct out *o, const char *s, size_t n)
{
	out_ch(o, '"');
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\') {
			out_mem(o, s + start, i - start);
			out_ch(o, '\\');
			start = i;
		}
	}
	out_mem(o, s + start, n - start);
	out_ch(o, '"');
}

static void out_jstrz(struct out *o, const char *s)
{
	out_jstr(o, s, strlen(s));
}

/* ---------------------------------------------------------------- string pool */

struct pool {
	char *buf;
	size_t len, cap;
	uint32_t *off, *size;
	size_t n, ncap, scap;
	/* dedup set over the strings added with pool_intern */
	uint32_t *set;
	size_t setcap, setn;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return mix64(h);
}

static uint32_t pool_add(struct pool *p, const char *s, size_t n)
{
	GROW(p->buf, p->cap, p->len + n + 1);
	memcpy(p->buf + p->len, s, n);
	p->buf[p->len + n] = 0;
	GROW(p->off, p->ncap, p->n + 1);
	GROW(p->size, p->scap, p->n + 1);
	p->off[p->n] = (uint32_t)p->len;
	p->size[p->n] = (uint32_t)n;
	p->len += n + 1;
	return (uint32_t)p->n++;
}

static uint32_t pool_addz(struct pool *p, const char *s)
{
	return pool_add(p, s, strlen(s));
}

static const char *pool_str(const struct pool *p, uint32_t i)
{
	return p->buf + p->off[i];
}

/* The index of s among the strings added this way, adding it when new (*fresh = 1 then). */
static uint32_t pool_intern(struct pool *p, const char *s, size_t n, int *fresh)
{
	if ((p->setn + 1) * 2 > p->setcap) {
		size_t nc = p->setcap ? p->setcap * 2 : 1024;
		uint32_t *ns = xcalloc(nc, sizeof *ns);
		for (size_t i = 0; i < p->setcap; i++) {
			uint32_t v = p->set[i];
			if (!v)
				continue;
			size_t h =
			    (size_t)hash_bytes(pool_str(p, v - 1), p->size[v - 1]) & (nc - 1);
			while (ns[h])
				h = (h + 1) & (nc - 1);
			ns[h] = v;
		}
		free(p->set);
		p->set = ns;
		p->setcap = nc;
	}
	size_t h = (size_t)hash_bytes(s, n) & (p->setcap - 1);
	while (p->set[h]) {
		uint32_t i = p->set[h] - 1;
		if (p->size[i] == n && memcmp(pool_str(p, i), s, n) == 0) {
			*fresh = 0;
			return i;
		}
		h = (h + 1) & (p->setcap - 1);
	}
	uint32_t i = pool_add(p, s, n);
	p->set[h] = i + 1;
	p->setn++;
	*fresh = 1;
	return i;
}

/* ---------------------------------------------------------------- function names */

struct sbuf {
	char s[1024];
	size_t n;
};

static void sb_add(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);
	if (b->n + n >= sizeof b->s)
		n = sizeof b->s - 1 - b->n;
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void sb_num(struct sbuf *b, uint32_t v)
{
	char tmp[24];
	size_t n = fmt_u64(tmp, v);
	tmp[n] = 0;
	sb_add(b, tmp);
}

static const char *const ns_top[] = {
    "mozilla", "mozilla", "mozilla", "mozilla", "js",	 "js",	   "js", "JS",
    "std",     "base",	  "webrtc",  "skia",	"angle", "icu_73", "sh", "graphite2",
};
static const char *const ns_moz[] = {
    "dom",
    "layers",
    "gfx",
    "net",
    "ipc",
    "image",
    "widget",
    "layout",
    "css",
    "a11y",
    "media",
    "gl",
    "wr",
    "intl",
    "storage",
    "places",
    "extensions",
    "glean",
    "hal",
    "loader",
    "detail",
    "dom::indexedDB",
    "dom::cache",
    "dom::quota",
    "net::CacheFileIOManager",
    "image::detail",
    "layers::apz",
    "dom::workerinternals",
    "(anonymous namespace)",
};
static const char *const ns_js[] = {
    "jit",	"gc",	    "frontend", "wasm",	    "detail", "jit::X86Encoding",      "gc::detail",
    "coverage", "irregexp", "ctypes",	"Debugger", "Scalar", "(anonymous namespace)",
};
static const char *const cls_a[] = {
    "Display",	 "Paint",      "Frame",	       "Style",	      "Text",	     "Block",
    "Inline",	 "Grid",       "Flex",	       "Scroll",      "Async",	     "Remote",
    "Shared",	 "Native",     "Compositor",   "Texture",     "Render",	     "Layer",
    "Image",	 "Surface",    "Draw",	       "Glyph",	      "Font",	     "Shape",
    "Script",	 "Module",     "Bytecode",     "Baseline",    "Ion",	     "Warp",
    "Lazy",	 "Atom",       "Property",     "Object",      "Array",	     "String",
    "Promise",	 "Event",      "Input",	       "Touch",	      "Http",	     "Socket",
    "Cache",	 "Stream",     "Channel",      "Request",     "Timer",	     "Idle",
    "Worker",	 "Thread",     "Task",	       "Memory",      "Arena",	     "Nursery",
    "Tenured",	 "Zone",       "Realm",	       "Compartment", "Document",    "Element",
    "Node",	 "Attr",       "Selector",     "Rule",	      "Media",	     "Audio",
    "Video",	 "Decoder",    "Encoder",      "Transaction", "Session",     "Window",
    "Browsing",	 "Content",    "Presentation", "Accessible",  "Animation",   "Transition",
    "Transform", "Clip",       "Mask",	       "Filter",      "Gradient",    "Path",
    "Canvas",	 "WebGL",      "Vsync",	       "Refresh",     "Storage",     "Database",
    "Quota",	 "Permission", "Principal",    "Security",    "Certificate", "Telemetry",
    "Profiler",
};
static const char *const cls_b[] = {
    "Manager",	"Builder",   "Context",	  "Item",	"List",	      "Host",	   "Client",
    "Child",	"Parent",    "Bridge",	  "Queue",	"Pool",	      "Table",	   "Map",
    "Set",	"Entry",     "Cache",	  "Handler",	"Listener",   "Observer",  "Service",
    "Loader",	"Runnable",  "Visitor",	  "Walker",	"Iterator",   "Allocator", "Buffer",
    "Helper",	"Wrapper",   "Proxy",	  "Data",	"State",      "Info",	   "Impl",
    "Base",	"Tracker",   "Scheduler", "Dispatcher", "Compiler",   "Generator", "Emitter",
    "Parser",	"Tokenizer", "Reader",	  "Writer",	"Controller", "Driver",	   "Frame",
    "Element",	"Object",    "Group",	  "Set",	"Collector",  "Marker",	   "Tracer",
    "Reporter", "Monitor",   "Actor",	  "Storage",	"Chain",
};
static const char *const verbs[] = {
    "Get",	 "Set",	       "Update",  "Handle",   "Process", "Dispatch", "Run",	"Build",
    "Compute",	 "Invalidate", "Paint",	  "Reflow",   "Resolve", "Create",   "Destroy", "Notify",
    "Flush",	 "Schedule",   "Append",  "Insert",   "Remove",	 "Lookup",   "Visit",	"Emit",
    "Trace",	 "Sweep",      "Mark",	  "Allocate", "Init",	 "Maybe",    "Ensure",	"Try",
    "Apply",	 "Collect",    "Convert", "Read",     "Write",	 "Send",     "Recv",	"Post",
    "Enqueue",	 "Drain",      "Finish",  "Begin",    "End",	 "Commit",   "Reset",	"Clear",
    "Find",	 "Match",      "Parse",	  "Compile",  "Link",	 "Call",     "Invoke",	"Execute",
    "Evaluate",	 "Do",	       "On",	  "Prepare",  "Record",	 "Replay",   "Decode",	"Encode",
    "Rasterize",
};
static const char *const nouns[] = {
    "Items",	 "Rect",     "Region",	  "Data",     "Frame",	    "Children",	 "Properties",
    "Event",	 "Style",    "Buffer",	  "Layers",   "Display",    "List",	 "Root",
    "Tree",	 "Node",     "Script",	  "Function", "Value",	    "Object",	 "Shape",
    "Slots",	 "Elements", "Arguments", "Result",   "Callback",   "Message",	 "Stream",
    "Request",	 "Response", "Headers",	  "Body",     "Texture",    "Surface",	 "Glyphs",
    "Runs",	 "Lines",    "Boxes",	  "Scroll",   "Offset",	    "Bounds",	 "Clip",
    "Transform", "Opacity",  "Color",	  "Image",    "Pixels",	    "Tile",	 "Scene",
    "Batch",	 "Commands", "Pass",	  "Pipeline", "State",	    "Internal",	 "Impl",
    "Now",	 "Async",    "Sync",	  "IfNeeded", "ForTesting", "Recursive",
};
static const char *const arg_types[] = {
    "bool",
    "int",
    "int32_t",
    "uint32_t",
    "uint64_t",
    "size_t",
    "double",
    "float",
    "const char*",
    "void*",
    "unsigned long",
    "JSContext*",
    "JS::Handle<JSObject*>",
    "JS::MutableHandle<JS::Value>",
    "JS::Handle<JS::PropertyKey>",
    "const nsAString&",
    "const nsACString&",
    "nsIContent*",
    "nsIFrame*",
    "mozilla::dom::Element*",
    "const nsRect&",
    "const mozilla::gfx::IntRect&",
    "mozilla::gfx::DrawTarget&",
    "nsDisplayListBuilder*",
    "already_AddRefed<nsIRunnable>",
    "const RefPtr<mozilla::layers::Layer>&",
    "mozilla::TimeStamp",
    "mozilla::ErrorResult&",
    "nsTArray<unsigned char>&&",
    "const std::function<void ()>&",
    "mozilla::Span<const char16_t, 18446744073709551615ul>",
    "js::gc::Cell*",
    "JSObject*",
    "JSScript*",
    "js::jit::MIRGenerator*",
    "js::jit::LInstruction*",
    "mozilla::ipc::IProtocol*",
    "IPC::Message&&",
    "nsresult",
    "const JS::CallArgs&",
    "js::jit::MacroAssembler&",
    "const mozilla::StyleComputedValues*",
    "nsPresContext*",
    "mozilla::PresShell*",
    "const nsPoint&",
    "mozilla::wr::DisplayListBuilder&",
    "const mozilla::layers::StackingContextHelper&",
    "nsIURI*",
    "nsIChannel*",
    "mozilla::net::nsHttpTransaction*",
    "const mozilla::Maybe<unsigned int>&",
};
static const char *const targs[] = {
    "char16_t",
    "char",
    "unsigned char",
    "JSObject*",
    "js::jit::MDefinition*",
    "mozilla::dom::Element",
    "nsIFrame*",
    "RefPtr<nsAtom>",
    "mozilla::UniquePtr<js::ScriptSource>",
    "std::pair<int, int>",
    "js::SystemAllocPolicy",
    "js::TempAllocPolicy",
    "unsigned int",
    "mozilla::MallocAllocPolicy",
    "nsTString<char16_t>",
    "mozilla::gfx::UnknownUnits",
    "mozilla::CSSPixel",
    "true",
    "false",
    "0ul",
    "js::gc::AllocKind",
    "mozilla::dom::Promise",
    "nsCOMPtr<nsIRunnable>",
    "mozilla::MozPromise<bool, nsresult, true>",
};
static const char *const rust_crates[] = {
    "style",
    "style::properties",
    "style::values::computed",
    "style::stylist",
    "webrender",
    "webrender::renderer",
    "webrender::picture",
    "wgpu_core::device",
    "neqo_transport::connection",
    "gkrust_shared",
    "glean_core::metrics",
    "core::ptr",
    "alloc::vec",
    "hashbrown::raw",
    "rayon_core::registry",
    "crossbeam_channel::flavors",
    "encoding_rs",
    "url::parser",
    "cssparser::parser",
    "selectors::matching",
    "euclid::rect",
    "regex_automata::meta",
};
static const char *const rust_types[] = {
    "ComputedValues",
    "Stylist",
    "RuleTree",
    "Cascade",
    "Renderer",
    "PictureCache",
    "TileCacheInstance",
    "Device",
    "Connection",
    "Registry",
    "Vec",
    "RawTable",
    "Decoder",
    "Parser",
    "SelectorIter",
    "Rect",
    "SharedRwLock",
    "Arc",
    "RefCell",
    "StyleSheet",
    "FrameBuilder",
    "SpatialTree",
    "ClipStore",
    "GpuCache",
    "TextureCache",
    "Stream",
};
static const char *const c_words[] = {
    "main",	 "context",	"dispatch", "iterate", "poll",	  "wait",    "cond",   "mutex",
    "lock",	 "unlock",	"read",	    "write",   "send",	  "recv",    "alloc",  "free",
    "malloc",	 "consolidate", "source",   "signal",  "emit",	  "closure", "invoke", "marshal",
    "object",	 "widget",	"event",    "queue",   "pending", "process", "update", "draw",
    "propagate", "handle",	"value",    "slot",    "cert",	  "verify",  "hash",   "digest",
    "encrypt",	 "btree",	"vdbe",	    "exec",    "step",	  "prepare", "page",   "cursor",
    "fault",	 "lookup",	"symbol",   "reloc",   "init",	  "fini",    "common", "generic",
};
static const char *const c_prefix[NLIBS] = {
    "", "", "__", "g_", "gtk_", "PK11_", "sqlite3", "_dl_",
};

static const char *const js_names_a[] = {
    "EventEmitter", "Component",  "Store",	  "Router",	      "Renderer",    "Scheduler",
    "Observer",	    "TabBrowser", "SessionStore", "UrlbarController", "PlacesUtils", "XPCOMUtils",
    "Promise",	    "Reconciler", "Fiber",	  "Dispatcher",	      "Module",	     "Widget",
    "Panel",	    "Toolbar",	  "Sidebar",
};
static const char *const js_names_b[] = {
    "render",	     "update",	   "handleEvent", "onMessage", "dispatch",     "emit",
    "flush",	     "commitRoot", "performWork", "beginWork", "completeWork", "reconcileChildren",
    "createElement", "setState",   "forceUpdate", "observe",   "notify",       "load",
    "init",	     "get",	   "set",	  "next",      "then",	       "resolve",
    "callback",	     "run",	   "tick",	  "step",      "measure",      "layout",
    "paint",
};

enum func_kind { FK_LABEL, FK_CXX, FK_RUST, FK_C, FK_JS };

static void gen_cxx_name(struct rng *r, struct sbuf *b)
{
	b->n = 0;
	b->s[0] = 0;
	const char *top = PICK(r, ns_top);
	uint32_t form = rng_below(r, 100);
	if (form < 6) { /* XPCOM-style class at the top level */
		sb_add(b, "ns");
		sb_add(b, PICK(r, cls_a));
		sb_add(b, PICK(r, cls_b));
	} else {
		sb_add(b, top);
		if (!strcmp(top, "mozilla") && rng_percent(r, 85)) {
			sb_add(b, "::");
			sb_add(b, PICK(r, ns_moz));
		} else if ((!strcmp(top, "js") || !strcmp(top, "JS")) && rng_percent(r, 70)) {
			sb_add(b, "::");
			sb_add(b, PICK(r, ns_js));
		} else if (!strcmp(top, "std")) {
			sb_add(b, "::__1");
		}
		sb_add(b, "::");
		sb_add(b, PICK(r, cls_a));
		sb_add(b, PICK(r, cls_b));
	}
	if (rng_percent(r, 22)) {
		sb_add(b, "<");
		sb_add(b, PICK(r, targs));
		if (rng_percent(r, 30)) {
			sb_add(b, ", ");
			sb_add(b, PICK(r, targs));
		}
		sb_add(b, ">");
	}
	sb_add(b, "::");
	if (rng_percent(r, 4)) {
		sb_add(b, "operator()");
	} else {
		sb_add(b, PICK(r, verbs));
		sb_add(b, PICK(r, nouns));
		if (rng_percent(r, 30))
			sb_add(b, PICK(r, nouns));
	}
	sb_add(b, "(");
	uint32_t nargs = rng_below(r, 5);
	for (uint32_t i = 0; i < nargs; i++) {
		if (i)
			sb_add(b, ", ");
		sb_add(b, PICK(r, arg_types));
	}
	sb_add(b, ")");
	if (rng_percent(r, 20))
		sb_add(b, " const");
	if (rng_percent(r, 8)) {
		sb_add(b, "::{lambda(");
		if (rng_percent(r, 50))
			sb_add(b, PICK(r, arg_types));
		sb_add(b, ")#");
		sb_num(b, 1 + rng_below(r, 4));
		sb_add(b, "}::operator()(");
		sb_add(b, ") const");
	}
}

static void gen_rust_name(struct rng *r, struct sbuf *b)
{
	b->n = 0;
	b->s[0] = 0;
	uint32_t form = rng_below(r, 3);
	if (form == 0) {
		sb_add(b, "<");
		sb_add(b, PICK(r, rust_crates));
		sb_add(b, "::");
		sb_add(b, PICK(r, rust_types));
		sb_add(b, " as ");
		sb_add(b, PICK(r, rust_crates));
		sb_add(b, "::");
		sb_add(b, PICK(r, rust_types));
		sb_add(b, ">::");
	} else if (form == 1) {
		sb_add(b, "core::ptr::drop_in_place<");
		sb_add(b, PICK(r, rust_crates));
		sb_add(b, "::");
		sb_add(b, PICK(r, rust_types));
		sb_add(b, "<");
		sb_add(b, PICK(r, rust_crates));
		sb_add(b, "::");
		sb_add(b, PICK(r, rust_types));
		sb_add(b, ">>::");
	} else {
		sb_add(b, PICK(r, rust_crates));
		sb_add(b, "::");
		sb_add(b, PICK(r, rust_types));
		sb_add(b, "::");
	}
	const char *v = PICK(r, verbs);
	for (const char *c = v; *c; c++) {
		char lc = (*c >= 'A' && *c <= 'Z') ? (char)(*c - 'A' + 'a') : *c;
		char s2[2] = {lc, 0};
		sb_add(b, s2);
	}
	sb_add(b, "_");
	const char *n = PICK(r, nouns);
	for (const char *c = n; *c; c++) {
		char lc = (*c >= 'A' && *c <= 'Z') ? (char)(*c - 'A' + 'a') : *c;
		char s2[2] = {lc, 0};
		sb_add(b, s2);
	}
	if (rng_percent(r, 30))
		sb_add(b, "::{{closure}}");
	if (rng_percent(r, 20))
		sb_add(b, "::{{closure}}");
}

static void gen_c_name(struct rng *r, struct sbuf *b, uint32_t lib)
{
	b->n = 0;
	b->s[0] = 0;
	sb_add(b, c_prefix[lib]);
	uint32_t nw = 2 + rng_below(r, 3);
	for (uint32_t i = 0; i < nw; i++) {
		if (i)
			sb_add(b, "_");
		sb_add(b, PICK(r, c_words));
	}
	if (rng_percent(r, 10))
		sb_add(b, ".isra.0");
}

static void gen_js_name(struct rng *r, struct sbuf *b)
{
	b->n = 0;
	b->s[0] = 0;
	uint32_t form = rng_below(r, 4);
	if (form == 0) {
		sb_add(b, PICK(r, js_names_a));
		sb_add(b, ".prototype.");
		sb_add(b, PICK(r, js_names_b));
	} else if (form == 1) {
		sb_add(b, PICK(r, js_names_b));
		sb_add(b, PICK(r, js_names_a));
	} else if (form == 2) {
		sb_add(b, PICK(r, js_names_a));
		sb_add(b, ".");
		sb_add(b, PICK(r, js_names_b));
		sb_add(b, "/<");
	} else {
		sb_add(b, "async*");
		sb_add(b, PICK(r, js_names_b));
		sb_add(b, PICK(r, js_names_a));
	}
}

/* ---------------------------------------------------------------- the model */

struct lib_info {
	const char *name, *path, *debug_name;
};

static const struct lib_info libs[NLIBS] = {
    {"firefox", "/usr/lib/firefox/firefox", "firefox"},
    {"libxul.so", "/usr/lib/firefox/libxul.so", "libxul.so"},
    {"libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6"},
    {"libglib-2.0.so.0", "/usr/lib/x86_64-linux-gnu/libglib-2.0.so.0", "libglib-2.0.so.0"},
    {"libgtk-3.so.0", "/usr/lib/x86_64-linux-gnu/libgtk-3.so.0", "libgtk-3.so.0"},
    {"libnss3.so", "/usr/lib/firefox/libnss3.so", "libnss3.so"},
    {"libmozsqlite3.so", "/usr/lib/firefox/libmozsqlite3.so", "libmozsqlite3.so"},
    {"ld-linux-x86-64.so.2", "/usr/lib64/ld-linux-x86-64.so.2", "ld-linux-x86-64.so.2"},
};

/* JS source URL families, each one resource */
static const char *const js_url_prefix[] = {
    "https://www.example.com/static/js/",
    "https://cdn.example.net/npm/",
    "resource://gre/modules/",
    "chrome://browser/content/",
};
static const char *const js_res_name[] = {
    "www.example.com",
    "cdn.example.net",
    "resource://gre",
    "chrome://browser",
};
static const char *const js_res_host[] = {
    "https://www.example.com",
    "https://cdn.example.net",
    NULL,
    NULL,
};
static const uint32_t js_res_type[] = {3, 4, 5, 5};
#define NJSRES 4

/* Categories as Firefox has them; the first grey one (Other) is the default. */
static const char *const cat_name[] = {
    "Idle", "Other", "Layout", "JavaScript", "GC / CC", "Network", "Graphics", "DOM",
};
static const char *const cat_color[] = {
    "transparent", "grey", "purple", "yellow", "orange", "lightblue", "green", "blue",
};
static const char *const cat_subs[][5] = {
    {"Other", NULL},
    {"Other", NULL},
    {"Other", "CSS parsing", "Style computation", "Layout tree", NULL},
    {"Other", "Interpreter", "Baseline", "Ion", NULL},
    {"Other", "Minor GC", "Major GC (Mark)", "Major GC (Sweep)", NULL},
    {"Other", NULL},
    {"Other", "DisplayList building", "WebRender", NULL},
    {"Other", NULL},
};
#define NCATS 8
enum {
	CAT_OTHER = 1,
	CAT_LAYOUT = 2,
	CAT_JS = 3,
	CAT_GC = 4,
	CAT_NET = 5,
	CAT_GFX = 6,
	CAT_DOM = 7
};

struct thread_info {
	const char *name, *process_type, *process_name;
	int main, pid, tid, weight;
};

static const struct thread_info threads[NTHREADS] = {
    {"GeckoMain", "default", "Parent Process", 1, 41842, 41842, 4},
    {"Compositor", "default", "Parent Process", 0, 41842, 41877, 2},
    {"Renderer", "default", "Parent Process", 0, 41842, 41879, 2},
    {"Socket Thread", "default", "Parent Process", 0, 41842, 41853, 1},
    {"GeckoMain", "tab", "Isolated Web Content", 1, 42210, 42210, 4},
    {"DOM Worker", "tab", "Isolated Web Content", 0, 42210, 42241, 2},
    {"StyleThread#0", "tab", "Isolated Web Content", 0, 42210, 42236, 1},
    {"ImageIO", "tab", "Isolated Web Content", 0, 42210, 42244, 1},
};

struct leafs {
	uint32_t *v;
	size_t n, cap;
};

struct model {
	uint64_t seed;
	struct pool str; /* the profile's string array */

	/* functions */
	uint32_t nfuncs;
	uint32_t *func_name; /* string index */
	uint8_t *func_kind;  /* enum func_kind */
	uint8_t *func_lib;   /* lib index, 0xff for none */
	uint8_t *func_cat;   /* category of its frames, 0 = inherited (null) */
	uint32_t *func_addr; /* lib-relative start */
	uint32_t *func_size;
	uint32_t *func_source; /* JS: source row */
	uint32_t *func_line;   /* JS: first line */
	uint32_t *func_frame0; /* first frame */
	uint8_t *func_nframes;
	uint32_t *func_symbol; /* native: nativeSymbols row */
	uint32_t nsymbols;

	/* frames */
	uint32_t nframes;
	uint32_t *frame_func;
	uint32_t *frame_addr; /* NONE for none */
	uint32_t *frame_line; /* 0 = null */
	uint32_t *frame_col;  /* 0 = null */

	/* JS sources */
	uint32_t nsources;
	uint32_t *source_file; /* string index */

	/* libs and resources */
	uint32_t lib_name_str[NLIBS], lib_path_str[NLIBS];
	uint32_t res_name_str[NLIBS + NJSRES];
	uint32_t res_host_str[NLIBS + NJSRES]; /* NONE = null */

	/* stacks: a prefix tree, parents before children */
	uint32_t nstacks;
	size_t stack_cap;
	uint32_t *stack_frame, *stack_parent;
	uint8_t *stack_depth; /* 0 for the root */
	uint8_t *stack_flag;  /* 1: a path ended here */
	uint64_t *tab_key;
	uint32_t *tab_val;
	size_t tab_cap, tab_n;

	uint32_t thread_root[NTHREADS];
	struct leafs leaves[NTHREADS];
};

static uint32_t callee(const struct model *m, uint32_t f, uint32_t k)
{
	return 1 + (uint32_t)(mix64(m->seed ^ ((uint64_t)f * 8 + k) * 0x2545f4914f6cdd1dULL) %
			      (m->nfuncs - 1));
}

static void tab_insert(struct model *m, uint64_t key, uint32_t val)
{
	size_t mask = m->tab_cap - 1;
	size_t h = (size_t)(mix64(key) & mask);
	while (m->tab_key[h])
		h = (h + 1) & mask;
	m->tab_key[h] = key;
	m->tab_val[h] = val;
	m->tab_n++;
}

static void tab_grow(struct model *m)
{
	uint64_t *ok = m->tab_key;
	uint32_t *ov = m->tab_val;
	size_t oc = m->tab_cap;
	m->tab_cap = oc ? oc * 2 : (1u << 16);
	m->tab_key = xcalloc(m->tab_cap, sizeof *m->tab_key);
	m->tab_val = xcalloc(m->tab_cap, sizeof *m->tab_val);
	m->tab_n = 0;
	for (size_t i = 0; i < oc; i++)
		if (ok[i])
			tab_insert(m, ok[i], ov[i]);
	free(ok);
	free(ov);
}

/* The stack (parent, frame), created when new. */
static uint32_t stack_child(struct model *m, uint32_t parent, uint32_t frame)
{
	uint64_t key = ((uint64_t)(parent + 1) << 32) | frame; /* parent NONE -> 0 << 32 */
	if (parent == NONE)
		key = ((uint64_t)1 << 63) | frame;
	if ((m->tab_n + 1) * 2 > m->tab_cap)
		tab_grow(m);
	size_t mask = m->tab_cap - 1;
	size_t h = (size_t)(mix64(key) & mask);
	while (m->tab_key[h]) {
		if (m->tab_key[h] == key)
			return m->tab_val[h];
		h = (h + 1) & mask;
	}
	uint32_t s = m->nstacks;
	if (s == NONE - 1)
		die("too many stacks");
	if (s >= m->stack_cap) {
		size_t c = m->stack_cap ? m->stack_cap * 2 : 1024;
		m->stack_frame = xrealloc(m->stack_frame, c * sizeof *m->stack_frame);
		m->stack_parent = xrealloc(m->stack_parent, c * sizeof *m->stack_parent);
		m->stack_depth = xrealloc(m->stack_depth, c);
		m->stack_flag = xrealloc(m->stack_flag, c);
		m->stack_cap = c;
	}
	m->stack_frame[s] = frame;
	m->stack_parent[s] = parent;
	m->stack_depth[s] = parent == NONE ? 0 : (uint8_t)(m->stack_depth[parent] + 1);
	m->stack_flag[s] = 0;
	m->nstacks++;
	m->tab_key[h] = key;
	m->tab_val[h] = s;
	m->tab_n++;
	return s;
}

static uint32_t pick_frame(struct rng *r, const struct model *m, uint32_t f)
{
	return m->func_frame0[f] + rng_zipf(r, m->func_nframes[f]);
}

/* Builds functions, frames, sources and libs: nfuncs functions. */
static void build_code(struct model *m, uint32_t nfuncs)
{
	struct rng r = rng_make(m->seed, 1);
	struct pool *sp = &m->str;
	m->nfuncs = nfuncs;
	m->func_name = xcalloc(nfuncs, sizeof *m->func_name);
	m->func_kind = xcalloc(nfuncs, 1);
	m->func_lib = xcalloc(nfuncs, 1);
	m->func_cat = xcalloc(nfuncs, 1);
	m->func_addr = xcalloc(nfuncs, sizeof *m->func_addr);
	m->func_size = xcalloc(nfuncs, sizeof *m->func_size);
	m->func_source = xcalloc(nfuncs, sizeof *m->func_source);
	m->func_line = xcalloc(nfuncs, sizeof *m->func_line);
	m->func_frame0 = xcalloc(nfuncs, sizeof *m->func_frame0);
	m->func_nframes = xcalloc(nfuncs, 1);
	m->func_symbol = xcalloc(nfuncs, sizeof *m->func_symbol);

	for (uint32_t l = 0; l < NLIBS; l++) {
		m->lib_name_str[l] = pool_addz(sp, libs[l].name);
		m->lib_path_str[l] = pool_addz(sp, libs[l].path);
		m->res_name_str[l] = m->lib_name_str[l];
		m->res_host_str[l] = NONE;
	}
	for (uint32_t j = 0; j < NJSRES; j++) {
		m->res_name_str[NLIBS + j] = pool_addz(sp, js_res_name[j]);
		m->res_host_str[NLIBS + j] = js_res_host[j] ? pool_addz(sp, js_res_host[j]) : NONE;
	}

	/* JS source files */
	m->nsources = nfuncs / 250 + NJSRES;
	m->source_file = xcalloc(m->nsources, sizeof *m->source_file);
	for (uint32_t s = 0; s < m->nsources; s++) {
		struct sbuf b = {.n = 0};
		sb_add(&b, js_url_prefix[s % NJSRES]);
		const char *a = PICK(&r, js_names_a);
		for (const char *c = a; *c; c++) {
			char lc[2] = {(*c >= 'A' && *c <= 'Z') ? (char)(*c - 'A' + 'a') : *c, 0};
			sb_add(&b, lc);
		}
		sb_add(&b, "-");
		sb_num(&b, s);
		sb_add(&b, s % NJSRES < 2 ? ".bundle.js" : ".sys.mjs");
		m->source_file[s] = pool_add(sp, b.s, b.n);
	}

	uint32_t lib_next_addr[NLIBS];
	for (uint32_t l = 0; l < NLIBS; l++)
		lib_next_addr[l] = 0x1000 + rng_below(&r, 0x10000);

	size_t fcap = (size_t)nfuncs * 3;
	m->frame_func = xcalloc(fcap, sizeof *m->frame_func);
	m->frame_addr = xcalloc(fcap, sizeof *m->frame_addr);
	m->frame_line = xcalloc(fcap, sizeof *m->frame_line);
	m->frame_col = xcalloc(fcap, sizeof *m->frame_col);

	struct sbuf b;
	for (uint32_t f = 0; f < nfuncs; f++) {
		uint32_t kind, lib = 0xff, cat = 0;
		uint32_t roll = rng_below(&r, 100);
		if (f == 0)
			kind = FK_LABEL;
		else if (roll < 10)
			kind = FK_JS;
		else if (roll < 15)
			kind = FK_C;
		else if (roll < 25)
			kind = FK_RUST;
		else
			kind = FK_CXX;

		uint32_t name;
		for (uint32_t attempt = 0;; attempt++) {
			switch (kind) {
			case FK_LABEL:
				b.n = 0;
				sb_add(&b, "(root)");
				break;
			case FK_JS:
				gen_js_name(&r,
					    &b); /* JS names repeat across files, as in real code */
				break;
			case FK_C:
				lib = 2 + rng_below(&r, NLIBS - 2);
				gen_c_name(&r, &b, lib);
				break;
			case FK_RUST: gen_rust_name(&r, &b); break;
			default: gen_cxx_name(&r, &b); break;
			}
			if ((kind == FK_CXX || kind == FK_RUST) && attempt < 40 &&
			    (b.n < 60 || b.n > 150))
				continue;
			int fresh;
			name = pool_intern(sp, b.s, b.n, &fresh);
			if (fresh || kind == FK_JS)
				break;
		}
		m->func_name[f] = name;
		m->func_kind[f] = (uint8_t)kind;

		if (kind == FK_CXX || kind == FK_RUST)
			lib = rng_percent(&r, 97) ? 1 : 0;
		if (kind == FK_JS) {
			m->func_source[f] = rng_below(&r, m->nsources);
			m->func_line[f] = 1 + rng_below(&r, 4000);
			lib = 0xff;
			cat = CAT_JS;
		} else if (kind == FK_LABEL) {
			cat = CAT_OTHER;
		} else {
			/* a category from the namespace for 40 % of native functions, else
			 * inherited */
			const char *n = pool_str(sp, name);
			if (rng_percent(&r, 40)) {
				if (!strncmp(n, "js::gc", 6))
					cat = CAT_GC;
				else if (!strncmp(n, "js", 2) || !strncmp(n, "JS", 2))
					cat = CAT_JS;
				else if (strstr(n, "::layout") || strstr(n, "::css") ||
					 !strncmp(n, "style", 5))
					cat = CAT_LAYOUT;
				else if (strstr(n, "::gfx") || strstr(n, "::layers") ||
					 strstr(n, "::wr") || !strncmp(n, "webrender", 9))
					cat = CAT_GFX;
				else if (strstr(n, "::net"))
					cat = CAT_NET;
				else if (strstr(n, "::dom"))
					cat = CAT_DOM;
				else
					cat = CAT_OTHER;
			}
			m->func_symbol[f] = m->nsymbols++;
		}
		m->func_lib[f] = (uint8_t)lib;
		m->func_cat[f] = (uint8_t)cat;

		uint32_t nfr = kind == FK_LABEL ? 1 : 1 + rng_zipf(&r, kind == FK_JS ? 4 : 8);
		if (m->nframes + nfr > fcap) {
			fcap *= 2;
			m->frame_func = xrealloc(m->frame_func, fcap * sizeof *m->frame_func);
			m->frame_addr = xrealloc(m->frame_addr, fcap * sizeof *m->frame_addr);
			m->frame_line = xrealloc(m->frame_line, fcap * sizeof *m->frame_line);
			m->frame_col = xrealloc(m->frame_col, fcap * sizeof *m->frame_col);
		}
		m->func_frame0[f] = m->nframes;
		m->func_nframes[f] = (uint8_t)nfr;
		uint32_t size = 16 + rng_below(&r, 2000);
		if (lib != 0xff) {
			m->func_addr[f] = lib_next_addr[lib];
			m->func_size[f] = size;
			lib_next_addr[lib] += (size + 15) & ~15u;
		}
		uint32_t has_lines = (kind == FK_CXX || kind == FK_RUST) && rng_percent(&r, 50);
		uint32_t line0 = 10 + rng_below(&r, 3000);
		for (uint32_t k = 0; k < nfr; k++) {
			uint32_t fr = m->nframes++;
			m->frame_func[fr] = f;
			m->frame_addr[fr] = NONE;
			m->frame_line[fr] = 0;
			m->frame_col[fr] = 0;
			if (kind == FK_JS) {
				m->frame_line[fr] = m->func_line[f] + k * 3 + rng_below(&r, 3);
				m->frame_col[fr] = 1 + rng_below(&r, 80);
			} else if (lib != 0xff) {
				/* nudged return addresses inside the function */
				m->frame_addr[fr] = m->func_addr[f] + 4 + (size - 4) * k / nfr +
						    rng_below(&r, (size - 4) / nfr);
				if (has_lines)
					m->frame_line[fr] = line0 + k * 7 + rng_below(&r, 5);
			}
		}
	}
}

/* Builds the thread roots: "(root)" then ROOT_CHAIN native frames per thread. */
static void build_roots(struct model *m)
{
	struct rng r = rng_make(m->seed, 2);
	uint32_t root = stack_child(m, NONE, m->func_frame0[0]);
	for (uint32_t t = 0; t < NTHREADS; t++) {
		uint32_t cur = root;
		for (uint32_t k = 0; k < ROOT_CHAIN; k++) {
			uint32_t f;
			do
				f = 1 + rng_below(&r, m->nfuncs - 1);
			while (m->func_kind[f] == FK_JS);
			cur = stack_child(m, cur, m->func_frame0[f]);
		}
		m->thread_root[t] = cur;
	}
}

/*
 * One more path of thread t: copy a hot existing path up to some depth, then walk the call
 * graph to the path's own depth (20..60 frames). tip_pct: how often the copy keeps all but the
 * last few frames (more leaves, fewer new stacks per path). Returns the path's last stack.
 */
static uint32_t gen_path(struct model *m, struct rng *r, uint32_t t, uint32_t tip_pct)
{
	struct leafs *L = &m->leaves[t];
	uint32_t want = 20 + rng_below(r, 21) + rng_below(r, 21); /* frames */
	uint32_t cur = m->thread_root[t];
	uint32_t rootd = m->stack_depth[cur];
	if (L->n) {
		uint32_t base = L->v[rng_zipf(r, (uint32_t)L->n)];
		uint32_t bd = m->stack_depth[base];
		uint32_t d;
		if (rng_percent(r, tip_pct)) {
			uint32_t back = 1 + rng_below(r, 8);
			d = bd > rootd + back ? bd - back : rootd;
		} else {
			d = rootd + rng_below(r, bd - rootd);
		}
		if (d + 1 >= want)
			d = want - 2;
		cur = base;
		while (m->stack_depth[cur] > d)
			cur = m->stack_parent[cur];
	}
	while ((uint32_t)m->stack_depth[cur] + 1 < want) {
		uint32_t f = m->frame_func[m->stack_frame[cur]];
		uint32_t g = callee(m, f, rng_zipf(r, 8));
		cur = stack_child(m, cur, pick_frame(r, m, g));
	}
	return cur;
}

static void leaf_push(struct leafs *L, uint32_t s)
{
	GROW(L->v, L->cap, L->n + 1);
	L->v[L->n++] = s;
}

static void model_free(struct model *m)
{
	free(m->str.buf);
	free(m->str.off);
	free(m->str.size);
	free(m->str.set);
	free(m->func_name);
	free(m->func_kind);
	free(m->func_lib);
	free(m->func_cat);
	free(m->func_addr);
	free(m->func_size);
	free(m->func_source);
	free(m->func_line);
	free(m->func_frame0);
	free(m->func_nframes);
	free(m->func_symbol);
	free(m->frame_func);
	free(m->frame_addr);
	free(m->frame_line);
	free(m->frame_col);
	free(m->source_file);
	free(m->stack_frame);
	free(m->stack_parent);
	free(m->stack_depth);
	free(m->stack_flag);
	free(m->tab_key);
	free(m->tab_val);
	for (uint32_t t = 0; t < NTHREADS; t++)
		free(m->leaves[t].v);
}

/* ---------------------------------------------------------------- Firefox processed v70 */

#define KEY(o, k) out_str((o), "\"" k "\":")

static void out_null_col(struct out *o, uint32_t n)
{
	out_ch(o, '[');
	for (uint32_t i = 0; i < n; i++)
		out_str(o, i ? ",null" : "null");
	out_ch(o, ']');
}

static void out_opt_u32(struct out *o, uint32_t v, uint32_t none)
{
	if (v == none)
		out_str(o, "null");
	else
		out_u64(o, v);
}

static void out_hex_id(struct out *o, struct rng *r, uint32_t digits)
{
	static const char hex[] = "0123456789ABCDEF";
	out_ch(o, '"');
	for (uint32_t i = 0; i < digits; i++)
		out_ch(o, hex[rng_below(r, 16)]);
	out_ch(o, '"');
}

static void write_meta(struct out *o, uint64_t end_us)
{
	out_str(o, "{\"meta\":{\"interval\":1,\"startTime\":1718012345678.25,"
		   "\"abi\":\"x86_64-gcc3\",\"misc\":\"rv:128.0\",\"oscpu\":\"X11; Linux x86_64\","
		   "\"platform\":\"X11\",\"processType\":0,\"product\":\"Firefox\",\"stackwalk\":1,"
		   "\"debug\":false,\"toolkit\":\"gtk\",\"version\":36,\"categories\":[");
	for (uint32_t c = 0; c < NCATS; c++) {
		if (c)
			out_ch(o, ',');
		out_str(o, "{\"name\":");
		out_jstrz(o, cat_name[c]);
		out_str(o, ",\"color\":");
		out_jstrz(o, cat_color[c]);
		out_str(o, ",\"subcategories\":[");
		for (uint32_t s = 0; cat_subs[c][s]; s++) {
			if (s)
				out_ch(o, ',');
			out_jstrz(o, cat_subs[c][s]);
		}
		out_str(o, "]}");
	}
	out_str(o, "],\"preprocessedProfileVersion\":70,\"appBuildID\":\"20240610093000\","
		   "\"sourceURL\":\"\",\"physicalCPUs\":8,\"logicalCPUs\":16,\"CPUName\":"
		   "\"AMD Ryzen 7 PRO 5850U with Radeon Graphics\",\"symbolicated\":true,"
		   "\"updateChannel\":\"nightly\",\"configuration\":{\"threads\":[\"GeckoMain\","
		   "\"Compositor\",\"Renderer\",\"DOM Worker\"],\"features\":[\"js\",\"stackwalk\","
		   "\"cpu\",\"screenshots\"],\"capacity\":1048576},\"markerSchema\":[],"
		   "\"profilingStartTime\":0,\"profilingEndTime\":");
	out_ms(o, end_us);
	out_str(o, "},");
}

static void write_libs(struct out *o, const struct model *m)
{
	struct rng r = rng_make(m->seed, 3);
	out_str(o, "\"libs\":[");
	for (uint32_t l = 0; l < NLIBS; l++) {
		if (l)
			out_ch(o, ',');
		out_str(o, "{\"arch\":\"x86_64\",\"name\":");
		out_jstrz(o, libs[l].name);
		out_str(o, ",\"path\":");
		out_jstrz(o, libs[l].path);
		out_str(o, ",\"debugName\":");
		out_jstrz(o, libs[l].debug_name);
		out_str(o, ",\"debugPath\":");
		out_jstrz(o, libs[l].path);
		out_str(o, ",\"breakpadId\":");
		out_hex_id(o, &r, 33);
		out_str(o, ",\"codeId\":");
		out_hex_id(o, &r, 40);
		out_ch(o, '}');
	}
	out_str(o, "],\"pages\":[],");
}

static void write_shared(struct out *o, const struct model *m)
{
	uint32_t n;
	out_str(o, "\"shared\":{\"stackTable\":{\"frame\":[");
	n = m->nstacks;
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_u64(o, m->stack_frame[i]);
	}
	out_str(o, "],\"prefixOffset\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_u64(o, m->stack_parent[i] == NONE ? 0 : i - m->stack_parent[i]);
	}
	out_str(o, "],\"length\":");
	out_u64(o, n);

	n = m->nframes;
	out_str(o, "},\"frameTable\":{\"address\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		if (m->frame_addr[i] == NONE)
			out_str(o, "-1");
		else
			out_u64(o, m->frame_addr[i]);
	}
	out_str(o, "],\"inlineDepth\":[");
	for (uint32_t i = 0; i < n; i++)
		out_str(o, i ? ",0" : "0");
	out_str(o, "],\"category\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		uint32_t c = m->func_cat[m->frame_func[i]];
		out_opt_u32(o, c, 0);
	}
	out_str(o, "],\"subcategory\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		uint32_t f = m->frame_func[i], c = m->func_cat[f];
		if (!c)
			out_str(o, "null");
		else if (c == CAT_JS && m->func_kind[f] == FK_JS)
			out_u64(o, 1 + (i % 3)); /* Interpreter / Baseline / Ion */
		else
			out_ch(o, '0');
	}
	out_str(o, "],\"func\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_u64(o, m->frame_func[i]);
	}
	out_str(o, "],\"lib\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		uint32_t l = m->func_lib[m->frame_func[i]];
		if (l == 0xff)
			out_str(o, "-1");
		else
			out_u64(o, l);
	}
	out_str(o, "],\"nativeSymbol\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		uint32_t f = m->frame_func[i];
		if (m->func_lib[f] == 0xff)
			out_str(o, "null");
		else
			out_u64(o, m->func_symbol[f]);
	}
	out_str(o, "],\"innerWindowID\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		uint32_t f = m->frame_func[i];
		if (m->func_kind[f] == FK_JS && m->func_source[f] % NJSRES < 2)
			out_str(o, "2147483649");
		else
			out_ch(o, '0');
	}
	out_str(o, "],\"line\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_opt_u32(o, m->frame_line[i], 0);
	}
	out_str(o, "],\"column\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_opt_u32(o, m->frame_col[i], 0);
	}
	out_str(o, "],\"originalLocation\":");
	out_null_col(o, n);
	out_str(o, ",\"length\":");
	out_u64(o, n);

	n = m->nfuncs;
	out_str(o, "},\"funcTable\":{\"isJS\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_str(o, m->func_kind[i] == FK_JS ? "true" : "false");
	}
	out_str(o, "],\"relevantForJS\":[");
	for (uint32_t i = 0; i < n; i++)
		out_str(o, i ? ",false" : "false");
	out_str(o, "],\"name\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_u64(o, m->func_name[i]);
	}
	out_str(o, "],\"resource\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		if (m->func_kind[i] == FK_JS)
			out_u64(o, NLIBS + m->func_source[i] % NJSRES);
		else if (m->func_lib[i] != 0xff)
			out_u64(o, m->func_lib[i]);
		else
			out_str(o, "-1");
	}
	out_str(o, "],\"source\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		if (m->func_kind[i] == FK_JS)
			out_u64(o, m->func_source[i]);
		else
			out_str(o, "null");
	}
	out_str(o, "],\"lineNumber\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		if (m->func_kind[i] == FK_JS)
			out_u64(o, m->func_line[i]);
		else
			out_str(o, "null");
	}
	out_str(o, "],\"columnNumber\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		if (m->func_kind[i] == FK_JS)
			out_u64(o, 1 + m->func_line[i] % 40);
		else
			out_str(o, "null");
	}
	out_str(o, "],\"originalLocation\":");
	out_null_col(o, n);
	out_str(o, ",\"length\":");
	out_u64(o, n);

	n = NLIBS + NJSRES;
	out_str(o, "},\"resourceTable\":{\"name\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_u64(o, m->res_name_str[i]);
	}
	out_str(o, "],\"host\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_opt_u32(o, m->res_host_str[i], NONE);
	}
	out_str(o, "],\"type\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_u64(o, i < NLIBS ? 1 : js_res_type[i - NLIBS]);
	}
	out_str(o, "],\"length\":");
	out_u64(o, n);

	/* nativeSymbols: one per native function, in function order */
	out_str(o, "},\"nativeSymbols\":{\"libIndex\":[");
	int first = 1;
	for (uint32_t f = 0; f < m->nfuncs; f++) {
		if (m->func_lib[f] == 0xff)
			continue;
		if (!first)
			out_ch(o, ',');
		first = 0;
		out_u64(o, m->func_lib[f]);
	}
	out_str(o, "],\"address\":[");
	first = 1;
	for (uint32_t f = 0; f < m->nfuncs; f++) {
		if (m->func_lib[f] == 0xff)
			continue;
		if (!first)
			out_ch(o, ',');
		first = 0;
		out_u64(o, m->func_addr[f]);
	}
	out_str(o, "],\"name\":[");
	first = 1;
	for (uint32_t f = 0; f < m->nfuncs; f++) {
		if (m->func_lib[f] == 0xff)
			continue;
		if (!first)
			out_ch(o, ',');
		first = 0;
		out_u64(o, m->func_name[f]);
	}
	out_str(o, "],\"functionSize\":[");
	first = 1;
	for (uint32_t f = 0; f < m->nfuncs; f++) {
		if (m->func_lib[f] == 0xff)
			continue;
		if (!first)
			out_ch(o, ',');
		first = 0;
		out_u64(o, m->func_size[f]);
	}
	out_str(o, "],\"length\":");
	out_u64(o, m->nsymbols);

	out_str(o, "},\"stringArray\":[");
	for (uint32_t i = 0; i < m->str.n; i++) {
		if (i)
			out_ch(o, ',');
		out_jstr(o, pool_str(&m->str, i), m->str.size[i]);
	}

	n = m->nsources;
	out_str(o, "],\"sources\":{\"id\":");
	out_null_col(o, n);
	out_str(o, ",\"filename\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_u64(o, m->source_file[i]);
	}
	out_str(o, "],\"startLine\":[");
	for (uint32_t i = 0; i < n; i++)
		out_str(o, i ? ",1" : "1");
	out_str(o, "],\"startColumn\":[");
	for (uint32_t i = 0; i < n; i++)
		out_str(o, i ? ",1" : "1");
	out_str(o, "],\"sourceMapURL\":");
	out_null_col(o, n);
	out_str(o, ",\"content\":");
	out_null_col(o, n);
	out_str(o, ",\"length\":");
	out_u64(o, n);
	out_str(
	    o,
	    "},\"sourceLocationTable\":{\"source\":[],\"line\":[],\"column\":[],\"length\":0}},");
}

/* The samples of one thread, replayable: two streams, one per column. */
struct sampler {
	const struct model *m;
	uint32_t t;
	struct rng rs, rt;
	uint32_t prev;
	uint64_t i;
};

static void sampler_init(struct sampler *s, const struct model *m, uint32_t t)
{
	s->m = m;
	s->t = t;
	s->rs = rng_make(m->seed, 100 + t);
	s->rt = rng_make(m->seed, 200 + t);
	s->prev = NONE;
	s->i = 0;
}

static uint32_t sampler_stack(struct sampler *s)
{
	const struct model *m = s->m;
	const struct leafs *L = &m->leaves[s->t];
	uint32_t st;
	if (s->prev != NONE && rng_percent(&s->rs, 30)) {
		st = s->prev;
	} else {
		st = L->v[rng_zipf(&s->rs, (uint32_t)L->n)];
		if (rng_percent(&s->rs, 10)) {
			uint32_t up = 1 + rng_below(&s->rs, 6);
			while (up-- && m->stack_depth[st] > ROOT_CHAIN + 1)
				st = m->stack_parent[st];
		}
	}
	s->prev = st;
	return st;
}

/* The next timeDelta as text; *us gets its value in microseconds (noise digits aside). */
static size_t sampler_delta(struct sampler *s, char *buf, uint64_t *us)
{
	struct rng *r = &s->rt;
	uint64_t v;
	if (s->i++ == 0)
		v = 2000 + rng_below(r, 40000); /* thread start */
	else if (rng_percent(r, 2))
		v = 2000 + rng_below(r, 30000); /* not sampled while idle */
	else
		v = 900 + rng_below(r, 200);
	*us = v;
	uint32_t noise = rng_below(r, 100);
	if (noise < 30 && v % 1000) {
		/* floating-point noise of a difference of doubles: 1.0230000000000246 */
		size_t n = fmt_u64(buf, v / 1000);
		buf[n++] = '.';
		uint32_t frac = (uint32_t)(v % 1000);
		int down = noise < 15;
		if (down)
			frac--;
		buf[n++] = (char)('0' + frac / 100);
		buf[n++] = (char)('0' + frac / 10 % 10);
		buf[n++] = (char)('0' + frac % 10);
		for (uint32_t k = 0; k < 10; k++)
			buf[n++] = down ? '9' : '0';
		uint32_t tail = 1 + rng_below(r, 999);
		buf[n++] = (char)('0' + tail / 100);
		buf[n++] = (char)('0' + tail / 10 % 10);
		buf[n++] = (char)('0' + tail % 10);
		while (buf[n - 1] == '0')
			n--;
		return n;
	}
	return fmt_ms(buf, v);
}

/* Markers of thread t over [0, dur_us]: intervals, instants, start/end pairs, payloads. */
static const char *const marker_names[] = {
    "RefreshDriverTick", "Paint",   "Reflow", "Styles",	    "DOMEvent",
    "GCMinor",		 "GCSlice", "CC",     "Runnable",   "Composite",
    "UserTiming",	 "Log",	    "Awake",  "SetTimeout",
};
static const uint32_t marker_cats[] = {
    CAT_GFX, CAT_GFX,	CAT_LAYOUT, CAT_LAYOUT, CAT_DOM,   CAT_GC,    CAT_GC,
    CAT_GC,  CAT_OTHER, CAT_GFX,    CAT_JS,	CAT_OTHER, CAT_OTHER, CAT_DOM,
};
#define NMARKER_NAMES (sizeof marker_names / sizeof marker_names[0])

struct marker {
	uint32_t name, phase, cause_stack;
	uint64_t start, end;
};

static void write_markers(struct out *o, const struct model *m, uint32_t t, uint32_t nmark,
			  uint64_t dur_us, const uint32_t *name_str)
{
	struct rng r = rng_make(m->seed, 300 + t);
	struct marker *mk = xcalloc((size_t)nmark * 2 + 2, sizeof *mk);
	uint32_t n = 0;
	for (uint32_t i = 0; i < nmark; i++) {
		uint64_t at = dur_us * i / nmark + rng_below(&r, (uint32_t)(dur_us / nmark + 1));
		uint64_t len = 50 + rng_below(&r, 16000);
		uint32_t nm = rng_below(&r, NMARKER_NAMES);
		uint32_t roll = rng_below(&r, 100);
		struct marker a = {nm, 1, NONE, at, at + len};
		if (roll < 20) {
			a.phase = 0;
			a.end = 0;
		} else if (roll < 35) {
			struct marker e = {nm, 3, NONE, 0, at + len};
			a.phase = 2;
			mk[n++] = a;
			a = e;
		}
		if (rng_percent(&r, 10) && m->leaves[t].n)
			a.cause_stack = m->leaves[t].v[rng_zipf(&r, (uint32_t)m->leaves[t].n)];
		mk[n++] = a;
	}
	out_str(o, "\"markers\":{\"data\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		const char *nm = marker_names[mk[i].name];
		if ((mk[i].name == 8 || mk[i].name == 12) && mk[i].cause_stack == NONE) {
			out_str(o, "null");
			continue;
		}
		out_str(o, "{\"type\":");
		if (!strcmp(nm, "UserTiming")) {
			out_str(o, "\"UserTiming\",\"name\":\"measure-");
			out_u64(o, i);
			out_str(o, "\",\"entryType\":\"measure\"");
		} else if (!strcmp(nm, "Log")) {
			out_str(o, "\"Log\",\"module\":\"nsHttp\",\"name\":\"nsHttpChannel::"
				   "OnStartRequest ");
			out_str(o, "[this=0x7f3a");
			out_u64(o, 10000 + i);
			out_str(o, " status=0]\"");
		} else if (!strcmp(nm, "DOMEvent")) {
			out_str(o, "\"DOMEvent\",\"eventType\":\"");
			out_str(o, i % 3 ? "mousemove" : "click");
			out_str(o, "\",\"latency\":");
			out_u64(o, i % 17);
		} else if (!strcmp(nm, "GCMinor")) {
			out_str(o, "\"GCMinor\",\"nursery\":{\"status\":\"complete\",\"reason\":"
				   "\"OUT_OF_NURSERY\",\"bytes_used\":");
			out_u64(o, 100000 + rng_below(&r, 900000));
			out_str(o, ",\"cur_capacity\":1048576,\"lazy_capacity\":1048576}");
		} else {
			out_str(o, "\"tracing\",\"category\":");
			out_jstrz(o, cat_name[marker_cats[mk[i].name]]);
		}
		if (mk[i].cause_stack != NONE) {
			out_str(o, ",\"cause\":{\"tid\":");
			out_u64(o, (uint64_t)threads[t].tid);
			out_str(o, ",\"time\":");
			out_ms(o, mk[i].start > 500 ? mk[i].start - 500 : mk[i].end);
			out_str(o, ",\"stack\":");
			out_u64(o, mk[i].cause_stack);
			out_ch(o, '}');
		}
		out_ch(o, '}');
	}
	out_str(o, "],\"name\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_u64(o, name_str[mk[i].name]);
	}
	out_str(o, "],\"startTime\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		if (mk[i].phase == 3)
			out_str(o, "null");
		else
			out_ms(o, mk[i].start);
	}
	out_str(o, "],\"endTime\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		if (mk[i].phase == 0 || mk[i].phase == 2)
			out_str(o, "null");
		else
			out_ms(o, mk[i].end);
	}
	out_str(o, "],\"phase\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_u64(o, mk[i].phase);
	}
	out_str(o, "],\"category\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		out_u64(o, marker_cats[mk[i].name]);
	}
	out_str(o, "],\"length\":");
	out_u64(o, n);
	out_str(o, "},");
	free(mk);
}

struct thread_plan {
	uint64_t nsamples, dur_us;
};

static void write_threads(struct out *o, const struct model *m, const struct thread_plan *plan,
			  uint32_t nmark, const uint32_t *marker_name_str)
{
	out_str(o, "\"threads\":[");
	for (uint32_t t = 0; t < NTHREADS; t++) {
		const struct thread_info *ti = &threads[t];
		if (t)
			out_ch(o, ',');
		out_str(o, "{\"name\":");
		out_jstrz(o, ti->name);
		out_str(o, ",\"isMainThread\":");
		out_str(o, ti->main ? "true" : "false");
		out_str(o, ",\"processType\":");
		out_jstrz(o, ti->process_type);
		out_str(o, ",\"processName\":");
		out_jstrz(o, ti->process_name);
		out_str(o, ",\"processStartupTime\":0,\"processShutdownTime\":null,"
			   "\"registerTime\":");
		out_u64(o, t);
		out_str(o, ",\"unregisterTime\":null,\"tid\":");
		out_u64(o, (uint64_t)ti->tid);
		out_str(o, ",\"pid\":\"");
		out_u64(o, (uint64_t)ti->pid);
		out_str(o, "\",\"pausedRanges\":[],");
		write_markers(o, m, t, nmark, plan[t].dur_us, marker_name_str);

		struct sampler s;
		uint64_t n = plan[t].nsamples;
		out_str(o, "\"samples\":{\"stack\":[");
		sampler_init(&s, m, t);
		for (uint64_t i = 0; i < n; i++) {
			if (i)
				out_ch(o, ',');
			out_u64(o, sampler_stack(&s));
		}
		out_str(o, "],\"timeDeltas\":[");
		sampler_init(&s, m, t);
		for (uint64_t i = 0; i < n; i++) {
			char buf[48];
			uint64_t us;
			if (i)
				out_ch(o, ',');
			out_mem(o, buf, sampler_delta(&s, buf, &us));
		}
		out_str(o, "],\"weightType\":\"samples\",\"weight\":null,\"length\":");
		out_u64(o, n);
		out_str(o, "}}");
	}
	out_str(o, "]}\n");
}

static uint32_t digits(uint64_t v)
{
	uint32_t d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static void gen_firefox(FILE *f, uint64_t target, uint64_t seed)
{
	struct model m = {.seed = seed};
	double scale = (double)target / 200e6;
	uint32_t nfuncs = (uint32_t)(50000 * scale);
	uint32_t nstacks = (uint32_t)(800000 * scale);
	uint32_t nmark = (uint32_t)(300 * scale);
	if (nfuncs < 200)
		nfuncs = 200;
	if (nstacks < 2000)
		nstacks = 2000;
	if (nmark < 20)
		nmark = 20;

	build_code(&m, nfuncs);
	uint32_t marker_name_str[NMARKER_NAMES];
	for (uint32_t i = 0; i < NMARKER_NAMES; i++)
		marker_name_str[i] = pool_addz(&m.str, marker_names[i]);
	build_roots(&m);
	struct rng r = rng_make(seed, 4);
	for (uint32_t p = 0; m.nstacks < nstacks; p++) {
		uint32_t t = p % NTHREADS;
		uint32_t s = gen_path(&m, &r, t, 50);
		if (!m.stack_flag[s]) {
			m.stack_flag[s] = 1;
			leaf_push(&m.leaves[t], s);
		}
	}

	/* what everything but the samples costs, then the samples fill the rest */
	struct out dry = {.f = NULL, .cap = 1 << 16};
	dry.buf = xcalloc(dry.cap, 1);
	struct thread_plan plan[NTHREADS];
	uint32_t wsum = 0;
	for (uint32_t t = 0; t < NTHREADS; t++) {
		plan[t].nsamples = 0;
		plan[t].dur_us = (uint64_t)(target / 14 / 8) * 1000; /* a guess, for the digits */
		wsum += (uint32_t)threads[t].weight;
	}
	write_meta(&dry, plan[0].dur_us);
	write_libs(&dry, &m);
	write_shared(&dry, &m);
	write_threads(&dry, &m, plan, nmark, marker_name_str);
	out_flush(&dry);
	uint64_t fixed = dry.flushed;
	uint64_t budget = target > fixed ? target - fixed : 0;
	uint64_t end_us = 0;
	for (uint32_t t = 0; t < NTHREADS; t++) {
		uint64_t want = budget * (uint64_t)threads[t].weight / wsum;
		uint64_t bytes = 0, n = 0, dur = 0;
		struct sampler a, b;
		sampler_init(&a, &m, t);
		sampler_init(&b, &m, t);
		while (bytes < want) {
			char buf[48];
			uint64_t us;
			bytes += digits(sampler_stack(&a)) + 1 + sampler_delta(&b, buf, &us) + 1;
			dur += us;
			n++;
		}
		plan[t].nsamples = n;
		plan[t].dur_us = dur;
		if (dur > end_us)
			end_us = dur;
	}
	free(dry.buf);

	struct out o = {.f = f, .cap = 1 << 22};
	o.buf = xcalloc(o.cap, 1);
	write_meta(&o, end_us + 1000);
	write_libs(&o, &m);
	write_shared(&o, &m);
	write_threads(&o, &m, plan, nmark, marker_name_str);
	out_flush(&o);
	free(o.buf);

	uint64_t total_samples = 0;
	size_t nleaves = 0;
	for (uint32_t t = 0; t < NTHREADS; t++) {
		total_samples += plan[t].nsamples;
		nleaves += m.leaves[t].n;
	}
	fprintf(stderr,
		"gen: firefox %" PRIu64 " bytes: %u threads, %" PRIu64 " samples, %u stacks "
		"(%zu leaf paths), %u frames, %u funcs, %zu strings, %u markers/thread\n",
		o.flushed, NTHREADS, total_samples, m.nstacks, nleaves, m.nframes, m.nfuncs,
		m.str.n, nmark);
	model_free(&m);
}

/* ---------------------------------------------------------------- collapsed stacks */

static const char *const kernel_frames[] = {
    "entry_SYSCALL_64_after_hwframe_[k]",
    "do_syscall_64_[k]",
    "__x64_sys_futex_[k]",
    "do_futex_[k]",
    "futex_wait_[k]",
    "schedule_[k]",
    "__schedule_[k]",
    "finish_task_switch.isra.0_[k]",
};

static void gen_collapsed(FILE *f, uint64_t target, uint64_t seed)
{
	struct model m = {.seed = seed};
	double scale = (double)target / 200e6;
	uint32_t nfuncs = (uint32_t)(50000 * scale);
	if (nfuncs < 200)
		nfuncs = 200;
	build_code(&m, nfuncs);
	build_roots(&m);

	char labels[NTHREADS][64];
	for (uint32_t t = 0; t < NTHREADS; t++) {
		char *p = labels[t];
		const char *nm = threads[t].name;
		size_t n = 0;
		for (; nm[n] && n < 40; n++)
			p[n] = nm[n] == ' ' ? '_' : nm[n];
		p[n++] = '-';
		n += fmt_u64(p + n, (uint64_t)threads[t].pid);
		p[n++] = '/';
		n += fmt_u64(p + n, (uint64_t)threads[t].tid);
		p[n] = 0;
	}

	struct out o = {.f = f, .cap = 1 << 22};
	o.buf = xcalloc(o.cap, 1);
	struct rng r = rng_make(seed, 5);
	uint64_t lines = 0, samples = 0, misses = 0;
	uint32_t path[MAX_DEPTH + 8];
	for (uint32_t p = 0; out_total(&o) < target; p++) {
		uint32_t t = p % NTHREADS;
		uint32_t s = gen_path(&m, &r, t, 0);
		if (m.stack_flag[s]) {
			if (++misses > 1000000)
				die("the call tree is saturated");
			continue;
		}
		m.stack_flag[s] = 1;
		leaf_push(&m.leaves[t], s);
		uint32_t n = 0;
		for (uint32_t c = s; m.stack_parent[c] != NONE; c = m.stack_parent[c])
			path[n++] = c; /* leaf first; "(root)" left out */
		out_str(&o, labels[t]);
		while (n) {
			uint32_t fn = m.frame_func[m.stack_frame[path[--n]]];
			uint32_t nm = m.func_name[fn];
			out_ch(&o, ';');
			out_mem(&o, pool_str(&m.str, nm), m.str.size[nm]);
		}
		if (rng_percent(&r, 15)) {
			uint32_t nk = 2 + rng_below(&r, 7);
			for (uint32_t k = 0; k < nk; k++) {
				out_ch(&o, ';');
				out_str(&o, kernel_frames[k]);
			}
		}
		uint32_t b = rng_below(&r, rng_below(&r, 14) + 1);
		uint64_t count = 1 + rng_below(&r, 1u << b);
		out_ch(&o, ' ');
		out_u64(&o, count);
		out_ch(&o, '\n');
		lines++;
		samples += count;
	}
	out_flush(&o);
	free(o.buf);
	fprintf(stderr,
		"gen: collapsed %" PRIu64 " bytes: %" PRIu64 " lines, %" PRIu64 " samples, "
		"%u stacks in the prefix tree (kernel tails aside), %u funcs\n",
		o.flushed, lines, samples, m.nstacks, m.nfuncs);
	model_free(&m);
}

/* ---------------------------------------------------------------- perf script */

static const char *const perf_kernel[] = {
    "entry_SYSCALL_64_after_hwframe",
    "do_syscall_64",
    "__x64_sys_futex",
    "do_futex",
    "futex_wait",
    "schedule",
    "__schedule",
    "finish_task_switch.isra.0",
};

/* v as perf prints an IP: lowercase hex, right-aligned in 16 columns */
static void out_hex16(struct out *o, uint64_t v)
{
	char tmp[16];
	size_t n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (size_t k = n; k < 16; k++)
		out_ch(o, ' ');
	while (n)
		out_ch(o, tmp[--n]);
}

static void out_hex(struct out *o, uint64_t v)
{
	char tmp[16];
	size_t n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		out_ch(o, tmp[--n]);
}

/*
 * `perf script -F +pid` as perf 6.1 writes `perf record -g` (cpu-clock, 4 kHz): per sample a
 * header "comm PID/TID [CPU] SECS.USECS:     250000 cpu-clock:pppH: " (comm cut to 15 bytes as
 * the kernel does), the call chain leaf first, "\t%16x sym+0xOFF (dso)" (JS functions as JIT
 * frames in /tmp/perf-PID.map, without offset; 15 % of samples end in 2-8 kernel frames), then
 * a blank line. The threads, the call tree (200,000 stacks per 200 MB) and the choice of
 * stacks are the firefox mode's; samples come from the threads in proportion to their weight,
 * 20-250 us apart.
 */
static void gen_perf(FILE *f, uint64_t target, uint64_t seed)
{
	struct model m = {.seed = seed};
	double scale = (double)target / 200e6;
	uint32_t nfuncs = (uint32_t)(50000 * scale), nstacks = (uint32_t)(200000 * scale);
	if (nfuncs < 200)
		nfuncs = 200;
	if (nstacks < 2000)
		nstacks = 2000;
	build_code(&m, nfuncs);
	build_roots(&m);
	struct rng r = rng_make(seed, 6);
	for (uint32_t p = 0; m.nstacks < nstacks; p++) {
		uint32_t t = p % NTHREADS;
		uint32_t s = gen_path(&m, &r, t, 50);
		if (!m.stack_flag[s]) {
			m.stack_flag[s] = 1;
			leaf_push(&m.leaves[t], s);
		}
	}
	uint64_t lib_base[NLIBS];
	for (uint32_t l = 0; l < NLIBS; l++)
		lib_base[l] = 0x7f0000000000ULL + (uint64_t)rng_below(&r, 0x7fff) * 0x1000000;
	struct sampler smp[NTHREADS];
	uint32_t wsum = 0;
	for (uint32_t t = 0; t < NTHREADS; t++) {
		sampler_init(&smp[t], &m, t);
		wsum += (uint32_t)threads[t].weight;
	}
	struct out o = {.f = f, .cap = 1 << 22};
	o.buf = xcalloc(o.cap, 1);
	uint64_t us = 3789517743ULL, samples = 0, lines = 0;
	uint32_t path[MAX_DEPTH + 8];
	while (out_total(&o) < target) {
		uint32_t x = rng_below(&r, wsum), t = 0;
		while (x >= (uint32_t)threads[t].weight)
			x -= (uint32_t)threads[t].weight, t++;
		uint32_t s = sampler_stack(&smp[t]);
		us += 20 + rng_below(&r, 231);
		const char *nm = threads[t].main ? threads[t].process_name : threads[t].name;
		out_mem(&o, nm, strlen(nm) > 15 ? 15 : strlen(nm));
		out_ch(&o, ' ');
		out_u64(&o, (uint64_t)threads[t].pid);
		out_ch(&o, '/');
		out_u64(&o, (uint64_t)threads[t].tid);
		out_str(&o, " [00");
		out_ch(&o, (char)('0' + t % 4));
		out_str(&o, "] ");
		out_u64(&o, us / 1000000);
		char frac[8];
		uint64_t u = us % 1000000;
		for (int k = 5; k >= 0; k--, u /= 10)
			frac[k] = (char)('0' + u % 10);
		out_ch(&o, '.');
		out_mem(&o, frac, 6);
		out_str(&o, ":     250000 cpu-clock:pppH: \n");
		if (rng_percent(&r, 15)) {
			uint32_t nk = 2 + rng_below(&r, 7);
			for (uint32_t k = nk; k-- > 0;) {
				out_ch(&o, '\t');
				out_hex16(&o, 0xffffffff81000000ULL + k * 0x10f30 +
						  rng_below(&r, 0x100));
				out_ch(&o, ' ');
				out_str(&o, perf_kernel[k]);
				out_str(&o, "+0x");
				out_hex(&o, 0x10 + rng_below(&r, 0x200));
				out_str(&o, " ([kernel.kallsyms])\n");
				lines++;
			}
		}
		uint32_t n = 0;
		for (uint32_t c = s; m.stack_parent[c] != NONE; c = m.stack_parent[c])
			path[n++] = c; /* leaf first; "(root)" left out */
		for (uint32_t k = 0; k < n; k++) {
			uint32_t fr = m.stack_frame[path[k]], fn = m.frame_func[fr];
			uint32_t name = m.func_name[fn], lib = m.func_lib[fn];
			out_ch(&o, '\t');
			if (lib == 0xff) {
				out_hex16(&o, 0x3b0a5c000000ULL + (uint64_t)fr * 0x40);
				out_str(&o, " LazyCompile:~");
				out_mem(&o, pool_str(&m.str, name), m.str.size[name]);
				out_ch(&o, ' ');
				uint32_t src = m.source_file[m.func_source[fn]];
				out_mem(&o, pool_str(&m.str, src), m.str.size[src]);
				out_ch(&o, ':');
				out_u64(&o, m.func_line[fn]);
				out_str(&o, " (/tmp/perf-");
				out_u64(&o, (uint64_t)threads[t].pid);
				out_str(&o, ".map)\n");
			} else {
				out_hex16(&o, lib_base[lib] + m.frame_addr[fr]);
				out_ch(&o, ' ');
				out_mem(&o, pool_str(&m.str, name), m.str.size[name]);
				out_str(&o, "+0x");
				out_hex(&o, m.frame_addr[fr] - m.func_addr[fn]);
				out_str(&o, " (");
				out_str(&o, libs[lib].path);
				out_str(&o, ")\n");
			}
			lines++;
		}
		out_ch(&o, '\n');
		samples++;
	}
	out_flush(&o);
	free(o.buf);
	fprintf(stderr,
		"gen: perf %" PRIu64 " bytes: %" PRIu64 " samples, %" PRIu64 " frame lines, "
		"%u threads, %u stacks in the tree, %u funcs\n",
		o.flushed, samples, lines, NTHREADS, m.nstacks, m.nfuncs);
	model_free(&m);
}

/* ---------------------------------------------------------------- main */

/* ---------------------------------------------------------------- callgrind */

/*
 * A callgrind file as callgrind 3.19 writes it (positions: line, events: Ir): one block a
 * function with name compression for ob/fl/fi/fe/fn/cob/cfi/cfn, relative line numbers, calls=
 * lines each followed by the inclusive cost of the call, some inlined code (fi=/fe=) and some
 * self-recursion. The call graph is consistent, as a real run's is: a function's incoming calls
 * add up to its own cost plus its outgoing calls (recursive calls aside), callees always come
 * after their callers in the numbering (no cycle other than recursion), and summary: and
 * totals: are the sum of every self cost.
 */
__extension__ typedef unsigned __int128 u128;

struct cg_edge {
	uint32_t from, to, line, count;
	uint64_t weight, cost;
};

static int cg_edge_by_from(const void *a, const void *b)
{
	const struct cg_edge *x = a, *y = b;
	return x->from != y->from ? (x->from < y->from ? -1 : 1)
				  : (x->to != y->to ? (x->to < y->to ? -1 : 1) : 0);
}

static int cg_edge_by_line(const void *a, const void *b)
{
	const struct cg_edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* A name-compressed spec "key=(id) name" the first time, "key=(id)" after. */
static void cg_spec(struct out *o, const char *key, uint32_t id, uint8_t *seen, const char *name)
{
	out_str(o, key);
	out_ch(o, '(');
	out_u64(o, id + 1);
	out_ch(o, ')');
	if (!seen[id]) {
		seen[id] = 1;
		out_ch(o, ' ');
		out_str(o, name);
	}
	out_ch(o, '\n');
}

/* A position relative to the previous one, as callgrind compresses it (|diff| < 100). */
static void cg_pos(struct out *o, uint32_t line, uint32_t prev)
{
	if (line == prev) {
		out_ch(o, '*');
	} else if (line > prev && line - prev < 100) {
		out_ch(o, '+');
		out_u64(o, line - prev);
	} else if (line < prev && prev - line < 100) {
		out_ch(o, '-');
		out_u64(o, prev - line);
	} else {
		out_u64(o, line);
	}
}

static void gen_callgrind(FILE *f, uint64_t target, uint64_t seed)
{
	struct rng r = rng_make(seed, 11);
	uint32_t n = (uint32_t)(target / 287);
	if (n < 100)
		n = 100;
	uint32_t nfiles = n / 16 + 1, nlibs = NLIBS;
	struct pool sp = {0};
	uint32_t *name = xcalloc(n, sizeof *name), *file = xcalloc(n, sizeof *file);
	uint32_t *line0 = xcalloc(n, sizeof *line0), *nlines = xcalloc(n, sizeof *nlines);
	uint64_t *self = xcalloc(n, sizeof *self), *incl = xcalloc(n, sizeof *incl);
	uint64_t *rec = xcalloc(n, sizeof *rec);
	uint32_t *file_lib = xcalloc(nfiles, sizeof *file_lib), *file_name = xcalloc(nfiles, 4);
	struct sbuf b;
	for (uint32_t i = 0; i < nfiles; i++) {
		b.n = 0;
		sb_add(&b, i % 7 == 0 ? "/usr/include/c++/12/bits/" : "/home/dev/src/engine/");
		sb_add(&b, PICK(&r, nouns));
		sb_add(&b, "_");
		sb_num(&b, i);
		sb_add(&b, i % 7 == 0 ? ".h" : ".cpp");
		file_name[i] = pool_add(&sp, b.s, b.n);
		file_lib[i] = i % 7 == 0 ? 1 : rng_below(&r, nlibs);
	}
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t attempt = 0;; attempt++) {
			b.n = 0;
			if (i == 0)
				sb_add(&b, "(below main)");
			else if (i == 1)
				sb_add(&b, "main");
			else if (rng_percent(&r, 10))
				gen_c_name(&r, &b, 2 + rng_below(&r, NLIBS - 2));
			else if (rng_percent(&r, 10))
				gen_rust_name(&r, &b);
			else
				gen_cxx_name(&r, &b);
			int fresh;
			name[i] = pool_intern(&sp, b.s, b.n, &fresh);
			if (fresh || attempt > 40)
				break;
		}
		file[i] = rng_below(&r, nfiles);
		line0[i] = 1 + rng_below(&r, 5000);
		nlines[i] = 2 + rng_zipf(&r, 40);
		uint32_t bits = rng_below(&r, 20);
		self[i] = nlines[i] + rng_below(&r, 1u << bits);
	}
	/* every function but the first has a caller before it, and a few more */
	struct cg_edge *e = NULL;
	size_t ne = 0, ecap = 0;
	for (uint32_t g = 1; g < n; g++) {
		uint32_t k = 1 + (rng_percent(&r, 30) ? rng_zipf(&r, 12) : 0);
		if (g >= n - 64)
			k += 8 + rng_below(&r, 24); /* malloc-like helpers called from everywhere */
		for (uint32_t j = 0; j < k; j++) {
			GROW(e, ecap, ne + 1);
			uint32_t from = j == 0 ? g - 1 - rng_zipf(&r, g) : rng_below(&r, g);
			e[ne++] = (struct cg_edge){.from = from,
						   .to = g,
						   .count = 1 + rng_zipf(&r, 1000),
						   .weight = 1 + rng_below(&r, 1000)};
		}
	}
	qsort(e, ne, sizeof *e, cg_edge_by_from);
	/* merge repeated (from, to) pairs: one calls= line per callee and call site */
	size_t w = 0;
	for (size_t i = 0; i < ne; i++) {
		if (w && e[w - 1].from == e[i].from && e[w - 1].to == e[i].to) {
			e[w - 1].weight += e[i].weight;
			e[w - 1].count += e[i].count;
		} else {
			e[w++] = e[i];
		}
	}
	ne = w;
	size_t *first = xcalloc(n + 1, sizeof *first); /* edges of each caller */
	for (size_t i = 0; i < ne; i++)
		first[e[i].from + 1]++;
	for (uint32_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	/* incoming edges of each callee, to split its inclusive cost over them */
	size_t *in_first = xcalloc(n + 1, sizeof *in_first), *in = xcalloc(ne ? ne : 1, sizeof *in);
	uint64_t *in_weight = xcalloc(n, sizeof *in_weight);
	for (size_t i = 0; i < ne; i++) {
		in_first[e[i].to + 1]++;
		in_weight[e[i].to] += e[i].weight;
	}
	for (uint32_t i = 0; i < n; i++)
		in_first[i + 1] += in_first[i];
	size_t *fill = xcalloc(n, sizeof *fill);
	for (size_t i = 0; i < ne; i++)
		in[in_first[e[i].to] + fill[e[i].to]++] = i;
	uint64_t total = 0;
	for (uint32_t g = n; g-- > 0;) {
		uint64_t t = self[g];
		for (size_t i = first[g]; i < first[g + 1]; i++)
			t += e[i].cost;
		incl[g] = t;
		total += self[g];
		/* cumulative rounding: the incoming costs add up to t exactly */
		uint64_t acc = 0, done = 0;
		for (size_t k = in_first[g]; k < in_first[g + 1]; k++) {
			struct cg_edge *x = &e[in[k]];
			acc += x->weight;
			uint64_t upto = (uint64_t)((u128)t * acc / in_weight[g]);
			x->cost = upto - done;
			done = upto;
		}
		if (g > 1 && rng_percent(&r, 3))
			rec[g] = t / 3 + 1; /* the inner activations of a recursion */
	}
	for (size_t i = 0; i < ne; i++)
		e[i].line = line0[e[i].from] + rng_below(&r, nlines[e[i].from]);
	qsort(e, ne, sizeof *e, cg_edge_by_line); /* the calls of a caller in line order */

	struct out o = {.f = f, .cap = 1 << 22};
	o.buf = xcalloc(o.cap, 1);
	out_str(&o, "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 48213\n"
		    "cmd:  ./engine --replay session.bin\npart: 1\n\n\n"
		    "desc: I1 cache: \ndesc: D1 cache: \ndesc: LL cache: \n\n"
		    "desc: Timerange: Basic block 0 - 918273645\n"
		    "desc: Trigger: Program termination\n\npositions: line\nevents: Ir\nsummary: ");
	out_u64(&o, total);
	out_str(&o, "\n\n\n");
	uint8_t *seen_fn = xcalloc(n, 1), *seen_fl = xcalloc(nfiles, 1),
		*seen_ob = xcalloc(nlibs, 1);
	uint32_t cur_ob = NONE, cur_fl = NONE;
	for (uint32_t g = 0; g < n; g++) {
		uint32_t fl = file[g], ob = file_lib[fl];
		if (ob != cur_ob)
			cg_spec(&o, "ob=", ob, seen_ob, libs[ob].path);
		if (fl != cur_fl)
			cg_spec(&o, "fl=", fl, seen_fl, pool_str(&sp, file_name[fl]));
		cur_ob = ob;
		cur_fl = fl;
		cg_spec(&o, "fn=", g, seen_fn, pool_str(&sp, name[g]));
		/* self cost over its lines (some inlined from a header), the calls in between */
		uint32_t nl = nlines[g],
			 inl_at = rng_percent(&r, 10) ? 1 + rng_below(&r, nl) : NONE;
		uint32_t inl_file = (fl / 7) * 7, prev = 0;
		uint64_t left = self[g];
		size_t c = first[g];
		for (uint32_t k = 0; k < nl; k++) {
			uint32_t ln = line0[g] + k;
			if (k == inl_at)
				cg_spec(&o, "fi=", inl_file, seen_fl,
					pool_str(&sp, file_name[inl_file]));
			uint64_t room = left - (nl - k - 1),
				 v = left; /* keep 1 for each line after */
			if (k + 1 < nl) {
				v = 1 + rng_next(&r) % (2 * (left / (nl - k)) + 1);
				v = v < room ? v : room;
			}
			left -= v;
			cg_pos(&o, ln, prev);
			prev = ln;
			out_ch(&o, ' ');
			out_u64(&o, v);
			out_ch(&o, '\n');
			if (k == inl_at)
				cg_spec(&o, "fe=", fl, seen_fl, "");
			for (; c < first[g + 1] && e[c].line <= ln; c++) {
				struct cg_edge *x = &e[c];
				uint32_t tfl = file[x->to], tob = file_lib[tfl];
				if (tob != ob)
					cg_spec(&o, "cob=", tob, seen_ob, libs[tob].path);
				if (tfl != fl || rng_percent(&r, 50))
					cg_spec(&o, "cfi=", tfl, seen_fl,
						pool_str(&sp, file_name[tfl]));
				cg_spec(&o, "cfn=", x->to, seen_fn, pool_str(&sp, name[x->to]));
				out_str(&o, "calls=");
				out_u64(&o, x->count);
				out_ch(&o, ' ');
				cg_pos(&o, line0[x->to], prev);
				out_str(&o, " \n");
				cg_pos(&o, ln, prev);
				out_ch(&o, ' ');
				out_u64(&o, x->cost);
				out_ch(&o, '\n');
			}
			if (k == nl / 2 && rec[g]) {
				out_str(&o, "cfn=");
				out_ch(&o, '(');
				out_u64(&o, g + 1);
				out_str(&o, ")\ncalls=2 ");
				cg_pos(&o, line0[g], prev);
				out_str(&o, " \n*");
				out_ch(&o, ' ');
				out_u64(&o, rec[g]);
				out_ch(&o, '\n');
			}
		}
		out_ch(&o, '\n');
	}
	out_str(&o, "totals: ");
	out_u64(&o, total);
	out_ch(&o, '\n');
	out_flush(&o);
	fprintf(stderr,
		"gen: callgrind %" PRIu64 " bytes: %u functions, %zu call edges, total Ir %" PRIu64
		"\n",
		o.flushed, n, ne, total);
	free(o.buf);
	free(seen_fn);
	free(seen_fl);
	free(seen_ob);
	free(name);
	free(file);
	free(line0);
	free(nlines);
	free(self);
	free(incl);
	free(rec);
	free(file_lib);
	free(file_name);
	free(e);
	free(first);
	free(in_first);
	free(in);
	free(in_weight);
	free(fill);
	free(sp.buf);
	free(sp.off);
	free(sp.size);
	free(sp.set);
}

static void usage(void)
{
	fprintf(stderr, "usage: gen firefox|collapsed|callgrind|perf SIZE_MB OUT [SEED]\n"
			"       gen deep-collapsed|flat-collapsed|deep-chrome|flat-chrome|"
			"unique-stacks|cpuprofile|flame-boxes N OUT\n"
			"  SIZE_MB in units of 1,000,000 bytes; OUT '-' = standard output\n");
	exit(2);
}

/* ---------------------------------------------------------------- shapes (a count, no seed) */

static void out_frame(struct out *o, uint64_t k)
{
	char tmp[24];
	out_ch(o, 'f');
	out_mem(o, tmp, fmt_u64(tmp, k));
}

/* bytes of "f0;f1;...;fN-1 1\n" */
static uint64_t deep_collapsed_bytes(uint64_t n)
{
	uint64_t b = 3, digits = 1, next = 10;
	for (uint64_t k = 0; k < n; k++) {
		if (k == next) {
			digits++;
			next *= 10;
		}
		b += 1 + digits + (k > 0);
	}
	return b;
}

static void out_event(struct out *o, uint64_t k, char ph, uint64_t ts, int first)
{
	char tmp[24];
	out_str(o, first ? "[{\"name\":\"" : ",\n{\"name\":\"");
	out_frame(o, k);
	out_str(o, ph == 'B' ? "\",\"ph\":\"B\",\"ts\":" : "\",\"ph\":\"E\",\"ts\":");
	out_mem(o, tmp, fmt_u64(tmp, ts));
	out_str(o, ",\"pid\":1,\"tid\":1}");
}

static int gen_shape(FILE *f, const char *kind, uint64_t n)
{
	struct out o = {.f = f, .cap = 1 << 22};
	o.buf = xcalloc(o.cap, 1);
	char tmp[24];
	if (!strcmp(kind, "deep-collapsed")) {
		for (uint64_t k = 0; k < n; k++) {
			if (k)
				out_ch(&o, ';');
			out_frame(&o, k);
		}
		out_str(&o, " 1\n");
	} else if (!strcmp(kind, "flat-collapsed")) {
		uint64_t target = deep_collapsed_bytes(n);
		for (uint64_t k = 0; out_total(&o) + 12 <= target; k++) {
			out_frame(&o, k);
			out_str(&o, " 1\n");
		}
	} else if (!strcmp(kind, "deep-chrome") || !strcmp(kind, "flat-chrome")) {
		int deep = kind[0] == 'd';
		for (uint64_t k = 0; k < n; k++) {
			out_event(&o, k, 'B', deep ? k : 2 * k, k == 0);
			if (!deep)
				out_event(&o, k, 'E', 2 * k + 1, 0);
		}
		for (uint64_t k = n; deep && k-- > 0;)
			out_event(&o, k, 'E', 2 * n - k, 0);
		out_str(&o, n ? "]\n" : "[]\n");
	} else if (!strcmp(kind, "unique-stacks")) {
		for (uint64_t k = 0; k < n; k++) {
			out_frame(&o, k);
			out_str(&o, " 1\n");
		}
	} else if (!strcmp(kind, "flame-boxes")) {
		uint32_t *parent = xcalloc(n + 1, sizeof(*parent));
		uint8_t *inner = xcalloc(n + 1, 1);
		uint64_t *path = xcalloc(n + 1, sizeof(*path));
		for (uint64_t k = 2; k <= n; k++) {
			parent[k] = (uint32_t)(1 + mix64(k) % (k - 1));
			inner[parent[k]] = 1;
		}
		for (uint64_t k = 1; k <= n; k++) {
			uint64_t h = mix64(k ^ 0x5eedULL);
			if (inner[k] && h % 3)
				continue; /* an inner node without a self count */
			uint32_t d = 0;
			for (uint64_t x = k; x; x = parent[x])
				path[d++] = x;
			while (d--) {
				out_ch(&o, 'm');
				out_mem(&o, tmp, fmt_u64(tmp, path[d] % 37));
				out_str(&o, "::f");
				out_mem(&o, tmp, fmt_u64(tmp, path[d]));
				out_ch(&o, d ? ';' : ' ');
			}
			out_mem(&o, tmp, fmt_u64(tmp, 1 + (h >> 8) % 1000));
			out_ch(&o, '\n');
		}
		free(parent);
		free(inner);
		free(path);
	} else if (!strcmp(kind, "cpuprofile")) {
		static const char *const names[] = {"(root)", "main", "work", "idle"};
		out_str(&o, "{\"nodes\":[");
		for (int i = 0; i < 4; i++) {
			out_str(&o, i ? ",{\"id\":" : "{\"id\":");
			out_mem(&o, tmp, fmt_u64(tmp, (uint64_t)i + 1));
			out_str(&o, ",\"callFrame\":{\"functionName\":\"");
			out_str(&o, names[i]);
			out_str(&o, "\",\"scriptId\":\"1\",\"url\":\"app.js\",\"lineNumber\":");
			out_mem(&o, tmp, fmt_u64(tmp, (uint64_t)i * 10));
			out_str(&o, ",\"columnNumber\":1}");
			out_str(&o, i == 0   ? ",\"children\":[2,4]}"
				    : i == 1 ? ",\"children\":[3]}"
					     : "}");
		}
		out_str(&o, "],\"startTime\":0,\"endTime\":");
		out_mem(&o, tmp, fmt_u64(tmp, n * 110));
		out_str(&o, ",\"samples\":[");
		for (uint64_t k = 0; k < n; k++) {
			if (k)
				out_ch(&o, ',');
			out_ch(&o, (char)('2' + (k * 7 + k / 3) % 3)); /* nodes 2, 3, 4 */
		}
		out_str(&o, "],\"timeDeltas\":[");
		for (uint64_t k = 0; k < n; k++) {
			if (k)
				out_ch(&o, ',');
			out_mem(&o, tmp, fmt_u64(tmp, 90 + (k * 13) % 20));
		}
		out_str(&o, "]}\n");
	} else {
		free(o.buf);
		return -1;
	}
	out_flush(&o);
	free(o.buf);
	fprintf(stderr, "gen: %s %llu: %llu bytes\n", kind, (unsigned long long)n,
		(unsigned long long)out_total(&o));
	return 0;
}

static uint64_t parse_u64(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		usage();
	return (uint64_t)v;
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5)
		usage();
	if (strchr(argv[1], '-') || !strcmp(argv[1], "cpuprofile")) {
		uint64_t n = parse_u64(argv[2]);
		if (argc != 4 || n > 1000000000)
			usage();
		FILE *f = strcmp(argv[3], "-") ? fopen(argv[3], "wb") : stdout;
		if (!f) {
			fprintf(stderr, "gen: cannot open '%s': %s\n", argv[3], strerror(errno));
			return 1;
		}
		if (gen_shape(f, argv[1], n))
			usage();
		if (f != stdout ? fclose(f) != 0 : fflush(f) != 0)
			die("write error");
		return 0;
	}
	uint64_t mb = parse_u64(argv[2]);
	uint64_t seed = argc == 5 ? parse_u64(argv[4]) : 20240610;
	if (mb == 0 || mb > 100000)
		usage();
	int firefox = !strcmp(argv[1], "firefox"), callgrind = !strcmp(argv[1], "callgrind");
	int perf = !strcmp(argv[1], "perf");
	if (!firefox && !callgrind && !perf && strcmp(argv[1], "collapsed"))
		usage();
	FILE *f = stdout;
	if (strcmp(argv[3], "-")) {
		f = fopen(argv[3], "wb");
		if (!f) {
			fprintf(stderr, "gen: cannot open '%s': %s\n", argv[3], strerror(errno));
			return 1;
		}
	}
	setvbuf(f, NULL, _IONBF, 0); /* our own 4 MiB buffer does the batching */
	if (firefox)
		gen_firefox(f, mb * 1000000, seed);
	else if (callgrind)
		gen_callgrind(f, mb * 1000000, seed);
	else if (perf)
		gen_perf(f, mb * 1000000, seed);
	else
		gen_collapsed(f, mb * 1000000, seed);
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0)
		die("write error");
	return 0;
}
