#!/usr/bin/env python3
"""rocpd3to4.py OLD.db SCHEMA.sql NEW.db - migrate a rocpd schema 3 database (rocprofv3's
rocpd output) into a new rocpd 4.1.0 database built from SCHEMA.sql (tests/data/rocpd-4.1.0):
pid/tid/agent/queue/stream of dispatches, copies, allocations and regions move behind a
rocpd_track row, categories move to rocpd_info_category in lower case. Used by
tests/cli/test_rocpd_versions.sh to check that both versions load to the same figures."""
import sqlite3
import sys


def cols(db, name):
    return [r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (name,))]


def copy(old, new, table, extra=None):
    """Rows of table, the columns both schemas have; extra(row) -> dict adds columns."""
    keep = [c for c in cols(new, table) if c in cols(old, table)]
    rows = old.execute("SELECT %s FROM %s" % (", ".join('"%s"' % c for c in keep), table))
    for r in rows:
        d = dict(zip(keep, r))
        if extra:
            d.update(extra(d))
        names = list(d)
        new.execute("INSERT INTO %s(%s) VALUES(%s)" % (table, ", ".join('"%s"' % c for c in names),
                                                      ", ".join("?" * len(names))),
                    [d[c] for c in names])


def main():
    old = sqlite3.connect(sys.argv[1])
    new = sqlite3.connect(sys.argv[3])
    new.executescript(open(sys.argv[2]).read())
    guid = old.execute("SELECT value FROM rocpd_metadata WHERE tag = 'guid'").fetchone()[0]
    for t in ("rocpd_string", "rocpd_info_node", "rocpd_info_process", "rocpd_info_thread",
              "rocpd_info_agent", "rocpd_info_queue", "rocpd_info_stream", "rocpd_info_pmc",
              "rocpd_info_code_object", "rocpd_info_kernel_symbol", "rocpd_event",
              "rocpd_pmc_event"):
        copy(old, new, t)
    for cid, name in old.execute("SELECT DISTINCT E.category_id, S.string FROM rocpd_event E "
                                 "JOIN rocpd_string S ON S.id = E.category_id"):
        new.execute("INSERT INTO rocpd_info_category(id, guid, name) VALUES(?, ?, ?)",
                    (cid, guid, name.lower()))
    pids = dict(old.execute("SELECT id, pid FROM rocpd_info_process"))
    tids = dict(old.execute("SELECT id, tid FROM rocpd_info_thread"))
    tracks = {}

    def track(d):
        key = (d.get("nid"), pids.get(d.get("pid"), d.get("pid")),
               tids.get(d.get("tid"), d.get("tid")), d.get("agent_id"), d.get("queue_id"),
               d.get("stream_id"))
        if key not in tracks:
            tracks[key] = len(tracks) + 1
            new.execute("INSERT INTO rocpd_track(id, guid, nid, pid, tid, agent_id, queue_id, "
                        "stream_id) VALUES(?, ?, ?, ?, ?, ?, ?, ?)", (tracks[key], guid) + key)
        return tracks[key]

    moved = ("nid", "pid", "tid", "agent_id", "queue_id", "stream_id")
    for t in ("rocpd_kernel_dispatch", "rocpd_region", "rocpd_memory_copy",
              "rocpd_memory_allocate"):
        have = cols(old, t)
        sel = [c for c in moved if c in have]
        by_id = {r[0]: dict(zip(sel, r[1:])) for r in
                 old.execute("SELECT id, %s FROM %s" % (", ".join(sel), t))}
        if "name_id" in cols(new, t) and "name_id" not in have:
            # 4.1.0 names allocations (3.x did not): the category of their event
            cats = dict(old.execute("SELECT id, category_id FROM rocpd_event"))
            copy(old, new, t, lambda d: {"track_id": track(by_id[d["id"]]),
                                         "name_id": cats.get(d["event_id"])})
        else:
            copy(old, new, t, lambda d: {"track_id": track(by_id[d["id"]])})
    new.commit()


main()
