#include "facts.h"

#include "checks.h"
#include "meminfo.h"
#include "modules.h"
#include "osrelease_kv.h"

const char *const facts_kvm_module_patterns[] = {"kvm", "kvm_*", NULL};

void facts_set_cpu(struct agent_ctx *ctx, const struct cpuinfo *ci)
{
	struct kv_list *m = kv_add_map(&ctx->report->facts, "cpu");
	cpuinfo_to_kv(ci, m);
}

void facts_set_clock(struct agent_ctx *ctx, const struct timesync_clock *c)
{
	timesync_clock_to_kv(c, kv_add_map(&ctx->report->facts, "clock"));
}

void facts_set_kvm_modules(struct agent_ctx *ctx, const struct strv *mods)
{
	struct value_list *l = kv_add_list(&ctx->report->facts, "kvm_modules");
	for (size_t i = 0; i < mods->n; i++)
		vlist_add_str(l, mods->items[i]);
}

void facts_set_cpu_cores(struct agent_ctx *ctx, int64_t cores)
{
	kv_add_int(&ctx->report->facts, "cpu_cores", cores);
}

void facts_set_memory(struct agent_ctx *ctx, int64_t bytes)
{
	kv_add_int(&ctx->report->facts, "memory_bytes", bytes);
}

static bool have(struct agent_ctx *ctx, const char *key)
{
	return kv_get(&ctx->report->facts, key) != NULL;
}

static void add_os_release(struct agent_ctx *ctx)
{
	static const char *const keys[] = {"ID", "VERSION_ID", "PRETTY_NAME"};
	struct kv_list all = {0};
	if (osrelease_kv_read(&ctx->root, &all) > 0) {
		struct kv_list m = {0};
		for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
			const char *v = kv_get_str(&all, keys[i]);
			if (v)
				kv_add_str(&m, keys[i], v);
		}
		if (m.n > 0) {
			struct value v = {.type = VALUE_MAP, .map = m};
			kv_add_value(&ctx->report->facts, "os_release", &v);
		}
	}
	kv_list_clear(&all);
}

static void add_string_fact(struct agent_ctx *ctx, const char *key, const char *known,
			    const char *path)
{
	if (known && *known && !streq(known, "unknown")) {
		kv_add_str(&ctx->report->facts, key, known);
		return;
	}
	_cleanup_free_ char *v = NULL;
	if (hostroot_read_line(&ctx->root, path, &v) == 0 && *v)
		kv_add_str(&ctx->report->facts, key, v);
}

void facts_collect(struct agent_ctx *ctx)
{
	struct node_report *r = ctx->report;
	if (!have(ctx, "cpu")) {
		struct cpuinfo ci;
		if (cpuinfo_read(&ctx->root, &ci) == 0)
			facts_set_cpu(ctx, &ci);
		cpuinfo_clear(&ci);
	}
	if (!have(ctx, "kernel_release")) {
		_cleanup_free_ char *rel = NULL;
		if (modules_kernel_release(&ctx->root, &rel) == 0)
			kv_add_str(&r->facts, "kernel_release", rel);
	}
	if (!have(ctx, "os_release"))
		add_os_release(ctx);
	if (!have(ctx, "hostname")) {
		/* Not proc/sys/kernel/hostname directly: in a pod it is the pod's name. */
		_cleanup_free_ char *h = r->hostname ? NULL : agent_hostname(&ctx->root);
		const char *v = r->hostname ? r->hostname : h;
		if (v && *v && !streq(v, "unknown"))
			kv_add_str(&r->facts, "hostname", v);
	}
	if (!have(ctx, "boot_id"))
		add_string_fact(ctx, "boot_id", r->boot_id, "proc/sys/kernel/random/boot_id");
	if (!have(ctx, "cpu_cores")) {
		int64_t n;
		const char *src;
		if (cpuinfo_count_cpus(&ctx->root, &n, &src) == 0)
			facts_set_cpu_cores(ctx, n);
	}
	if (!have(ctx, "memory_bytes")) {
		int64_t b;
		if (meminfo_total(&ctx->root, &b) == 0)
			facts_set_memory(ctx, b);
	}
	if (!have(ctx, "kvm_modules")) {
		struct strv mods = {0};
		if (modules_find(&ctx->root, facts_kvm_module_patterns, &mods) > 0)
			facts_set_kvm_modules(ctx, &mods);
		strv_clear(&mods);
	}
	if (!have(ctx, "clock")) {
		struct timesync_clock c;
		if (timesync_read_clock(&c) == 0)
			facts_set_clock(ctx, &c);
	}
}
