/*
 * clone_reports: node reports for the benchmarks, under N node names: either
 * generated (--generate: real server CPUs, the same bytes on every machine,
 * bench/gen_node.c), or one real report (from `hvready-agent check --format
 * msgpack`) cloned.
 *
 *   clone_reports --generate [--cpus intel|amd|mixed] [--seed N] [--no-kvm]
 *                 [--manifest FILE] --count N [--prefix harvester-node-]
 *                 [--out-dir DIR] [--pack FILE]
 *   clone_reports --template FILE --count N [--prefix harvester-node-]
 *                 [--out-dir DIR] [--pack FILE]
 *
 * --manifest writes, as JSON, what was generated (nodes, KVM nodes, CPU
 * profiles, nodes without a feature): bench/check_work.py holds the
 * aggregator's verdict against it.
 *
 * --out-dir writes DIR/PREFIXi.msgpack (i = 1..N), or with --json
 * DIR/PREFIXi.json as `hvready-agent check --format json` writes it
 * (examples/node-reports/, scripts/gen_example_reports.sh), the layout `report
 * --node-reports` reads. --pack writes one file the load generator maps:
 *
 *   "HVBPACK1" | u32 count | count × (u32 len | u32 sent_ns_offset | len bytes)
 *
 * in host byte order. sent_ns_offset is where the report's sent_ns sits as an
 * 8-byte big-endian integer, so that the load generator can stamp every POST
 * with the time it is sent: the aggregator keeps only a report newer than the
 * one it holds, and a replayed, unchanged message would measure its cheap
 * "stale" path instead of ingest. The offset is verified by patching and
 * decoding again, so a change of the wire format fails here, loudly.
 *
 * With --template, everything else is the template's: the findings and facts of a real host.
 * Each clone gets its own node name, hostname (cluster.hostname.unique) and
 * boot ID.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gen_node.h"
#include "log.h"
#include "render_json.h"
#include "report.h"
#include "wire.h"

#define TEMPLATE_MAX (WIRE_MAX_MESSAGE)
#define COUNT_MAX    1000000

struct opts {
	const char *template, *prefix, *out_dir, *pack, *manifest;
	long count;
	bool generate, json;
	struct gen_opts gen;
};

static _Noreturn void usage(int code)
{
	fputs("Usage: clone_reports --template FILE --count N [--prefix NAME-]\n"
	      "                     [--out-dir DIR] [--pack FILE]\n"
	      "       clone_reports --generate [--cpus intel|amd|mixed] [--seed N] [--no-kvm]\n"
	      "                     [--manifest FILE] --count N [--prefix NAME-]\n"
	      "                     [--out-dir DIR [--json]] [--pack FILE]\n",
	      code ? stderr : stdout);
	exit(code);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
	    {"template", required_argument, NULL, 't'},
	    {"count", required_argument, NULL, 'n'},
	    {"prefix", required_argument, NULL, 'p'},
	    {"out-dir", required_argument, NULL, 'd'},
	    {"pack", required_argument, NULL, 'k'},
	    {"generate", no_argument, NULL, 'g'},
	    {"cpus", required_argument, NULL, 'c'},
	    {"seed", required_argument, NULL, 's'},
	    {"no-kvm", no_argument, NULL, 'K'},
	    {"manifest", required_argument, NULL, 'm'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;
	int64_t v;
	*o = (struct opts){.prefix = "harvester-node-", .gen = {.seed = 1}};
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			o->template = optarg;
			break;
		case 'n':
			if (util_parse_i64(optarg, &v) < 0 || v < 1 || v > COUNT_MAX)
				fatalx("--count: \"%s\" is not a number from 1 to %d", optarg,
				       COUNT_MAX);
			o->count = (long)v;
			break;
		case 'p':
			o->prefix = optarg;
			break;
		case 'd':
			o->out_dir = optarg;
			break;
		case 'k':
			o->pack = optarg;
			break;
		case 'g':
			o->generate = true;
			break;
		case 'c':
			if (streq(optarg, "intel"))
				o->gen.cpus = GEN_CPUS_INTEL;
			else if (streq(optarg, "amd"))
				o->gen.cpus = GEN_CPUS_AMD;
			else if (streq(optarg, "mixed"))
				o->gen.cpus = GEN_CPUS_MIXED;
			else
				fatalx("--cpus: \"%s\" is not intel, amd or mixed", optarg);
			break;
		case 's':
			if (util_parse_i64(optarg, &v) < 0 || v < 0)
				fatalx("--seed: \"%s\" is not a number", optarg);
			o->gen.seed = (uint64_t)v;
			break;
		case 'K':
			o->gen.no_kvm = true;
			break;
		case 'm':
			o->manifest = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc || !o->template == !o->generate || !o->count ||
	    (!o->out_dir && !o->pack))
		usage(2);
	if (o->json && !o->out_dir)
		fatalx("--json goes with --out-dir");
	if (!o->generate && (o->manifest || o->gen.no_kvm))
		fatalx("--manifest and --no-kvm go with --generate");
	o->gen.prefix = o->prefix;
}

static void set_str(char **dst, char *v)
{
	free(*dst);
	*dst = v;
}

/* Where the 8 big-endian bytes of v follow a msgpack int64/uint64 marker in
 * buf; the match must be unique. Returns the offset of the bytes, or -1. */
static long find_i64(const uint8_t *buf, size_t len, int64_t v)
{
	uint8_t be[8];
	long found = -1;
	for (int i = 0; i < 8; i++)
		be[i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
	for (size_t i = 0; i + 9 <= len; i++) {
		if ((buf[i] == 0xcf || buf[i] == 0xd3) && memcmp(buf + i + 1, be, 8) == 0) {
			if (found >= 0)
				return -1;
			found = (long)i + 1;
		}
	}
	return found;
}

static void put_be64(uint8_t *p, int64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
}

/* Prove that off is sent_ns: stamp another time there and decode it back. */
static void verify_offset(const char *buf, size_t len, long off, int64_t sent_ns)
{
	_cleanup_free_ uint8_t *copy = xmalloc(len);
	struct node_report r = {0};
	char err[WIRE_ERR_LEN];
	int64_t probe = sent_ns + 123456789;
	memcpy(copy, buf, len);
	put_be64(copy + off, probe);
	int ret = wire_decode_node_report(copy, len, &r, err, sizeof(err));
	if (ret < 0)
		fatalx("the patched clone does not decode: %s", err);
	if (r.sent_ns != probe)
		fatalx("offset %ld is not sent_ns in the wire encoding", off);
	node_report_clear(&r);
}

static void write_all(FILE *f, const void *p, size_t n, const char *path)
{
	if (fwrite(p, 1, n, f) != n)
		fatal("writing %s", path);
}

static void write_clone(const char *dir, const char *name, const char *buf, size_t len)
{
	_cleanup_free_ char *path = xasprintf("%s/%s.msgpack", dir, name);
	FILE *f = fopen(path, "we");
	if (!f)
		fatal("%s", path);
	write_all(f, buf, len, path);
	if (fclose(f) != 0)
		fatal("writing %s", path);
}

/* The report as the agent's --format json writes it. */
static void write_json(const char *dir, const char *name, const struct node_report *r)
{
	_cleanup_free_ char *path = xasprintf("%s/%s.json", dir, name);
	FILE *f = fopen(path, "we");
	if (!f)
		fatal("%s", path);
	json_object *o = render_node_report_json(r);
	render_json_write(f, o);
	json_object_put(o);
	if (fclose(f) != 0)
		fatal("writing %s", path);
}

/* Where a clone's template comes from: the file, read and decoded. */
static void read_template(const char *path, struct node_report *r)
{
	char err[WIRE_ERR_LEN];
	char *raw;
	size_t raw_len;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		fatalx("--template %s is not a regular file", path);
	int ret = util_read_file(path, TEMPLATE_MAX, &raw, &raw_len);
	if (ret < 0)
		fatalx("--template %s: %s", path, strerror(-ret));
	ret = wire_decode_node_report((const uint8_t *)raw, raw_len, r, err, sizeof(err));
	free(raw);
	if (ret < 0)
		fatalx("--template %s: %s", path, err);
}

static void write_manifest(const struct opts *o, const struct gen_tally *t)
{
	static const char *const cpus[] = {"intel", "amd", "mixed"};
	FILE *f = fopen(o->manifest, "we");
	if (!f)
		fatal("--manifest %s", o->manifest);
	fprintf(f,
		"{\"generator\": \"bench/clone_reports --generate\", \"cpus\": \"%s\", "
		"\"seed\": %llu, \"prefix\": \"%s\", \"nodes\": %ld, \"kvm_nodes\": %ld, "
		"\"lacking_feature_nodes\": %ld, \"host_only_varied_nodes\": %ld, \"profiles\": {",
		cpus[o->gen.cpus], (unsigned long long)o->gen.seed, o->prefix, t->nodes,
		t->kvm_nodes, t->lacking, t->host_only_varied);
	bool first = true;
	for (int k = 0; k < 4; k++) {
		if (!t->by_profile[k])
			continue;
		fprintf(f, "%s\"%s\": %ld", first ? "" : ", ", gen_profile_names[k],
			t->by_profile[k]);
		first = false;
	}
	fputs("}}\n", f);
	if (fclose(f) != 0)
		fatal("writing %s", o->manifest);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct node_report r = {0};
	struct gen_tally tally = {0};
	FILE *pack = NULL;
	int ret;

	log_set_prefix("clone_reports");
	parse(argc, argv, &o);
	if (o.template)
		read_template(o.template, &r);
	if (o.out_dir && mkdir(o.out_dir, 0755) < 0 && errno != EEXIST)
		fatal("--out-dir %s", o.out_dir);
	if (o.pack) {
		pack = fopen(o.pack, "we");
		if (!pack)
			fatal("--pack %s", o.pack);
		uint32_t n = (uint32_t)o.count;
		write_all(pack, "HVBPACK1", 8, o.pack);
		write_all(pack, &n, sizeof(n), o.pack);
	}
	int64_t now = util_now_realtime_ns();
	for (long i = 1; i <= o.count; i++) {
		if (o.generate) {
			node_report_clear(&r);
			r = (struct node_report){0};
			gen_node_report(&r, &o.gen, i, &tally);
		} else {
			char *name = xasprintf("%s%ld", o.prefix, i);
			set_str(&r.hostname, xstrdup(name));
			set_str(&r.boot_id, xasprintf("b0b0b0b0-0000-4000-8000-%012lx", i));
			set_str(&r.node, name);
			/* Distinct times: a clone is a node that wrote its file at its own moment. */
			r.sent_ns = now - (int64_t)i * NSEC_PER_MSEC;
			r.seq = 1;
		}
		const char *name = r.node;
		char *buf;
		size_t len;
		ret = wire_encode_node_report(&r, &buf, &len);
		if (ret < 0)
			fatalx("encoding the report of %s: %s", name, strerror(-ret));
		if (o.out_dir && o.json)
			write_json(o.out_dir, name, &r);
		else if (o.out_dir)
			write_clone(o.out_dir, name, buf, len);
		if (pack) {
			long off = find_i64((const uint8_t *)buf, len, r.sent_ns);
			if (off < 0)
				fatalx("cannot locate sent_ns in the encoding of %s", name);
			if (i == 1)
				verify_offset(buf, len, off, r.sent_ns);
			uint32_t hdr[2] = {(uint32_t)len, (uint32_t)off};
			write_all(pack, hdr, sizeof(hdr), o.pack);
			write_all(pack, buf, len, o.pack);
		}
		free(buf);
	}
	if (pack && fclose(pack) != 0)
		fatal("writing %s", o.pack);
	node_report_clear(&r);
	if (o.manifest)
		write_manifest(&o, &tally);
	return 0;
}
