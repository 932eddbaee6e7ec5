/* Output options against inputs: a report, export, reduced or transformed
 * program must never be written over a file the command reads (today's
 * results database, the failing program), and `-` means standard output
 * for every output option. Files are compared by identity (device and
 * inode) when both exist, else by their resolved paths; a results
 * database also stands for its SQLite siblings (-wal, -journal, -shm). */
#ifndef VC_OUTPATH_H
#define VC_OUTPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/base/strbuf.h"

/* A file a command reads or writes, with how the messages name it:
   role "--html" for an output option, "the results database" for an input. */
typedef struct vc_io_file {
  const char *role;
  const char *path;
  bool database; /* an input SQLite opens: its -wal, -journal and -shm too */
} vc_io_file;

/* Is path `-`, standard output? */
bool vc_out_is_stdout(const char *path);
/* 0, or VC_ERR_USAGE naming both files: an output (outs[i], NULL paths
   skipped) that is one of the inputs (or a sibling of an input database),
   the same file as another output, or `-` given to two outputs. */
int vc_out_check(const vc_io_file *outs, uint32_t nouts, const vc_io_file *ins, uint32_t nins,
                 vc_error *err);
/* Writes sb to path, or to standard output when path is `-`. */
int vc_out_write(const char *path, const vc_strbuf *sb, vc_error *err);

#endif
