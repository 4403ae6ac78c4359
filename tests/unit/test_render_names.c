/* A name cannot forge a line: node, Node and VM names with a newline, a
 * carriage return or an ESC in the text and Markdown renderings (common/render_text.h). */
#include "render_fixture.h"
#include "render_text.h"

#define FORGED "host.kvm : PASS forged"

/* No line of out begins (after spaces) with the forged text, and no raw CR or ESC. */
static void no_forged_line(const char *out)
{
	assert_null(strchr(out, '\r'));
	assert_null(strchr(out, '\033'));
	for (const char *l = out; l && *l;) {
		const char *s = l + strspn(l, " \t|");
		if (strncmp(s, "host.kvm : PASS forged", 22) == 0 || strncmp(s, "forged", 6) == 0)
			fail_msg("forged line: %.60s", l);
		l = strchr(l, '\n');
		if (l)
			l++;
	}
}

static void nasty_verdict(struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->generated_ns = INT64_C(1788614444) * NSEC_PER_SEC;
	v->source = xstrdup("files: test");
	fx_add(v, "host.kvm", STATUS_FAIL, "node-a\n" FORGED, NULL, "/dev/kvm does not exist",
	       "fix it");
	fx_add(v, "api.longhorn.volume-health", STATUS_WARN, NULL, "Volume/x/v\r" FORGED,
	       "degraded", "rebuild");
	fx_add(v, "cluster.nodes.ready", STATUS_FAIL, "node-b\033[2K\r" FORGED, "Node/node-b",
	       "NotReady", "check");
	gates_compute(&v->findings, v->gates);
	struct vm_row *r = vm_table_add(&v->vms, "default", "vm\n" FORGED, "node-c\nforged");
	r->can_migrate = false;
	strv_add(&r->reasons, "blocked");
	fx_node(v, "node-a\n" FORGED, true, 5);
	fx_node(v, "node-d\r\033[1Aforged", false, -1);
}

static void test_verdict_text_and_markdown(void **state)
{
	(void)state;
	struct verdict v;
	nasty_verdict(&v);
	char *text = NULL, *md = NULL, *vtext = NULL;
	RENDER(text, verdict_render_text(f, &v, -1, false));
	RENDER(vtext, verdict_render_text(f, &v, -1, true));
	RENDER(md, verdict_render_markdown(f, &v, -1));
	no_forged_line(text);
	no_forged_line(md);
	/* The escapes are shown, so the name stays readable. */
	assert_non_null(strstr(text, "node-a\\x0ahost.kvm"));
	assert_non_null(strstr(text, "\\x0d"));
	assert_non_null(strstr(text, "\\x1b"));
	/* With colour the renderer writes its own ESC; the names' are still escaped. */
	assert_null(strstr(vtext, "\033[2K"));
	assert_null(strstr(vtext, "\033[1A"));
	free(text);
	free(md);
	free(vtext);
	verdict_clear(&v);
}

static void test_agent_text(void **state)
{
	(void)state;
	struct node_report r = {0};
	r.node = xstrdup("node-a\n" FORGED);
	r.hostname = xstrdup("h\r\033[2K" FORGED);
	r.agent_version = xstrdup("0.1\nforged");
	struct finding *f1 = finding_list_add(&r.results, "host.kvm");
	finding_set(f1, STATUS_FAIL, "/dev/kvm does not exist");
	finding_set_object(f1, "Node/x\n" FORGED);
	char *text = NULL;
	RENDER(text, render_node_report_text(f, &r, false));
	no_forged_line(text);
	free(text);
	node_report_clear(&r);
}

static void test_sanitize_line(void **state)
{
	(void)state;
	char *s = render_text_sanitize_line("a\nb\tc\rd\033e");
	assert_string_equal(s, "a\\x0ab\\x09c\\x0dd\\x1be");
	free(s);
	s = render_text_sanitize_line(NULL);
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verdict_text_and_markdown),
	    cmocka_unit_test(test_agent_text),
	    cmocka_unit_test(test_sanitize_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
