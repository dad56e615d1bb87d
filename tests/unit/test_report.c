/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_report.c - the renderers: format names, text sections,
 * CSV shape and quoting, Prometheus escaping and de-duplication, the HTML
 * page's structure, escaping and determinism, the pairs heatmap and link
 * utilization conventions. (promtool and Chromium checks are in
 * tests/report/.)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include "source_root.h"

#include <fabtune/fabtune.h>

static void
load(const char *path, struct ft_vec *records)
{
	struct ft_error err = { 0 };
	struct ft_strbuf sb;

	ft_vec_init(records, sizeof(struct ft_archive_record));
	ft_strbuf_init(&sb);
	assert_int_equal(ft_strbuf_read_file(&sb, path, &err), 0);
	if (ft_archive_parse_export(sb.buf, sb.len, path, records, &err) < 0)
		fail_msg("%s", err.msg);
	ft_strbuf_release(&sb);
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)) != NULL; hay++)
		n++;
	return n;
}

static void
render(const struct ft_report_input *in, enum ft_report_format f, struct ft_strbuf *out)
{
	struct ft_error err = { 0 };

	ft_strbuf_init(out);
	if (ft_report_render(in, f, out, &err) < 0)
		fail_msg("%s", err.msg);
}

static void
test_format_names(void **state)
{
	enum ft_report_format f;
	struct ft_error err = { 0 };

	assert_int_equal(ft_report_format_from_name("prom", &f, &err), 0);
	assert_int_equal(f, FT_REPORT_PROM);
	assert_int_equal(ft_report_format_from_name("pdf", &f, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "got 'pdf'"));
	assert_int_equal(ft_report_format_from_path("out/report.HTML", &f), 0);
	assert_int_equal(f, FT_REPORT_HTML);
	assert_int_equal(ft_report_format_from_path("metrics.prom", &f), 0);
	assert_int_equal(f, FT_REPORT_PROM);
	assert_int_equal(ft_report_format_from_path("report", &f), FT_EINVAL);
	assert_string_equal(ft_report_format_name(FT_REPORT_CSV), "csv");
	{
		struct ft_report_input in = { 0 };
		struct ft_strbuf sb;

		ft_strbuf_init(&sb);
		assert_int_equal(ft_report_render(&in, FT_REPORT_TEXT, &sb, NULL), FT_EINVAL);
		ft_strbuf_release(&sb);
	}
}

/* The fixture run against its baseline, with the model. */
struct fixture {
	struct ft_vec cur, base, model;
	const struct ft_run *bruns[8];
	struct ft_compare cmp;
	struct ft_report_input in;
};

static void
fixture_init(struct fixture *fx)
{
	struct ft_error err = { 0 };
	size_t i;

	memset(fx, 0, sizeof(*fx));
	load("tests/fixtures/archive/h100-current.json", &fx->cur);
	load("tests/fixtures/archive/h100-baseline.json", &fx->base);
	load("tests/fixtures/archive/h100-model.json", &fx->model);
	assert_true(fx->base.len <= 8);
	for (i = 0; i < fx->base.len; i++)
		fx->bruns[i] = &FT_VEC_AT(&fx->base, struct ft_archive_record, i).run;
	fx->in.run = ft_vec_at(&fx->cur, 0);
	assert_int_equal(
	        ft_compare_runs(&fx->in.run->run, fx->bruns, fx->base.len, NULL, &fx->cmp, &err),
	        0);
	fx->in.cmp = &fx->cmp;
	fx->in.baseline = fx->bruns;
	fx->in.nbaseline = fx->base.len;
	fx->in.baseline_label = "baseline 'default' (3 runs)";
	fx->in.baseline_fp = &FT_VEC_AT(&fx->base, struct ft_archive_record, 2).fp;
	fx->in.expected = &FT_VEC_AT(&fx->model, struct ft_archive_record, 0).run;
	fx->in.stable = true;
}

static void
fixture_release(struct fixture *fx)
{
	ft_compare_release(&fx->cmp);
	ft_archive_records_release(&fx->cur);
	ft_archive_records_release(&fx->base);
	ft_archive_records_release(&fx->model);
}

static void
test_text_sections(void **state)
{
	struct fixture fx;
	struct ft_strbuf out;

	fixture_init(&fx);
	render(&fx.in, FT_REPORT_TEXT, &out);
	assert_non_null(strstr(out.buf, "results (14)"));
	assert_non_null(strstr(out.buf, "6 regressed, 1 improved, 7 unchanged"));
	assert_non_null(strstr(out.buf, "ib.mlx5_0.fw_ver  28.39.1002  28.40.1000"));
	assert_non_null(strstr(out.buf, "fabtune.version = VERSION"));
	/* Findings come by layer: communication library before firmware/hardware. */
	assert_true(strstr(out.buf, "communication library") <
	            strstr(out.buf, "firmware/hardware"));
	ft_strbuf_release(&out);

	fx.in.sections = FT_REPORT_SEC_COMPARE;
	render(&fx.in, FT_REPORT_TEXT, &out);
	assert_null(strstr(out.buf, "results ("));
	assert_null(strstr(out.buf, "findings ("));
	assert_non_null(strstr(out.buf, "comparison with baseline 'default'"));
	ft_strbuf_release(&out);
	fixture_release(&fx);
}

/* Fields of one CSV line, honouring quotes; -1 for a malformed line. */
static int
csv_fields(const char *line, size_t len)
{
	bool quoted = false;
	int n = 1;
	size_t i;

	for (i = 0; i < len; i++) {
		if (line[i] == '"') {
			if (quoted && i + 1 < len && line[i + 1] == '"')
				i++;
			else
				quoted = !quoted;
		} else if (line[i] == ',' && !quoted) {
			n++;
		}
	}
	return quoted ? -1 : n;
}

static void
test_csv(void **state)
{
	struct ft_archive_record rec;
	struct ft_report_input in = { 0 };
	struct ft_result_row r;
	struct ft_strbuf out;
	struct fixture fx;
	const char *p;
	int fields = -2, lines = 0;

	fixture_init(&fx);
	render(&fx.in, FT_REPORT_CSV, &out);
	for (p = out.buf; *p;) {
		const char *eol = strstr(p, "\r\n");
		int n;

		assert_non_null(eol);
		n = csv_fields(p, (size_t)(eol - p));
		if (fields == -2)
			fields = n;
		assert_int_equal(n, fields);
		lines++;
		p = eol + 2;
	}
	assert_int_equal(fields, 15 + 8);
	assert_int_equal(lines, 1 + 14);
	assert_non_null(strstr(out.buf, ",busbw,388.05"));
	ft_strbuf_release(&out);
	fixture_release(&fx);

	/* Quoting: commas, quotes and newlines in a field. */
	ft_archive_record_init(&rec);
	ft_result_row_init(&r);
	ft_strlcpy(r.test, "pairs", sizeof(r.test));
	ft_strlcpy(r.src, "rack 1, \"node\" a", sizeof(r.src));
	ft_strlcpy(r.dst, "b\nc", sizeof(r.dst));
	r.bytes = 4096;
	r.algbw_GBps = 1.25;
	assert_int_equal(ft_run_add(&rec.run, &r), 0);
	in.run = &rec;
	render(&in, FT_REPORT_CSV, &out);
	assert_non_null(
	        strstr(out.buf, "pairs,,4096,0,\"rack 1, \"\"node\"\" a\",\"b\nc\",,,,1.25,"));
	ft_strbuf_release(&out);
	ft_archive_record_release(&rec);
}

static void
test_prom(void **state)
{
	struct ft_archive_record rec;
	struct ft_report_input in = { 0 };
	struct ft_result_row r;
	struct ft_strbuf out;
	const char *p;

	ft_archive_record_init(&rec);
	ft_strlcpy(rec.run.kind, "k\"1\\\n2", sizeof(rec.run.kind));
	ft_result_row_init(&r);
	ft_strlcpy(r.test, "all_reduce", sizeof(r.test));
	ft_strlcpy(r.transport, "tcp", sizeof(r.transport));
	r.bytes = 1 << 20;
	r.nranks = 2;
	r.busbw_GBps = 1.0;
	assert_int_equal(ft_run_add(&rec.run, &r), 0);
	r.busbw_GBps = 2.0; /* the same result again: one sample, the mean */
	assert_int_equal(ft_run_add(&rec.run, &r), 0);
	in.run = &rec;
	in.stable = true;
	render(&in, FT_REPORT_PROM, &out);
	assert_non_null(strstr(out.buf, "kind=\"k\\\"1\\\\\\n2\""));
	assert_int_equal(count(out.buf, "fabtune_bus_bandwidth_bytes_per_second{"), 1);
	assert_non_null(strstr(
	        out.buf, "fabtune_bus_bandwidth_bytes_per_second{transport=\"tcp\","
	                 "test=\"all_reduce\",size=\"1048576\",ranks=\"2\"} 1500000000\n"));
	assert_int_equal(count(out.buf, "# TYPE fabtune_findings gauge"), 1);
	assert_null(strstr(out.buf, "saved_timestamp"));
	/* Every line is a comment or a sample of a fabtune_ family. */
	for (p = out.buf; *p; p = strchr(p, '\n') + 1)
		assert_true(p[0] == '#' || strncmp(p, "fabtune_", 8) == 0);
	ft_strbuf_release(&out);
	ft_archive_record_release(&rec);
}

static void
add_counter(struct ft_obs_set *set, const char *key, const char *dev, int port, double v,
            const char *unit)
{
	struct ft_obs o;

	ft_obs_init(&o, key);
	ft_strlcpy(o.host, "h1", sizeof(o.host));
	ft_strlcpy(o.device, dev, sizeof(o.device));
	o.port = port;
	o.has_num = true;
	o.num = v;
	ft_strlcpy(o.unit, unit, sizeof(o.unit));
	assert_int_equal(ft_obs_set_add(set, &o), 0);
}

/*
 * A probe's counters in the exposition format: node_exporter's names with
 * fabtune_ for node_, 4-byte words in bytes, PFC per priority as a label,
 * rates as gauges, one HELP/TYPE per family, unknown counters sanitised.
 */
static void
test_prom_obs(void **state)
{
	struct ft_error err = { 0 };
	struct ft_obs_set set;
	struct ft_strbuf out;

	ft_obs_set_init(&set);
	add_counter(&set, "ib.counter.PortXmitData", "mlx5_0", 1, 1000, "4B");
	add_counter(&set, "ib.counter.PortXmitData", "mlx5_1", 1, 10, "4B");
	add_counter(&set, "ib.counter.PortXmitData.rate", "mlx5_0", 1, 250, "4B/s");
	add_counter(&set, "ib.hw_counter.np_cnp_sent.rate", "mlx5_0", 1, 12.5, "count/s");
	add_counter(&set, "ib.hw_counter.rp_cnp_handled", "mlx5_0", 1, 3, "count");
	add_counter(&set, "ib.hw_counter.np_ecn_marked_roce_packets", "mlx5_0", 1, 9, "count");
	add_counter(&set, "ib.hw_counter.odd-name.x", "mlx5_0", 1, 2, "count");
	add_counter(&set, "eth.counter.rx_prio3_pause", "ens1", 0, 7, "count");
	add_counter(&set, "eth.counter.tx_prio0_pause.rate", "ens1", 0, 1.5, "count/s");
	add_counter(&set, "eth.counter.rx_bytes", "ens1", 0, 64, "count");
	add_counter(&set, "ib.port.state", "mlx5_0", 1, 4, ""); /* not a counter */
	ft_strbuf_init(&out);
	assert_int_equal(ft_report_obs_prom(&set, &out, &err), 0);
	assert_non_null(strstr(out.buf, "# TYPE fabtune_infiniband_port_data_transmitted_bytes_total "
	                                "counter\n"));
	assert_int_equal(count(out.buf, "# TYPE fabtune_infiniband_port_data_transmitted_bytes_total"), 1);
	assert_non_null(strstr(out.buf, "fabtune_infiniband_port_data_transmitted_bytes_total{host=\"h1\","
	                                "device=\"mlx5_0\",port=\"1\"} 4000\n"));
	assert_non_null(strstr(out.buf, "fabtune_infiniband_port_data_transmitted_bytes_total{host=\"h1\","
	                                "device=\"mlx5_1\",port=\"1\"} 40\n"));
	assert_non_null(strstr(out.buf, "# TYPE fabtune_infiniband_port_data_transmitted_bytes_per_second "
	                                "gauge\n"));
	assert_non_null(strstr(out.buf, "fabtune_infiniband_port_data_transmitted_bytes_per_second{"
	                                "host=\"h1\",device=\"mlx5_0\",port=\"1\"} 1000\n"));
	assert_non_null(strstr(out.buf, "fabtune_infiniband_np_cnp_packets_sent_per_second{host=\"h1\","
	                                "device=\"mlx5_0\",port=\"1\"} 12.5\n"));
	assert_non_null(strstr(out.buf, "fabtune_infiniband_rp_cnp_packets_handled_total{"));
	assert_non_null(strstr(out.buf, "fabtune_infiniband_np_ecn_marked_roce_packets_received_total{"));
	assert_non_null(strstr(out.buf, "fabtune_infiniband_odd_name_x_total{"));
	assert_non_null(strstr(out.buf, "fabtune_pfc_pause_frames_received_total{host=\"h1\","
	                                "device=\"ens1\",priority=\"3\"} 7\n"));
	assert_non_null(strstr(out.buf, "fabtune_pfc_pause_frames_transmitted_per_second{host=\"h1\","
	                                "device=\"ens1\",priority=\"0\"} 1.5\n"));
	assert_non_null(strstr(out.buf, "fabtune_network_receive_bytes_total{host=\"h1\","
	                                "device=\"ens1\"} 64\n"));
	assert_null(strstr(out.buf, "state"));
	ft_strbuf_release(&out);
	ft_obs_set_release(&set);
}

static void
test_html(void **state)
{
	struct ft_strbuf a, b;
	struct fixture fx;

	fixture_init(&fx);
	render(&fx.in, FT_REPORT_HTML, &a);
	render(&fx.in, FT_REPORT_HTML, &b);
	assert_string_equal(a.buf, b.buf); /* deterministic */
	assert_non_null(strstr(a.buf, "<!DOCTYPE html>"));
	assert_null(strstr(a.buf, "<script"));
	/* No network: the only URL is the SVG namespace. */
	assert_int_equal(count(a.buf, "http"), count(a.buf, "http://www.w3.org/2000/svg"));
	assert_non_null(strstr(a.buf, "<svg id=\"chart-bw-all-reduce\""));
	assert_non_null(strstr(a.buf, "<svg id=\"chart-lat-all-reduce\""));
	assert_non_null(strstr(a.buf, "<section id=\"comparison\">"));
	assert_non_null(strstr(a.buf, "<section id=\"changes\">"));
	/* Measured, baseline and model series in the bandwidth chart. */
	assert_non_null(strstr(a.buf, "measured (nccl)"));
	assert_non_null(strstr(a.buf, "baseline (nccl)"));
	assert_non_null(strstr(a.buf, "expected (model)"));
	assert_int_equal(count(a.buf, "<span class=\"badge regressed\">regressed</span>"), 6);
	assert_null(strstr(a.buf, "<p class=\"note\">fabtune ")); /* stable: no version */
	ft_strbuf_release(&a);
	ft_strbuf_release(&b);
	fixture_release(&fx);
}

static void
test_html_pairs_links(void **state)
{
	struct ft_report_input in = { 0 };
	struct ft_strbuf out;
	struct ft_vec recs;
	const char *p;

	load("tests/fixtures/archive/fabric-doctor.json", &recs);
	in.run = ft_vec_at(&recs, 0);
	in.stable = true;
	render(&in, FT_REPORT_HTML, &out);
	/* 6 hosts: a 6x6 matrix, the 6 diagonal cells absent (grey). */
	assert_int_equal(count(out.buf, "class=\"cell\""), 36);
	assert_int_equal(count(out.buf, "fill=\"#e4e4e4\" class=\"cell\""), 6);
	/* Link bars, busiest first. */
	p = strstr(out.buf, "<svg id=\"link-util\"");
	assert_non_null(p);
	assert_true(strstr(p, "gpu04-&gt;leaf2") < strstr(p, "leaf1-&gt;spine1"));
	assert_non_null(strstr(p, "97.0%"));
	/* Escaped label; findings grouped by layer. */
	assert_non_null(strstr(out.buf, "fabtune doctor &lt;script&gt; &amp; &quot;quotes&quot;"));
	assert_non_null(strstr(out.buf, "<h3 id=\"layer-os-driver\">"));
	assert_non_null(strstr(out.buf, "<h3 id=\"layer-fabric\">"));
	/* An absolute scale: the best pair is 100%, gpu04's 46.5-GB/s peers about 47%. */
	assert_non_null(strstr(out.buf, ">100% = "));
	assert_non_null(strstr(out.buf, "(100% of the best pair)"));
	/* Readable: 6 hosts take 6 cells of 96 px. */
	assert_non_null(strstr(out.buf, "width=\"96.0\" height=\"96.0\""));
	assert_null(strstr(out.buf, "pairs-latency")); /* no latency in these rows */
	ft_strbuf_release(&out);

	/* Pairs with latencies give the latency matrix, best (lowest) = 100%. */
	{
		struct ft_archive_record rec;
		struct ft_result_row r;
		static const char *const h[3] = { "a", "b", "c" };

		ft_archive_record_init(&rec);
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++) {
				if (i == k)
					continue;
				ft_result_row_init(&r);
				ft_strlcpy(r.test, FT_REPORT_TEST_PAIRS, sizeof(r.test));
				ft_strlcpy(r.src, h[i], sizeof(r.src));
				ft_strlcpy(r.dst, h[k], sizeof(r.dst));
				r.busbw_GBps = 10;
				r.lat_p50_us = k == 2 ? 20 : 5; /* to c: 4x slower */
				assert_int_equal(ft_run_add(&rec.run, &r), 0);
			}
		in.run = &rec;
		render(&in, FT_REPORT_HTML, &out);
		p = strstr(out.buf, "<svg id=\"pairs-latency\"");
		assert_non_null(p);
		assert_non_null(strstr(p, "a -&gt; c: 20.00 median latency us (25% of the best pair)"));
		assert_non_null(strstr(p, "a -&gt; b: 5.00 median latency us (100% of the best pair)"));
		ft_strbuf_release(&out);
		ft_archive_record_release(&rec);
		in.run = ft_vec_at(&recs, 0);
	}

	/* The same utilization from link_util rows (carried / capacity). */
	{
		struct ft_archive_record rec;
		struct ft_result_row r;

		ft_archive_record_init(&rec);
		ft_result_row_init(&r);
		ft_strlcpy(r.test, FT_REPORT_TEST_LINK_UTIL, sizeof(r.test));
		ft_strlcpy(r.src, "leaf1", sizeof(r.src));
		ft_strlcpy(r.dst, "spine3", sizeof(r.dst));
		r.algbw_GBps = 30;
		r.busbw_GBps = 40;
		assert_int_equal(ft_run_add(&rec.run, &r), 0);
		in.run = &rec;
		render(&in, FT_REPORT_HTML, &out);
		assert_non_null(strstr(out.buf, "leaf1-&gt;spine3: 75.0%"));
		assert_non_null(strstr(out.buf, "No pairs measured"));
		ft_strbuf_release(&out);
		render(&in, FT_REPORT_PROM, &out);
		assert_non_null(strstr(out.buf,
		                       "fabtune_link_utilization_ratio{link=\"leaf1->spine3\"} "
		                       "0.75\n"));
		ft_strbuf_release(&out);
		ft_archive_record_release(&rec);
	}
	ft_archive_records_release(&recs);
}

/*
 * Traces in the HTML report: a port's rate and queue, and a QP's reaction-point rate
 * charted apart (Gb/s, its own section), each on its own time axis. The QP's 4 points
 * of 2 us: x at 2, 4, 6, 8 us of 8 over the plot's 590 px from 70; y of 100 Gb/s (the
 * axis top, a step of 50) at 34, 50 at the middle of the 146 px plot. Sixteen ports
 * fill the ports' cap, not the QPs'.
 */
static void
test_html_traces(void **state)
{
	static const double qp_Gbps[4] = { 100, 50, 75, 100 };
	struct ft_report_input in = { 0 };
	struct ft_archive_record rec;
	struct ft_obs_set *set;
	struct ft_strbuf out;
	char dev[48];
	const char *p;

	(void)state;
	ft_archive_record_init(&rec);
	set = &rec.obs;
	for (int i = 0; i < 16; i++) {
		snprintf(dev, sizeof(dev), "leaf0->n%d.nic0", i);
		add_counter(set, "sim.trace.interval", dev, -1, 1e-6, "s");
		for (int k = 0; k < 3; k++) {
			add_counter(set, "sim.trace.rate", dev, k, 10.0 * (k + 1), "GBps");
			add_counter(set, "sim.trace.queue", dev, k, 1000.0 * k, "bytes");
		}
	}
	add_counter(set, "sim.trace.qp.interval", "flow 3: n1.gpu0->n0.gpu0 qp 0", -1, 2e-6, "s");
	for (int k = 0; k < 4; k++) {
		add_counter(set, "sim.trace.qp.rate", "flow 3: n1.gpu0->n0.gpu0 qp 0", k, qp_Gbps[k],
		            "Gbps");
		add_counter(set, "sim.trace.qp.alpha", "flow 3: n1.gpu0->n0.gpu0 qp 0", k, 0.5, "");
	}
	in.run = &rec;
	in.stable = true;
	render(&in, FT_REPORT_HTML, &out);
	assert_int_equal(count(out.buf, "<svg id=\"trace-rate-"), 16);
	assert_int_equal(count(out.buf, "<svg id=\"trace-queue-"), 16);
	p = strstr(out.buf, "<section id=\"qp-traces\">\n<h2>QP rates</h2>");
	assert_non_null(p);
	assert_true(p > strstr(out.buf, "<section id=\"traces\">"));
	p = strstr(p, "<svg id=\"trace-qp-rate-0\"");
	assert_non_null(p);
	assert_null(strstr(p + 1, "<svg id=\"trace-qp-rate-1\""));
	assert_null(strstr(out.buf, "trace-qp-queue"));
	assert_non_null(strstr(p, "flow 3: n1.gpu0-&gt;n0.gpu0 qp 0: reaction-point rate"));
	assert_non_null(strstr(p, ">Gb/s</text>"));
	assert_non_null(strstr(p, ">100</text>"));
	assert_non_null(strstr(p, "points=\"217.5,34.0 365.0,107.0 512.5,70.5 660.0,34.0\""));
	ft_strbuf_release(&out);
	ft_archive_record_release(&rec);
}

static void
test_json(void **state)
{
	struct ft_strbuf out;
	struct fixture fx;

	fixture_init(&fx);
	render(&fx.in, FT_REPORT_JSON, &out);
	assert_non_null(strstr(out.buf, "\"format\": \"fabtune-report\""));
	assert_non_null(strstr(out.buf, "\"regression\": true"));
	assert_non_null(strstr(out.buf, "\"expected\": {"));
	assert_non_null(strstr(out.buf, "\"key\": \"env.NCCL_ALGO\""));
	assert_null(strstr(out.buf, "fabtune_version"));
	ft_strbuf_release(&out);
	fixture_release(&fx);
}

/* The format of a report: the name given wins, then --json, then the file's extension. */
static void
test_format_pick(void **state)
{
	enum ft_report_format f;
	struct ft_error err = { 0 };

	(void)state;
	assert_int_equal(ft_report_format_pick("csv", true, "r.html", &f, &err), 0);
	assert_int_equal(f, FT_REPORT_CSV);
	assert_int_equal(ft_report_format_pick(NULL, true, "r.html", &f, &err), 0);
	assert_int_equal(f, FT_REPORT_JSON);
	assert_int_equal(ft_report_format_pick(NULL, false, "r.HTM", &f, &err), 0);
	assert_int_equal(f, FT_REPORT_HTML);
	assert_int_equal(ft_report_format_pick(NULL, false, "r.pdf", &f, &err), 0);
	assert_int_equal(f, FT_REPORT_TEXT);
	assert_int_equal(ft_report_format_pick(NULL, false, NULL, &f, &err), 0);
	assert_int_equal(f, FT_REPORT_TEXT);
	assert_int_equal(ft_report_format_pick("pdf", false, NULL, &f, &err), FT_EINVAL);
	assert_string_equal(err.msg, "format: expected text, json, csv, html or prom, got 'pdf'");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_names), cmocka_unit_test(test_text_sections),
		cmocka_unit_test(test_csv),          cmocka_unit_test(test_prom),
		cmocka_unit_test(test_html),         cmocka_unit_test(test_html_pairs_links),
		cmocka_unit_test(test_html_traces),
		cmocka_unit_test(test_json),         cmocka_unit_test(test_prom_obs),
		cmocka_unit_test(test_format_pick),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
