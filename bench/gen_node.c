/*
 * Generated node reports: the findings and facts hvready-agent sends from a
 * Harvester node, with the CPU flags of real servers, so that the benchmarks
 * measure the same work on every machine (docs/benchmarks.md, "Inputs").
 *
 * The CPU flag lists are copied from /proc/cpuinfo (or lscpu) of bare-metal
 * servers published in these repositories:
 *
 *   Skylake-SP   Intel Xeon Gold 6126, family 6 model 85 stepping 4:
 *                virtines/wasp data_example/README.md
 *                ("Intel-XEON-Gold-6126-chameleon", Linux 5.4)
 *   Ice Lake-SP  Intel Xeon Gold 5318Y, family 6 model 106 stepping 6:
 *                SASUKE40/LLM-starter khoury-device.md (lscpu, Linux 5.14 el9)
 *   Zen 2 Rome   AMD EPYC 7302P, family 23 model 49 stepping 0:
 *                virtines/wasp data_example/README.md
 *                ("AMD-EPYC-7302P-cloudlab-c6525-25g", Linux 5.4)
 *   Zen 4        AMD EPYC 9754 (Bergamo: Genoa's Zen 4 ISA in dense cores),
 *                family 25 model 160 stepping 2: ollama/ollama
 *                discover/cpu_linux_test.go (case "#5554 LXC direct output":
 *                the host's own cpuinfo, no hypervisor flag)
 *
 * Per node, from a hash of (seed, node number) alone, so that node i has the
 * same report in a cluster of 50 and of 5,000: the profile (the older
 * generation on about 60 % of the nodes), a few nodes without a guest-visible
 * feature (Intel: hle and rtm, as with the kernel's tsx=off; AMD: pku and
 * ospke, as booted with nopku), and host-only flags that vary with firmware
 * settings (Intel: the hwp power-management flags; AMD: sme and sev), which
 * cluster.cpu.compat must tell apart from guest-visible ones.
 */
#include "gen_node.h"

#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "kv.h"
#include "log.h"
#include "util.h"

#define GIB (INT64_C(1) << 30)
/* 2026-09-05T10:00:00Z, the time examples/gen_cluster.py's objects are stamped
 * with: the reports were written then, one millisecond apart. */
#define GEN_EPOCH_NS (INT64_C(1788602400) * INT64_C(1000000000))

struct cpu_profile {
	const char *name, *vendor, *model_name, *kvm_module;
	int family, model, stepping;
	int cores;
	const char *flags;
	const char *lack;	 /* guest-visible flags a few nodes go without */
	const char *host_varied; /* host-only flags a firmware setting removes */
};

static const struct cpu_profile profiles[4] = {
    {"skylake-sp", "GenuineIntel", "Intel(R) Xeon(R) Gold 6126 CPU @ 2.60GHz", "kvm_intel", 6, 85,
     4, 48,
     "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi "
     "mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon "
     "pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor "
     "ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe "
     "popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault "
     "epb cat_l3 cdp_l3 invpcid_single pti intel_ppin ssbd mba ibrs ibpb stibp tpr_shadow vnmi "
     "flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 hle avx2 smep bmi2 erms invpcid rtm "
     "cqm mpx rdt_a avx512f avx512dq rdseed adx smap clflushopt clwb intel_pt avx512cd avx512bw "
     "avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local "
     "dtherm ida arat pln pts hwp hwp_act_window hwp_epp hwp_pkg_req pku ospke md_clear "
     "flush_l1d",
     "hle rtm", "hwp hwp_act_window hwp_epp hwp_pkg_req"},
    {"icelake-sp", "GenuineIntel", "Intel(R) Xeon(R) Gold 5318Y CPU @ 2.10GHz", "kvm_intel", 6, 106,
     6, 96,
     "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi "
     "mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon "
     "pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor "
     "ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe "
     "popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault "
     "epb cat_l3 invpcid_single intel_ppin ssbd mba ibrs ibpb stibp ibrs_enhanced tpr_shadow "
     "flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid cqm rdt_a "
     "avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb intel_pt avx512cd sha_ni "
     "avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total "
     "cqm_mbm_local split_lock_detect wbnoinvd dtherm ida arat pln pts vnmi avx512vbmi umip pku "
     "ospke avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg tme avx512_vpopcntdq la57 "
     "rdpid fsrm md_clear pconfig flush_l1d arch_capabilities",
     NULL, NULL},
    {"zen2-rome", "AuthenticAMD", "AMD EPYC 7302P 16-Core Processor", "kvm_amd", 23, 49, 0, 32,
     "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
     "sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl "
     "nonstop_tsc cpuid extd_apicid aperfmperf pni pclmulqdq monitor ssse3 fma cx16 sse4_1 sse4_2 "
     "movbe popcnt aes xsave avx f16c rdrand lahf_lm cmp_legacy svm extapic cr8_legacy abm sse4a "
     "misalignsse 3dnowprefetch osvw ibs skinit wdt tce topoext perfctr_core perfctr_nb bpext "
     "perfctr_llc mwaitx cpb cat_l3 cdp_l3 hw_pstate sme ssbd mba sev ibrs ibpb stibp vmmcall "
     "fsgsbase bmi1 avx2 smep bmi2 cqm rdt_a rdseed adx smap clflushopt clwb sha_ni xsaveopt "
     "xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local clzero irperf "
     "xsaveerptr wbnoinvd arat npt lbrv svm_lock nrip_save tsc_scale vmcb_clean flushbyasid "
     "decodeassists pausefilter pfthreshold avic v_vmsave_vmload vgif umip rdpid overflow_recov "
     "succor smca",
     NULL, "sme sev"},
    {"zen4", "AuthenticAMD", "AMD EPYC 9754 128-Core Processor", "kvm_amd", 25, 160, 2, 256,
     "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
     "sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good amd_lbr_v2 "
     "nopl nonstop_tsc cpuid extd_apicid aperfmperf rapl pni pclmulqdq monitor ssse3 fma cx16 "
     "pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand lahf_lm cmp_legacy svm "
     "extapic cr8_legacy abm sse4a misalignsse 3dnowprefetch osvw ibs skinit wdt tce topoext "
     "perfctr_core perfctr_nb bpext perfctr_llc mwaitx cpb cat_l3 cdp_l3 hw_pstate ssbd mba "
     "perfmon_v2 ibrs ibpb stibp ibrs_enhanced vmmcall fsgsbase bmi1 avx2 smep bmi2 erms invpcid "
     "cqm rdt_a avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb avx512cd sha_ni "
     "avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total "
     "cqm_mbm_local user_shstk avx512_bf16 clzero irperf xsaveerptr rdpru wbnoinvd amd_ppin cppc "
     "arat npt lbrv svm_lock nrip_save tsc_scale vmcb_clean flushbyasid decodeassists pausefilter "
     "pfthreshold avic v_vmsave_vmload vgif x2avic v_spec_ctrl vnmi avx512vbmi umip pku ospke "
     "avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg avx512_vpopcntdq la57 rdpid "
     "overflow_recov succor smca fsrm flush_l1d debug_swap",
     "pku ospke", NULL},
};

const char *const gen_profile_names[4] = {"skylake-sp", "icelake-sp", "zen2-rome", "zen4"};

/* splitmix64 (Steele, Lea, Flood 2014): a hash of seed, node and purpose. */
static uint64_t mix(uint64_t seed, long node, uint64_t salt)
{
	uint64_t z = seed ^ ((uint64_t)node * UINT64_C(0x9e3779b97f4a7c15)) ^
		     (salt * UINT64_C(0xd1b54a32d192ed03));
	z += UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A uniform number in [0, n). */
static unsigned pick(uint64_t seed, long node, uint64_t salt, unsigned n)
{
	return (unsigned)(mix(seed, node, salt) % n);
}

enum { SALT_PROFILE = 1, SALT_LACK, SALT_HOSTONLY, SALT_MEM, SALT_DISK, SALT_CLOCK, SALT_PATH };

/* The profile of node i. Node 1 is of the older generation, node 2 of the
 * newer, so that even 5 nodes compare both; node 3 is of the generation with
 * a feature to lack, and lacks it. */
static int node_profile(const struct gen_opts *o, long i)
{
	int base = o->cpus == GEN_CPUS_AMD ? 2 : 0;
	if (o->cpus == GEN_CPUS_MIXED) {
		static const int first[4] = {0, 1, 0, 2};
		if (i <= 4)
			return first[i - 1];
		unsigned p = pick(o->seed, i, SALT_PROFILE, 10);
		return p < 3 ? 0 : p < 5 ? 1 : p < 8 ? 2 : 3;
	}
	if (i == 1)
		return base;
	if (i == 2)
		return base + 1;
	if (i == 3)
		return profiles[base].lack ? base : base + 1;
	return base + (pick(o->seed, i, SALT_PROFILE, 10) < 6 ? 0 : 1);
}

static bool word_in(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = list; p && *p;) {
		size_t k = strcspn(p, " ");
		if (k == n && strncmp(p, w, n) == 0)
			return true;
		p += k;
		p += strspn(p, " ");
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The flags the agent reports (sorted, as agent/cpuinfo.c sorts them). */
static void add_cpu_facts(struct kv_list *facts, const struct cpu_profile *p, bool lack,
			  bool vary_host)
{
	struct kv_list *cpu = kv_add_map(facts, "cpu");
	kv_add_str(cpu, "arch", "x86");
	kv_add_str(cpu, "vendor", p->vendor);
	kv_add_str(cpu, "model_name", p->model_name);
	kv_add_int(cpu, "family", p->family);
	kv_add_int(cpu, "model", p->model);
	kv_add_int(cpu, "stepping", p->stepping);
	struct strv all = {0};
	strv_split(&all, p->flags, " ");
	struct strv keep = {0};
	for (size_t k = 0; k < all.n; k++) {
		const char *f = all.items[k];
		if (!*f || (lack && word_in(p->lack, f)) ||
		    (vary_host && word_in(p->host_varied, f)))
			continue;
		strv_add(&keep, f);
	}
	qsort(keep.items, keep.n, sizeof(char *), cmp_str);
	struct value_list *fl = kv_add_list(cpu, "flags");
	for (size_t k = 0; k < keep.n; k++)
		vlist_add_str(fl, keep.items[k]);
	strv_clear(&keep);
	strv_clear(&all);
}

static struct finding *add(struct node_report *r, const char *check, enum status st,
			   const char *msg)
{
	struct finding *f = finding_list_add(&r->results, check);
	finding_set(f, st, "%s", msg);
	finding_set_node(f, r->node);
	return f;
}

static void add_findings(struct node_report *r, const struct gen_opts *o, long i,
			 const struct cpu_profile *p, int64_t mem)
{
	struct finding *f;
	struct value_list *l;
	const char *os = "Harvester v1.8.2";
	if (o->no_kvm) {
		f = add(r, "host.kvm", STATUS_FAIL, "/dev/kvm does not exist");
		kv_add_str(&f->evidence, "device", "/dev/kvm");
		kv_add_str(&f->evidence, "error", "stat: No such file or directory");
		finding_remedy(f,
			       "A KVM module is loaded but KVM is unusable: check `dmesg | grep -i "
			       "kvm` (\"disabled by bios\"), enable VT-x/AMD-V in the firmware and "
			       "reload the module.");
	} else {
		f = add(r, "host.kvm", STATUS_PASS,
			"/dev/kvm works: API version 12, a VM was created");
		kv_add_str(&f->evidence, "device", "/dev/kvm");
		kv_add_str(&f->evidence, "device_node", "char 10:232");
		kv_add_int(&f->evidence, "api_version", 12);
		kv_add_str(&f->evidence, "create_vm", "ok");
	}
	l = kv_add_list(&f->evidence, "kvm_modules");
	vlist_add_str(l, "kvm");
	vlist_add_str(l, p->kvm_module);
	kv_add_str(&f->evidence, "modules_source", "/proc/modules, /sys/module");

	bool intel = streq(p->vendor, "GenuineIntel");
	f = add(r, "host.cpu.virt", STATUS_PASS, intel ? "vmx (Intel VT-x)" : "svm (AMD-V)");
	kv_add_str(&f->evidence, "arch", "x86");
	kv_add_str(&f->evidence, "vendor", p->vendor);
	kv_add_str(&f->evidence, "model_name", p->model_name);
	kv_add_strf(&f->evidence, "family_model_stepping", "%d/%d/%d", p->family, p->model,
		    p->stepping);
	kv_add_strf(&f->evidence, "nested", "N (%s)", p->kvm_module);
	kv_add_bool(&f->evidence, "hypervisor", false);
	kv_add_str(&f->evidence, "virt_flag", intel ? "vmx" : "svm");
	kv_add_str(&f->evidence, "host.kvm", o->no_kvm ? "FAIL" : "PASS");

	unsigned maxerr_us = 2000 + pick(o->seed, i, SALT_CLOCK, 40000);
	f = add(r, "host.clock", STATUS_PASS, "");
	finding_set(f, STATUS_PASS, "synchronised (TIME_OK), maximum error %u.%03u ms, by chronyd",
		    maxerr_us / 1000, maxerr_us % 1000);
	kv_add_str(&f->evidence, "state", "TIME_OK");
	kv_add_list(&f->evidence, "status");
	kv_add_int(&f->evidence, "maxerror_us", maxerr_us);
	kv_add_int(&f->evidence, "maxerror_warn_us", 1500000);
	l = kv_add_list(&f->evidence, "sync_daemons_running");
	vlist_add_str(l, "chronyd");

	f = add(r, "host.resources", STATUS_PASS, "");
	finding_set(f, STATUS_PASS, "%d CPUs and %lld GiB memory (minimum 8 CPUs and 32.0 GiB)",
		    p->cores, (long long)(mem / GIB));
	kv_add_int(&f->evidence, "cpus", p->cores);
	kv_add_str(&f->evidence, "cpus_source", "/sys/devices/system/cpu/online");
	kv_add_int(&f->evidence, "min_cpus", 8);
	kv_add_int(&f->evidence, "memory_bytes", mem);
	kv_add_str(&f->evidence, "min_memory", "32.0 GiB");

	f = add(r, "host.nfs.client", STATUS_PASS, "NFS mount helper present: /sbin/mount.nfs");
	l = kv_add_list(&f->evidence, "helpers");
	vlist_add_str(l, "/sbin/mount.nfs");
	vlist_add_str(l, "/sbin/mount.nfs4");
	kv_add_str(&f->evidence, "os", os);
	kv_add_str(&f->evidence, "package", "nfs-client");

	f = add(r, "host.nfs.kernel", STATUS_PASS,
		"NFSv4 client in kernel 5.14.21-150500.55.83-default: nfs, nfsv4 loaded "
		"(/proc/modules), nfs4 in /proc/filesystems");
	kv_add_str(&f->evidence, "kernel_release", "5.14.21-150500.55.83-default");
	kv_add_str(&f->evidence, "proc_modules", "nfs, nfsv4");
	kv_add_str(&f->evidence, "proc_filesystems", "nfs4 registered");

	f = add(r, "host.iscsi", STATUS_PASS, "");
	finding_set(f, STATUS_PASS,
		    "iscsiadm at /sbin/iscsiadm; initiator iqn.1996-04.de.suse:01:%012llx; iscsid "
		    "socket-activated (iscsid.socket enabled)",
		    (unsigned long long)(mix(o->seed, i, 99) & UINT64_C(0xffffffffffff)));
	kv_add_str(&f->evidence, "iscsiadm", "/sbin/iscsiadm");
	kv_add_str(&f->evidence, "iscsid_socket", "enabled");
	kv_add_str(&f->evidence, "iscsi_tcp", "loaded");

	f = add(r, "host.multipathd", STATUS_PASS,
		"multipathd is running; blacklist device { vendor \"IET\" product "
		"\"VIRTUAL-DISK\" } keeps Longhorn's disks out");
	kv_add_str(&f->evidence, "multipathd", "running");
	kv_add_str(&f->evidence, "find_multipaths", "yes");

	/* About one node in 12 has less than 25 % free on the Longhorn disk. */
	int64_t size = INT64_C(3840755982336);
	unsigned pct = pick(o->seed, i, SALT_PATH, 12) == 0 ? 10 + pick(o->seed, i, SALT_DISK, 14)
							    : 30 + pick(o->seed, i, SALT_DISK, 60);
	f = add(r, "host.longhorn.path", pct < 25 ? STATUS_WARN : STATUS_PASS, "");
	finding_set(f, pct < 25 ? STATUS_WARN : STATUS_PASS,
		    "/var/lib/harvester/defaultdisk: %u%% free on xfs /dev/nvme0n1p1%s", pct,
		    pct < 25 ? ", below Longhorn's 25% minimal available storage" : "");
	finding_set_object(f, "path:/var/lib/harvester/defaultdisk");
	kv_add_str(&f->evidence, "path", "/var/lib/harvester/defaultdisk");
	kv_add_str(&f->evidence, "fs_type", "xfs");
	kv_add_int(&f->evidence, "threshold_pct", 25);
	kv_add_int(&f->evidence, "size_bytes", size);
	kv_add_int(&f->evidence, "available_bytes", size / 100 * pct);

	f = add(r, "host.image.share-manager", STATUS_PASS,
		"longhornio/longhorn-share-manager:v1.11.2 is on this node (containerd), and "
		"Longhorn's pull policy is if-not-present: share-manager pods start from it");
	kv_add_str(&f->evidence, "image", "longhornio/longhorn-share-manager:v1.11.2");
	kv_add_str(&f->evidence, "runtime", "RKE2");

	f = add(r, "host.containerd.device-ownership", STATUS_PASS,
		"RKE2 renders device_ownership_from_security_context = true (nonroot-devices: true "
		"in /etc/rancher/rke2/config.yaml)");
	kv_add_str(&f->evidence, "runtime", "RKE2");
	kv_add_str(&f->evidence, "nonroot-devices", "true");

	f = add(r, "host.nfs.probe", STATUS_PASS,
		"nfs://10.53.0.10/pvc-rwx?version=4.1: mounted with NFSv4.1 and read the export "
		"root's attributes");
	kv_add_int(&f->evidence, "nfs_endpoints", 1);
}

void gen_node_report(struct node_report *r, const struct gen_opts *o, long i, struct gen_tally *t)
{
	int pi = node_profile(o, i);
	const struct cpu_profile *p = &profiles[pi];
	bool lack = p->lack && (i == 3 || pick(o->seed, i, SALT_LACK, 25) == 0);
	bool vary = p->host_varied && pick(o->seed, i, SALT_HOSTONLY, 10) == 0;
	/* 256, 384 or 512 GiB, less what the firmware keeps */
	int64_t mem =
	    (256 + 128 * (int64_t)pick(o->seed, i, SALT_MEM, 3)) * GIB - 700 * (GIB >> 10);

	r->node = xasprintf("%s%ld", o->prefix, i);
	r->hostname = xstrdup(r->node);
	r->agent_version = xstrdup("0.1.0");
	r->boot_id = xasprintf("%08llx-0000-4000-8000-%012lx",
			       (unsigned long long)(mix(o->seed, i, 7) & 0xffffffffu), i);
	r->sent_ns = GEN_EPOCH_NS - (int64_t)i * NSEC_PER_MSEC;
	r->seq = 1;
	r->interval_s = 0;

	add_findings(r, o, i, p, mem);
	/* Every host check of the registry has a result here, or the bench's
	 * cross-node work and the example reports would silently lack it. */
	for (size_t k = 0; k < catalog_len; k++)
		if (catalog[k].source == CHECK_HOST &&
		    !finding_list_find(&r->results, catalog[k].id))
			fatalx("bench/gen_node.c: no generated result for host check %s "
			       "(add one to add_findings)",
			       catalog[k].id);

	struct value_list *l = kv_add_list(&r->facts, "kvm_modules");
	vlist_add_str(l, "kvm");
	vlist_add_str(l, p->kvm_module);
	add_cpu_facts(&r->facts, p, lack, vary);
	kv_add_int(&r->facts, "cpu_cores", p->cores);
	kv_add_int(&r->facts, "memory_bytes", mem);
	kv_add_str(&r->facts, "kernel_release", "5.14.21-150500.55.83-default");
	struct kv_list *osr = kv_add_map(&r->facts, "os_release");
	kv_add_str(osr, "ID", "sle-micro");
	kv_add_str(osr, "VERSION_ID", "5.5");
	kv_add_str(osr, "PRETTY_NAME", "Harvester v1.8.2");
	kv_add_str(&r->facts, "hostname", r->hostname);
	kv_add_str(&r->facts, "boot_id", r->boot_id);

	t->nodes++;
	t->kvm_nodes += !o->no_kvm;
	t->by_profile[pi]++;
	t->lacking += lack;
	t->host_only_varied += vary;
}
