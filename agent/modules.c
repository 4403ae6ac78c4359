#include "modules.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

/* Kernel module names are at most MODULE_NAME_LEN - 1 = 55 bytes. */
#define NAME_MAX_LEN 64
/* A gzip bomb in proc/config.gz (it cannot be, but the host root may be anything). */
#define KCONFIG_MAX_BYTES (16u << 20)

/* Reads text files line by line with a fixed buffer: modules.dep of a distribution
 * kernel is about 1 MiB and must not be held in memory (the agent stays small).
 * A line longer than the buffer is cut; the rest of it is skipped. */
struct lines {
	FILE *f;
	gzFile gz;
	uint64_t total, max;
	int err;
	char buf[4096];
};

static int lines_open(struct lines *l, const struct hostroot *root, const char *path, bool gz)
{
	*l = (struct lines){.max = KCONFIG_MAX_BYTES};
	int fd = hostroot_open_file(root, path);
	if (fd < 0)
		return fd;
	if (gz) {
		l->gz = gzdopen(fd, "rb");
		if (!l->gz) {
			close(fd);
			return -ENOMEM;
		}
		return 0;
	}
	l->f = fdopen(fd, "re");
	if (!l->f) {
		int e = -errno;
		close(fd);
		return e;
	}
	return 0;
}

static void lines_close(struct lines *l)
{
	if (l->f)
		fclose(l->f);
	if (l->gz)
		gzclose(l->gz);
	l->f = NULL;
	l->gz = NULL;
}

static bool read_chunk(struct lines *l, char *buf, int size)
{
	if (l->gz) {
		if (gzgets(l->gz, buf, size))
			return true;
		int e;
		gzerror(l->gz, &e);
		/* Z_BUF_ERROR: the stream ended in the middle (a truncated file). */
		if (e != Z_OK)
			l->err = -EBADMSG;
		return false;
	}
	if (fgets(buf, size, l->f))
		return true;
	if (ferror(l->f))
		l->err = errno ? -errno : -EIO;
	return false;
}

/* Next line without its newline, or NULL at the end (l->err tells an error from EOF). */
static const char *lines_next(struct lines *l, size_t *ret_len)
{
	if (!read_chunk(l, l->buf, sizeof(l->buf)))
		return NULL;
	size_t n = strlen(l->buf);
	l->total += n;
	bool complete = n > 0 && l->buf[n - 1] == '\n';
	if (complete)
		l->buf[--n] = '\0';
	while (!complete) {
		char skip[512];
		if (!read_chunk(l, skip, sizeof(skip)))
			break;
		size_t k = strlen(skip);
		l->total += k;
		complete = k > 0 && skip[k - 1] == '\n';
		if (l->total > l->max)
			break;
	}
	if (l->total > l->max) {
		l->err = -EFBIG;
		return NULL;
	}
	*ret_len = n;
	return l->buf;
}

static void normalise(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* A module name or a release becomes a path component: nothing that walks. */
static bool valid_component(const char *s)
{
	return s && *s && !strchr(s, '/') && !streq(s, ".") && !streq(s, "..") && strlen(s) < 256;
}

static bool copy_name(const char *s, size_t n, char *buf, size_t bufsz)
{
	if (n == 0 || n >= bufsz || n >= NAME_MAX_LEN)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (memchr(buf, '\0', n))
		return false;
	normalise(buf);
	return true;
}

bool modules_parse_proc_line(const char *line, size_t len, char *buf, size_t bufsz)
{
	/* "name size refcount deps state offset"; the state is absent on very old kernels. */
	const char *end = line + len, *p = line;
	const char *fields[6];
	size_t flen[6], nf = 0;
	while (p < end && nf < ELEMENTSOF(fields)) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		const char *s = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		fields[nf] = s;
		flen[nf++] = (size_t)(p - s);
	}
	if (nf < 3)
		return false;
	if (nf >= 5 && flen[4] == strlen("Unloading") && !memcmp(fields[4], "Unloading", flen[4]))
		return false;
	return copy_name(fields[0], flen[0], buf, bufsz);
}

bool modules_parse_path_line(const char *line, size_t len, char *buf, size_t bufsz)
{
	static const char *const suffixes[] = {".ko", ".ko.xz", ".ko.zst", ".ko.gz"};
	const char *colon = memchr(line, ':', len);
	size_t n = colon ? (size_t)(colon - line) : len;
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
		n--;
	const char *base = line;
	for (size_t i = 0; i < n; i++)
		if (line[i] == '/')
			base = line + i + 1;
	size_t bn = n - (size_t)(base - line);
	for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
		size_t sl = strlen(suffixes[i]);
		if (bn > sl && !memcmp(base + bn - sl, suffixes[i], sl))
			return copy_name(base, bn - sl, buf, bufsz);
	}
	return false;
}

/* Calls match(name, data) for each module of proc/modules; stops when it returns true.
 * Returns 1 if stopped, 0 at the end, -errno if the file cannot be read. */
static int scan_proc_modules(const struct hostroot *root, bool (*match)(const char *, void *),
			     void *data)
{
	struct lines l;
	int r = lines_open(&l, root, "proc/modules", false);
	if (r < 0)
		return r;
	const char *line;
	size_t len;
	int found = 0;
	while (!found && (line = lines_next(&l, &len))) {
		char name[NAME_MAX_LEN];
		if (modules_parse_proc_line(line, len, name, sizeof(name)) && match(name, data))
			found = 1;
	}
	r = found ? 1 : l.err;
	lines_close(&l);
	return r;
}

static bool match_exact(const char *name, void *data)
{
	return streq(name, data);
}

int modules_loaded(const struct hostroot *root, const char *name)
{
	if (!valid_component(name) || strlen(name) >= NAME_MAX_LEN)
		return -EINVAL;
	char want[NAME_MAX_LEN];
	snprintf(want, sizeof(want), "%s", name);
	normalise(want);

	int rp = scan_proc_modules(root, match_exact, want);
	if (rp > 0)
		return 1;
	_cleanup_free_ char *path = xasprintf("sys/module/%s", want);
	struct stat st;
	int rs = hostroot_stat(root, path, &st);
	if (rs == 0 && S_ISDIR(st.st_mode))
		return 1;
	if (rp == 0)
		return 0;
	/* proc/modules unreadable: sys/module alone decides, if it is there at all. */
	if (rs == -ENOENT && hostroot_exists(root, "sys/module"))
		return 0;
	return rs < 0 && rs != -ENOENT ? rs : rp;
}

static bool matches_any(const char *name, const char *const *patterns)
{
	for (; *patterns; patterns++) {
		char p[NAME_MAX_LEN * 2];
		snprintf(p, sizeof(p), "%s", *patterns);
		normalise(p);
		if (fnmatch(p, name, 0) == 0)
			return true;
	}
	return false;
}

struct find_data {
	const char *const *patterns;
	struct strv *found;
};

static bool collect(const char *name, void *data)
{
	struct find_data *fd = data;
	if (matches_any(name, fd->patterns) && !strv_contains(fd->found, name))
		strv_add(fd->found, name);
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int modules_find(const struct hostroot *root, const char *const *patterns, struct strv *ret)
{
	struct strv found = {0};
	struct find_data fd = {patterns, &found};
	int sources = 0;
	int rp = scan_proc_modules(root, collect, &fd);
	if (rp >= 0)
		sources |= MODULES_SRC_PROC;

	int rs = 0;
	DIR *d = hostroot_opendir(root, "sys/module");
	if (d) {
		struct dirent *de;
		sources |= MODULES_SRC_SYS;
		while ((de = readdir(d))) {
			char name[NAME_MAX_LEN];
			if (de->d_name[0] == '.' ||
			    !copy_name(de->d_name, strlen(de->d_name), name, sizeof(name)))
				continue;
			collect(name, &fd);
		}
		closedir(d);
	} else {
		rs = -errno;
	}
	if (!sources) {
		strv_clear(&found);
		return rp != -ENOENT ? rp : rs;
	}
	if (found.n > 1)
		qsort(found.items, found.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < found.n; i++)
		strv_add(ret, found.items[i]);
	strv_clear(&found);
	return sources;
}

int modules_dir(const struct hostroot *root, const char *release, char **ret_path)
{
	if (!valid_component(release))
		return -EINVAL;
	static const char *const bases[] = {"lib/modules", "usr/lib/modules"};
	for (size_t i = 0; i < ELEMENTSOF(bases); i++) {
		char *p = xasprintf("%s/%s", bases[i], release);
		struct stat st;
		if (hostroot_stat(root, p, &st) == 0 && S_ISDIR(st.st_mode)) {
			*ret_path = p;
			return 0;
		}
		free(p);
	}
	return -ENOENT;
}

/* Look for name in a modules.builtin / modules.dep style list under the module dirs.
 * Both lib/ and usr/lib/ are tried: on a half-merged /usr either may hold it. */
static int list_has(const struct hostroot *root, const char *release, const char *file,
		    const char *name)
{
	if (!valid_component(release) || !valid_component(name) || strlen(name) >= NAME_MAX_LEN)
		return -EINVAL;
	char want[NAME_MAX_LEN];
	snprintf(want, sizeof(want), "%s", name);
	normalise(want);
	static const char *const bases[] = {"lib/modules", "usr/lib/modules"};
	int result = -ENOENT;
	for (size_t i = 0; i < ELEMENTSOF(bases); i++) {
		_cleanup_free_ char *path = xasprintf("%s/%s/%s", bases[i], release, file);
		struct lines l;
		int r = lines_open(&l, root, path, false);
		if (r < 0) {
			if (r != -ENOENT && result == -ENOENT)
				result = r;
			continue;
		}
		const char *line;
		size_t len;
		bool found = false;
		while (!found && (line = lines_next(&l, &len))) {
			char got[NAME_MAX_LEN];
			found = modules_parse_path_line(line, len, got, sizeof(got)) &&
				streq(got, want);
		}
		r = l.err;
		lines_close(&l);
		if (found)
			return 1;
		if (r < 0) {
			result = r;
			continue;
		}
		result = 0;
	}
	return result;
}

int modules_builtin(const struct hostroot *root, const char *release, const char *name)
{
	return list_has(root, release, "modules.builtin", name);
}

int modules_loadable(const struct hostroot *root, const char *release, const char *name)
{
	return list_has(root, release, "modules.dep", name);
}

int modules_kernel_release(const struct hostroot *root, char **ret)
{
	char *rel;
	int r = hostroot_read_line(root, "proc/sys/kernel/osrelease", &rel);
	if (r < 0)
		return r;
	if (!valid_component(rel)) {
		free(rel);
		return -EBADMSG;
	}
	*ret = rel;
	return 0;
}

/* proc/config.gz describes the running kernel only. */
static bool is_running_release(const struct hostroot *root, const char *release)
{
	_cleanup_free_ char *running = NULL;
	return modules_kernel_release(root, &running) == 0 && streq(running, release);
}

int kconfig_source(const struct hostroot *root, const char *release, char **ret_path)
{
	if (!valid_component(release))
		return -EINVAL;
	char *candidates[] = {
	    xasprintf("boot/config-%s", release),
	    xasprintf("usr/lib/modules/%s/config", release),
	    xasprintf("lib/modules/%s/config", release),
	};
	int r = -ENOENT;
	for (size_t i = 0; i < ELEMENTSOF(candidates); i++) {
		struct stat st;
		if (r < 0 && hostroot_stat(root, candidates[i], &st) == 0 && S_ISREG(st.st_mode)) {
			*ret_path = candidates[i];
			candidates[i] = NULL;
			r = 0;
		}
		free(candidates[i]);
	}
	if (r == 0)
		return 0;
	if (hostroot_exists(root, "proc/config.gz") && is_running_release(root, release)) {
		*ret_path = xstrdup("proc/config.gz");
		return 0;
	}
	return -ENOENT;
}

/* One line of a kernel config: "CONFIG_X=value" or "# CONFIG_X is not set".
 * Returns 1 with the value, 0 for "is not set", -ENOENT for another option. */
static int kconfig_line(const char *line, size_t len, const char *option, size_t olen,
			char **ret_value)
{
	if (len > olen && !memcmp(line, option, olen) && line[olen] == '=') {
		const char *v = line + olen + 1;
		size_t vn = len - olen - 1;
		if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') {
			v++;
			vn -= 2;
		}
		*ret_value = xstrndup(v, vn);
		return 1;
	}
	if (len == olen + 13 && !memcmp(line, "# ", 2) && !memcmp(line + 2, option, olen) &&
	    !memcmp(line + 2 + olen, " is not set", 11))
		return 0;
	return -ENOENT;
}

/*
 * Whole-buffer inflate with libdeflate, not zlib: about four times faster on a
 * kernel config (100 KB from a 24 KB /proc/config.gz: 0.3 ms with zlib, 0.07 ms
 * here, CRC-32 and length checked in both), and this inflate is on the path of
 * every check run of a host without a plain /boot/config (docs/benchmarks.md).
 * zlib stays for what libdeflate does not do: reading a .gz line by line
 * (struct lines above).
 *
 * libdeflate wants the output's size up front: the member's ISIZE trailer says
 * it when the stream ends the input; otherwise, or when it lies, the buffer
 * doubles up to max.
 */
int modules_gunzip(const char *in, size_t len, size_t max, char **ret, size_t *ret_len,
		   size_t *ret_rest)
{
	if (len < 18) /* a gzip member's header and trailer */
		return -EINVAL;
	const unsigned char *t = (const unsigned char *)in + len - 4;
	size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
	size_t cap = isize > 0 && isize <= max ? isize : (len * 4 < max ? len * 4 : max);
	if (cap < 4096)
		cap = 4096 < max ? 4096 : max;
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	if (!d)
		return -ENOMEM;
	char *out = NULL;
	size_t n = 0, used = 0;
	enum libdeflate_result r;
	for (;;) {
		out = xrealloc(out, cap + 1);
		r = libdeflate_gzip_decompress_ex(d, in, len, out, cap, &used, &n);
		if (r != LIBDEFLATE_INSUFFICIENT_SPACE || cap >= max)
			break;
		cap = cap > max / 2 ? max : cap * 2;
	}
	libdeflate_free_decompressor(d);
	if (r != LIBDEFLATE_SUCCESS) {
		free(out);
		/* Past max, but its trailer says it fits: not a whole stream. */
		return r == LIBDEFLATE_INSUFFICIENT_SPACE && isize > max ? -EFBIG : -EINVAL;
	}
	out[n] = '\0';
	*ret = out;
	*ret_len = n;
	if (ret_rest)
		*ret_rest = len - used;
	return 0;
}

void kconfig_cache_clear(struct kconfig_cache *c)
{
	free(c->path);
	free(c->text);
	*c = (struct kconfig_cache){0};
}

int kconfig_cache_text(struct kconfig_cache *c, const struct hostroot *root, const char *path,
		       const char **ret, size_t *ret_len)
{
	if (!c || !endswith(path, ".gz") || (c->path && !streq(c->path, path)))
		return -ENODATA;
	if (!c->path) {
		c->path = xstrdup(path);
		_cleanup_free_ char *gz = NULL;
		size_t len, rest = 0;
		char *text = NULL;
		size_t tlen = 0;
		if (hostroot_read(root, path, KCONFIG_CACHE_MAX, &gz, &len) == 0 &&
		    modules_gunzip(gz, len, KCONFIG_CACHE_MAX, &text, &tlen, &rest) == 0) {
			if (rest == 0 && !memchr(text, '\0', tlen)) {
				c->text = text;
				c->len = tlen;
			} else {
				free(text);
			}
		}
	}
	if (!c->text)
		return -ENODATA;
	*ret = c->text;
	*ret_len = c->len;
	return 0;
}

bool kconfig_next_line(const char *buf, const char *end, const char **pos, const char *name,
		       size_t nlen, const char **ret_line, size_t *ret_len)
{
	const char *q = *pos;
	while (nlen && q < end && (q = memmem(q, (size_t)(end - q), name, nlen))) {
		const char *line = q;
		if (q - buf >= 2 && q[-2] == '#' && q[-1] == ' ')
			line = q - 2;
		if (line > buf && line[-1] != '\n') {
			q++;
			continue;
		}
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		*ret_line = line;
		*ret_len = (size_t)((nl ? nl : end) - line);
		*pos = nl ? nl + 1 : end;
		return true;
	}
	*pos = end;
	return false;
}

/* kconfig_value() over an inflated text, line by line as lines_next() gives
 * them: a line is cut where lines_next()'s buffer ends. Only a line that
 * starts with the option or with "# " and the option can answer
 * (kconfig_line()), so only those are visited, in order. */
static int kconfig_value_text(const char *text, size_t tlen, const char *option, char **ret_value)
{
	size_t olen = strlen(option), len;
	const char *end = text + tlen, *q = text, *line;
	while (kconfig_next_line(text, end, &q, option, olen, &line, &len)) {
		size_t cut = len < sizeof(((struct lines *)0)->buf) - 1
				 ? len
				 : sizeof(((struct lines *)0)->buf) - 1;
		int k = kconfig_line(line, cut, option, olen, ret_value);
		if (k >= 0)
			return k;
	}
	return 0;
}

int kconfig_value_in(struct kconfig_cache *c, const struct hostroot *root, const char *release,
		     const char *option, char **ret_value)
{
	if (!option || !startswith(option, "CONFIG_") || strchr(option, '='))
		return -EINVAL;
	_cleanup_free_ char *path = NULL;
	int r = kconfig_source(root, release, &path);
	if (r < 0)
		return r;
	const char *text;
	size_t tlen;
	if (kconfig_cache_text(c, root, path, &text, &tlen) == 0)
		return kconfig_value_text(text, tlen, option, ret_value);
	struct lines l;
	r = lines_open(&l, root, path, endswith(path, ".gz"));
	if (r < 0)
		return r;
	size_t olen = strlen(option);
	const char *line;
	size_t len;
	int result = 0;
	while ((line = lines_next(&l, &len))) {
		int k = kconfig_line(line, len, option, olen, ret_value);
		if (k >= 0) {
			result = k;
			break;
		}
	}
	if (result == 0 && l.err < 0)
		result = l.err;
	lines_close(&l);
	return result;
}

int kconfig_value(const struct hostroot *root, const char *release, const char *option,
		  char **ret_value)
{
	return kconfig_value_in(NULL, root, release, option, ret_value);
}
