/* Credentials out of URLs, proxies, free text, evidence, messages and log lines (common/redact.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kv.h"
#include "log.h"
#include "redact.h"
#include "report.h"

static void url_is(const char *in, const char *want)
{
	char *got = redact_url(in);
	assert_string_equal(got, want);
	free(got);
}

static void text_is(const char *in, const char *want)
{
	char *got = redact_text(in);
	assert_string_equal(got, want);
	free(got);
}

static void test_url(void **state)
{
	(void)state;
	url_is("http://user:pass@proxy.corp:3128", "http://***@proxy.corp:3128");
	url_is("http://user:p%40ss@proxy.corp:3128/", "http://***@proxy.corp:3128/");
	url_is("user:pass@proxy.corp:3128", "***@proxy.corp:3128");
	url_is("proxy.corp:3128", "proxy.corp:3128");
	url_is("cifs://admin:hunter2@10.0.0.5/backups", "cifs://***@10.0.0.5/backups");
	url_is("s3://bucket@us-east-1/", "s3://bucket@us-east-1/"); /* Longhorn's bucket@region */
	url_is("s3://key:secret@us-east-1/", "s3://***@us-east-1/");
	url_is("https://h/x?AWSAccessKeyId=AKIAX&Expires=1&Signature=abc%2B",
	       "https://h/x?AWSAccessKeyId=***&Expires=1&Signature=***");
	url_is("https://h/x?X-Amz-Credential=c&X-Amz-Security-Token=t&a=b#frag",
	       "https://h/x?X-Amz-Credential=***&X-Amz-Security-Token=***&a=b#frag");
	url_is("nfs://server:/export/path", "nfs://server:/export/path");
	url_is("https://registry.example/v2", "https://registry.example/v2");
	url_is("https://h/p?password=x;token=y", "https://h/p?password=***;token=***");
	url_is("", "");
	assert_null(redact_url(NULL));
}

static void test_text(void **state)
{
	(void)state;
	text_is("GET http://u:p@h:1/v2/: refused, then https://a:b@c/x?sig=s done",
		"GET http://***@h:1/v2/: refused, then https://***@c/x?sig=*** done");
	text_is("backup target \"cifs://me:secret@nas/b\" is unavailable",
		"backup target \"cifs://***@nas/b\" is unavailable");
	text_is("no URL here: user@host", "no URL here: user@host");
	text_is("://@", "://***@");
	assert_false(redact_text_needed("plain https://h/v2 text"));
	assert_true(redact_text_needed("x https://a:b@h/v2"));
	assert_null(redact_text(NULL));
}

/* Whatever a check forgets, evidence and messages never keep a URL's password. */
static void test_evidence_and_messages(void **state)
{
	(void)state;
	struct kv_list l = {0};
	kv_add_str(&l, "a", "http://u:SECRET1@h/");
	kv_add_strf(&l, "b", "%s", "tried cifs://u:SECRET2@h/s");
	struct value_list *vl = kv_add_list(&l, "c");
	vlist_add_str(vl, "https://h/?token=SECRET3");
	vlist_add_strf(vl, "%s", "https://u:SECRET4@h");
	assert_string_equal(kv_get_str(&l, "a"), "http://***@h/");
	assert_string_equal(kv_get_str(&l, "b"), "tried cifs://***@h/s");
	assert_string_equal(vl->items[0].s, "https://h/?token=***");
	assert_string_equal(vl->items[1].s, "https://***@h");
	kv_list_clear(&l);

	struct finding_list fl = {0};
	struct finding *f = finding_list_add(&fl, "x.y");
	finding_set(f, STATUS_FAIL, "proxy %s fails", "http://u:SECRET5@p:3128");
	finding_remedy(f, "fix %s", "https://h/?password=SECRET6");
	assert_null(strstr(f->message, "SECRET"));
	assert_null(strstr(f->remediation, "SECRET"));
	finding_list_clear(&fl);
}

static void test_log(void **state)
{
	(void)state;
	char path[] = "/tmp/hvready-redact-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	int saved = dup(2);
	fflush(stderr);
	dup2(fd, 2);
	log_warnx("contacting %s", "https://admin:SECRET7@api:6443");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char buf[512] = {0};
	assert_true(pread(fd, buf, sizeof(buf) - 1, 0) > 0);
	close(fd);
	unlink(path);
	assert_null(strstr(buf, "SECRET7"));
	assert_non_null(strstr(buf, "https://***@api:6443"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_url),
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_evidence_and_messages),
	    cmocka_unit_test(test_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
