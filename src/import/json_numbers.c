#include "import/json_numbers.h"

#include "base/alloc.h"

#define RUN_ROOM 4096

int json_read_i64s(struct json *j, int pow10, struct vec *v, const char *what)
{
	for (;;) {
		if (v->cap - v->len < RUN_ROOM / 4) {
			uint32_t n = v->len;
			if ((uint64_t)n + RUN_ROOM > PV_MAX_ROWS)
				return json_fail(j, NULL, "too many values in '%s'", what);
			if (vec_resize(v, sizeof(int64_t), n + RUN_ROOM))
				return json_fail(j, NULL, "out of memory");
			v->len = n;
		}
		enum json_run stop;
		size_t got = json_run_i64(j, pow10, VEC(*v, int64_t) + v->len, v->cap - v->len,
					  false, 0, &stop);
		v->len += (uint32_t)got;
		if (stop == JSON_RUN_END)
			return 0;
		if (stop == JSON_RUN_FULL)
			continue;
		struct json_tok x;
		int rc = json_next(j, &x);
		if (rc)
			return rc;
		if (x.kind == JSON_END)
			return 0;
		if (x.kind != JSON_NUMBER)
			return json_fail_at(j, &x, "expected a number in '%s', found %s", what,
					    json_kind_name(x.kind));
		int64_t val;
		rc = pow10 ? json_fixed(j, &x, pow10, &val) : json_i64(j, &x, &val);
		if (rc)
			return rc;
		int64_t *s = vec_push(v, sizeof(int64_t));
		if (!s)
			return json_fail(j, NULL, "out of memory");
		*s = val;
	}
}

const char *json_array_elem_at(const struct json *j, const char *at, uint64_t k)
{
	const char *p = at, *e = j->in->data + j->in->len;
	for (uint64_t i = 0; i < k; i++) {
		while (p < e && *p != ',' && *p != ']')
			p++;
		if (p >= e || *p == ']')
			return at;
		p++;
	}
	while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}
