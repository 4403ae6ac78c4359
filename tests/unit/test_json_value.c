/* The compact JSON values (aggregator/json_value.c): json-c → jv → json-c gives the
 * same tree, member order kept, numbers as json-c had them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "cluster_state.h"
#include "json_fast.h"
#include "json_query.h"
#include "json_value.h"
#include "test_src.h"

static void assert_round_trip(json_object *o)
{
	struct jv_arena *a = jv_arena_new();
	struct jv v = jv_from_json(a, o);
	json_object *back = jv_to_json(&v);
	if (!json_object_equal(o, back))
		fail_msg("round trip differs:\n%s\n%s", json_object_to_json_string(o),
			 json_object_to_json_string(back));
	/* the same text, so member order and number texts are kept too */
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    json_object_to_json_string_ext(back, JSON_C_TO_STRING_PLAIN));
	json_object_put(back);
	jv_arena_free(a);
}

static json_object *parse(const char *text)
{
	json_object *o = json_tokener_parse(text);
	assert_non_null(o);
	return o;
}

static void test_round_trip_values(void **state)
{
	(void)state;
	const char *docs[] = {
	    "{}",
	    "[]",
	    "{\"a\":{},\"b\":[],\"c\":null,\"d\":[null,null],\"e\":[[],[[1]],{}]}",
	    "{\"z\":1,\"a\":2,\"m\":3}", /* source order, not sorted */
	    "{\"s\":\"caf\\u00e9 \\u65e5\\u672c \\ud83d\\ude00\",\"esc\":\"a\\\"b\\\\c\\n\\t/\"}",
	    "{\"max\":9223372036854775807,\"min\":-9223372036854775808,\"u\":18446744073709551615}",
	    "{\"d\":1.5,\"e\":-0.25,\"x\":1e300,\"t\":1.0,\"z\":0.0}",
	    "[true,false,0,-1,\"\",\"0\"]",
	    "{\"deep\":[[[[[[[[[[{\"k\":[1,2,{\"k\":null}]}]]]]]]]]]]}",
	};
	for (size_t i = 0; i < ELEMENTSOF(docs); i++) {
		json_object *o = parse(docs[i]);
		assert_round_trip(o);
		json_object_put(o);
	}
}

static void test_embedded_nul(void **state)
{
	(void)state;
	json_object *o = parse("{\"s\":\"a\\u0000b\"}");
	struct jv_arena *a = jv_arena_new();
	struct jv v = jv_from_json(a, o);
	const struct jv *s = JQ(&v, "s");
	assert_int_equal(jv_strlen(s), 3);
	assert_memory_equal(jv_str(s), "a\0b", 4);
	assert_round_trip(o);
	json_object_put(o);
	jv_arena_free(a);
}

static void test_numbers(void **state)
{
	(void)state;
	json_object *o = parse("{\"i\":-42,\"big\":9223372036854775807,\"u\":18446744073709551615,"
			       "\"d\":2.75,\"s\":\"17\",\"b\":true}");
	struct jv_arena *a = jv_arena_new();
	struct jv v = jv_from_json(a, o);
	int64_t n;
	assert_true(jq_int(JQ(&v, "i"), &n));
	assert_int_equal(n, -42);
	assert_true(jq_int(JQ(&v, "big"), &n));
	assert_true(n == INT64_MAX);
	assert_true(jv_is(JQ(&v, "u"), JV_INT));
	assert_true(jv_int64(JQ(&v, "u")) == INT64_MAX); /* json-c clamps too */
	assert_true(jv_is(JQ(&v, "d"), JV_DOUBLE));
	assert_true(jv_double(JQ(&v, "d")) == 2.75);
	assert_true(jq_int(JQ(&v, "d"), &n));
	assert_int_equal(n, 2);
	assert_true(jq_int(JQ(&v, "s"), &n));
	assert_int_equal(n, 17);
	bool b = false;
	assert_true(jq_bool(JQ(&v, "b"), &b));
	assert_true(b);
	json_object_put(o);
	jv_arena_free(a);
}

/* NULL is "absent or null", as json-c's NULL: readers keep their meaning. */
static void test_null_semantics(void **state)
{
	(void)state;
	json_object *o = parse("{\"n\":null,\"a\":[1,null,\"x\"],\"o\":{\"k\":\"v\"}}");
	struct jv_arena *a = jv_arena_new();
	struct jv v = jv_from_json(a, o);
	const struct jv *r = (const struct jv *)1;
	assert_true(jv_get_ex(&v, "n", &r));
	assert_null(r);
	assert_false(jv_get_ex(&v, "absent", &r));
	assert_null(JQ(&v, "n"));
	assert_true(jv_is(NULL, JV_NULL));
	assert_int_equal(jq_len(JQ(&v, "a")), 3);
	assert_null(jq_at(JQ(&v, "a"), 1));
	assert_null(jq_at(JQ(&v, "a"), 3));
	assert_string_equal(jv_str(jq_at(JQ(&v, "a"), 2)), "x");
	assert_null(jv_str(jq_at(JQ(&v, "a"), 0)));
	assert_null(JQ(&v, "o", "k", "deeper"));
	assert_string_equal(JQS(&v, "o", "k"), "v");
	size_t seen = 0;
	jv_foreach(&v, key, val)
	{
		if (seen == 0) {
			assert_string_equal(key, "n");
			assert_null(val);
		}
		seen++;
	}
	assert_int_equal(seen, 3);
	assert_int_equal(jv_nmembers(JQ(&v, "a")), 0);
	_cleanup_free_ char *text = jv_dump(JQ(&v, "o"));
	assert_string_equal(text, "{ \"k\": \"v\" }");
	_cleanup_free_ char *null_text = jv_dump(NULL);
	assert_string_equal(null_text, "null");
	json_object_put(o);
	jv_arena_free(a);
}

static void test_interning(void **state)
{
	(void)state;
	json_object *o1 = parse("{\"metadata\":{\"name\":\"a\"}}");
	json_object *o2 = parse("{\"metadata\":{\"name\":\"b\"}}");
	struct jv_arena *a = jv_arena_new();
	struct jv v1 = jv_from_json(a, o1), v2 = jv_from_json(a, o2);
	/* one copy of each key in an arena */
	assert_ptr_equal(v1.u.m[0].key, v2.u.m[0].key);
	assert_ptr_equal(JQ(&v1, "metadata")->u.m[0].key, JQ(&v2, "metadata")->u.m[0].key);
	assert_ptr_equal(jv_arena_intern(a, "name"), JQ(&v1, "metadata")->u.m[0].key);
	assert_ptr_not_equal(jv_arena_intern(a, "other"), jv_arena_intern(a, "name"));
	/* many keys: the set grows */
	char key[32];
	const char *first = jv_arena_intern(a, "k0");
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		assert_string_equal(jv_arena_intern(a, key), key);
	}
	assert_ptr_equal(jv_arena_intern(a, "k0"), first);
	json_object_put(o1);
	json_object_put(o2);
	jv_arena_free(a);
}

/* The keys of jv_k are one pointer in every arena, however they were read,
 * and a lookup by them finds what a lookup by the literal finds. */
static void test_known_keys(void **state)
{
	(void)state;
	struct jv_arena *a = jv_arena_new(), *b = jv_arena_new();
	assert_ptr_equal(jv_arena_intern(a, "metadata"), jv_k.metadata);
	assert_ptr_equal(jv_arena_intern(b, "metadata"), jv_k.metadata);
	assert_ptr_equal(jv_arena_intern_len(a, "namespaces", 9), jv_k.namespace);
	assert_ptr_equal(jv_arena_intern_len(b, "statusX", 6), jv_k.status);
	/* spelled otherwise: the arena's own copy */
	const char *nam = jv_arena_intern(a, "nam"), *names = jv_arena_intern(a, "names");
	assert_string_equal(nam, "nam");
	assert_string_equal(names, "names");
	assert_ptr_not_equal(names, jv_k.name);
	assert_ptr_equal(jv_known_key("status"), jv_k.status);
	assert_ptr_equal(jv_known_key(jv_k.spec), jv_k.spec);
	assert_ptr_equal(jv_known_key(names), names);
	assert_null(jv_known_key(NULL));
	static const char text[] = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
				   "\"names\":1,\"nam\":2,\"name\":\"p\",\"namespace\":\"ns\","
				   "\"uid\":null},\"status\":{\"phase\":\"Running\"}}";
	json_object *o = parse(text);
	struct jv v1 = jv_from_json(a, o);
	const struct jv *v2 = jv_parse(b, text);
	struct jf_scratch sc = {0};
	struct jv v3;
	size_t used = 0;
	assert_int_equal(jf_parse(b, &sc, text, strlen(text), &v3, &used), JF_OK);
	jf_scratch_clear(&sc);
	const struct jv *all[] = {&v1, v2, &v3};
	for (size_t i = 0; i < ELEMENTSOF(all); i++) {
		const struct jv *v = all[i];
		const struct jv *meta = JQ(v, "metadata");
		assert_ptr_equal(v->u.m[2].key, jv_k.metadata);
		assert_ptr_equal(meta->u.m[2].key, jv_k.name);
		assert_ptr_equal(JQ(v, jv_k.metadata), meta);
		assert_string_equal(jq_name(v), "p");
		assert_string_equal(jq_namespace(v), "ns");
		assert_string_equal(jq_kind(v), "Pod");
		assert_ptr_equal(JQ(v, jv_k.metadata, jv_k.name), JQ(v, "metadata", "name"));
		assert_ptr_equal(JQ(v, jv_k.status, jv_k.phase), JQ(v, "status", "phase"));
		/* a null member: there, and NULL */
		const struct jv *r = v;
		assert_true(jv_get_ex(meta, jv_k.uid, &r));
		assert_null(r);
		assert_false(jv_get_ex(meta, jv_k.labels, &r));
		assert_false(jv_get_ex(v, jv_k.spec, NULL));
		assert_null(JQ(v, jv_k.kind, jv_k.name)); /* not an object */
	}
	json_object_put(o);
	jv_arena_free(a);
	jv_arena_free(b);
}

/* Values built in one arena stay valid when it is taken into another (the
 * directory loader's threads each build in their own). */
static void test_arena_take(void **state)
{
	(void)state;
	struct jv_arena *dst = jv_arena_new(), *src = jv_arena_new();
	json_object *o = parse("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"big\":\""
			       "0123456789012345678901234567890123456789\"}");
	struct jv before = jv_from_json(dst, o);
	struct jv vals[2000];
	for (size_t i = 0; i < ELEMENTSOF(vals); i++)
		vals[i] = jv_from_json(src, o);
	size_t both = jv_arena_size(dst) + jv_arena_size(src);
	jv_arena_take(dst, src);
	assert_int_equal(jv_arena_size(src), 0);
	assert_int_equal(jv_arena_size(dst), both);
	jv_arena_free(src);
	struct jv after = jv_from_json(dst, o); /* dst still allocates */
	for (size_t i = 0; i < ELEMENTSOF(vals); i++)
		assert_string_equal(jq_name(&vals[i]), "p");
	assert_string_equal(jq_kind(&before), "Pod");
	assert_string_equal(jq_kind(&after), "Pod");
	/* an empty arena taken, and one taken into an empty one */
	struct jv_arena *empty = jv_arena_new(), *fresh = jv_arena_new();
	jv_arena_take(dst, empty);
	jv_arena_take(fresh, dst);
	assert_string_equal(jq_name(&vals[1999]), "p");
	assert_string_equal(jq_name(&before), "p");
	jv_arena_free(empty);
	jv_arena_free(dst);
	jv_arena_free(fresh);
	json_object_put(o);
}

static void test_builder(void **state)
{
	(void)state;
	struct jv_arena *a = jv_arena_new();
	struct jv_builder b = {0};
	jv_builder_set(a, &b, "x", jv_string(a, "1"));
	jv_builder_set(a, &b, "y", jv_string(a, "2"));
	jv_builder_set(a, &b, "x", jv_string(a, "3")); /* replaces, keeps its place */
	assert_string_equal(jv_str(jv_builder_get(&b, "x")), "3");
	struct jv o = jv_builder_object(a, &b);
	assert_int_equal(jv_nmembers(&o), 2);
	assert_string_equal(jv_member(&o, 0, NULL), "x");
	assert_string_equal(JQS(&o, "x"), "3");
	struct jv w = jv_without(a, &o, "x");
	assert_int_equal(jv_nmembers(&w), 1);
	assert_null(JQ(&w, "x"));
	assert_int_equal(jv_nmembers(&o), 2); /* o is unchanged */
	struct jv r = jv_with(a, &o, "y", jv_string(a, "4"));
	assert_string_equal(JQS(&r, "y"), "4");
	assert_string_equal(JQS(&o, "y"), "2");
	struct jv z = jv_with(a, &o, "z", jv_string(a, "5"));
	assert_string_equal(jv_member(&z, 2, NULL), "z");
	jv_arena_free(a);
}

/* Every cluster fixture of the tests: json-c → jv → json-c is identical. */
static void round_trip_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	if (!d)
		fail_msg("cannot open %s", dir);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR) {
			round_trip_dir(path, count);
			continue;
		}
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 5, ".json") != 0)
			continue;
		json_object *o = json_object_from_file(path);
		if (!o)
			continue; /* deliberately malformed fixtures */
		assert_round_trip(o);
		json_object_put(o);
		(*count)++;
	}
	closedir(d);
}

static void test_round_trip_fixtures(void **state)
{
	(void)state;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/cluster", test_src());
	size_t count = 0;
	round_trip_dir(dir, &count);
	assert_true(count >= 30);
}

/* The state copies an added object; edits replace or remove one. */
static void test_cluster_state(void **state)
{
	(void)state;
	struct cluster_state cs;
	cluster_state_init(&cs);
	json_object *o = parse("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
			       "\"a\",\"namespace\":\"n\"}}");
	cs_add_object(&cs, RES_PODS, o);
	json_object_put(o); /* the caller's reference */
	o = parse("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\","
		  "\"namespace\":\"n\"}}");
	for (int i = 0; i < 100; i++)
		cs_add_object(&cs, RES_PODS, o);
	assert_int_equal(cs_count(&cs, RES_PODS), 101);
	assert_true(jv_is(cs_items(&cs, RES_PODS), JV_ARRAY));
	assert_string_equal(jq_name(cs_find(&cs, RES_PODS, "n", "a")), "a");
	assert_null(cs_find(&cs, RES_PODS, "other", "a"));
	cs_remove(&cs, RES_PODS, 0);
	assert_null(cs_find(&cs, RES_PODS, "n", "a"));
	json_object_object_add(o, "spec", json_object_new_object());
	cs_replace_object(&cs, RES_PODS, 5, o);
	assert_non_null(JQ(jq_at(cs_items(&cs, RES_PODS), 5), "spec"));
	assert_null(JQ(jq_at(cs_items(&cs, RES_PODS), 4), "spec"));
	json_object_put(o);
	cs_set_status(&cs, RES_PODS, RES_FORBIDDEN, "no");
	assert_null(cs_items(&cs, RES_PODS));
	assert_int_equal(cs_count(&cs, RES_PODS), 0);
	cs_set_status(&cs, RES_PODS, RES_COLLECTED, NULL);
	assert_int_equal(cs_count(&cs, RES_PODS), 0);
	cluster_state_clear(&cs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip_values), cmocka_unit_test(test_embedded_nul),
	    cmocka_unit_test(test_numbers),	      cmocka_unit_test(test_null_semantics),
	    cmocka_unit_test(test_interning),	      cmocka_unit_test(test_arena_take),
	    cmocka_unit_test(test_builder),	      cmocka_unit_test(test_round_trip_fixtures),
	    cmocka_unit_test(test_cluster_state),     cmocka_unit_test(test_known_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
