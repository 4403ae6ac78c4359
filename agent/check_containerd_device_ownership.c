/*
 * host.containerd.device-ownership (docs/checks/host.containerd.device-ownership.md).
 *
 * CDI's importer runs as a non-root user and writes Block-mode VM disks through
 * /dev/cdi-block-volume. Unless containerd's CRI plugin sets
 * device_ownership_from_security_context = true, that device node stays owned
 * by root and the import dies with "blockdev: cannot open
 * /dev/cdi-block-volume: Permission denied".
 *
 * RKE2 and k3s render containerd's config.toml at every start, from their
 * own config (`nonroot-devices: true` becomes the option) or from a template
 * the admin wrote. So two facts decide: what containerd runs with now (the
 * rendered config.toml and its imports) and what it will run with after the
 * next restart (the RKE2 config, the template, or a drop-in that is never
 * regenerated). A true that the next restart would drop is a WARN; a true that
 * is configured but not yet rendered is a FAIL, because imports fail until then.
 */
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "containerd_config.h"
#include "judge.h"
#include "unit_cmdline.h"
#include "k8s_distro.h"
#include "rke2_config.h"

#define KEY "device_ownership_from_security_context"
/* k3s#11200 added the option (RKE2 inherits it). */
#define NONROOT_SINCE "k3s#11200, released in v1.32.0 and the late-2024 patch releases"

struct distro {
	const char *name;	 /* "RKE2" */
	const char *config;	 /* its config file, unless the unit names another */
	const char *config_env;	 /* the variable that names another (unit_cmdline.h) */
	const char *data_dir;	 /* default data dir */
	const char *unit_server; /* systemd units */
	const char *unit_agent;
	const char *const markers[K8S_DISTRO_MARKERS_MAX]; /* any existing: installed */
};

static const struct distro distros[] = {
    {"RKE2", "/etc/rancher/rke2/config.yaml", "RKE2_CONFIG_FILE", "/var/lib/rancher/rke2",
     "rke2-server", "rke2-agent", RKE2_INSTALL_MARKERS},
    {"k3s", "/etc/rancher/k3s/config.yaml", "K3S_CONFIG_FILE", "/var/lib/rancher/k3s", "k3s",
     "k3s-agent", K3S_INSTALL_MARKERS},
};

#define CONTAINERD_CONFIG "/etc/containerd/config.toml"
static const char *const containerd_bins[] = {"/usr/bin/containerd", "/usr/local/bin/containerd",
					      "/usr/sbin/containerd"};
/* containerd binaries are 30-60 MiB; far beyond that is not containerd. */
#define BINARY_MAX   (512ull << 20)
#define BINARY_CHUNK (1u << 20)

/* How a user template (config-v3.toml.tmpl / config.toml.tmpl) treats the option. */
enum tmpl_effect {
	TMPL_NONE,	/* no template: RKE2's built-in one, which follows nonroot-devices */
	TMPL_FOLLOWS,	/* {{ .NonrootDevices }} or {{ template "base" . }} */
	TMPL_TRUE,	/* written as true */
	TMPL_FALSE,	/* written as false */
	TMPL_UNSET,	/* not mentioned: rendered without it */
	TMPL_TEMPLATED, /* some other template expression: cannot tell */
};

enum rendered {
	R_MISSING, /* no config.toml */
	R_TRUE,
	R_FALSE,
	R_UNSET,
	R_INVALID, /* not a boolean: containerd refuses the CRI config */
};

struct eval {
	struct agent_ctx *ctx;
	struct finding *f;
	struct judge j;		/* what decides f's status, message and remedy (applied once) */
	const struct distro *d; /* NULL: plain containerd */
	struct rke2_config rc;
	int nonroot;	   /* rke2_config_bool() of nonroot-devices */
	char *config_file; /* the distribution's config.yaml, as its unit runs it */
	char *data_dir, *etc_dir;
	char *tmpl_path;
	enum tmpl_effect tmpl;
	char *config_path;
	struct containerd_config cc;
	const char *plugin;
	struct containerd_setting set;
	enum rendered rendered;
	struct strv misplaced;
	int bin_knows;	      /* plain containerd set to true: binary_knows() of its binary,
			       * -ENOENT: none */
	const char *bin_path; /* that binary */
};

static void eval_clear(struct eval *e)
{
	rke2_config_clear(&e->rc);
	containerd_config_clear(&e->cc);
	free(e->config_file);
	free(e->data_dir);
	free(e->etc_dir);
	free(e->tmpl_path);
	free(e->config_path);
	strv_clear(&e->misplaced);
	judge_clear(&e->j);
}

static bool any_exists(const struct hostroot *root, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (paths[i] && hostroot_exists(root, paths[i]))
			return true;
	return false;
}

static const char *unit_names(const struct eval *e)
{
	static char buf[96];
	_cleanup_free_ char *server = xasprintf("%s/server", e->data_dir);
	if (hostroot_exists(&e->ctx->root, server))
		snprintf(buf, sizeof(buf), "`systemctl restart %s`", e->d->unit_server);
	else
		snprintf(buf, sizeof(buf), "`systemctl restart %s` (%s on agent nodes)",
			 e->d->unit_server, e->d->unit_agent);
	return buf;
}

/* ---- the distribution's own config ---- */

static void add_source(struct kv_list *ev, const char *key, const char *file, unsigned line)
{
	if (file)
		kv_add_strf(ev, key, "%s:%u", file, line);
}

/* --nonroot-devices on the unit's command line (unit_cmdline.h) counts like
 * config.yaml, and wins over it (the command line comes last): merged into the
 * config as the last value, with the unit file as its source. */
static void cmdline_nonroot(struct eval *e)
{
	const char *units[] = {e->d->unit_server, e->d->unit_agent};
	for (size_t i = 0; i < ELEMENTSOF(units); i++) {
		_cleanup_free_ char *unit = xasprintf("%s.service", units[i]);
		_cleanup_free_ char *value = NULL, *where = NULL;
		if (unit_cmdline_flag(&e->ctx->root, unit, "nonroot-devices", &value, &where) != 1)
			continue;
		bool plain = *value != '\0';
		for (const char *c = value; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			      (*c >= '0' && *c <= '9')))
				plain = false;
		_cleanup_free_ char *doc =
		    plain ? xasprintf("nonroot-devices: %s\n", value)
			  : xasprintf("nonroot-devices: \"%s\"\n", "(not a boolean)");
		_cleanup_free_ char *name = xasprintf("%s (ExecStart)", where);
		char err[256];
		if (rke2_config_parse(&e->rc, (const uint8_t *)doc, strlen(doc), name, err,
				      sizeof(err)) == 0)
			return;
	}
}

static int load_distro_config(struct eval *e, char *err, size_t errlen)
{
	struct kv_list *ev = &e->f->evidence;
	_cleanup_free_ char *server = xasprintf("%s.service", e->d->unit_server),
			    *agent = xasprintf("%s.service", e->d->unit_agent), *from = NULL;
	const char *units[] = {server, agent};
	e->config_file = unit_config_path(&e->ctx->root, units, ELEMENTSOF(units), e->d->config_env,
					  e->d->config, &from);
	if (from) {
		kv_add_str(ev, "config_file", e->config_file);
		kv_add_str(ev, "config_file_from", from);
	}
	int r = rke2_config_load(&e->rc, &e->ctx->root, e->config_file, err, errlen);
	struct value_list *files = kv_add_list(ev, "config_files");
	for (size_t i = 0; i < e->rc.files.n; i++)
		vlist_add_str(files, e->rc.files.items[i]);
	if (r < 0)
		return r;
	const char *dd = rke2_config_string(&e->rc, "data-dir");
	e->data_dir = xstrdup(dd && *dd ? dd : e->d->data_dir);
	if (dd && *dd)
		kv_add_str(ev, "data_dir", e->data_dir);
	cmdline_nonroot(e);
	e->nonroot = rke2_config_bool(&e->rc, "nonroot-devices");
	const struct rke2_value *v = rke2_config_get(&e->rc, "nonroot-devices");
	if (e->nonroot == -ENOENT)
		kv_add_str(ev, "nonroot-devices", "not set");
	else if (e->nonroot == -EINVAL)
		kv_add_strf(ev, "nonroot-devices", "invalid: \"%s\"",
			    v->items.n ? v->items.items[v->items.n - 1] : "");
	else
		kv_add_bool(ev, "nonroot-devices", e->nonroot == 1);
	if (v)
		add_source(ev, "nonroot-devices_source", v->file, v->line);
	return 0;
}

/* The versions installed under the data dir (data/v1.33.7-rke2r3-…): useful when
 * an old release does not know nonroot-devices. */
static void add_versions(struct eval *e)
{
	_cleanup_free_ char *dir = xasprintf("%s/data", e->data_dir);
	DIR *d = hostroot_opendir(&e->ctx->root, dir);
	if (!d)
		return;
	struct strv names = {0};
	struct dirent *de;
	while ((de = readdir(d)) && names.n < 16)
		if (de->d_name[0] == 'v')
			strv_add(&names, de->d_name);
	closedir(d);
	if (names.n) {
		struct value_list *l = kv_add_list(&e->f->evidence, "installed_versions");
		for (size_t i = 0; i < names.n; i++)
			vlist_add_str(l, names.items[i]);
	}
	strv_clear(&names);
}

/* ---- the template ---- */

static enum tmpl_effect scan_template(const char *text)
{
	regex_t re;
	regmatch_t m[2];
	enum tmpl_effect eff = TMPL_UNSET;
	const char *p = text;
	if (regcomp(&re, KEY "[[:space:]]*=[[:space:]]*(true|false|\\{\\{[^}]*\\}\\})",
		    REG_EXTENDED) != 0)
		return TMPL_TEMPLATED;
	/* The last assignment is the one a (valid) rendered file keeps. */
	while (regexec(&re, p, 2, m, 0) == 0) {
		const char *v = p + m[1].rm_so;
		if (startswith(v, "true"))
			eff = TMPL_TRUE;
		else if (startswith(v, "false"))
			eff = TMPL_FALSE;
		else
			eff = strstr(v, "NonrootDevices") &&
				      (size_t)(strstr(v, "NonrootDevices") - v) < (size_t)m[1].rm_eo
				  ? TMPL_FOLLOWS
				  : TMPL_TEMPLATED;
		p += m[0].rm_eo;
	}
	regfree(&re);
	if (eff == TMPL_UNSET &&
	    regcomp(&re, "\\{\\{-?[[:space:]]*template[[:space:]]+\"base\"", REG_EXTENDED) == 0) {
		/* The built-in base template renders the option from nonroot-devices. */
		if (regexec(&re, text, 0, NULL, 0) == 0)
			eff = TMPL_FOLLOWS;
		regfree(&re);
	}
	return eff;
}

static const char *tmpl_effect_name(enum tmpl_effect t)
{
	switch (t) {
	case TMPL_FOLLOWS:
		return "follows nonroot-devices";
	case TMPL_TRUE:
		return "sets it to true";
	case TMPL_FALSE:
		return "sets it to false";
	case TMPL_UNSET:
		return "does not set it";
	case TMPL_TEMPLATED:
		return "sets it from a template expression";
	default:
		return "none";
	}
}

static int load_template(struct eval *e, char *err, size_t errlen)
{
	/* k3s/RKE2 with containerd 2 look for the v3 template first, then the v2 one,
	 * and render `version = 3` from the v3 one; releases with containerd 1.7 read
	 * only config.toml.tmpl. So a rendered version 2 config next to both templates
	 * comes from an older release (a node prepared for an upgrade): the v2 template
	 * is the one in use until the upgrade. */
	static const char *const names[] = {"config-v3.toml.tmpl", "config.toml.tmpl"};
	size_t first = e->rendered != R_MISSING && e->cc.version == 2 ? 1 : 0;
	e->tmpl = TMPL_NONE;
	for (size_t i = first; i < ELEMENTSOF(names); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", e->etc_dir, names[i]);
		_cleanup_free_ char *text = NULL;
		int r = hostroot_read(&e->ctx->root, p, CONTAINERD_MAX_FILE_SIZE, &text, NULL);
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", p, util_read_strerror(r));
			return r;
		}
		e->tmpl_path = xstrdup(p);
		e->tmpl = scan_template(text);
		kv_add_str(&e->f->evidence, "config_template", p);
		kv_add_str(&e->f->evidence, "config_template_effect", tmpl_effect_name(e->tmpl));
		return 0;
	}
	return 0;
}

/* ---- containerd's config ---- */

static int load_containerd(struct eval *e, char *err, size_t errlen)
{
	struct kv_list *ev = &e->f->evidence;
	kv_add_str(ev, "containerd_config", e->config_path);
	int r = containerd_config_load(&e->ctx->root, e->config_path, &e->cc, err, errlen);
	if (r == -ENOENT) {
		e->rendered = R_MISSING;
		kv_add_str(ev, KEY, "no config file");
		return 0;
	}
	if (r < 0)
		return r;
	e->plugin = containerd_cri_runtime_plugin(e->cc.version);
	kv_add_int(ev, "containerd_config_version", e->cc.version);
	kv_add_strf(ev, "cri_plugin_table", "plugins.\"%s\"", e->plugin);
	if (e->cc.n > 1) {
		struct value_list *l = kv_add_list(ev, "containerd_imports");
		for (size_t i = 1; i < e->cc.n; i++)
			vlist_add_str(l, e->cc.files[i].path);
	}
	if (e->cc.notes.n) {
		struct value_list *l = kv_add_list(ev, "notes");
		for (size_t i = 0; i < e->cc.notes.n; i++)
			vlist_add_str(l, e->cc.notes.items[i]);
	}
	containerd_config_plugin_key(&e->cc, e->plugin, KEY, &e->set);
	const struct toml_value *v = e->set.value;
	if (!v) {
		e->rendered = R_UNSET;
		kv_add_str(ev, KEY, "not set");
	} else if (v->type != TOML_BOOLEAN) {
		e->rendered = R_INVALID;
		kv_add_strf(ev, KEY, "invalid: a %s, not a boolean", toml_type_name(v->type));
	} else {
		e->rendered = v->b ? R_TRUE : R_FALSE;
		kv_add_bool(ev, KEY, v->b);
	}
	add_source(ev, KEY "_source", e->set.file, e->set.line);

	/* The option under another table is a near miss containerd ignores. */
	containerd_config_find_ignored(&e->cc, e->plugin, KEY, &e->misplaced, 16);
	if (e->misplaced.n) {
		struct value_list *l = kv_add_list(ev, "ignored_settings");
		for (size_t i = 0; i < e->misplaced.n; i++)
			vlist_add_str(l, e->misplaced.items[i]);
	}
	return 0;
}

/* ---- the containerd binary ---- */

/*
 * Does the binary at path know the option? containerd 1.x decodes its plugin
 * configs leniently: a key it does not know is dropped without a word, so a
 * config that sets the option proves nothing on a containerd that predates it
 * (Debian 11's containerd 1.4.13). Every containerd that reads the option has
 * its TOML name in the binary (the struct tag). Returns 1, 0, or -errno;
 * -ENOEXEC for a file that is not an ELF binary (a wrapper script, say),
 * whose contents say nothing about the containerd it starts.
 */
static int binary_knows(const struct hostroot *root, const char *path)
{
	_cleanup_close_ int fd = hostroot_open_file(root, path);
	if (fd < 0)
		return fd;
	const size_t keep = sizeof(KEY) - 2;
	_cleanup_free_ char *buf = xmalloc(BINARY_CHUNK + keep);
	size_t have = 0;
	uint64_t total = 0;
	bool elf = false;
	for (;;) {
		ssize_t n = read(fd, buf + have, BINARY_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return elf ? 0 : -ENOEXEC;
		if (total == 0)
			elf = n >= 4 && !memcmp(buf,
						"\x7f"
						"ELF",
						4);
		have += (size_t)n;
		total += (uint64_t)n;
		if (memmem(buf, have, KEY, sizeof(KEY) - 1))
			return 1;
		if (total > BINARY_MAX)
			return -EFBIG;
		size_t tail = have < keep ? have : keep;
		memmove(buf, buf + have - tail, tail);
		have = tail;
	}
}

static void find_binary(struct eval *e)
{
	e->bin_knows = -ENOENT;
	for (size_t i = 0; i < ELEMENTSOF(containerd_bins); i++) {
		struct stat st;
		if (hostroot_stat(&e->ctx->root, containerd_bins[i], &st) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		e->bin_knows = binary_knows(&e->ctx->root, containerd_bins[i]);
		if (e->bin_knows >= 0)
			kv_add_strf(&e->f->evidence, "containerd_binary", "%s: %s " KEY,
				    containerd_bins[i], e->bin_knows ? "knows" : "does not know");
		else if (e->bin_knows == -ENOEXEC)
			kv_add_strf(&e->f->evidence, "containerd_binary",
				    "%s: not an ELF binary, whether it knows " KEY
				    " cannot be told",
				    containerd_bins[i]);
		else
			kv_add_strf(&e->f->evidence, "containerd_binary", "%s: unreadable: %s",
				    containerd_bins[i], strerror(-e->bin_knows));
		e->bin_path = containerd_bins[i];
		return;
	}
}

/* ---- decisions ---- */

static const char *cdi_failure(void)
{
	return "CDI cannot import Block-mode VM disks (\"blockdev: cannot open "
	       "/dev/cdi-block-volume: Permission denied\")";
}

static void misplaced_hint(const struct eval *e, char *buf, size_t len)
{
	buf[0] = '\0';
	if (e->misplaced.n)
		snprintf(buf, len,
			 " (it appears at %s, which containerd ignores for this config version)",
			 e->misplaced.items[0]);
}

/* Is the rendered true going to survive the next restart of RKE2/k3s? */
static bool durable_true(const struct eval *e, const char **why)
{
	if (e->set.file && e->cc.n > 0 && !streq(e->set.file, e->cc.files[0].path)) {
		*why = "it comes from an imported drop-in, which is not regenerated";
		return true;
	}
	switch (e->tmpl) {
	case TMPL_TRUE:
		*why = "the config template sets it";
		return true;
	case TMPL_NONE:
	case TMPL_FOLLOWS:
		*why = "nonroot-devices: true is set";
		return e->nonroot == 1;
	default:
		*why = NULL;
		return false;
	}
}

static void decide_distro_true(struct eval *e)
{
	const char *why;
	const char *cfg = e->config_file;
	if (durable_true(e, &why)) {
		judge_note(
		    &e->j, STATUS_PASS,
		    "containerd's CRI config has %s = true (%s:%u) and it survives restarts: %s",
		    KEY, e->set.file, e->set.line, why);
		return;
	}
	if (e->tmpl == TMPL_FALSE || e->tmpl == TMPL_UNSET || e->tmpl == TMPL_TEMPLATED) {
		judge_note(
		    &e->j, STATUS_WARN,
		    "%s = true in %s, but %s renders that file from %s at every start, which "
		    "%s: the setting will be lost at the next restart",
		    KEY, e->set.file, e->d->name, e->tmpl_path, tmpl_effect_name(e->tmpl));
		judge_remedy(&e->j,
			     "Set `%s = {{ .NonrootDevices }}` under [plugins.\"%s\"] in %s.", KEY,
			     e->plugin, e->tmpl_path);
		judge_remedy(&e->j, "Add `nonroot-devices: true` to %s.", cfg);
		judge_remedy(&e->j, "Restart: %s.", unit_names(e));
		return;
	}
	if (e->nonroot == -EINVAL) {
		judge_note(
		    &e->j, STATUS_WARN,
		    "%s = true in %s, but nonroot-devices in the %s config is not a boolean: "
		    "%s will refuse to start, and the setting is lost when it regenerates the file",
		    KEY, e->set.file, e->d->name, e->d->name);
		judge_remedy(&e->j, "Write `nonroot-devices: true` (unquoted) in %s.", cfg);
		return;
	}
	judge_note(
	    &e->j, STATUS_WARN,
	    "%s = true in %s, but %s regenerates that file at every start and its config does "
	    "not set nonroot-devices: the setting will be lost at the next restart",
	    KEY, e->set.file, e->d->name);
	judge_remedy(&e->j,
		     "Add `nonroot-devices: true` to %s (or a file in %s.d/) so that %s keeps the "
		     "option; it takes effect with the next restart (%s).",
		     cfg, cfg, e->d->name, unit_names(e));
}

static void remedy_not_effective(struct eval *e)
{
	const char *cfg = e->config_file;
	const struct rke2_value *v = rke2_config_get(&e->rc, "nonroot-devices");
	if (e->tmpl == TMPL_FALSE || e->tmpl == TMPL_UNSET || e->tmpl == TMPL_TEMPLATED) {
		judge_remedy(&e->j,
			     "%s renders containerd's config from %s, which %s: set `%s = {{ "
			     ".NonrootDevices }}` (or true) under [plugins.\"%s\"] there.",
			     e->d->name, e->tmpl_path, tmpl_effect_name(e->tmpl), KEY,
			     e->plugin ? e->plugin : containerd_cri_runtime_plugin(3));
		judge_remedy(&e->j, "Add `nonroot-devices: true` to %s.", cfg);
		judge_remedy(&e->j, "Restart: %s.", unit_names(e));
	} else if (e->nonroot == -EINVAL) {
		judge_remedy(
		    &e->j,
		    "nonroot-devices at %s:%u is not a boolean (%s accepts true or false): "
		    "write `nonroot-devices: true`, then %s.",
		    v->file, v->line, e->d->name, unit_names(e));
	} else if (e->nonroot == 1 && e->rendered == R_FALSE) {
		judge_remedy(
		    &e->j,
		    "nonroot-devices: true is set (%s:%u) but containerd still runs with the "
		    "config rendered before: %s to apply it.",
		    v->file, v->line, unit_names(e));
	} else if (e->nonroot == 1) {
		judge_remedy(
		    &e->j,
		    "nonroot-devices: true is set (%s:%u) but %s did not render the option: "
		    "%s; if it is still missing, this release predates nonroot-devices "
		    "(%s): upgrade, or set %s = true under [plugins.\"%s\"] in a config "
		    "template (%s/config%s.toml.tmpl).",
		    v->file, v->line, e->d->name, unit_names(e), NONROOT_SINCE, KEY, e->plugin,
		    e->etc_dir, e->cc.version >= 3 ? "-v3" : "");
	} else if (e->nonroot == 0) {
		judge_remedy(&e->j, "nonroot-devices is false at %s:%u: set it to true, then %s.",
			     v->file, v->line, unit_names(e));
	} else if (e->rendered == R_UNSET) {
		/* Releases that know the option always write it, true or false: a
		 * rendered config without it comes from a release that predates it,
		 * where the setting alone would do nothing. The upgrade leads. */
		judge_remedy(&e->j,
			     "Upgrade %s first: the rendered config does not mention the option at "
			     "all, which releases that know nonroot-devices never do, so this one "
			     "predates it (%s).",
			     e->d->name, NONROOT_SINCE);
		judge_remedy(&e->j,
			     "Then add `nonroot-devices: true` to %s (or a file in %s.d/) and "
			     "restart: %s.",
			     cfg, cfg, unit_names(e));
		judge_remedy(
		    &e->j,
		    "Until the upgrade, set `%s = true` under [plugins.\"%s\"] in a config "
		    "template (%s/config%s.toml.tmpl).",
		    KEY, e->plugin, e->etc_dir, e->cc.version >= 3 ? "-v3" : "");
	} else {
		judge_remedy(&e->j,
			     "Add `nonroot-devices: true` to %s (or a file in %s.d/): %s "
			     "regenerates containerd's config.toml at every start, so editing that "
			     "file does not last.",
			     cfg, cfg, e->d->name);
		judge_remedy(&e->j, "Restart: %s.", unit_names(e));
	}
}

static void decide_distro(struct eval *e)
{
	char hint[256];
	misplaced_hint(e, hint, sizeof(hint));
	if (e->rendered == R_TRUE) {
		decide_distro_true(e);
		return;
	}
	if (e->rendered == R_MISSING) {
		bool will = (e->tmpl == TMPL_TRUE) ||
			    ((e->tmpl == TMPL_NONE || e->tmpl == TMPL_FOLLOWS) && e->nonroot == 1);
		if (will) {
			judge_note(&e->j, STATUS_PASS,
				   "%s is configured to render %s = true (%s), and %s has not been "
				   "rendered yet",
				   e->d->name, KEY,
				   e->tmpl == TMPL_TRUE ? "config template"
							: "nonroot-devices: true",
				   e->config_path);
			return;
		}
		judge_note(&e->j, STATUS_FAIL,
			   "%s will start containerd without %s = true (nonroot-devices %s, no "
			   "config.toml rendered yet): %s",
			   e->d->name, KEY,
			   e->nonroot == -EINVAL ? "invalid"
			   : e->nonroot == 0	 ? "is false"
						 : "not set",
			   cdi_failure());
		remedy_not_effective(e);
		return;
	}
	if (e->rendered == R_FALSE)
		judge_note(&e->j, STATUS_FAIL,
			   "containerd's CRI config has %s = false (%s:%u)%s: %s", KEY, e->set.file,
			   e->set.line, hint, cdi_failure());
	else if (e->rendered == R_INVALID)
		judge_note(&e->j, STATUS_FAIL,
			   "containerd's CRI config has %s set to a non-boolean (%s:%u), which "
			   "containerd rejects%s: %s",
			   KEY, e->set.file, e->set.line, hint, cdi_failure());
	else
		judge_note(&e->j, STATUS_FAIL, "containerd's CRI config has no %s in %s%s: %s", KEY,
			   e->config_path, hint, cdi_failure());
	remedy_not_effective(e);
}

static void decide_plain(struct eval *e)
{
	char hint[256];
	misplaced_hint(e, hint, sizeof(hint));
	const char *plugin = e->plugin;
	switch (e->rendered) {
	case R_TRUE:
		/* Only a true needs the binary read (tens of MB, ~13 ms from the page
		 * cache): whatever it knows, every other setting is a FAIL. */
		find_binary(e);
		if (e->bin_knows == 0) {
			judge_note(&e->j, STATUS_FAIL,
				   "containerd's CRI config has %s = true (%s:%u), but %s predates "
				   "the option and ignores it: %s",
				   KEY, e->set.file, e->set.line, e->bin_path, cdi_failure());
			judge_remedy(&e->j,
				     "Upgrade containerd to a release that has %s (containerd "
				     "1.6 and later; Debian 12's 1.6.20 has it), then `systemctl "
				     "restart containerd`.",
				     KEY);
			return;
		}
		judge_note(&e->j, STATUS_PASS, "containerd's CRI config has %s = true (%s:%u)", KEY,
			   e->set.file, e->set.line);
		return;
	case R_MISSING:
		judge_note(&e->j, STATUS_FAIL,
			   "containerd runs without %s (no %s: the default is false): %s", KEY,
			   CONTAINERD_CONFIG, cdi_failure());
		break;
	case R_FALSE:
		judge_note(&e->j, STATUS_FAIL,
			   "containerd's CRI config has %s = false (%s:%u)%s: %s", KEY, e->set.file,
			   e->set.line, hint, cdi_failure());
		break;
	case R_INVALID:
		judge_note(&e->j, STATUS_FAIL,
			   "containerd's CRI config has %s set to a non-boolean (%s:%u), which "
			   "containerd rejects%s: %s",
			   KEY, e->set.file, e->set.line, hint, cdi_failure());
		break;
	case R_UNSET:
		judge_note(&e->j, STATUS_FAIL, "containerd's CRI config has no %s in %s%s: %s", KEY,
			   e->config_path, hint, cdi_failure());
		break;
	}
	const char *upgrade = "Check `containerd --version` first: containerd before 1.6 "
			      "(Debian 11's 1.4.13) predates the option and ignores it, so "
			      "upgrade such a one. Then: ";
	if (e->plugin)
		judge_remedy(&e->j,
			     "%sSet %s = true under [plugins.\"%s\"] in %s (config version %lld), "
			     "then `systemctl restart containerd`.",
			     upgrade, KEY, plugin, CONTAINERD_CONFIG, (long long)e->cc.version);
	else
		judge_remedy(
		    &e->j,
		    "%sCreate %s with `version = 2` and %s = true under "
		    "[plugins.\"io.containerd.grpc.v1.cri\"] (containerd 1.x), or `version = "
		    "3` and the option under [plugins.\"io.containerd.cri.v1.runtime\"] "
		    "(containerd 2.x), then systemctl restart containerd.",
		    upgrade, CONTAINERD_CONFIG, KEY);
}

static void run_distro(struct eval *e)
{
	char err[512];
	kv_add_str(&e->f->evidence, "runtime", e->d->name);
	if (load_distro_config(e, err, sizeof(err)) < 0) {
		judge_note(&e->j, STATUS_UNKNOWN, "cannot read the %s config: %s", e->d->name, err);
		judge_remedy(&e->j, "Fix %s so that %s can start; this check reads it as %s does.",
			     e->config_file ? e->config_file : e->d->config, e->d->name,
			     e->d->name);
		return;
	}
	e->etc_dir = xasprintf("%s/agent/etc/containerd", e->data_dir);
	e->config_path = xasprintf("%s/config.toml", e->etc_dir);
	add_versions(e);
	if (load_containerd(e, err, sizeof(err)) < 0 || load_template(e, err, sizeof(err)) < 0) {
		judge_note(&e->j, STATUS_UNKNOWN, "cannot read containerd's config: %s", err);
		judge_remedy(&e->j,
			     "Make the file readable by the agent (and valid TOML: containerd "
			     "does not start with a broken config).");
		return;
	}
	decide_distro(e);
}

static void run_plain(struct eval *e)
{
	char err[512];
	kv_add_str(&e->f->evidence, "runtime", "containerd");
	e->config_path = xstrdup(CONTAINERD_CONFIG);
	if (load_containerd(e, err, sizeof(err)) < 0) {
		judge_note(&e->j, STATUS_UNKNOWN, "cannot read containerd's config: %s", err);
		judge_remedy(&e->j,
			     "Make the file readable by the agent (and valid TOML: containerd "
			     "does not start with a broken config).");
		return;
	}
	decide_plain(e);
}

void check_containerd_device_ownership(struct agent_ctx *ctx, const char *id)
{
	struct eval e = {.ctx = ctx,
			 .f = agent_finding(ctx, id),
			 .j = {.status = STATUS_PASS},
			 .nonroot = -ENOENT};
	const struct distro *found = NULL;
	for (size_t i = 0; i < ELEMENTSOF(distros); i++) {
		if (!any_exists(&ctx->root, distros[i].markers, ELEMENTSOF(distros[i].markers)))
			continue;
		if (!found)
			found = &distros[i];
		else
			kv_add_strf(&e.f->evidence, "also_installed", "%s", distros[i].name);
	}
	if (found) {
		e.d = found;
		run_distro(&e);
	} else if (hostroot_exists(&ctx->root, CONTAINERD_CONFIG) ||
		   any_exists(&ctx->root, containerd_bins, ELEMENTSOF(containerd_bins))) {
		run_plain(&e);
	} else {
		/* Not SKIP: a node without a visible runtime config is more likely an agent that
		 * does not see the host's /etc and /var/lib than a node without containerd.
		 * The evidence lists every path looked at, so a person can see what is missing. */
		struct value_list *looked = kv_add_list(&e.f->evidence, "looked_for");
		for (size_t i = 0; i < ELEMENTSOF(distros); i++)
			for (size_t k = 0;
			     k < ELEMENTSOF(distros[i].markers) && distros[i].markers[k]; k++)
				vlist_add_str(looked, distros[i].markers[k]);
		vlist_add_str(looked, CONTAINERD_CONFIG);
		for (size_t i = 0; i < ELEMENTSOF(containerd_bins); i++)
			vlist_add_str(looked, containerd_bins[i]);
		kv_add_str(&e.f->evidence, "host_root", ctx->root.path ? ctx->root.path : "/");
		judge_note(&e.j, STATUS_UNKNOWN,
			   "no container runtime configuration found (looked for RKE2, k3s and "
			   "containerd under %s)",
			   ctx->root.path ? ctx->root.path : "/");
		judge_remedy(&e.j,
			     "Run the agent with the host's root filesystem as --host-root (the "
			     "DaemonSet mounts it at /host) so it can read /etc/rancher and "
			     "/var/lib/rancher.");
	}
	judge_apply(&e.j, e.f, "");
	eval_clear(&e);
}
