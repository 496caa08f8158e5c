/*
 * The symbolizer's kernel and JIT names in perf.data (src/import/symbols.c, doc/perf-data.md),
 * against perf itself on recordings made at test time:
 *
 *  - the kernel from a vmlinux: no Debian machine has a vmlinux with symbols without a large
 *    -dbg package, so the test makes one of /proc/kallsyms (fake_vmlinux: an ELF file whose
 *    NOBITS .text spans the kernel's text at its address, with a symbol per kallsyms line and the
 *    recorded kernel's build id), checks that perf script -k names every frame from it as from
 *    kallsyms, then that profview's --vmlinux does too, moved by KASLR or not; that a vmlinux of
 *    another build id is never used, and said; and perf's places (./vmlinux, the build-id cache)
 *    in perf's order;
 *  - JIT code: tests/data/perf-data/jit.c runs a copy of a function in an anonymous executable
 *    mapping that /tmp/perf-PID.map names; its perf.data's JIT frames are named from the map as
 *    perf script names them.
 *
 * Skipped, said, where perf may not record (the kernel's samples need root or
 * kernel.perf_event_paranoid -1, the kernel's addresses a readable /proc/kallsyms).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_test.h"
#include "pv/import.h"
#include "t.h"
#include "tp.h"

/* ---------------------------------------------------------------- the kernel from a vmlinux */

/* The kernel's symbols of /proc/kallsyms (not the modules'), of the types perf reads (T, W, D,
 * B, either case): their count, *text the address of _text and *last the highest one; 0 when
 * it is unreadable or without addresses (kptr_restrict). */
static uint32_t kallsyms_range(uint64_t *text, uint64_t *last)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	uint32_t n = 0;
	*text = *last = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, name[400];
		if (strchr(line, '\t') || sscanf(line, "%llx %c %399s", &a, &t, name) != 3 ||
		    !strchr("TtWwDdBb", t))
			continue;
		if (strcmp(name, "_text") == 0)
			*text = a;
		if (a > *last)
			*last = a;
		n++;
	}
	if (f)
		fclose(f);
	return *text ? n : 0;
}

/*
 * A fake vmlinux at path: ld makes an ELF file of one NOBITS .text from text - shift to last +
 * 4 KiB (a linker script, no input but an empty object) with the GNU build-id note bid (hex), then
 * objcopy adds a function symbol per kernel line of /proc/kallsyms (T, W, D, B), named
 * prefix + its name, at its address - shift (shift: a kernel linked 2 MiB lower than it ran, as
 * KASLR moves it). Duplicate names (static functions) stay, as in a real vmlinux. 0 when made.
 */
static int fake_vmlinux(const char *dir, const char *path, const char *bid, uint64_t shift,
			const char *prefix, uint64_t text, uint64_t last)
{
	char lds[128], args[128];
	snprintf(lds, sizeof(lds), "%s/fake.ld", dir);
	snprintf(args, sizeof(args), "%s/fake.args", dir);
	FILE *l = fopen(lds, "w"), *a = fopen(args, "w"), *k = fopen("/proc/kallsyms", "r");
	if (l)
		fprintf(l, "SECTIONS { .text 0x%llx (NOLOAD) : { . = . + 0x%llx; } }\n",
			(unsigned long long)(text - shift),
			(unsigned long long)(last - text + 4096));
	char line[512];
	while (a && k && fgets(line, sizeof(line), k)) {
		unsigned long long ad;
		char t, name[400];
		if (strchr(line, '\t') || sscanf(line, "%llx %c %399s", &ad, &t, name) != 3 ||
		    !strchr("TtWwDdBb", t) || ad < text)
			continue;
		fprintf(a, "--add-symbol %s%s=.text:0x%llx,function,global\n", prefix, name,
			ad - (unsigned long long)text);
	}
	int bad = !l || !a || !k;
	if (l)
		bad |= fclose(l) != 0;
	if (a)
		bad |= fclose(a) != 0;
	if (k)
		fclose(k);
	if (bad)
		return -1;
	return run("cd %s && as -o empty.o /dev/null && ld -T %s --build-id=0x%s -e 0 -o %s.base "
		   "empty.o && objcopy @%s %s.base %s && rm -f %s.base",
		   dir, lds, bid, path, args, path, path, path);
}

/* The import of path as perf.data with --vmlinux vmlinux (NULL: none), HOME home (perf's
 * build-id cache there); NULL (a failure said) when it fails. */
static struct pv_profile *import_kernel(const char *path, const char *vmlinux, const char *home)
{
	struct pv_import_opts o = {.format = "perf-data", .vmlinux = vmlinux};
	struct pv_profile *p = NULL;
	struct pv_error err;
	const char *old = getenv("HOME");
	char *saved = old ? strdup(old) : NULL;
	setenv("HOME", home, 1);
	if (pv_import_open(path, &o, &p, &err, NULL))
		t_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	free(saved);
	return p;
}

/* The frames of the kernel in p: *named those with a function's name, the others unnamed
 * ("[kernel.kallsyms]"). */
static void kernel_frames(const struct pv_profile *p, uint32_t *named, uint32_t *unnamed)
{
	*named = *unnamed = 0;
	for (pv_frame_ix f = 0; f < p->frames.len; f++) {
		pv_func_ix fn = p->frames.func[f];
		pv_module_ix m = pv_func_module(p, fn);
		if (m == PV_NONE || strcmp(pv_str(p, p->modules.name[m]), "[kernel.kallsyms]"))
			continue;
		if (strcmp(pv_str(p, p->funcs.name[fn]), "[kernel.kallsyms]") == 0)
			++*unnamed;
		else
			++*named;
	}
}

/* The frames of p in kernel modules ("[name]" other than the kernel itself). */
static uint32_t module_frames(const struct pv_profile *p)
{
	uint32_t n = 0;
	for (pv_frame_ix f = 0; f < p->frames.len; f++) {
		pv_module_ix m = pv_func_module(p, p->frames.func[f]);
		const char *mn = m == PV_NONE ? "" : pv_str(p, p->modules.name[m]);
		n += mn[0] == '[' && strcmp(mn, "[kernel.kallsyms]") != 0 &&
		     strcmp(mn, "[vdso]") != 0 && strcmp(mn, "[vsyscall]") != 0 &&
		     strcmp(mn, "[unknown]") != 0;
	}
	return n;
}

/* Every sample of a and b with the same stack text, b's kernel names being prefix + a's. */
static void same_stacks(const struct pv_profile *a, const struct pv_profile *b, const char *prefix)
{
	T_EQ_INT(a->samples.len, b->samples.len);
	static char x[65536], y[65536], want[65536];
	size_t pl = strlen(prefix);
	uint32_t bad = 0;
	for (uint32_t i = 0; i < a->samples.len && i < b->samples.len; i++) {
		stack_text(a, a->samples.stack[i], false, x, sizeof(x));
		stack_text(b, b->samples.stack[i], false, y, sizeof(y));
		/* a's text with prefix before each kernel frame's name */
		size_t n = 0;
		for (char *s = x, *e; *s && n + pl + 1 < sizeof(want); s = e + 2) {
			e = strstr(s, "; ");
			if (!e)
				break;
			bool kern = strstr(s, " [[kernel.kallsyms]]") == e - 20 &&
				    strncmp(s, "[kernel.kallsyms]", 17) != 0;
			n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%.*s; ",
					      kern ? prefix : "", (int)(e - s), s);
		}
		want[n] = 0;
		if (strcmp(want, y) && bad++ < 3)
			t_fail(__FILE__, __LINE__, "sample %u: expected %s\n  got %s", i, want, y);
	}
	T_EQ_INT(bad, 0);
}

/* The recorded kernel's build id as perf buildid-list prints it, into bid (41 bytes). */
static bool kernel_build_id(const char *data, char *bid)
{
	char cmd[256], line[512];
	snprintf(cmd, sizeof(cmd), "perf buildid-list -i %s 2>/dev/null", data);
	FILE *f = popen(cmd, "r");
	bid[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char id[64], path[400];
		if (sscanf(line, "%63s %399s", id, path) == 2 &&
		    strcmp(path, "[kernel.kallsyms]") == 0 && strlen(id) == 40)
			memcpy(bid, id, 41);
	}
	if (f)
		pclose(f);
	return bid[0] != 0;
}

/* perf's places without --vmlinux: ./vmlinux (of another build: not used; of the recorded
 * build: before kallsyms), then perf's build-id cache. Names prefixed "vm_" show a vmlinux. */
static void vmlinux_places(const char *dir, const char *data, const struct pv_profile *kall,
			   const char *bid, uint64_t text, uint64_t last)
{
	char other[128], vm[128], cache[256], cwd[4096], home[96];
	snprintf(other, sizeof(other), "%s/other-named", dir);
	snprintf(vm, sizeof(vm), "%s/vm-named", dir);
	snprintf(home, sizeof(home), "%s/home", dir);
	if (!getcwd(cwd, sizeof(cwd)) || mkdir(home, 0700) ||
	    fake_vmlinux(dir, other, "1111111111111111111111111111111111111111", 0, "x_", text,
			 last) ||
	    fake_vmlinux(dir, vm, bid, 0, "vm_", text, last) || chdir(dir)) {
		t_fail(__FILE__, __LINE__, "the places' vmlinux files could not be made in %s",
		       dir);
		return;
	}
	/* ./vmlinux of another build: kallsyms names the kernel */
	T_EQ_INT(run("cp %s vmlinux", other), 0);
	struct pv_profile *p = import_kernel(data, NULL, home);
	if (p)
		same_stacks(kall, p, "");
	pv_profile_free(p);
	/* ./vmlinux of the recorded build: used before kallsyms (perf's order) */
	T_EQ_INT(run("cp %s vmlinux", vm), 0);
	p = import_kernel(data, NULL, home);
	if (p)
		same_stacks(kall, p, "vm_");
	pv_profile_free(p);
	/* perf's build-id cache: ~/.debug/.build-id/XX/REST/elf */
	T_EQ_INT(run("rm vmlinux"), 0);
	snprintf(cache, sizeof(cache), "%s/.debug/.build-id/%.2s/%s", home, bid, bid + 2);
	T_EQ_INT(run("mkdir -p %s && cp %s %s/elf", cache, vm, cache), 0);
	p = import_kernel(data, NULL, home);
	if (p)
		same_stacks(kall, p, "vm_");
	pv_profile_free(p);
	T_EQ_INT(chdir(cwd), 0);
}

/*
 * The recording said to be of another kernel (the kernel's build id in its BUILD_ID feature made
 * obid's, the one of fake vmlinux other): this machine's /proc/kallsyms is then not used (perf's
 * test of /sys/kernel/notes), nothing names the kernel and info says why; perf's copy of that
 * kernel's kallsyms (~/.debug/[kernel.kallsyms]/ID/kallsyms) names it, as --vmlinux other does.
 */
static void another_kernel(const char *dir, const char *data, const struct pv_profile *kall,
			   const char *bid, const char *obid, const char *other)
{
	size_t len;
	unsigned char *b = (unsigned char *)t_read_file(data, &len), id[20], oid[20];
	for (int i = 0; i < 20; i++) {
		unsigned x, y;
		sscanf(bid + 2 * i, "%2x", &x);
		sscanf(obid + 2 * i, "%2x", &y);
		id[i] = (unsigned char)x;
		oid[i] = (unsigned char)y;
	}
	uint32_t swapped = 0;
	for (size_t i = 0; b && i + 20 <= len; i++)
		if (memcmp(b + i, id, 20) == 0) {
			memcpy(b + i, oid, 20);
			swapped++;
		}
	T_EQ_INT(swapped, 1); /* the BUILD_ID feature's [kernel.kallsyms] */
	char path[128], home[96];
	snprintf(path, sizeof(path), "%s/another.data", dir);
	snprintf(home, sizeof(home), "%s/another-home", dir);
	FILE *f = fopen(path, "wb");
	T_TRUE(f && b && fwrite(b, 1, len, f) == len);
	if (f)
		fclose(f);
	free(b);
	T_EQ_INT(mkdir(home, 0700), 0);
	struct pv_profile *p = import_kernel(path, NULL, home);
	if (p) {
		uint32_t named, unnamed;
		kernel_frames(p, &named, &unnamed);
		T_EQ_INT(named, 0);
		T_TRUE(unnamed > 0);
		T_TRUE(t_diag(p,
			      "addresses in [kernel.kallsyms] not named: kernel symbols not found: "
			      "no vmlinux or kallsyms of the recorded kernel's build id on this "
			      "machine (--vmlinux FILE)",
			      NULL) != NULL);
	}
	pv_profile_free(p);
	T_EQ_INT(run("mkdir -p '%s/.debug/[kernel.kallsyms]/%s' && cp /proc/kallsyms "
		     "'%s/.debug/[kernel.kallsyms]/%s/kallsyms'",
		     home, obid, home, obid),
		 0);
	p = import_kernel(path, NULL, home);
	if (p)
		same_stacks(kall, p, "");
	pv_profile_free(p);
	p = import_kernel(path, other, dir);
	if (p)
		same_stacks(kall, p, "");
	pv_profile_free(p);
}

/*
 * A recording of this machine's kernel (a shell loop of cat, cpu-clock with the kernel, -g), and
 * fake vmlinux files made of /proc/kallsyms (fake_vmlinux, above): perf script -k of the fake
 * prints the very text it prints with kallsyms (the fake is a vmlinux as perf reads one, moved
 * 2 MiB or not); profview's import with --vmlinux of either equals that text sample by sample
 * (thread, time, period, every frame's name and module) and its own kallsyms import; with a
 * vmlinux of another build id no kernel frame is named and the lossy line names the file;
 * perf's places (vmlinux_places) and another kernel's recording (another_kernel).
 * Skipped, said, when the recording has frames in kernel modules (a vmlinux names none: perf
 * reads the modules' .ko files, profview does not yet).
 */
T_TEST(perf_data_kernel_from_vmlinux)
{
	char dir[64];
	if (!temp_dir(dir, "vmlinux"))
		return;
	uint64_t text, last;
	uint32_t nsyms = kallsyms_range(&text, &last);
	if (!nsyms) {
		printf("# SKIP perf_data_kernel_from_vmlinux: /proc/kallsyms without addresses "
		       "(kernel.kptr_restrict, or not root)\n");
		run("rm -rf '%s'", dir);
		return;
	}
	if (run("cd %s && HOME=%s perf record -q -e cpu-clock -g -o k.data -- sh -c 'for i in "
		"$(seq 200); do cat /proc/self/status >/dev/null; done' >/dev/null 2>&1",
		dir, dir) != 0) {
		skip_unpermitted(dir, "perf_data_kernel_from_vmlinux (the kernel's samples)");
		return;
	}
	char data[96], bid[41], fake[96], moved[96], other[96];
	snprintf(data, sizeof(data), "%s/k.data", dir);
	snprintf(fake, sizeof(fake), "%s/fake", dir);
	snprintf(moved, sizeof(moved), "%s/fake-moved", dir);
	snprintf(other, sizeof(other), "%s/fake-other", dir);
	T_TRUE(kernel_build_id(data, bid));
	char obid[41];
	memcpy(obid, bid, 41);
	obid[0] = obid[0] == '0' ? '1' : '0'; /* another build */
	T_EQ_INT(fake_vmlinux(dir, fake, bid, 0, "", text, last), 0);
	T_EQ_INT(fake_vmlinux(dir, moved, bid, 0x200000, "", text, last), 0);
	T_EQ_INT(fake_vmlinux(dir, other, obid, 0, "", text, last), 0);
	struct pv_profile *kall = import_kernel(data, NULL, dir);
	if (kall && module_frames(kall)) {
		/* a vmlinux holds no module: perf and profview leave their addresses unnamed */
		printf("# SKIP perf_data_kernel_from_vmlinux: %u frames in kernel modules (a "
		       "vmlinux names none)\n",
		       module_frames(kall));
		pv_profile_free(kall);
		run("rm -rf '%s'", dir);
		return;
	}
	/* perf itself: the same text from kallsyms and from either fake */
	T_EQ_INT(run("cd %s && HOME=%s perf script --ns -i k.data > k.txt 2>/dev/null && "
		     "HOME=%s perf script --ns -k fake -i k.data > kf.txt 2>/dev/null && "
		     "HOME=%s perf script --ns -k fake-moved -i k.data > km.txt 2>/dev/null && "
		     "cmp -s k.txt kf.txt && cmp -s k.txt km.txt",
		     dir, dir, dir, dir),
		 0);
	char txt[96];
	snprintf(txt, sizeof(txt), "%s/k.txt", dir);
	struct pv_profile *text_p = t_load_as(txt, "perf-script");
	struct pv_profile *vm = import_kernel(data, fake, dir);
	struct pv_profile *mv = import_kernel(data, moved, dir);
	struct pv_profile *ot = import_kernel(data, other, dir);
	if (text_p && kall && vm && mv && ot) {
		uint32_t named, unnamed;
		kernel_frames(vm, &named, &unnamed);
		T_TRUE(named > 50);
		printf(
		    "# --vmlinux (a fake of %u kallsyms symbols): %u kernel frames named, %u not "
		    "(%u samples)\n",
		    nsyms, named, unnamed, vm->samples.len);
		compare_samples(text_p, vm, false);
		compare_samples(text_p, mv, false);
		same_stacks(kall, vm, "");
		same_stacks(kall, mv, "");
		/* another build: never used, the kernel's frames unnamed, said with the file */
		uint32_t onamed, ounnamed;
		kernel_frames(ot, &onamed, &ounnamed);
		T_EQ_INT(onamed, 0);
		T_TRUE(ounnamed > 0);
		char needle[256];
		snprintf(needle, sizeof(needle),
			 "addresses in [kernel.kallsyms] not named: binary found, but its build "
			 "id differs from the recorded one; vmlinux %s not used: its build id is "
			 "another build's",
			 other);
		uint64_t count = 0;
		T_TRUE(t_diag(ot, needle, &count) != NULL);
		T_TRUE(count > 0);
		vmlinux_places(dir, data, kall, bid, text, last);
		another_kernel(dir, data, kall, bid, obid, other);
	}
	pv_profile_free(text_p);
	pv_profile_free(kall);
	pv_profile_free(vm);
	pv_profile_free(mv);
	pv_profile_free(ot);
	run("rm -rf '%s'", dir);
}

/* A --vmlinux that is not there is a usage error naming it (perf's "Invalid file"). */
T_TEST(perf_data_vmlinux_missing)
{
	struct pv_import_opts o = {0};
	struct pv_error err;
	T_EQ_INT(pv_import_set_option(&o, "vmlinux", "/nonexistent/vmlinux", &err), PV_EINVAL);
	T_EQ_STR(err.msg, "--vmlinux /nonexistent/vmlinux: No such file or directory");
	T_TRUE(o.vmlinux == NULL);
	T_EQ_INT(pv_import_set_option(&o, "vmlinux", T_DATA "/perf-data/prog", &err), 0);
	T_EQ_STR(o.vmlinux, T_DATA "/perf-data/prog");
}

/* ---------------------------------------------------------------- JIT maps */

/*
 * tests/data/perf-data/jit.c built now and recorded with perf record -g: its JIT frames (a copy
 * of spin() in an anonymous executable mapping, /tmp/perf-PID.map naming it "jit_spin") are
 * named from the map in the perf.data import as perf script --ns names them, sample by sample
 * (every frame's name and module, "[perf-PID.map]").
 */
T_TEST(perf_data_jit_map_named)
{
#if !defined(__x86_64__) && !defined(__aarch64__)
	printf("# SKIP perf_data_jit_map_named: x86_64 and aarch64 only\n");
#else
	char dir[64];
	if (!temp_dir(dir, "jitrec"))
		return;
	if (run("perf record -q -e cpu-clock -o %s/probe.data -- true >/dev/null 2>&1", dir)) {
		skip_unpermitted(dir, "perf_data_jit_map_named");
		return;
	}
	int rc = run("cd %s && gcc -O1 -fno-omit-frame-pointer -fno-reorder-functions -o jit "
		     "%s/perf-data/jit.c && HOME=%s perf record -q -e cpu-clock -g -o jit.data -- "
		     "./jit 0.3 > jit.out 2>/dev/null",
		     dir, T_DATA, dir);
	T_EQ_INT(rc, 0);
	char path[128], map[64] = "";
	snprintf(path, sizeof(path), "%s/jit.out", dir);
	size_t len;
	char *out = t_read_file(path, &len);
	int pid = 0;
	if (out && sscanf(out, "%d", &pid) == 1 && pid > 0)
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", pid);
	free(out);
	T_TRUE(map[0] != 0);
	if (!rc && map[0]) {
		T_EQ_INT(run("cd %s && HOME=%s perf script --ns -i jit.data > jit.txt 2>/dev/null",
			     dir, dir),
			 0);
		snprintf(path, sizeof(path), "%s/jit.txt", dir);
		struct pv_profile *text = t_load_as(path, "perf-script");
		snprintf(path, sizeof(path), "%s/jit.data", dir);
		struct pv_profile *nat = t_load_as(path, "perf-data");
		if (text && nat) {
			compare_samples(text, nat, false);
			char want[96];
			snprintf(want, sizeof(want), "jit_spin [perf-%d.map]; ", pid);
			static char x[65536];
			uint32_t jit = 0;
			for (uint32_t i = 0; i < nat->samples.len; i++) {
				stack_text(nat, nat->samples.stack[i], false, x, sizeof(x));
				jit += strncmp(x, want, strlen(want)) == 0;
			}
			T_TRUE(jit >= 50);
			printf("# JIT: %u of %u samples in jit_spin, named from %s as perf script "
			       "names them\n",
			       jit, nat->samples.len, map);
		}
		pv_profile_free(text);
		pv_profile_free(nat);
	}
	if (map[0])
		remove(map);
	run("rm -rf '%s'", dir);
#endif
}
