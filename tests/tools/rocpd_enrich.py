"""rocpd_enrich.py - add rows to a rocprofv3 rocpd database (schema 3) the way rocprofv3 writes
them: tables named with the run's uuid, every row carrying the run's guid, texts in rocpd_string
and one rocpd_event (category, correlation id) per API call, copy or allocation.

Used by the CLI tests that enrich the kernel-only rocpd sample (test_rocpd_versions.sh,
test_rocprofv3_json.sh):

    sys.dont_write_bytecode = True
    sys.path.insert(0, "tests/tools")
    from rocpd_enrich import Rocpd, T0
    r = Rocpd(sys.argv[1])
    ... r.db.execute("INSERT INTO rocpd_region%s(...)" % r.u, (r.g, ..., r.s(name), r.event(cat, corr)))
    r.db.commit()
"""
import sqlite3

T0 = 168853321180000  # ns: a start time inside the sample's run
FIRST_EVENT = 10**6  # event ids start above the sample's own


class Rocpd:
    def __init__(self, path):
        self.db = sqlite3.connect(path)
        self.u = self._meta("uuid")
        self.g = self._meta("guid")
        self.ev = FIRST_EVENT

    def _meta(self, tag):
        return self.db.execute("SELECT value FROM rocpd_metadata WHERE tag = ?",
                               (tag,)).fetchone()[0]

    def s(self, text):
        """The rocpd_string id of text, added when missing."""
        r = self.db.execute("SELECT id FROM rocpd_string WHERE string = ?", (text,)).fetchone()
        if r:
            return r[0]
        return self.db.execute("INSERT INTO rocpd_string%s(guid, string) VALUES(?, ?)" % self.u,
                               (self.g, text)).lastrowid

    def event(self, cat, corr):
        """A new rocpd_event of category cat and correlation id corr; returns its id."""
        self.ev += 1
        self.db.execute("INSERT INTO rocpd_event%s(id, guid, category_id, correlation_id) "
                        "VALUES(?, ?, ?, ?)" % self.u, (self.ev, self.g, self.s(cat), corr))
        return self.ev
