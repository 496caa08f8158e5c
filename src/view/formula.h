/*
 * view/formula.h - a derived metric's formula (hpcviewer's syntax, doc/hpctoolkit.md) as a small
 * tree of nodes: numbers, metric references, operators, calls. formula.c parses it (query.c checks
 * a --derive's syntax with it); derive.c evaluates it over a view's columns.
 */
#ifndef PV_VIEW_FORMULA_H
#define PV_VIEW_FORMULA_H

#include <stddef.h>
#include <stdint.h>

enum { N_NUM, N_REF, N_AT, N_NEG, N_ADD, N_SUB, N_MUL, N_DIV, N_POW, N_CALL };

enum fn {
	F_SUM,
	F_AVG,
	F_MIN,
	F_MAX,
	F_STDEV,
	F_PI,
	F_E,
	F_SQRT,
	F_ABS,
	F_CEIL,
	F_FLOOR,
	F_EXP,
	F_LN,
	F_LG,
	F_LOG,
	F_SIGN,
	F_ROUND,
	F_POW,
	F_MOD,
	F_FACT,
	F_COMBIN,
	F_SIN,
	F_COS,
	F_TAN,
	F_ASIN,
	F_ACOS,
	F_ATAN,
	F_SINH,
	F_COSH,
	F_TANH,
	F_ASINH,
	F_ACOSH,
	F_ATANH,
};

struct fnode {
	uint8_t op;
	uint8_t fn;	/* N_CALL: enum fn */
	uint16_t nargs; /* N_CALL */
	uint32_t a, b;	/* operands; N_CALL: a = the first argument's index in args */
	uint32_t ref;	/* N_REF, N_AT: index in refs */
	double num;
};

struct pv_formula {
	struct fnode *n;
	uint32_t len, cap;
	uint32_t *args;
	uint32_t nargs, acap;
	char **refs;	  /* metric names as written ("3", "cycles", "CPUTIME (sec)") */
	uint32_t *refcol; /* their 1-based columns in the text */
	uint32_t nrefs, rcap;
	uint32_t root;
};

/* Parses a formula; on a mistake, PV_EINVAL with its 1-based column in text and a message
 * (PV_ENOMEM: out of memory). *out to pv__formula_free (NULL allowed). */
int pv__formula_parse(const char *text, struct pv_formula **out, uint32_t *col, char *msg,
		      size_t msglen);
void pv__formula_free(struct pv_formula *f);

#endif
