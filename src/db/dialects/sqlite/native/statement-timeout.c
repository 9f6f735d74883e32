/*
 * DB_STATEMENT_TIMEOUT for SQLite: a loadable extension that interrupts a statement running longer than the
 * connection's timeout, as PostgreSQL's statement_timeout does.
 *
 * better-sqlite3 builds SQLite with SQLITE_OMIT_PROGRESS_CALLBACK, so no progress handler can be installed; what
 * remains is sqlite3_interrupt(), which is safe from another thread and checked by the VDBE at every loop. So each
 * connection gets a watchdog thread that sleeps until the running statement's deadline and interrupts it then.
 *
 * The deadline is taken where SQLite says a statement starts (the SQLITE_TRACE_STMT event, once per run) and
 * dropped where it says it finished (SQLITE_TRACE_PROFILE, at its last step or reset): no extra statement and no
 * call from JavaScript per statement, two clock reads and an uncontended mutex. The watchdog is never woken per
 * statement: idle, it sleeps one timeout at a time, since a statement starting meanwhile cannot end its time sooner.
 *
 * A stale interrupt (the deadline passed in the instant between a statement's last step and its end event) lands
 * on an idle connection: SQLite clears the flag when the next statement starts with none running.
 *
 * SQL: strata_statement_timeout(ms) sets the timeout of this connection (0 = none, the default) and returns it;
 * strata_statement_timeout() returns it.
 *
 * Interrupt groups, for connections that run on other threads (the read threads): strata_join_interrupt_group(key)
 * puts this connection in group `key` (an integer; 0 leaves it); strata_interrupt_group(key), run on any connection
 * of the process that loaded the extension, interrupts the statement running on each connection of the group and
 * returns how many connections the group has. The group list is process-wide (one copy of the library per process);
 * a connection leaves it when it closes, under the same lock, so a closed connection is never interrupted.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

/* Longest timeout taken (about 31 years), so that deadlines in nanoseconds cannot overflow. */
#define MAX_TIMEOUT_MS 1000000000000LL

typedef struct Watch {
  sqlite3 *db;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t thread;
  int thread_started;
  int stopping;
  int64_t timeout_ns;       /* 0: no timeout */
  int running;              /* a statement started and has not finished */
  void *statement;          /* the statement that is running */
  int64_t deadline_ns;      /* when it is interrupted (monotonic clock) */
  int64_t group;            /* interrupt group (0: none), under groups_lock */
  struct Watch *next;       /* the next member of some group, under groups_lock */
} Watch;

static pthread_mutex_t groups_lock = PTHREAD_MUTEX_INITIALIZER;
static Watch *group_members = NULL;

/* Takes `w` out of the group list; groups_lock held. */
static void leave_group(Watch *w) {
  for (Watch **at = &group_members; *at; at = &(*at)->next) {
    if (*at == w) {
      *at = w->next;
      break;
    }
  }
  w->next = NULL;
  w->group = 0;
}

static void join_group(sqlite3_context *context, int argc, sqlite3_value **argv) {
  Watch *w = (Watch *)sqlite3_user_data(context);
  sqlite3_int64 key = argc == 1 ? sqlite3_value_int64(argv[0]) : 0;
  pthread_mutex_lock(&groups_lock);
  leave_group(w);
  if (key != 0) {
    w->group = key;
    w->next = group_members;
    group_members = w;
  }
  pthread_mutex_unlock(&groups_lock);
  sqlite3_result_int64(context, key);
}

static void interrupt_group(sqlite3_context *context, int argc, sqlite3_value **argv) {
  sqlite3_int64 key = argc == 1 ? sqlite3_value_int64(argv[0]) : 0;
  sqlite3_int64 members = 0;
  pthread_mutex_lock(&groups_lock);
  for (Watch *m = group_members; m && key != 0; m = m->next) {
    if (m->group != key) continue;
    sqlite3_interrupt(m->db);
    members++;
  }
  pthread_mutex_unlock(&groups_lock);
  sqlite3_result_int64(context, members);
}

static int64_t monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Sleeps on the condition until `until` (monotonic) or a signal; the lock is held around it. */
static void wait_until(Watch *w, int64_t until) {
#ifdef __APPLE__
  /* macOS has no monotonic condition clock: wait the relative time. */
  int64_t rest = until - monotonic_ns();
  if (rest <= 0) return;
  struct timespec relative = {(time_t)(rest / 1000000000LL), (long)(rest % 1000000000LL)};
  pthread_cond_timedwait_relative_np(&w->wake, &w->lock, &relative);
#else
  struct timespec at = {(time_t)(until / 1000000000LL), (long)(until % 1000000000LL)};
  pthread_cond_timedwait(&w->wake, &w->lock, &at);
#endif
}

static void *watchdog(void *arg) {
  Watch *w = (Watch *)arg;
  pthread_mutex_lock(&w->lock);
  while (!w->stopping) {
    if (w->timeout_ns == 0) {
      pthread_cond_wait(&w->wake, &w->lock);
      continue;
    }
    int64_t now = monotonic_ns();
    if (w->running && now >= w->deadline_ns) {
      /* Under the lock: the statement cannot be replaced by another one meanwhile. */
      sqlite3_interrupt(w->db);
      w->running = 0;
      continue;
    }
    wait_until(w, w->running ? w->deadline_ns : now + w->timeout_ns);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

static int on_trace(unsigned event, void *context, void *statement, void *detail) {
  Watch *w = (Watch *)context;
  if (event == SQLITE_TRACE_STMT) {
    const char *sql = (const char *)detail;
    pthread_mutex_lock(&w->lock);
    /* A trigger of the running statement announces itself as "-- TRIGGER name": it keeps the statement's deadline. */
    int trigger = w->running && w->statement == statement && sql && sql[0] == '-' && sql[1] == '-';
    if (!trigger && w->timeout_ns > 0) {
      w->running = 1;
      w->statement = statement;
      w->deadline_ns = monotonic_ns() + w->timeout_ns;
    }
    pthread_mutex_unlock(&w->lock);
  } else if (event == SQLITE_TRACE_PROFILE) {
    pthread_mutex_lock(&w->lock);
    /* A statement run while another one runs (nested) replaced its deadline: the outer one then runs unbounded. */
    if (w->statement == statement) w->running = 0;
    pthread_mutex_unlock(&w->lock);
  }
  return 0;
}

static void set_timeout(sqlite3_context *context, int argc, sqlite3_value **argv) {
  Watch *w = (Watch *)sqlite3_user_data(context);
  if (argc > 1) {
    sqlite3_result_error(context, "strata_statement_timeout: takes at most one argument (milliseconds)", -1);
    return;
  }
  if (argc == 0) {
    pthread_mutex_lock(&w->lock);
    int64_t ms = w->timeout_ns / 1000000LL;
    pthread_mutex_unlock(&w->lock);
    sqlite3_result_int64(context, ms);
    return;
  }
  int type = sqlite3_value_numeric_type(argv[0]);
  if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
    sqlite3_result_error(context, "strata_statement_timeout: the timeout must be a number of milliseconds", -1);
    return;
  }
  double requested = sqlite3_value_double(argv[0]);
  if (!(requested >= 0)) {
    sqlite3_result_error(context, "strata_statement_timeout: the timeout cannot be negative", -1);
    return;
  }
  int64_t ms = requested > (double)MAX_TIMEOUT_MS ? MAX_TIMEOUT_MS : (int64_t)requested;
  if (ms == 0 && requested > 0) ms = 1;

  pthread_mutex_lock(&w->lock);
  if (ms > 0 && !w->thread_started) {
    if (pthread_create(&w->thread, NULL, watchdog, w) != 0) {
      pthread_mutex_unlock(&w->lock);
      sqlite3_result_error(context, "strata_statement_timeout: could not start the watchdog thread", -1);
      return;
    }
    w->thread_started = 1;
  }
  w->timeout_ns = ms * 1000000LL;
  /* This statement itself started before the change: it neither gains nor keeps a deadline. */
  w->running = 0;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
  /* No timeout, no tracing: the connection then runs exactly as without the extension. */
  sqlite3_trace_v2(w->db, ms > 0 ? SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE : 0, ms > 0 ? on_trace : NULL, ms > 0 ? w : NULL);
  sqlite3_result_int64(context, ms);
}

/* Called by SQLite when the function goes away (the connection closes, or the extension is loaded again). */
static void destroy_watch(void *arg) {
  Watch *w = (Watch *)arg;
  pthread_mutex_lock(&groups_lock);
  leave_group(w);
  pthread_mutex_unlock(&groups_lock);
  pthread_mutex_lock(&w->lock);
  w->stopping = 1;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
  if (w->thread_started) pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->lock);
  free(w);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_statementtimeout_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  /* Loaded again: the previous watch goes with its function below, so nothing may trace into it meanwhile. */
  sqlite3_trace_v2(db, 0, NULL, NULL);
  Watch *w = (Watch *)calloc(1, sizeof(Watch));
  if (!w) return SQLITE_NOMEM;
  w->db = db;
  pthread_mutex_init(&w->lock, NULL);
  pthread_condattr_t attributes;
  pthread_condattr_init(&attributes);
#ifndef __APPLE__
  pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
#endif
  pthread_cond_init(&w->wake, &attributes);
  pthread_condattr_destroy(&attributes);
  /* One registration for both arities (-1), so that the watch has exactly one owner to destroy it. */
  int rc = sqlite3_create_function_v2(db, "strata_statement_timeout", -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, w, set_timeout, NULL, NULL, destroy_watch);
  /* On failure SQLite has already called destroy_watch. */
  if (rc != SQLITE_OK) {
    if (error) *error = sqlite3_mprintf("strata_statement_timeout: could not register the function");
    return rc;
  }
  /* Both use the watch registered above, which outlives them (functions go together when the connection closes). */
  rc = sqlite3_create_function_v2(db, "strata_join_interrupt_group", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, w, join_group, NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "strata_interrupt_group", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, w, interrupt_group, NULL, NULL, NULL);
  if (rc != SQLITE_OK && error) *error = sqlite3_mprintf("strata_statement_timeout: could not register the group functions");
  return rc;
}
