#include "results/store/sqlerr.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

bool vc_db_missing_dir(const char *path, char *dir, size_t n) {
  const char *slash = strrchr(path, '/');
  if (!slash) return false; /* the working directory */
  if (slash == path)
    snprintf(dir, n, "/");
  else
    snprintf(dir, n, "%.*s", (int)(slash - path), path);
  struct stat st;
  return stat(dir, &st) != 0 || !S_ISDIR(st.st_mode);
}

int vc_sqlfail(vc_error *err, sqlite3 *sql, int rc, const char *path, int busy_ms,
               const char *what) {
  const char *detail = sql ? sqlite3_errmsg(sql) : sqlite3_errstr(rc);
  switch (rc & 0xff) {
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return vc_fail(err, VC_ERR_DB, "results database %s is locked by another writer; waited %d ms",
                   path, busy_ms);
  case SQLITE_FULL:
    return vc_fail(err, VC_ERR_DB,
                   "results database %s is full (%s: %s); rows recorded before are kept", path,
                   what, detail);
  case SQLITE_CORRUPT:
  case SQLITE_NOTADB:
    return vc_fail(err, VC_ERR_DB, "results database %s is corrupt (%s: %s)", path, what, detail);
  case SQLITE_CANTOPEN: {
    char dir[4096];
    if (vc_db_missing_dir(path, dir, sizeof dir))
      return vc_fail(err, VC_ERR_DB, "cannot open results database %s: no such directory: %s",
                     path, dir);
    return vc_fail(err, VC_ERR_DB, "cannot open results database %s: %s", path, detail);
  }
  case SQLITE_READONLY:
    return vc_fail(err, VC_ERR_DB, "results database %s is read-only (%s)", path, what);
  case SQLITE_IOERR:
    return vc_fail(err, VC_ERR_DB, "results database %s: I/O error (%s: %s)", path, what, detail);
  default: return vc_fail(err, VC_ERR_DB, "results database %s: %s: %s", path, what, detail);
  }
}
