/*
 * host.containerd.device-ownership: containerd's config loading (imports and
 * their merge rules), RKE2's config files (config.yaml.d, "+" appends, YAML
 * 1.1 booleans), and the check's every status on fixture host roots modelled
 * on RKE2 v1.30 (containerd 1.7) and v1.33 (containerd 2.0) nodes.
 */
#include "hostroot_fixture.h"
#include "containerd_config.h"
#include "rke2_config.h"

#define CHECK_ID "host.containerd.device-ownership"

/* ---- scratch host roots ---- */

/* One scratch root a test fills and reads more than once (the loader runs on
 * it again after a file changed): a directory the test owns (scratch.h). */
static char *scratch;

static void scratch_begin(void)
{
	scratch = scratch_dir();
}

static void scratch_end(void)
{
	scratch_remove(scratch);
	scratch = NULL;
}

/* Write path (relative to the scratch root), creating parent directories. */
static void put(const char *path, const char *content)
{
	scratch_write(scratch, path, content);
}

/* ---- containerd's config loader ---- */

static void load_scratch(const char *path, struct containerd_config *c, int expect, char *err,
			 size_t errlen)
{
	struct hostroot root;
	hf_hostroot(&root, scratch);
	int r = containerd_config_load(&root, path, c, err, errlen);
	hostroot_close(&root);
	if (r != expect)
		fail_msg("containerd_config_load(%s) = %d, expected %d: %s", path, r, expect, err);
}

/* The CRI runtime plugin's device_ownership_from_security_context as the scratch
 * host's /etc/containerd/config.toml (with what it imports) sets it: WANT, set
 * in FILE at LINE (0: any line). The config stays loaded in *c. */
static void expect_device_ownership(struct containerd_config *c, bool want, const char *file,
				    int line)
{
	char err[512] = "";
	struct containerd_setting s;
	load_scratch("/etc/containerd/config.toml", c, 0, err, sizeof(err));
	containerd_config_plugin_key(c, containerd_cri_runtime_plugin(c->version),
				     "device_ownership_from_security_context", &s);
	assert_non_null(s.value);
	assert_int_equal(s.value->b, want);
	assert_string_equal(s.file, file);
	if (line)
		assert_int_equal(s.line, line);
}

/* The settings of that key in *c that the merge drops: N of them, the one at IDX
 * being ITEM ("FILE:LINE: TABLE.KEY"). */
static void expect_ignored_device_ownership(struct containerd_config *c, size_t n, size_t idx,
					    const char *item)
{
	struct strv ignored = {0};
	containerd_config_find_ignored(c, containerd_cri_runtime_plugin(c->version),
				       "device_ownership_from_security_context", &ignored, 8);
	assert_int_equal(ignored.n, n);
	assert_string_equal(ignored.items[idx], item);
	strv_clear(&ignored);
}

static void test_v3_imports_merge_per_key(void **state)
{
	struct containerd_config c;
	scratch_begin();
	put("etc/containerd/config.toml",
	    "version = 3\n"
	    "imports = [\"/etc/containerd/conf.d/*.toml\", \"extra.toml\"]\n"
	    "[plugins.'io.containerd.cri.v1.runtime']\n"
	    "  enable_selinux = false\n"
	    "  device_ownership_from_security_context = false\n");
	put("etc/containerd/conf.d/20-devices.toml",
	    "[plugins.'io.containerd.cri.v1.runtime']\n"
	    "  device_ownership_from_security_context = true\n");
	put("etc/containerd/conf.d/10-cdi.toml",
	    "[plugins.\"io.containerd.cri.v1.runtime\"]\n  enable_cdi = true\n");
	put("etc/containerd/conf.d/notes.txt", "not toml at all [[[\n");
	/* A later import that has the section but not the key does not undo it. */
	put("etc/containerd/extra.toml",
	    "imports = [\"/etc/containerd/config.toml\"] # a cycle: loaded once\n"
	    "[plugins.'io.containerd.cri.v1.runtime']\n  enable_unprivileged_ports = true\n");
	expect_device_ownership(&c, true, "/etc/containerd/conf.d/20-devices.toml", 2);
	assert_int_equal(c.version, 3);
	assert_int_equal(c.n, 4);
	assert_string_equal(c.files[1].path, "/etc/containerd/conf.d/10-cdi.toml");
	assert_string_equal(c.files[2].path, "/etc/containerd/conf.d/20-devices.toml");
	assert_string_equal(c.files[3].path, "/etc/containerd/extra.toml");
	containerd_config_clear(&c);
	scratch_end();
}

static void test_v2_imports_replace_sections(void **state)
{
	char err[512] = "";
	struct containerd_config c;
	struct containerd_setting s;
	scratch_begin();
	put("etc/containerd/config.toml", "version = 2\n"
					  "imports = [\"/etc/containerd/conf.d/*.toml\"]\n"
					  "[plugins.\"io.containerd.grpc.v1.cri\"]\n"
					  "  device_ownership_from_security_context = true\n");
	/* containerd 1.x replaces the whole plugin section: the option is gone. */
	put("etc/containerd/conf.d/runtimes.toml",
	    "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.kata]\n"
	    "  runtime_type = \"io.containerd.kata.v2\"\n");
	load_scratch("/etc/containerd/config.toml", &c, 0, err, sizeof(err));
	containerd_config_plugin_key(&c, "io.containerd.grpc.v1.cri",
				     "device_ownership_from_security_context", &s);
	assert_null(s.value);
	assert_null(s.file);
	containerd_config_clear(&c);
	scratch_end();
}

/* containerd 2.x migrates every file older than version 3 before it merges it
 * (LoadConfigWithPlugins; the CRI runtime plugin's configMigration moves its keys
 * from io.containerd.grpc.v1.cri, never over a key the file sets in the new table). */
static void test_v3_migrates_older_imports(void **state)
{
	struct containerd_config c;
	scratch_begin();
	put("etc/containerd/config.toml",
	    "version = 3\n"
	    "imports = [\"/etc/containerd/conf.d/*.toml\"]\n"
	    "[plugins.'io.containerd.grpc.v1.cri']\n"
	    "  device_ownership_from_security_context = true # not read: a v3 file\n"
	    "[plugins.'io.containerd.cri.v1.runtime']\n"
	    "  device_ownership_from_security_context = false\n");
	put("etc/containerd/conf.d/10-v2.toml",
	    "version = 2\n"
	    "[plugins.\"io.containerd.grpc.v1.cri\"]\n"
	    "  device_ownership_from_security_context = true\n");
	expect_device_ownership(&c, true, "/etc/containerd/conf.d/10-v2.toml", 3);
	expect_ignored_device_ownership(&c, 1, 0,
					"/etc/containerd/config.toml:4: "
					"plugins.\"io.containerd.grpc.v1.cri\"."
					"device_ownership_from_security_context");
	containerd_config_clear(&c);

	/* An unversioned file is version 1: "cri" is io.containerd.grpc.v1.cri, and a key
	 * the file sets in the new table wins over the old one. */
	put("etc/containerd/conf.d/20-v1.toml",
	    "[plugins.cri]\n  device_ownership_from_security_context = false\n");
	put("etc/containerd/conf.d/30-both.toml",
	    "version = 2\n"
	    "[plugins.\"io.containerd.cri.v1.runtime\"]\n"
	    "  device_ownership_from_security_context = true\n"
	    "[plugins.\"io.containerd.grpc.v1.cri\"]\n"
	    "  device_ownership_from_security_context = false\n");
	expect_device_ownership(&c, true, "/etc/containerd/conf.d/30-both.toml", 3);
	/* The old table's key in 30-both.toml is dropped by the migration. */
	expect_ignored_device_ownership(&c, 2, 1,
					"/etc/containerd/conf.d/30-both.toml:5: "
					"plugins.\"io.containerd.grpc.v1.cri\"."
					"device_ownership_from_security_context");
	containerd_config_clear(&c);

	/* Without the 30- file, the version 1 drop-in's false is the last word. */
	char full[512];
	snprintf(full, sizeof(full), "%s/etc/containerd/conf.d/30-both.toml", scratch);
	assert_int_equal(unlink(full), 0);
	expect_device_ownership(&c, false, "/etc/containerd/conf.d/20-v1.toml", 0);
	containerd_config_clear(&c);
	scratch_end();
}

static void test_load_errors(void **state)
{
	char err[512] = "";
	struct containerd_config c;
	scratch_begin();
	load_scratch("/etc/containerd/config.toml", &c, -ENOENT, err, sizeof(err));
	put("etc/containerd/config.toml",
	    "version = 2\nimports = [\"/etc/containerd/gone.toml\"]\n");
	load_scratch("/etc/containerd/config.toml", &c, -EINVAL, err, sizeof(err));
	assert_non_null(strstr(err, "/etc/containerd/gone.toml"));
	put("etc/containerd/config.toml",
	    "version = 2\nimports = [\"/etc/containerd/bad.toml\"]\n");
	put("etc/containerd/bad.toml", "[plugins]\n\n[plugins]\n");
	load_scratch("/etc/containerd/config.toml", &c, -EINVAL, err, sizeof(err));
	assert_string_equal(err, "/etc/containerd/bad.toml:3: table \"plugins\" is defined more "
				 "than once");
	put("etc/containerd/config.toml", "version = \"2\"\n");
	load_scratch("/etc/containerd/config.toml", &c, -EINVAL, err, sizeof(err));
	assert_string_equal(err, "/etc/containerd/config.toml:1: \"version\" must be 1, 2 or 3");
	put("etc/containerd/config.toml", "imports = \"/etc/x.toml\"\n");
	load_scratch("/etc/containerd/config.toml", &c, -EINVAL, err, sizeof(err));
	assert_non_null(strstr(err, "must be an array of paths"));
	/* A glob that matches nothing is not an error (as in containerd), but noted. */
	put("etc/containerd/config.toml", "imports = [\"/etc/containerd/none.d/*.toml\"]\n");
	load_scratch("/etc/containerd/config.toml", &c, 0, err, sizeof(err));
	assert_int_equal(c.version, 1);
	assert_int_equal(c.notes.n, 1);
	assert_non_null(strstr(c.notes.items[0], "matches no file"));
	containerd_config_clear(&c);
	scratch_end();
}

static void test_find_key(void **state)
{
	char err[256];
	struct containerd_config c;
	struct strv found = {0};
	const char *text = "version = 3\n"
			   "device_ownership_from_security_context = true\n"
			   "[plugins.'io.containerd.grpc.v1.cri']\n"
			   "  device_ownership_from_security_context = true\n";
	assert_int_equal(containerd_config_parse((const uint8_t *)text, strlen(text), "t.toml", &c,
						 err, sizeof(err)),
			 0);
	containerd_config_find_key(&c, "device_ownership_from_security_context", &found, 8);
	assert_int_equal(found.n, 2);
	assert_string_equal(found.items[0], "t.toml:2: device_ownership_from_security_context");
	assert_string_equal(
	    found.items[1],
	    "t.toml:4: "
	    "plugins.\"io.containerd.grpc.v1.cri\".device_ownership_from_security_context");
	strv_clear(&found);
	containerd_config_clear(&c);
}

/* ---- RKE2's config files ---- */

static void rke2_parse_ok(struct rke2_config *c, const char *text, const char *name)
{
	char err[256];
	if (rke2_config_parse(c, (const uint8_t *)text, strlen(text), name, err, sizeof(err)) < 0)
		fail_msg("unexpected error: %s", err);
}

static void test_rke2_values(void **state)
{
	struct rke2_config c = {0};
	rke2_parse_ok(&c,
		      "write-kubeconfig-mode: \"0644\"\n"
		      "tls-san:\n  - foo.local\n"
		      "node-label:\n  - foo=bar\n  - bar=baz\n"
		      "debug: yes\n"
		      "selinux: On\n"
		      "disable-default-registry-endpoint: 1\n"
		      "protect-kernel-defaults: \"yes\"\n"
		      "kubelet-arg:\n  nested: map\n"
		      "data-dir: /data/rke2\n"
		      "etcd-expose-metrics: ~\n",
		      "/etc/rancher/rke2/config.yaml");
	assert_int_equal(rke2_config_bool(&c, "debug"), 1);
	assert_int_equal(rke2_config_bool(&c, "selinux"), 1);
	assert_int_equal(rke2_config_bool(&c, "disable-default-registry-endpoint"), 1);
	/* yaml.v2 keeps a quoted "yes" a string, and Go's ParseBool refuses it. */
	assert_int_equal(rke2_config_bool(&c, "protect-kernel-defaults"), -EINVAL);
	assert_int_equal(rke2_config_bool(&c, "kubelet-arg"), -EINVAL);
	/* A null value becomes "--etcd-expose-metrics=", which the flag parser refuses. */
	assert_int_equal(rke2_config_bool(&c, "etcd-expose-metrics"), -EINVAL);
	assert_int_equal(rke2_config_bool(&c, "nonroot-devices"), -ENOENT);
	assert_string_equal(rke2_config_string(&c, "write-kubeconfig-mode"), "0644");
	assert_string_equal(rke2_config_string(&c, "data-dir"), "/data/rke2");
	const struct rke2_value *v = rke2_config_get(&c, "node-label");
	assert_true(v->is_list);
	assert_int_equal(v->items.n, 2);
	assert_int_equal(v->line, 4);
	rke2_config_clear(&c);
}

/* The example from RKE2's docs (Multiple Config Files), plus "+" appends. */
static void test_rke2_merge(void **state)
{
	struct rke2_config c = {0};
	rke2_parse_ok(&c, "token: boop\nnode-label:\n  - foo=bar\n  - bar=baz\n", "config.yaml");
	rke2_parse_ok(&c, "write-kubeconfig-mode: 600\n", "config.yaml.d/test1.yaml");
	rke2_parse_ok(&c,
		      "write-kubeconfig-mode: 777\nnode-label:\n  - other=what\n  - foo=three\n",
		      "config.yaml.d/test2.yaml");
	assert_string_equal(rke2_config_string(&c, "write-kubeconfig-mode"), "777");
	const struct rke2_value *v = rke2_config_get(&c, "node-label");
	assert_int_equal(v->items.n, 2);
	assert_string_equal(v->items.items[0], "other=what");
	assert_string_equal(v->file, "config.yaml.d/test2.yaml");
	rke2_parse_ok(&c, "node-label+:\n  - appended=1\n", "config.yaml.d/test3.yaml");
	v = rke2_config_get(&c, "node-label");
	assert_int_equal(v->items.n, 3);
	assert_string_equal(v->items.items[2], "appended=1");

	/* Booleans: "+" makes a list of flag values, and the last one wins. */
	rke2_parse_ok(&c, "nonroot-devices: false\n", "a.yaml");
	assert_int_equal(rke2_config_bool(&c, "nonroot-devices"), 0);
	rke2_parse_ok(&c, "nonroot-devices+: true\n", "b.yaml");
	assert_int_equal(rke2_config_bool(&c, "nonroot-devices"), 1);
	assert_int_equal(rke2_config_get(&c, "nonroot-devices")->items.n, 2);
	rke2_parse_ok(&c, "nonroot-devices+:\n", "c.yaml"); /* a null appends nothing */
	assert_int_equal(rke2_config_bool(&c, "nonroot-devices"), 1);
	rke2_parse_ok(&c, "nonroot-devices: off\n", "d.yaml");
	assert_int_equal(rke2_config_bool(&c, "nonroot-devices"), 0);
	assert_string_equal(rke2_config_get(&c, "nonroot-devices")->file, "d.yaml");
	rke2_config_clear(&c);

	c = (struct rke2_config){0};
	rke2_parse_ok(&c, "nonroot-devices+: true\n", "only-append.yaml");
	assert_int_equal(rke2_config_bool(&c, "nonroot-devices"), 1);
	rke2_parse_ok(&c, "", "empty.yaml");
	rke2_parse_ok(&c, "~\n", "null.yaml");
	rke2_parse_ok(&c, "# comments only\n", "comments.yaml");
	assert_int_equal(rke2_config_bool(&c, "nonroot-devices"), 1);
	rke2_config_clear(&c);
}

static void test_rke2_errors(void **state)
{
	struct rke2_config c = {0};
	char err[256];
	const char *list = "- a\n- b\n";
	assert_int_equal(
	    rke2_config_parse(&c, (const uint8_t *)list, strlen(list), "l.yaml", err, sizeof(err)),
	    -EINVAL);
	assert_string_equal(err, "l.yaml:1: the top level must be a mapping of option names");
	const char *bad = "token: x\nnode-label:\n  - a\n bad: indent\n";
	assert_int_equal(
	    rke2_config_parse(&c, (const uint8_t *)bad, strlen(bad), "b.yaml", err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "b.yaml:4: invalid YAML"));
	const char *tab = "a: 1\n\tb: 2\n";
	assert_int_equal(
	    rke2_config_parse(&c, (const uint8_t *)tab, strlen(tab), "t.yaml", err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "t.yaml:2:"));
	rke2_config_clear(&c);
}

static void test_rke2_load_order(void **state)
{
	struct rke2_config c = {0};
	struct hostroot root;
	char err[256];
	scratch_begin();
	put("etc/rancher/rke2/config.yaml.d/20-b.yml", "nonroot-devices: false\n");
	put("etc/rancher/rke2/config.yaml.d/10-a.yaml", "nonroot-devices: true\n");
	put("etc/rancher/rke2/config.yaml.d/30-c.YAML", "nonroot-devices: true\n");
	put("etc/rancher/rke2/config.yaml.d/40-d.yaml.bak", "nonroot-devices: false\n");
	put("etc/rancher/rke2/config.yaml.d/dir.yaml/x", "ignored: true\n");
	hf_hostroot(&root, scratch);
	/* No config.yaml, only drop-ins: fine. */
	assert_int_equal(
	    rke2_config_load(&c, &root, "/etc/rancher/rke2/config.yaml", err, sizeof(err)), 0);
	assert_int_equal(c.files.n, 3);
	assert_string_equal(c.files.items[0], "/etc/rancher/rke2/config.yaml.d/10-a.yaml");
	assert_string_equal(c.files.items[2], "/etc/rancher/rke2/config.yaml.d/30-c.YAML");
	assert_int_equal(rke2_config_bool(&c, "nonroot-devices"), 1);
	rke2_config_clear(&c);
	/* Nothing at all: no files, no error. */
	assert_int_equal(
	    rke2_config_load(&c, &root, "/etc/rancher/k3s/config.yaml", err, sizeof(err)), 0);
	assert_int_equal(c.files.n, 0);
	rke2_config_clear(&c);
	hostroot_close(&root);
	scratch_end();
}

/* ---- the check on fixture host roots ---- */

struct run {
	struct hostroot_fixture h;
	const struct finding *f;
};

/* The check on the host root NAME (a fixture, or the scratch root's path): one
 * finding, carrying the report's node name; hf_run holds it to the harness's
 * rules (a message, a remediation, evidence when it is not PASS). */
static void run_fixture(struct run *run, const char *name)
{
	hf_open(&run->h, name);
	run->f = hf_run(&run->h, check_containerd_device_ownership, CHECK_ID);
	assert_int_equal(run->h.report.results.n, 1);
}

static void run_clear(struct run *run)
{
	hf_close(&run->h);
}

static void expect(const char *fixture, enum status st, const char *msg_part, const char *rem_part)
{
	struct run run;
	run_fixture(&run, fixture);
	if (run.f->status != st || !strstr(run.f->message, msg_part) ||
	    !strstr(run.f->remediation, rem_part))
		fail_msg("%s: got %s \"%s\" / remediation \"%s\"; expected %s with \"%s\" / \"%s\"",
			 fixture, status_name(run.f->status), run.f->message, run.f->remediation,
			 status_name(st), msg_part, rem_part);
	/* Every decided finding names what it read. */
	if (st != STATUS_UNKNOWN || strstr(fixture, "broken"))
		assert_non_null(kv_get(&run.f->evidence, "runtime"));
	if (st == STATUS_FAIL || st == STATUS_WARN || st == STATUS_UNKNOWN)
		assert_true(strlen(run.f->remediation) > 0);
	run_clear(&run);
}

static void test_check_pass(void **state)
{
	expect("c-rke2-v133-nonroot", STATUS_PASS, "survives restarts: nonroot-devices: true", "");
	expect("c-rke2-v130-dropin", STATUS_PASS, "config.toml:12", "");
	expect("c-rke2-template-true", STATUS_PASS, "the config template sets it", "");
	expect("c-rke2-import-dropin", STATUS_PASS, "config-v3.toml.d/50-cdi.toml:3", "");
	expect("c-rke2-unrendered", STATUS_PASS, "has not been rendered yet", "");
	expect("c-k3s-nonroot", STATUS_PASS, "/var/lib/rancher/k3s/agent/etc/containerd", "");
	expect("c-containerd-v2-true", STATUS_PASS, "/etc/containerd/config.toml:11", "");
	/* A version 2 drop-in under RKE2's version 3 config: containerd 2.x migrates it. */
	expect("c-rke2-dropin-v2-migrated", STATUS_PASS,
	       "config-v3.toml.d/50-cdi.toml:9) and it survives restarts", "");
}

static void test_check_warn(void **state)
{
	expect("c-rke2-hand-edited", STATUS_WARN, "lost at the next restart",
	       "Add `nonroot-devices: true` to /etc/rancher/rke2/config.yaml");
}

/* `curl -sfL https://get.k3s.io | sh -s - server --nonroot-devices` (or
 * INSTALL_K3S_EXEC="--nonroot-devices") writes the flag into k3s.service's
 * ExecStart, one quoted argument per continued line (k3s install.sh
 * create_systemd_service_file), not into config.yaml: it counts the same. It
 * was a false WARN "the setting will be lost at the next restart". */
static void test_check_execstart_flag(void **state)
{
	expect("c-k3s-execstart-nonroot", STATUS_PASS, "survives restarts: nonroot-devices: true",
	       "");
	struct run run;
	run_fixture(&run, "c-k3s-execstart-nonroot");
	assert_non_null(strstr(kv_get_str(&run.f->evidence, "nonroot-devices_source"),
			       "/etc/systemd/system/k3s.service (ExecStart)"));
	run_clear(&run);
}

static void test_check_fail(void **state)
{
	expect("c-rke2-v133-default", STATUS_FAIL,
	       "device_ownership_from_security_context = false (/var/lib/rancher/rke2/agent/etc/"
	       "containerd/config.toml:20): CDI cannot import Block-mode VM disks",
	       "Add `nonroot-devices: true` to /etc/rancher/rke2/config.yaml");
	expect("c-rke2-v133-default", STATUS_FAIL, "/dev/cdi-block-volume: Permission denied",
	       "systemctl restart rke2-server");
	expect("c-rke2-v130-default", STATUS_FAIL, "has no device_ownership_from_security_context",
	       "so this one predates it");
	/* A release that predates the option: the remedy leads with the upgrade,
	 * not with a setting that release would ignore. */
	struct run old;
	run_fixture(&old, "c-rke2-v130-default");
	assert_true(startswith(old.f->remediation, "Upgrade RKE2 first"));
	run_clear(&old);
	expect("c-rke2-not-restarted", STATUS_FAIL, "= false",
	       "containerd still runs with the config rendered before");
	expect("c-rke2-template-stale", STATUS_FAIL, "has no device_ownership",
	       "config.toml.tmpl, which does not set it");
	/* RKE2 v1.30 (containerd 1.7) with a config-v3.toml.tmpl put there for the upgrade:
	 * it reads only config.toml.tmpl, whose effect decides until the upgrade. */
	expect("c-rke2-midupgrade-v3-template", STATUS_FAIL, "has no device_ownership",
	       "config.toml.tmpl, which does not set it");
	expect("c-rke2-invalid-nonroot", STATUS_FAIL, "= false",
	       "/etc/rancher/rke2/config.yaml:7 is not a boolean");
	expect("c-containerd-v3-misplaced", STATUS_FAIL, "which containerd ignores",
	       "[plugins.\"io.containerd.cri.v1.runtime\"]");
	expect("c-containerd-noconfig", STATUS_FAIL, "the default is false", "Create");
}

static void test_check_unknown(void **state)
{
	expect("c-rke2-broken-toml", STATUS_UNKNOWN,
	       "/var/lib/rancher/rke2/agent/etc/containerd/config.toml:35: unterminated string",
	       "valid TOML");
	expect("c-rke2-broken-yaml", STATUS_UNKNOWN,
	       "/etc/rancher/rke2/config.yaml:4: invalid YAML", "/etc/rancher/rke2/config.yaml");
	expect("c-empty", STATUS_UNKNOWN, "no container runtime configuration found",
	       "--host-root");
	/* Its evidence names every path looked at. */
	struct run run;
	run_fixture(&run, "c-empty");
	const struct value_list *looked = kv_get_list(&run.f->evidence, "looked_for");
	assert_non_null(looked);
	bool rke2 = false, conf = false;
	for (size_t i = 0; i < looked->n; i++) {
		rke2 |= strcmp(looked->items[i].s, "/usr/local/bin/rke2") == 0;
		conf |= strcmp(looked->items[i].s, "/etc/containerd/config.toml") == 0;
	}
	assert_true(rke2 && conf);
	run_clear(&run);
}

static void test_check_evidence(void **state)
{
	struct run run;
	run_fixture(&run, "c-rke2-v130-dropin");
	const struct kv_list *ev = &run.f->evidence;
	const struct value_list *files = kv_get_list(ev, "config_files");
	assert_int_equal(files->n, 3);
	assert_string_equal(files->items[2].s, "/etc/rancher/rke2/config.yaml.d/50-harvester.yaml");
	bool b;
	assert_true(kv_get_bool(ev, "nonroot-devices", &b) && b);
	assert_string_equal(kv_get_str(ev, "nonroot-devices_source"),
			    "/etc/rancher/rke2/config.yaml.d/50-harvester.yaml:1");
	int64_t version;
	assert_true(kv_get_int(ev, "containerd_config_version", &version));
	assert_int_equal(version, 2);
	assert_string_equal(kv_get_str(ev, "cri_plugin_table"),
			    "plugins.\"io.containerd.grpc.v1.cri\"");
	assert_string_equal(kv_get_list(ev, "installed_versions")->items[0].s,
			    "v1.30.14-rke2r2-5f0e2a7d9c11");
	run_clear(&run);

	run_fixture(&run, "c-containerd-v3-misplaced");
	assert_int_equal(kv_get_list(&run.f->evidence, "ignored_settings")->n, 1);
	assert_string_equal(kv_get_str(&run.f->evidence, "device_ownership_from_security_context"),
			    "not set");
	run_clear(&run);
}

static void run_scratch(struct run *run)
{
	run_fixture(run, scratch);
}

#define K3S_RENDERED_TRUE                                                                          \
	"version = 3\n[plugins.'io.containerd.cri.v1.runtime']\n"                                  \
	"  device_ownership_from_security_context = true\n"

/* k3s's unit as install.sh writes it, with ExecStart's arguments given. */
static void put_k3s_unit(const char *exec_args, const char *extra)
{
	_cleanup_free_ char *unit =
	    xasprintf("[Service]\nType=notify\nEnvironmentFile=-/etc/default/%%N\n"
		      "EnvironmentFile=-/etc/sysconfig/%%N\n"
		      "EnvironmentFile=-/etc/systemd/system/k3s.service.env\n%s"
		      "ExecStart=/usr/local/bin/k3s \\\n    server %s\n",
		      extra, exec_args);
	put("etc/systemd/system/k3s.service", unit);
	put("usr/local/bin/k3s", "k3s\n");
	put("var/lib/rancher/k3s/agent/etc/containerd/config.toml", K3S_RENDERED_TRUE);
}

/* The command line can come from the unit's environment: $NAME as a word of its
 * own splits into words, ${NAME} substitutes inside one word (systemd.service(5)
 * "Command lines"); the environment file overrides Environment=. A flag that
 * arrives this way counts as on the command line. */
static void test_check_execstart_env(void **state)
{
	struct run run;
	scratch_begin();
	put_k3s_unit("$K3S_ARGS", "");
	put("etc/systemd/system/k3s.service.env",
	    "K3S_TOKEN=\"secret\"\nK3S_ARGS=\"--disable=traefik --nonroot-devices\"\n");
	run_scratch(&run);
	assert_int_equal(run.f->status, STATUS_PASS);
	assert_non_null(strstr(kv_get_str(&run.f->evidence, "nonroot-devices_source"),
			       "via K3S_ARGS from /etc/systemd/system/k3s.service.env"));
	run_clear(&run);
	scratch_end();

	scratch_begin();
	put_k3s_unit("'--nonroot-devices=${NR}'", "Environment=\"NR=false\"\n");
	put("etc/default/k3s", "# from the admin\nNR=true\n");
	run_scratch(&run);
	assert_int_equal(run.f->status, STATUS_PASS);
	assert_non_null(strstr(kv_get_str(&run.f->evidence, "nonroot-devices_source"),
			       "via NR from /etc/default/k3s"));
	run_clear(&run);
	scratch_end();

	/* A variable that is not set substitutes nothing: no flag, the old WARN. */
	scratch_begin();
	put_k3s_unit("$K3S_ARGS", "");
	run_scratch(&run);
	assert_int_equal(run.f->status, STATUS_WARN);
	assert_non_null(strstr(run.f->message, "lost at the next restart"));
	run_clear(&run);
	scratch_end();
}

/* k3s/RKE2 read their config from --config/-c or <PROGRAM>_CONFIG_FILE: the file
 * that holds nonroot-devices then is not /etc/rancher/.../config.yaml. */
static void test_check_config_file_moved(void **state)
{
	struct run run;
	scratch_begin();
	put_k3s_unit("-c /srv/k3s/config.yaml", "");
	put("etc/rancher/k3s/config.yaml", "write-kubeconfig-mode: \"0644\"\n");
	put("srv/k3s/config.yaml", "nonroot-devices: true\n");
	run_scratch(&run);
	assert_int_equal(run.f->status, STATUS_PASS);
	assert_string_equal(kv_get_str(&run.f->evidence, "config_file"), "/srv/k3s/config.yaml");
	assert_non_null(strstr(kv_get_str(&run.f->evidence, "config_file_from"),
			       "--config in the ExecStart of /etc/systemd/system/k3s.service"));
	run_clear(&run);
	scratch_end();

	scratch_begin();
	put("usr/local/lib/systemd/system/rke2-server.service",
	    "[Service]\nEnvironmentFile=-/etc/default/%N\nEnvironmentFile=-/etc/sysconfig/%N\n"
	    "EnvironmentFile=-/usr/local/lib/systemd/system/%N.env\n"
	    "ExecStart=/usr/local/bin/rke2 server\n");
	put("etc/systemd/system/rke2-server.service",
	    "[Service]\nEnvironmentFile=-/etc/default/%N\nEnvironmentFile=-/etc/sysconfig/%N\n"
	    "ExecStart=/usr/local/bin/rke2 server\n");
	put("etc/sysconfig/rke2-server", "RKE2_CONFIG_FILE=/opt/rke2/config.yaml\n");
	put("opt/rke2/config.yaml.d/90-cdi.yaml", "nonroot-devices: true\n");
	put("etc/rancher/rke2/config.yaml", "cni: canal\n");
	put("usr/local/bin/rke2", "rke2\n");
	put("var/lib/rancher/rke2/agent/etc/containerd/config.toml", K3S_RENDERED_TRUE);
	run_scratch(&run);
	assert_int_equal(run.f->status, STATUS_PASS);
	assert_string_equal(kv_get_str(&run.f->evidence, "config_file_from"),
			    "RKE2_CONFIG_FILE from /etc/sysconfig/rke2-server");
	assert_non_null(strstr(kv_get_str(&run.f->evidence, "nonroot-devices_source"),
			       "/opt/rke2/config.yaml.d/90-cdi.yaml"));
	run_clear(&run);
	scratch_end();
}

/* A data-dir other than the default moves everything RKE2 renders. */
static void test_check_data_dir(void **state)
{
	struct run run;
	scratch_begin();
	put("etc/rancher/rke2/config.yaml", "data-dir: /data/rke2\nnonroot-devices: true\n");
	put("data/rke2/agent/etc/containerd/config.toml",
	    "version = 3\n[plugins.'io.containerd.cri.v1.runtime']\n"
	    "  device_ownership_from_security_context = true\n");
	/* A stale file in the default place must not be read. */
	put("var/lib/rancher/rke2/agent/etc/containerd/config.toml", "version = 3\n[[[garbage\n");
	run_scratch(&run);
	const struct finding *f = run.f;
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(kv_get_str(&f->evidence, "data_dir"), "/data/rke2");
	assert_non_null(strstr(f->message, "/data/rke2/agent/etc/containerd/config.toml:3"));
	run_clear(&run);
	scratch_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v3_imports_merge_per_key),
	    cmocka_unit_test(test_v2_imports_replace_sections),
	    cmocka_unit_test(test_v3_migrates_older_imports),
	    cmocka_unit_test(test_load_errors),
	    cmocka_unit_test(test_find_key),
	    cmocka_unit_test(test_rke2_values),
	    cmocka_unit_test(test_rke2_merge),
	    cmocka_unit_test(test_rke2_errors),
	    cmocka_unit_test(test_rke2_load_order),
	    cmocka_unit_test(test_check_pass),
	    cmocka_unit_test(test_check_warn),
	    cmocka_unit_test(test_check_execstart_flag),
	    cmocka_unit_test(test_check_fail),
	    cmocka_unit_test(test_check_unknown),
	    cmocka_unit_test(test_check_evidence),
	    cmocka_unit_test(test_check_data_dir),
	    cmocka_unit_test(test_check_execstart_env),
	    cmocka_unit_test(test_check_config_file_moved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
