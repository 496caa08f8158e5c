/*
 * banned.h - C library functions this project does not call (git's banned.h is the model).
 *
 * Each one writes into a buffer whose length it never checks (sprintf, vsprintf, strcpy, strcat,
 * gets), or silently cuts the text and may leave it without its NUL (strncpy, strncat). Write
 * instead with an explicit length: snprintf/vsnprintf (and check what they return), memcpy of a
 * length known to fit, or the growable string of include/pv/sbuf.h (sbuf_put, sbuf_puts,
 * sbuf_addf).
 *
 * The build hands this file to the compiler ahead of every C file (meson.build: `-include`), so
 * no file can forget it. It first includes the system headers that declare the banned functions;
 * their include guards keep any later #include of them from reading the declarations again, so
 * the macros below never meet a system header's own declaration. A call is then a compile error
 * that names the function and this file: "static assertion failed: \"sprintf is banned ...\"".
 * meson.build checks at configure time that each ban still holds (and that a file that calls
 * none of them compiles), so the ban cannot silently disappear.
 */
#ifndef PV_BANNED_H
#define PV_BANNED_H

#include <stdio.h>
#include <string.h>

/* An expression that fails to compile with the message; a struct may hold a static assertion
 * (C11 6.7.2.1), and sizeof puts that struct where an expression goes. */
#define PV_BANNED(func)                                                                            \
	((void)sizeof(struct {                                                                     \
		 _Static_assert(0,                                                                 \
				#func " is banned (src/base/banned.h): use snprintf, memcpy with " \
				      "an explicit length, or sbuf (include/pv/sbuf.h)");          \
		 int pv_banned_;                                                                   \
	 }),                                                                                       \
	 0)

#undef sprintf
#define sprintf(...) PV_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) PV_BANNED(vsprintf)
#undef strcpy
#define strcpy(...) PV_BANNED(strcpy)
#undef strcat
#define strcat(...) PV_BANNED(strcat)
#undef strncpy
#define strncpy(...) PV_BANNED(strncpy)
#undef strncat
#define strncat(...) PV_BANNED(strncat)
#undef gets
#define gets(...) PV_BANNED(gets)

#endif
