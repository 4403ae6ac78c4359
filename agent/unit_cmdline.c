#include "unit_cmdline.h"

#include <errno.h>
#include <string.h>

#include "osrelease_kv.h"
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

static bool name_char(char c, bool first)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (!first && c >= '0' && c <= '9');
}

/* The value of NAME in the environment (the last assignment wins), "" when unset
 * as systemd substitutes it; *ret_i (may be NULL) gets its index or -1. */
static const char *env_lookup(const struct strv *env, const char *name, size_t n, ssize_t *ret_i)
{
	for (size_t i = env->n; i-- > 0;) {
		const char *e = env->items[i];
		if (!strncmp(e, name, n) && e[n] == '=') {
			if (ret_i)
				*ret_i = (ssize_t)i;
			return e + n + 1;
		}
	}
	if (ret_i)
		*ret_i = -1;
	return "";
}

/* systemd's word splitting of a command line (systemd.service(5) "Command
 * lines"), enough for ExecStart arguments: white space separates, single and
 * double quotes group. With env, variables are substituted as systemd does: a
 * word that is exactly $NAME becomes the value split at white space (zero or
 * more words); ${NAME}, anywhere, becomes the value as it is, inside its word.
 * used (may be NULL) collects the indexes of env that were substituted. */
static void split_words_env(const char *s, const struct strv *env, struct strv *used,
			    struct strv *ret)
{
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (env && s[0] == '$' && name_char(s[1], true)) {
			size_t n = 1;
			while (name_char(s[1 + n], false))
				n++;
			if (!s[1 + n] || s[1 + n] == ' ' || s[1 + n] == '\t') {
				ssize_t at;
				const char *v = env_lookup(env, s + 1, n, &at);
				if (used && at >= 0)
					strv_add(used, env->items[at]);
				split_words_env(v, NULL, NULL, ret);
				s += 1 + n;
				continue;
			}
		}
		struct strv parts = {0};
		char q = 0;
		const char *lit = s;
		for (; *s && (q || (*s != ' ' && *s != '\t')); s++) {
			if (env && s[0] == '$' && s[1] == '{') {
				const char *close = strchr(s + 2, '}');
				size_t n = close ? (size_t)(close - s - 2) : 0;
				bool ok = n > 0 && name_char(s[2], true);
				for (size_t k = 1; ok && k < n; k++)
					ok = name_char(s[2 + k], false);
				if (ok) {
					_cleanup_free_ char *before =
					    xstrndup(lit, (size_t)(s - lit));
					strv_add(&parts, before);
					ssize_t at;
					strv_add(&parts, env_lookup(env, s + 2, n, &at));
					if (used && at >= 0)
						strv_add(used, env->items[at]);
					s = close;
					lit = s + 1;
					continue;
				}
			}
			if (!q && (*s == '\'' || *s == '"')) {
				_cleanup_free_ char *before = xstrndup(lit, (size_t)(s - lit));
				strv_add(&parts, before);
				q = *s;
				lit = s + 1;
			} else if (q && *s == q) {
				_cleanup_free_ char *before = xstrndup(lit, (size_t)(s - lit));
				strv_add(&parts, before);
				q = 0;
				lit = s + 1;
			}
		}
		_cleanup_free_ char *rest = xstrndup(lit, (size_t)(s - lit));
		strv_add(&parts, rest);
		_cleanup_free_ char *w = strv_join(&parts, "");
		strv_add(ret, w);
		strv_clear(&parts);
	}
}

/* systemd's specifiers in an EnvironmentFile= path: %n the unit, %N the unit
 * without its suffix, %% a percent. NULL for any other specifier (systemd
 * would resolve it from the running system: not decidable from files). */
static char *env_file_path(const char *unit, const char *v)
{
	struct strv parts = {0};
	const char *lit = v;
	for (const char *p = v; *p; p++) {
		if (*p != '%')
			continue;
		_cleanup_free_ char *before = xstrndup(lit, (size_t)(p - lit));
		strv_add(&parts, before);
		if (p[1] == 'n') {
			strv_add(&parts, unit);
		} else if (p[1] == 'N') {
			const char *dot = strrchr(unit, '.');
			_cleanup_free_ char *base =
			    xstrndup(unit, dot ? (size_t)(dot - unit) : strlen(unit));
			strv_add(&parts, base);
		} else if (p[1] == '%') {
			strv_add(&parts, "%");
		} else {
			strv_clear(&parts);
			return NULL;
		}
		p++;
		lit = p + 1;
	}
	strv_add(&parts, lit);
	char *path = strv_join(&parts, "");
	strv_clear(&parts);
	return path;
}

static void env_add(struct unit_exec *ue, const char *assignment, const char *src)
{
	const char *eq = strchr(assignment, '=');
	if (!eq || eq == assignment)
		return;
	for (const char *c = assignment; c < eq; c++)
		if (!name_char(*c, c == assignment))
			return;
	strv_add(&ue->env, assignment);
	strv_add(&ue->env_src, src);
}

/* Environment= first, then the EnvironmentFile= files in order, which override
 * it (systemd.exec(5)); a "-" path may be missing. */
static void load_env(const struct hostroot *hr, const char *unit, struct unit_exec *ue)
{
	struct strv vals = {0};
	_cleanup_free_ char *file = unitfiles_values(hr, unit, "Environment", 64, &vals);
	for (size_t i = 0; i < vals.n; i++) {
		struct strv words = {0};
		split_words_env(vals.items[i], NULL, NULL, &words);
		_cleanup_free_ char *src = xasprintf("Environment= of %s", unit);
		for (size_t k = 0; k < words.n; k++)
			env_add(ue, words.items[k], src);
		strv_clear(&words);
	}
	strv_clear(&vals);
	free(unitfiles_values(hr, unit, "EnvironmentFile", 16, &vals));
	for (size_t i = 0; i < vals.n; i++) {
		const char *v = vals.items[i];
		if (*v == '-')
			v++;
		_cleanup_free_ char *path = env_file_path(unit, v);
		if (!path || *path != '/')
			continue;
		_cleanup_free_ char *buf = NULL;
		size_t len = 0;
		if (hostroot_read(hr, path, UNIT_MAX, &buf, &len) < 0)
			continue;
		struct kv_list kv = {0};
		osrelease_kv_parse((const uint8_t *)buf, len, &kv);
		for (size_t k = 0; k < kv.n; k++) {
			if (kv.items[k].val.type != VALUE_STR)
				continue;
			_cleanup_free_ char *a =
			    xasprintf("%s=%s", kv.items[k].key, kv.items[k].val.s);
			env_add(ue, a, path);
		}
		kv_list_clear(&kv);
	}
	strv_clear(&vals);
}

int unit_exec_load(const struct hostroot *hr, const char *unit, struct unit_exec *ret)
{
	*ret = (struct unit_exec){0};
	_cleanup_free_ char *path = unitfiles_find(hr, unit);
	if (!path)
		return -ENOENT;
	struct strv files = {0};
	strv_add(&files, path);
	unitfiles_dropins(hr, unit, 64, &files);
	_cleanup_free_ char *exec = NULL;
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
			free(ret->where);
			ret->where = xstrdup(files.items[i]);
		}
	}
	strv_clear(&files);
	load_env(hr, unit, ret);
	if (exec) {
		/* systemd's prefixes (-, @, +, !, :) are not part of the command. */
		const char *c = exec;
		while (*c == ' ' || *c == '\t')
			c++;
		while (*c && strchr("-@+!:", *c))
			c++;
		split_words_env(c, &ret->env, &ret->env_used, &ret->argv);
	}
	return 0;
}

void unit_exec_clear(struct unit_exec *ue)
{
	strv_clear(&ue->argv);
	strv_clear(&ue->env);
	strv_clear(&ue->env_src);
	strv_clear(&ue->env_used);
	free(ue->where);
	*ue = (struct unit_exec){0};
}

const char *unit_exec_env(const struct unit_exec *ue, const char *name, const char **ret_src)
{
	ssize_t at;
	const char *v = env_lookup(&ue->env, name, strlen(name), &at);
	if (at < 0)
		return NULL;
	if (ret_src)
		*ret_src = ue->env_src.items[at];
	return v;
}

/* Where the variables that were substituted into ExecStart came from: "" or
 * " via K3S_ARGS from /etc/default/k3s". */
static char *env_note(const struct unit_exec *ue)
{
	struct strv notes = {0};
	for (size_t i = 0; i < ue->env_used.n; i++) {
		const char *a = ue->env_used.items[i], *eq = strchr(a, '=');
		_cleanup_free_ char *name = xstrndup(a, (size_t)(eq - a));
		const char *src = NULL;
		unit_exec_env(ue, name, &src);
		_cleanup_free_ char *n = xasprintf("%s from %s", name, src ? src : "?");
		if (!strv_contains(&notes, n))
			strv_add(&notes, n);
	}
	_cleanup_free_ char *j = strv_join(&notes, ", ");
	bool any = notes.n > 0;
	strv_clear(&notes);
	return any ? xasprintf(" via %s", j) : xstrdup("");
}

int unit_exec_flag(const struct unit_exec *ue, const char *flag, const char *alias,
		   bool takes_value, char **ret_value)
{
	_cleanup_free_ char *bare = xasprintf("--%s", flag), *eq = xasprintf("--%s=", flag);
	_cleanup_free_ char *abare = alias ? xasprintf("-%s", alias) : NULL;
	_cleanup_free_ char *aeq = alias ? xasprintf("-%s=", alias) : NULL;
	char *value = NULL;
	for (size_t i = 0; i < ue->argv.n; i++) {
		const char *w = ue->argv.items[i];
		const char *v = NULL;
		if (streq(w, bare) || (abare && streq(w, abare)))
			v = !takes_value ? "true" : i + 1 < ue->argv.n ? ue->argv.items[++i] : NULL;
		else if (startswith(w, eq))
			v = w + strlen(eq);
		else if (aeq && startswith(w, aeq))
			v = w + strlen(aeq);
		if (v) {
			free(value);
			value = xstrdup(v);
		}
	}
	if (!value)
		return 0;
	*ret_value = value;
	return 1;
}

int unit_cmdline_flag(const struct hostroot *hr, const char *unit, const char *flag,
		      char **ret_value, char **ret_where)
{
	struct unit_exec ue;
	int r = unit_exec_load(hr, unit, &ue);
	if (r < 0)
		return r;
	char *value = NULL;
	if (!ue.where || unit_exec_flag(&ue, flag, NULL, false, &value) != 1) {
		unit_exec_clear(&ue);
		return 0;
	}
	_cleanup_free_ char *note = env_note(&ue);
	*ret_value = value;
	*ret_where = xasprintf("%s%s", ue.where, note);
	unit_exec_clear(&ue);
	return 1;
}

char *unit_config_path(const struct hostroot *hr, const char *const *units, size_t n,
		       const char *env_name, const char *default_path, char **ret_from)
{
	for (size_t i = 0; i < n; i++) {
		struct unit_exec ue;
		if (unit_exec_load(hr, units[i], &ue) < 0)
			continue;
		char *value = NULL;
		const char *src = NULL, *env = NULL;
		if (ue.where && (unit_exec_flag(&ue, "config", "c", true, &value) == 1) && *value) {
			_cleanup_free_ char *note = env_note(&ue);
			*ret_from = xasprintf("--config in the ExecStart of %s%s", ue.where, note);
			unit_exec_clear(&ue);
			return value;
		}
		free(value);
		if ((env = unit_exec_env(&ue, env_name, &src)) && *env) {
			char *path = xstrdup(env);
			*ret_from = xasprintf("%s from %s", env_name, src);
			unit_exec_clear(&ue);
			return path;
		}
		unit_exec_clear(&ue);
	}
	*ret_from = NULL;
	return xstrdup(default_path);
}
