#include "unit_cmdline.h"

#include <errno.h>
#include <string.h>

#include "unitfiles.h"

#define UNIT_MAX (1u << 20)

/* The last ExecStart= of one file, continuation lines joined; NULL when none.
 * An empty ExecStart= (a drop-in's reset) is "" . */
static char *last_exec_start(const char *buf)
{
	char *last = NULL;
	const char *p = buf;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *s = p;
		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		if (n >= 10 && !memcmp(s, "ExecStart=", 10)) {
			struct strv parts = {0};
			const char *v = s + 10;
			size_t vn = n - 10;
			for (;;) {
				bool cont = vn && v[vn - 1] == '\\';
				_cleanup_free_ char *piece = xstrndup(v, cont ? vn - 1 : vn);
				strv_add(&parts, piece);
				if (!cont || !nl)
					break;
				p = nl + 1;
				nl = strchr(p, '\n');
				v = p;
				vn = nl ? (size_t)(nl - p) : strlen(p);
			}
			free(last);
			last = strv_join(&parts, " ");
			strv_clear(&parts);
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return last;
}

/* systemd's word splitting, enough for ExecStart arguments: white space
 * separates, single and double quotes group. */
static void split_words(const char *s, struct strv *ret)
{
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		size_t cap = strlen(s) + 1, n = 0;
		char *w = xmalloc(cap);
		char q = 0;
		for (; *s && (q || (*s != ' ' && *s != '\t')); s++) {
			if (!q && (*s == '\'' || *s == '"'))
				q = *s;
			else if (q && *s == q)
				q = 0;
			else
				w[n++] = *s;
		}
		w[n] = '\0';
		strv_add(ret, w);
		free(w);
	}
}

int unit_cmdline_flag(const struct hostroot *hr, const char *unit, const char *flag,
		      char **ret_value, char **ret_where)
{
	_cleanup_free_ char *path = unitfiles_find(hr, unit);
	if (!path)
		return -ENOENT;
	struct strv files = {0};
	strv_add(&files, path);
	unitfiles_dropins(hr, unit, 64, &files);
	_cleanup_free_ char *exec = NULL, *where = NULL;
	for (size_t i = 0; i < files.n; i++) {
		_cleanup_free_ char *buf = NULL;
		int r = hostroot_read(hr, files.items[i], UNIT_MAX, &buf, NULL);
		if (r < 0) {
			if (i == 0) {
				strv_clear(&files);
				return r;
			}
			continue;
		}
		char *e = last_exec_start(buf);
		if (e) {
			free(exec);
			exec = e;
			free(where);
			where = xstrdup(files.items[i]);
		}
	}
	strv_clear(&files);
	if (!exec)
		return 0;
	struct strv words = {0};
	split_words(exec, &words);
	_cleanup_free_ char *bare = xasprintf("--%s", flag), *eq = xasprintf("--%s=", flag);
	char *value = NULL;
	for (size_t i = 0; i < words.n; i++) {
		if (streq(words.items[i], bare)) {
			free(value);
			value = xstrdup("true");
		} else if (startswith(words.items[i], eq)) {
			free(value);
			value = xstrdup(words.items[i] + strlen(eq));
		}
	}
	strv_clear(&words);
	if (!value)
		return 0;
	*ret_value = value;
	*ret_where = where;
	where = NULL;
	return 1;
}
