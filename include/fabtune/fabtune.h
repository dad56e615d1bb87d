/* SPDX-License-Identifier: MIT */
/*
 * fabtune/fabtune.h - umbrella header of libfabtune.
 */
#ifndef FABTUNE_FABTUNE_H
#define FABTUNE_FABTUNE_H


#include <fabtune/archive.h>
#include <fabtune/base.h>
#include <fabtune/bench.h>
#include <fabtune/coll.h>
#include <fabtune/diag.h>
#include <fabtune/error.h>
#include <fabtune/json.h>
#include <fabtune/launch.h>
#include <fabtune/model.h>
#include <fabtune/nccl_table.h>
#include <fabtune/obs.h>
#include <fabtune/parse.h>
#include <fabtune/plan.h>
#include <fabtune/probe.h>
#include <fabtune/progress.h>
#include <fabtune/report.h>
#include <fabtune/result.h>
#include <fabtune/rng.h>
#include <fabtune/sim.h>
#include <fabtune/spec.h>
#include <fabtune/table.h>
#include <fabtune/topo.h>
#include <fabtune/units.h>
#include <fabtune/usage.h>
#include <fabtune/version.h>
#include <fabtune/workflow.h>
#endif
