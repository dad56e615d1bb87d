/* SPDX-License-Identifier: MIT */
/*
 * fabtune/workflow.h - what combines modules for a user: the doctor loop
 * (probe, benchmark, the model's expectations, diagnosis, archive and
 * baseline), saving a run with its fingerprint, and the model's expectations
 * for measured rows.
 *
 * It also gathers the inputs of a diagnosis (tool outputs, expectations,
 * the model, a probe, thresholds), resolves run references (a run id,
 * "latest~N", a baseline name, an export file) and prepares what a report
 * or a comparison renders.
 *
 * This floor sits above probe, bench, model, diag, archive and report, and under the
 * command-line tool: it returns results and errors and never prints. What it
 * could not check is returned as notes (struct ft_doctor_note), never
 * written anywhere; rendering belongs to the caller.
 *
 * Ownership: results are caller-owned plain data, initialised by the call
 * and released with their _release function in every case (also after an
 * error). An archive handle passed in stays the caller's.
 */
#ifndef FABTUNE_WORKFLOW_H
#define FABTUNE_WORKFLOW_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/archive.h>
#include <fabtune/base.h>
#include <fabtune/diag.h>
#include <fabtune/error.h>
#include <fabtune/model.h>
#include <fabtune/obs.h>
#include <fabtune/progress.h>
#include <fabtune/report.h>
#include <fabtune/result.h>
#include <fabtune/spec.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- saving a run, expectations for measured rows ------------------------ */

/*
 * Save @run with @obs (NULL for none) and @nf findings @f to @ar, with this
 * host's fingerprint completed (or replaced, for the hosts of an imported
 * log) by what @obs tells: NCCL's version, other hosts' HCA firmware.
 * *@id gets the run id (may be NULL). 0 or a negative FT_E* code.
 */
FT_API int ft_workflow_save_run(struct ft_archive *ar, const struct ft_run *run,
				const struct ft_obs_set *obs, const struct ft_finding *f,
				size_t nf, int64_t *id, struct ft_error *err) FT_MUST_CHECK;

/*
 * Import a tool's text output @text (@len bytes, read from @path) as one
 * run: parsed as @format (NULL: detected), its observations kept, its
 * fingerprint taken from what they tell (where the output was taken, not
 * this host), saved to @ar; the run id is appended to @ids (int64_t).
 * FT_EPARSE naming @path when no parser knows the text.
 */
FT_API int ft_workflow_import_text(struct ft_archive *ar, const char *path, const char *format,
				   const char *text, size_t len, struct ft_vec *ids,
				   struct ft_error *err) FT_MUST_CHECK;

/*
 * Import the file @path whole or not at all: a fabtune export (JSON, when
 * @format is NULL or "fabtune") through ft_archive_import(), otherwise a
 * tool's text output through ft_workflow_import_text(). The new run ids
 * are appended to @ids (int64_t). 0 or a negative FT_E* code.
 */
FT_API int ft_workflow_import_file(struct ft_archive *ar, const char *path, const char *format,
				   struct ft_vec *ids, struct ft_error *err) FT_MUST_CHECK;

/*
 * Append to @ids (int64_t) the run that each of the @n references @refs
 * names (ft_archive_resolve(): 12, latest, latest~N), or every run of @ar,
 * oldest first, when @n is 0. The first reference that names no run stops,
 * naming it. 0 or a negative FT_E* code.
 */
FT_API int ft_workflow_resolve_runs(struct ft_archive *ar, const char *const *refs, size_t n,
				    struct ft_vec *ids, struct ft_error *err) FT_MUST_CHECK;

/*
 * One run @rec as `fabtune archive show` prints it: the text report (its
 * results, findings with evidence, observations and fingerprint; ANSI
 * colours with @color), or with @json the record as exported, pretty.
 * @stable leaves out ids, save times and versions. 0 or a negative FT_E*.
 */
FT_API int ft_workflow_run_write(struct ft_strbuf *sb, const struct ft_archive_record *rec,
				 bool json, bool stable, bool color,
				 struct ft_error *err) FT_MUST_CHECK;

/*
 * What the analytic model expects for the collective rows of @measured on
 * @spec: one struct ft_expectation per (test, size) appended to @expect
 * (NULL to skip), and one model row per (test, size) appended to @model
 * (NULL to skip). Rows whose test is not a collective (pt2pt_bw, pairs,
 * sendrecv...) and rows of transports other than @transport (NULL: every
 * transport) are left out. The rank count of a row is taken as the GPU
 * count when the spec has that many GPUs, else the whole spec (kb
 * NA-MODEL). Where the latency term wins the expectation is a time, else a
 * bus bandwidth (kb NA-BUSBW). *@n gets the number of points computed (may
 * be NULL). 0 or a negative FT_E* code from the model.
 */
FT_API int ft_workflow_model_expectations(const struct ft_cluster_spec *spec,
					  const struct ft_run *measured, const char *transport,
					  struct ft_vec *expect, struct ft_run *model, size_t *n,
					  struct ft_error *err) FT_MUST_CHECK;

/*
 * Calibrate @q's collective on @spec (ft_model_calibrate()) against the
 * nccl-tests output @path: the op is the file's first row's test unless
 * @op_given (then q->op), the rank count that of the first row of that op
 * unless q->ngpus is set. FT_EINVAL when the file holds no result rows or
 * an unknown test, the parser's and ft_model_calibrate()'s errors; @out is
 * released with ft_model_calib_release().
 */
FT_API int ft_workflow_model_calibrate_file(const struct ft_cluster_spec *spec,
                                            const struct ft_model_query *q, bool op_given,
                                            const char *path, struct ft_model_calib *out,
                                            struct ft_error *err) FT_MUST_CHECK;

/*
 * `fabtune model --calibrate`: each of the @nfiles nccl-tests outputs @files
 * fitted (ft_workflow_model_calibrate_file()) and written with its
 * residuals, then the calibration block of them all: one JSON object (spec,
 * curves, calibration_block) and a newline when @json, else text. The first
 * file that fails stops, its error prefixed with its path; @sb then holds
 * nothing worth writing.
 */
FT_API int ft_workflow_model_calibrate_write(const struct ft_cluster_spec *spec,
                                             const struct ft_model_query *q, bool op_given,
                                             const char *const *files, size_t nfiles,
                                             bool json, struct ft_strbuf *sb,
                                             struct ft_error *err) FT_MUST_CHECK;

/* ---- the inputs of a diagnosis -------------------------------------------- */

/* Where a diagnosis (or advice) reads from; zero-initialise, then set what is given. */
struct ft_workflow_sources {
	const char *const *files; /* tool outputs, @nfiles of them */
	size_t nfiles;
	const char *format;	 /* parse every file as this format; NULL: detect */
	const char *expect_file; /* YAML/JSON list of expectations; NULL: none */
	const char *spec;	 /* cluster spec or preset: the model's expectations */
	const char *thresholds;	 /* thresholds file; NULL: the defaults */
	bool probe;		 /* probe this host as one more input */
	const char *root;	 /* probe a captured tree (implies probe; no tools) */
	double interval_s;	 /* probe twice this far apart (implies probe) */
};

/* What was gathered: owned; @din points into it (do not copy the struct). */
struct ft_workflow_inputs {
	struct ft_obs_set obs;
	struct ft_vec expect; /* struct ft_expectation */
	struct ft_run rows;   /* every input's result rows (for the model and a save) */
	size_t nfiles;	      /* inputs read, the probe counting as one */
	size_t nskipped;      /* parse.skipped observations: lines not understood */
	struct ft_vec paths;  /* struct ft_input_path: the files, folders expanded */
	struct ft_vec unknown; /* const char *, into @paths: files of folders in no known format */
	bool spec_done;	      /* the spec's step ran (before any later error) */
	size_t nmodel;	      /* expectations the model gave for the spec */
	struct ft_diag_thresholds thresholds;
	struct ft_diag_input din; /* what ft_diag_run() and ft_advise() read */
};

FT_API void ft_workflow_inputs_init(struct ft_workflow_inputs *in);
FT_API void ft_workflow_inputs_release(struct ft_workflow_inputs *in);

/* Whether @src asks for a probe (probe, root or an interval). */
FT_API bool ft_workflow_sources_probe(const struct ft_workflow_sources *src);

/*
 * Gather the inputs @src names into @in (initialised by the caller), in
 * this order: parse each file, a folder standing for the files under it
 * (ft_input_paths_expand(); those in no known format are listed in
 * @in->unknown, and it is an error naming the folders when no file at all
 * was recognised), its rows also becoming observations (only
 * pairs rows as a matrix), read the expectations file, ask the model for
 * the spec's expectations of the collective rows (kb NA-MODEL) and add the
 * fabric's structure as observations, probe, read the thresholds. The
 * first error stops, naming the file (file:line:column where the parser
 * knows it) or the spec. 0 or a negative FT_E* code.
 */
FT_API int ft_workflow_inputs_gather(const struct ft_workflow_sources *src,
				     struct ft_workflow_inputs *in,
				     struct ft_error *err) FT_MUST_CHECK;

/* ---- a diagnosis and its advice, written ---------------------------------- */

/* The rules of ft_rule_at() as a table (rule, layer, severity, checks) or {"rules": [...]}. */
FT_API void ft_workflow_rules_write(struct ft_strbuf *sb, bool json);

/*
 * The findings @f of a diagnosis of @in: as text, a line saying what was
 * read, the files of folders in no known format ("skipped N files in no
 * known format: a, b"), the findings ranked in a table (severities coloured with @color),
 * then each with its message, fix, kb entry and evidence lines
 * ("    file:line: entity key = value unit") and the count per severity;
 * as JSON, ft_diag_json()'s object, with a "skipped" array of those files
 * when a folder was read. A full buffer sets @sb->oom.
 */
FT_API void ft_workflow_findings_write(struct ft_strbuf *sb, const struct ft_findings *f,
				       const struct ft_workflow_inputs *in, bool json, bool color);

/*
 * Advise on @in: ft_advise(), then the predicted gains of ft_advise_whatif_ex()
 * on the cluster of @w->spec (@w zeroed but for spec; its measured rows are
 * @in's). 0 or a negative FT_E* code.
 */
FT_API int ft_workflow_advise(const struct ft_workflow_inputs *in, struct ft_whatif_opts *w,
			      struct ft_advice_set *s, struct ft_error *err) FT_MUST_CHECK;

/* How advice is written. */
enum ft_advice_form {
	FT_ADVICE_TABLE, /* what was read, a table, then each change with why, how, gain, evidence */
	FT_ADVICE_JSON,	 /* ft_advice_json_ex() */
	FT_ADVICE_ENV,	 /* shell lines: export/unset per NCCL setting, system changes as comments */
};

/* The advice @s on @in with the what-if cluster @w, in @form. A full buffer sets @sb->oom. */
FT_API void ft_workflow_advice_write(struct ft_strbuf *sb, const struct ft_advice_set *s,
				     const struct ft_workflow_inputs *in,
				     const struct ft_whatif_opts *w, enum ft_advice_form form);

/* ---- run references and reports ------------------------------------------ */

/*
 * Load what @ref names into @records (struct ft_archive_record): a file (a
 * fabtune export, all its runs), a run reference (12, latest, latest~N) or,
 * when @baseline_ok, a baseline name (also as "baseline:NAME"). The archive
 * is opened on first need through *@ar, at @archive_path (NULL: the
 * default). @label receives a description ("run 12", "baseline 'nightly'
 * (3 runs)"). A path that is not a file is FT_ENOENT.
 */
FT_API int ft_workflow_load_ref(struct ft_archive **ar, const char *archive_path,
				const char *ref, bool baseline_ok, struct ft_vec *records,
				char *label, size_t len, struct ft_error *err) FT_MUST_CHECK;

/* Everything a comparison or a report needs, loaded from references. */
struct ft_workflow_report {
	struct ft_vec cur;	/* records; the first is reported */
	struct ft_vec base;	/* records of the baseline */
	struct ft_vec expected; /* records; the first is the model's expectation */
	const struct ft_run **bruns;
	struct ft_compare cmp;
	bool have_cmp;
	char cur_label[160];
	char base_label[200];
	struct ft_report_input in; /* points into the above */
};

/*
 * Load @run_ref, and @vs_ref / @expected_ref when not NULL (through
 * ft_workflow_load_ref), compare with @opts (NULL: defaults) when there is
 * a baseline, and fill r->in (stable: no times). Release with
 * ft_workflow_report_release() in any case. 0 or a negative FT_E* code.
 */
FT_API int ft_workflow_report_prepare(struct ft_archive **ar, const char *archive_path,
				      const char *run_ref, const char *vs_ref,
				      const char *expected_ref,
				      const struct ft_compare_opts *opts, bool stable,
				      struct ft_workflow_report *r,
				      struct ft_error *err) FT_MUST_CHECK;
FT_API void ft_workflow_report_release(struct ft_workflow_report *r);

/* ---- the doctor loop ------------------------------------------------------ */

#define FT_DOCTOR_MAX_TRANSPORTS 8

/* What the doctor is asked to do; zero-initialise, then set what differs. */
struct ft_doctor_cfg {
	const char *spec;	/* cluster spec or preset; NULL: from the GPUs found */
	const char *transports; /* "tcp,shm": only these (each must work); NULL: every usable */
	const char *baseline;	/* baseline name; NULL: "doctor-HOST" */
	const char *root;	/* probe a captured sysfs tree (no tools); NULL: this host */
	bool full;		/* the longer suite (more sizes and iterations) */
	bool no_bench;		/* probe and diagnose only */
	bool no_save;		/* do not store the run */
	bool no_tools;		/* do not run nvidia-smi, ibv_devinfo, ethtool */
	bool update_baseline;	/* add this run to an existing baseline */
	bool stable;		/* no wall-clock figures in the record (reproducible output) */
	uint32_t np;		/* local ranks to fork without MPI (2..64) */
	double timeout_s;	/* a silent rank has failed after this long */
	/*
	 * Where the run is saved and the baseline read, opened by the caller
	 * (so a bad path fails before any work); NULL: no archive step.
	 */
	struct ft_archive *ar;
};

/* Something the doctor could not check, and why (also a doctor.unchecked observation). */
struct ft_doctor_note {
	char what[32]; /* "probe", "bench", "tcp", "model", "other hosts"... */
	char why[256];
};

/*
 * Everything one doctor run found, for the caller to render. Counters are
 * zero and strings empty for steps that did not run.
 */
struct ft_doctor_result {
	bool root; /* this process reports (rank 0); the other MPI ranks only took part */
	char host[64];
	/* probe */
	size_t nprobe_obs; /* observations of the probe (every host under MPI) */
	size_t nhosts;
	double ngpus;	    /* GPUs, each host's counted once */
	char gpu_model[160];
	size_t nrdma;	    /* RDMA devices */
	/* benchmark */
	bool under_mpi;
	uint32_t nranks;
	char transports[FT_DOCTOR_MAX_TRANSPORTS][16];
	size_t ntransports;
	double bench_s;
	size_t nbench_ok, nbench_failed;
	bool interrupted; /* a benchmark was stopped by the stop flag */
	/* model */
	bool have_spec;
	char spec_name[128];
	struct ft_cluster_spec spec;
	struct ft_vec expect;	   /* struct ft_expectation, one per measured NCCL point */
	struct ft_run model;	   /* the expectations as rows (report charts) */
	double plateau_busbw_GBps; /* all_reduce of 1 GiB on the whole spec; NAN if unknown */
	uint32_t plateau_ranks;
	/* the record: run, observations, findings, fingerprint */
	struct ft_archive_record rec;
	struct ft_findings findings;
	struct ft_vec notes; /* struct ft_doctor_note */
	/* archive and baseline */
	bool archived;	/* the archive step completed (archive_rc is 0) */
	int archive_rc; /* 0, or why the archive step failed (archive_err) */
	struct ft_error archive_err;
	int64_t run_id;
	char baseline[64];
	bool new_baseline;	/* this run became the baseline */
	bool added_to_baseline; /* update_baseline: added to an existing one */
	/* The host's own baseline had fewer runs than a noise-aware band needs
	 * (FT_DOCTOR_FORMING_RUNS): this run was added to it, and its changes are
	 * shown but not judged a regression. */
	bool forming;
	struct ft_vec base;	/* struct ft_archive_record: the baseline before this run */
	const struct ft_run **bruns; /* the baseline's runs, base.len of them */
	bool have_cmp;
	struct ft_compare cmp;
	char base_label[160];
};

/* Runs the host's own doctor baseline gathers before a change is judged: the
 * samples ft_compare_runs() needs for a band from their spread. */
#define FT_DOCTOR_FORMING_RUNS 3

/* A change against the baseline that counts: a regression, and not against a forming one. */
FT_API bool ft_doctor_regressed(const struct ft_doctor_result *res);

FT_API void ft_doctor_result_release(struct ft_doctor_result *res);

/*
 * The launcher this process was started by makes sense for the doctor: a
 * multi-task srun without PMI cannot bootstrap (FT_EINVAL saying so).
 * *@rank gets this process's launcher rank (0 without a launcher).
 */
FT_API int ft_doctor_check_launch(unsigned *rank, struct ft_error *err) FT_MUST_CHECK;

/*
 * Run the doctor loop: probe this host (under mpirun/srun every host,
 * gathered at rank 0), a short benchmark suite over every usable transport
 * (local ranks forked here, or the MPI ranks), the analytic model's
 * expectations for the given or detected cluster, the diagnosis, then save
 * and compare with the baseline in cfg->ar. Progress goes to @progress (may
 * be NULL); raising *@stop (may be NULL) ends the benchmark early.
 *
 * Returns 0 when the loop ran to its end: what it found, and what it could
 * not check, is in @res (a failed archive step in res->archive_rc). A
 * negative FT_E* code when it could not: FT_EINVAL for a bad spec or
 * transport list, FT_EINTR when stopped, FT_ENOMEM... with @err filled.
 * @res is initialised in every case; release it with ft_doctor_result_release().
 */
FT_API int ft_doctor_run(const struct ft_doctor_cfg *cfg, const struct ft_progress *progress,
			 volatile sig_atomic_t *stop, struct ft_doctor_result *res,
			 struct ft_error *err) FT_MUST_CHECK;

/* How the caller settled a doctor run, for the summary and its JSON. */
struct ft_doctor_view {
	int exit_code;		  /* 0 healthy, 1 findings or a regression, other: incomplete */
	const char *archive_path; /* where the run was saved; NULL: no archive step to show */
	const char *report;	  /* the HTML report written; NULL: none */
	bool no_save;		  /* the run was not saved on purpose */
	bool stable;		  /* no paths, times or durations (reproducible output) */
	bool color;		  /* ANSI colours in the verdict */
};

/*
 * The summary of @res for a terminal: what was probed and measured, each
 * result against the baseline, the model's plateau, the findings, the
 * archive and baseline, what was not checked and the verdict.
 */
FT_API void ft_doctor_write_text(struct ft_strbuf *sb, const struct ft_doctor_result *res,
				 const struct ft_doctor_view *v);
/*
 * The HTML report of @res (ft_report_render()): the run, the model's
 * expectations, the comparison with the baseline when there was one, titled
 * "fabtune doctor: HOST"; @stable leaves out times. 0 or a negative FT_E*.
 */
FT_API int ft_doctor_write_html(struct ft_strbuf *sb, const struct ft_doctor_result *res,
				bool stable, struct ft_error *err) FT_MUST_CHECK;
/* The same as one JSON object (host, status, exit, probe, bench, model, diagnosis...). */
FT_API void ft_doctor_write_json(struct ft_strbuf *sb, const struct ft_doctor_result *res,
				 const struct ft_doctor_view *v);

#ifdef __cplusplus
}
#endif

#endif
