/* report.h - every part of the report layer's interface at once, for a
 * file that writes all of them (results.c).  Include the part you need:
 *   report/console.h   the progress line and the end report
 *   report/results.h   the results directory and its files
 *   report/view.h      one closed interval's view (thresholds, health) and the interval bus
 *   report/derived.h   what they derive alike from a run (spans, stages, checks, rates)
 *   report/stop.h      merge --follow's stop request and mark
 *   report/schema.h    summary.json's schema version
 * report.html is the html layer's (html/html.h); the sub-commands are cmd/'s. */
#ifndef LUAMECH_REPORT_H
#define LUAMECH_REPORT_H

#include "report/console.h"
#include "report/derived.h"
#include "report/results.h"
#include "report/schema.h"
#include "report/stop.h"
#include "report/view.h"

#endif
