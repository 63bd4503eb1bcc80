/* schema.h - the version of summary.json's schema (docs/results.md) that
 * the writers write (results.c, phases.c); report.html (html/html.c) reads
 * it and schema 2, summary_read.c folds schema 1 into 2 for every reader. */
#ifndef LUAMECH_REPORT_SCHEMA_H
#define LUAMECH_REPORT_SCHEMA_H

#define RESULTS_SCHEMA_VERSION 2   /* 2: one timers[] entry per timer family, its views nested */

#endif
