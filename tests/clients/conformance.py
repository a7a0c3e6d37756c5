"""Drives the Python Postgres clients, each at its defaults, through ordinary operations against one server.

Run by ClientConformanceIT twice in one test run, against a Coilgun node and against PostgreSQL 15, on the same
fixture (a `payments` stream or table of 400 rows, and `card_5m`); each operation prints one JSON line:
    {"client": ..., "op": ..., "ok": true, "value": ...}   or   {..., "ok": false, "sqlstate": ..., "error": ...}
The test compares the two runs line by line. Values are made comparable (datetimes as ISO text, Decimals as text,
each value with its Python type) so that a difference in what a client hands its user shows.

Every operation writes only ids of its client's own range (see `ID_BASE`), so the operations are independent.
"""
import argparse
import re
import contextlib
import datetime as dt
import decimal
import json
import sys
import threading
import time

import bi_tools

PY_CLIENTS = ["psycopg", "psycopg2", "sqlalchemy-psycopg2", "sqlalchemy-psycopg", "pandas"]
BI_TOOLS = ["grafana", "metabase", "dbeaver"]
ID_BASE = {name: 100_000 * (i + 1) for i, name in enumerate(PY_CLIENTS)}

SELECT_BY_ID = "SELECT id, ts, card_id, merchant_id, amount FROM payments WHERE id = %s"
BIG_NUMERIC = decimal.Decimal("12345678901234567890.123456789")


def norm(v):
    """A JSON value that tells what the client returned, type included."""
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, str)):
        return v
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, decimal.Decimal):
        return {"Decimal": str(v)}
    if isinstance(v, dt.datetime):
        return {"datetime": v.isoformat()}
    if isinstance(v, dt.date):
        return {"date": v.isoformat()}
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"bytes": bytes(v).hex()}
    if isinstance(v, (list, tuple)):
        return [norm(x) for x in v]
    if isinstance(v, dict):
        return {str(k): norm(x) for k, x in sorted(v.items())}
    if hasattr(v, "item"):  # numpy scalars from pandas
        return norm(v.item())
    return {type(v).__name__: str(v)}


def sqlstate_of(e):
    for obj in (e, getattr(e, "orig", None), getattr(e, "__cause__", None)):
        if obj is None:
            continue
        for attr in ("sqlstate", "pgcode"):
            s = getattr(obj, attr, None)
            if s:
                return s
    return None


class Ops:
    """The operations of one client; each method returns a value or raises the client's error."""

    def __init__(self, args, client):
        self.args = args
        self.client = client
        self.base = ID_BASE[client]
        self.next_id = self.base

    def new_id(self):
        self.next_id += 1
        return self.next_id


class DbApi(Ops):
    """psycopg (3) and psycopg2: the DB-API operations both offer, and each one's own ways (COPY, cancel)."""

    def __init__(self, args, client):
        super().__init__(args, client)
        if client == "psycopg":
            import psycopg
            self.mod = psycopg
        else:
            import psycopg2
            import psycopg2.extensions
            self.mod = psycopg2

    @contextlib.contextmanager
    def session(self):
        """An autocommit connection, closed at the end (psycopg2's `with conn` opens a transaction instead)."""
        conn = self.connect()
        try:
            yield conn
        finally:
            conn.close()

    def connect(self, autocommit=True):
        a = self.args
        if self.client == "psycopg":
            return self.mod.connect(host=a.host, port=a.port, user=a.user, dbname=a.dbname, autocommit=autocommit,
                                    connect_timeout=10)
        conn = self.mod.connect(host=a.host, port=a.port, user=a.user, dbname=a.dbname, connect_timeout=10)
        conn.autocommit = autocommit
        return conn

    def query(self, sql, params=None, conn=None):
        own = conn is None
        conn = conn or self.connect()
        try:
            cur = conn.cursor()
            cur.execute(sql, params)
            return [list(r) for r in cur.fetchall()] if cur.description else cur.rowcount
        finally:
            if own:
                conn.close()

    def count(self, low, high):
        return self.query("SELECT count(*) FROM payments WHERE id > %s AND id <= %s", (low, high))[0][0]

    # -- the operations --------------------------------------------------------------------------------------
    def op_connect(self):
        return self.query("SELECT 1, current_setting('server_version_num')::int >= 150000")

    def op_select_param(self):
        return self.query("SELECT id, card_id, amount FROM payments WHERE card_id = %s AND id < 1000 "
                          "ORDER BY id LIMIT 3", ("c7",))

    def op_select_int_param(self):
        return self.query("SELECT id, merchant_id FROM payments WHERE id = %s", (42,))

    def op_select_ts_param(self):
        return self.query("SELECT count(*) FROM payments WHERE ts > %s AND id < 1000",
                          (dt.datetime(2026, 1, 2, 7, 40),))

    def op_insert_param(self):
        i = self.new_id()
        self.query("INSERT INTO payments (id, ts, card_id, merchant_id, amount) VALUES (%s, %s, %s, %s, %s)",
                   (i, dt.datetime(2026, 1, 2, 8, 0, 1), "c1", "m1", 12.5))
        return self.query(SELECT_BY_ID, (i,))

    def op_insert_expressions(self):
        i = self.new_id()
        self.query("INSERT INTO payments VALUES (%s, TIMESTAMP '2026-01-02 09:00:00' - INTERVAL '1' HOUR, "
                   "upper('c1'), 'm' || '2', -5 * 2)", (i,))
        j = self.new_id()
        self.query("INSERT INTO payments VALUES (%s, CAST('2026-01-02 07:59:00' AS TIMESTAMP) + INTERVAL '30' SECOND, "
                   "lower(concat('C', '1')), CAST(7 * 2 AS VARCHAR), round(2.567, 1) * 2)", (j,))
        return self.query(SELECT_BY_ID, (i,)) + self.query(SELECT_BY_ID, (j,))

    def op_timestamp_micros(self):
        i = self.new_id()
        self.query("INSERT INTO payments VALUES (%s, %s, 'c1', 'm1', 1.0)",
                   (i, dt.datetime(2026, 1, 2, 8, 0, 1, 123456)))
        return self.query(SELECT_BY_ID, (i,))

    def op_timestamp_arithmetic(self):
        # computed timestamps keep their microseconds: plus an interval, as text, compared with a parameter
        i = self.new_id()
        self.query("INSERT INTO payments VALUES (%s, %s, 'c1', 'm1', 1.0)",
                   (i, dt.datetime(2026, 1, 2, 8, 0, 1, 123456)))
        return self.query("SELECT ts + INTERVAL '1' SECOND, ts - INTERVAL '1' MONTH, ts::text, "
                          "(ts + INTERVAL '0.5' SECOND)::text, ts > %s::timestamp, max(ts) OVER () "
                          "FROM payments WHERE id = %s", (dt.datetime(2026, 1, 2, 8, 0, 1, 123455), i))

    def op_timestamp_fields(self):
        # the difference of two timestamps, EXTRACT and date_trunc, to the microsecond
        i = self.new_id()
        self.query("INSERT INTO payments VALUES (%s, %s, 'c1', 'm1', 1.0)",
                   (i, dt.datetime(2026, 1, 2, 8, 0, 1, 123456)))
        return self.query("SELECT ts - %s::timestamp, EXTRACT(SECOND FROM ts), EXTRACT(EPOCH FROM ts), "
                          "EXTRACT(DOW FROM ts), date_trunc('hour', ts), (ts - TIMESTAMP '2026-01-01 00:00:00')::text "
                          "FROM payments WHERE id = %s", (dt.datetime(2026, 1, 1, 7, 0, 0, 1), i))

    def op_unicode(self):
        i = self.new_id()
        self.query("INSERT INTO payments VALUES (%s, %s, 'c1', %s, 1.0)",
                   (i, dt.datetime(2026, 1, 2, 8, 0, 2), "héllo ✓ 日本"))
        return self.query("SELECT merchant_id FROM payments WHERE id = %s", (i,))

    def op_executemany(self):
        low = self.next_id
        rows = [(self.new_id(), dt.datetime(2026, 1, 2, 8, 1, k), "c2", "m2", float(k)) for k in range(3)]
        with self.session() as conn:
            conn.cursor().executemany("INSERT INTO payments VALUES (%s, %s, %s, %s, %s)", rows)
        return self.count(low, self.next_id)

    def transaction(self, ts, rollback):
        """An INSERT in a transaction block, committed or rolled back: how many rows it left."""
        low = self.next_id
        conn = self.connect(autocommit=False)
        try:
            self.query("INSERT INTO payments VALUES (%s, %s, 'c3', 'm3', 1.0)", (self.new_id(), ts), conn)
            conn.rollback() if rollback else conn.commit()
        finally:
            conn.close()
        return self.count(low, self.next_id)

    def op_transaction_commit(self):
        return self.transaction(dt.datetime(2026, 1, 2, 8, 2), rollback=False)

    def op_transaction_rollback(self):
        return self.transaction(dt.datetime(2026, 1, 2, 8, 3), rollback=True)

    def op_savepoint(self):
        low = self.next_id
        conn = self.connect(autocommit=False)
        try:
            insert = "INSERT INTO payments VALUES (%s, '2026-01-02 08:04:00', 'c3', 'm3', 1.0)"
            if self.client == "psycopg":
                with conn.transaction():
                    self.query(insert, (self.new_id(),), conn)
                    with conn.transaction(force_rollback=True):
                        self.query(insert, (self.new_id(),), conn)
            else:
                cur = conn.cursor()
                cur.execute(insert, (self.new_id(),))
                cur.execute("SAVEPOINT s1")
                cur.execute(insert, (self.new_id(),))
                cur.execute("ROLLBACK TO SAVEPOINT s1")
                cur.execute("RELEASE SAVEPOINT s1")
                conn.commit()
        finally:
            conn.close()
        return self.count(low, self.next_id)

    def op_failed_transaction(self):
        conn = self.connect(autocommit=False)
        try:
            cur = conn.cursor()
            answers = []
            for sql in ("SELECT * FROM no_such_relation", "SELECT 1", "DEALLOCATE ALL"):
                try:
                    cur.execute(sql)
                    answers.append([list(r) for r in cur.fetchall()] if cur.description else cur.statusmessage)
                except self.mod.Error as e:
                    answers.append(sqlstate_of(e))
            conn.rollback()
            cur = conn.cursor()
            cur.execute("SELECT 2")
            answers.append([list(r) for r in cur.fetchall()])
            return answers
        finally:
            conn.close()

    def op_named_cursor(self):
        conn = self.connect(autocommit=False)
        try:
            cur = conn.cursor("big_read")
            cur.itersize = 7
            cur.execute("SELECT id, card_id FROM payments WHERE id < 1000 ORDER BY id")
            first = cur.fetchmany(5)
            second = cur.fetchmany(5)
            rest = cur.fetchall()
            cur.close()
            conn.commit()
            return [[list(r) for r in first], [list(r) for r in second], len(rest)]
        finally:
            conn.close()

    def op_scroll_cursor(self):
        conn = self.connect(autocommit=False)
        try:
            cur = conn.cursor("scroller", scrollable=True)
            cur.execute("SELECT id FROM payments WHERE id <= 10 ORDER BY id")
            seen = [cur.fetchmany(3)]
            cur.scroll(-2)  # MOVE -2 (psycopg2) / MOVE RELATIVE -2 (psycopg)
            seen.append(cur.fetchone())
            cur.scroll(7, mode="absolute")
            seen.append(cur.fetchone())
            cur.scroll(0, mode="absolute")
            seen.append(cur.fetchmany(2))
            seen.append(len(cur.fetchall()))
            cur.close()
            conn.commit()
            return norm(seen)
        finally:
            conn.close()

    def op_copy_from(self):
        low = self.next_id
        data = "".join(f"{self.new_id()},2026-01-02 08:05:0{k},c4,m4,{k}.5\n" for k in range(3))
        with self.session() as conn:
            cur = conn.cursor()
            sql = "COPY payments (id, ts, card_id, merchant_id, amount) FROM STDIN WITH (FORMAT csv)"
            if self.client == "psycopg":
                with cur.copy(sql) as copy:
                    copy.write(data)
            else:
                import io
                cur.copy_expert(sql, io.StringIO(data))
        return self.count(low, self.next_id)

    def op_copy_to(self):
        sql = ("COPY (SELECT id, ts, card_id, amount FROM payments WHERE id <= 3 ORDER BY id) "
               "TO STDOUT WITH (FORMAT csv, HEADER)")
        with self.session() as conn:
            cur = conn.cursor()
            if self.client == "psycopg":
                out = bytearray()
                with cur.copy(sql) as copy:
                    for block in copy:
                        out += block
                return out.decode()
            import io
            buf = io.StringIO()
            cur.copy_expert(sql, buf)
            return buf.getvalue()

    def op_statement_timeout(self):
        with self.session() as conn:
            self.query("SET statement_timeout = '300ms'", conn=conn)
            try:
                self.query("SELECT pg_sleep(5)", conn=conn)
                return "not canceled"
            except self.mod.Error as e:
                first = sqlstate_of(e)
            self.query("RESET statement_timeout", conn=conn)
            return [first, self.query("SELECT 1", conn=conn)]

    def op_cancel(self):
        with self.session() as conn:
            threading.Timer(0.5, conn.cancel).start()
            try:
                self.query("SELECT pg_sleep(5)", conn=conn)
                return "not canceled"
            except self.mod.Error as e:
                return [sqlstate_of(e), self.query("SELECT 2", conn=conn)]

    def op_pg_cancel_backend(self):
        marker = f"SELECT pg_sleep(5) /* {self.client} */"
        found = []

        def cancel_it():
            with self.session() as other:
                for _ in range(100):
                    r = self.query("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = %s "
                                   "AND pid <> pg_backend_pid()", (marker,), other)
                    if r and r[0][0]:
                        found.append(True)
                        return
                    time.sleep(0.05)

        with self.session() as conn:
            t = threading.Thread(target=cancel_it)
            t.start()
            try:
                self.query(marker, conn=conn)
                result = "not canceled"
            except self.mod.Error as e:
                result = sqlstate_of(e)
            t.join()
            return [result, found]

    def op_deallocate(self):
        with self.session() as conn:
            cur = conn.cursor()
            cur.execute("DEALLOCATE ALL")  # psycopg 3: the extended protocol, Describe included
            answers = [cur.statusmessage]
            try:
                cur.execute("DEALLOCATE no_such_statement")
                answers.append(cur.statusmessage)
            except self.mod.Error as e:
                answers.append(sqlstate_of(e))
            cur.execute("SELECT 1")
            answers.append([list(r) for r in cur.fetchall()])
            return answers

    def op_types(self):
        return self.query("SELECT 1::int2, 2::int4, 3::int8, 1.5::float8, 'x'::text, true, "
                          "'2026-01-01 10:00:00.5'::timestamp, 12.345::numeric(10,3), DATE '2026-01-01', NULL::int")

    def op_information_schema(self):
        tables = self.query("SELECT table_name, table_type FROM information_schema.tables "
                            "WHERE table_schema = 'public' ORDER BY 1")
        columns = self.query("SELECT column_name, data_type FROM information_schema.columns "
                             "WHERE table_name = 'payments' ORDER BY ordinal_position")
        return [tables, columns]

    def op_regclass(self):
        return self.query("SELECT 'payments'::regclass::text, CAST('card_5m' AS regclass)::text")

    def op_catalog_functions(self):
        return self.query("SELECT has_table_privilege('payments', 'SELECT'), "
                          "pg_table_is_visible('payments'::regclass), obj_description('payments'::regclass, 'pg_class'), "
                          "col_description('payments'::regclass, 1), format('%%s-%%s', 'a', 1), current_schemas(false)")

    def op_array_introspection(self):
        return self.query("SELECT c.relname, c.relkind FROM pg_catalog.pg_class c "
                          "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                          "WHERE c.relkind = ANY (ARRAY['r', 'v', 'm']) AND n.nspname = ANY (current_schemas(false)) "
                          "ORDER BY 1")

    def op_unnest(self):
        return self.query("SELECT x FROM unnest(ARRAY['a', 'b', 'c']) AS t(x) ORDER BY x")

    def op_numeric_values(self):
        # a numeric of 29 digits as a parameter, literals, casts, division and power (Postgres' scales)
        return self.query("SELECT %s::numeric, %s::numeric * 2, %s::numeric / 3, 1.5::numeric * 3, "
                          "CAST('12.25' AS numeric), '1.50'::numeric, 1::numeric / 3, 2.5::numeric(1,0), 2 ^ 3, "
                          "2.0 ^ 3, 2 * 3 ^ 2", (BIG_NUMERIC,) * 3)

    def op_numeric_columns(self):
        # NUMERIC(10,2) rounds what it is given, NUMERIC keeps each value's scale; sums and averages are exact
        i, j = self.new_id(), self.new_id()
        self.query("INSERT INTO prices VALUES (%s, %s, 'k', %s, %s)",
                   (i, dt.datetime(2026, 1, 2, 8, 0), decimal.Decimal("12.345"), decimal.Decimal("1.50")))
        self.query("INSERT INTO prices VALUES (%s, TIMESTAMP '2026-01-02 08:00:01', 'k', 7, "
                   "12345678901234567890.123456789)", (j,))
        try:
            self.query("INSERT INTO prices VALUES (%s, TIMESTAMP '2026-01-02 08:00:02', 'k', 123456789.5, 1)",
                       (self.new_id(),))
            too_big = "no error"
        except Exception as e:
            too_big = sqlstate_of(e)
        return [self.query("SELECT id, price, rate FROM prices WHERE id IN (%s, %s) ORDER BY id", (i, j)),
                self.query("SELECT sum(price), avg(price), sum(rate), avg(rate), min(rate), max(price) FROM prices "
                           "WHERE id IN (%s, %s)", (i, j)), too_big]

    def op_keywords_as_names(self):
        return self.query("SELECT t.id AS year, t.card_id AS user, 1 AS one, 'x' AS value, 2 AS select, "
                          "3 AS returning FROM payments AS t WHERE t.id = 1")


class Alchemy(Ops):
    """SQLAlchemy Core with one of its Postgres dialects, and pandas on top of SQLAlchemy."""

    def __init__(self, args, client):
        super().__init__(args, client)
        import sqlalchemy
        self.sa = sqlalchemy
        driver = "psycopg2" if client in ("sqlalchemy-psycopg2", "pandas") else "psycopg"
        a = args
        self.engine = sqlalchemy.create_engine(
            f"postgresql+{driver}://{a.user}@{a.host}:{a.port}/{a.dbname}", pool_pre_ping=False)

    def op_connect(self):
        with self.engine.connect() as c:
            return [list(r) for r in c.execute(self.sa.text("SELECT 1"))]

    def op_select_param(self):
        with self.engine.connect() as c:
            return [list(r) for r in c.execute(self.sa.text(
                "SELECT id, card_id, amount FROM payments WHERE card_id = :card AND id < 1000 ORDER BY id LIMIT 3"),
                {"card": "c7"})]

    def op_insert_param(self):
        i = self.new_id()
        with self.engine.begin() as c:
            c.execute(self.sa.text("INSERT INTO payments (id, ts, card_id, merchant_id, amount) "
                                   "VALUES (:id, :ts, :card, :merchant, :amount)"),
                      {"id": i, "ts": dt.datetime(2026, 1, 2, 8, 0, 1), "card": "c1", "merchant": "m1",
                       "amount": 12.5})
        with self.engine.connect() as c:
            return [list(r) for r in c.execute(self.sa.text(
                "SELECT id, ts, card_id, merchant_id, amount FROM payments WHERE id = :id"), {"id": i})]

    def op_executemany(self):
        low = self.next_id
        rows = [{"id": self.new_id(), "ts": dt.datetime(2026, 1, 2, 8, 1, k), "card": "c2", "merchant": "m2",
                 "amount": float(k)} for k in range(3)]
        with self.engine.begin() as c:
            c.execute(self.sa.text("INSERT INTO payments VALUES (:id, :ts, :card, :merchant, :amount)"), rows)
        with self.engine.connect() as c:
            return c.execute(self.sa.text("SELECT count(*) FROM payments WHERE id > :a AND id <= :b"),
                             {"a": low, "b": self.next_id}).scalar()

    def op_savepoint(self):
        low = self.next_id
        insert = self.sa.text("INSERT INTO payments VALUES (:id, '2026-01-02 08:04:00', 'c3', 'm3', 1.0)")
        with self.engine.begin() as c:
            c.execute(insert, {"id": self.new_id()})
            nested = c.begin_nested()
            c.execute(insert, {"id": self.new_id()})
            nested.rollback()
        with self.engine.connect() as c:
            return c.execute(self.sa.text("SELECT count(*) FROM payments WHERE id > :a AND id <= :b"),
                             {"a": low, "b": self.next_id}).scalar()

    def op_inspect_tables(self):
        i = self.sa.inspect(self.engine)
        return [sorted(i.get_table_names()), sorted(i.get_view_names()), i.get_schema_names()]

    def op_inspect_columns(self):
        i = self.sa.inspect(self.engine)
        return [[[c["name"], str(c["type"]), c["nullable"]] for c in i.get_columns(t)]
                for t in ("payments", "card_5m")]

    def op_inspect_keys(self):
        i = self.sa.inspect(self.engine)
        return [i.get_pk_constraint("payments"), i.get_foreign_keys("payments"), i.get_indexes("payments"),
                i.get_unique_constraints("payments")]

    def op_reflect_table(self):
        t = self.sa.Table("payments", self.sa.MetaData(), autoload_with=self.engine)
        with self.engine.connect() as c:
            rows = c.execute(self.sa.select(t).where(t.c.id <= 2).order_by(t.c.id)).fetchall()
        return [[col.name for col in t.columns], [list(r) for r in rows]]

    # pandas ----------------------------------------------------------------------------------------------------
    def op_read_sql(self):
        import pandas as pd
        df = pd.read_sql("SELECT id, ts, card_id, amount FROM payments WHERE card_id = %(card)s AND id < 1000 "
                         "ORDER BY id LIMIT 3", self.engine, params={"card": "c7"})
        return [list(df.columns), [str(t) for t in df.dtypes], df.astype(str).values.tolist()]

    def op_read_sql_table(self):
        import pandas as pd
        df = pd.read_sql_table("payments", self.engine)
        df = df[df["id"] <= 3].sort_values("id")
        return [list(df.columns), [str(t) for t in df.dtypes], df.astype(str).values.tolist()]

    def op_to_sql_append(self):
        import pandas as pd
        low = self.next_id
        df = pd.DataFrame({"id": [self.new_id() for _ in range(3)],
                           "ts": pd.to_datetime(["2026-01-02 08:06:00"] * 3),
                           "card_id": ["c5"] * 3, "merchant_id": ["m5"] * 3, "amount": [1.0, 2.0, 3.0]})
        df.to_sql("payments", self.engine, if_exists="append", index=False)
        return pd.read_sql(f"SELECT count(*) AS n FROM payments WHERE id > {low} AND id <= {self.next_id}",
                           self.engine)["n"].tolist()


def jdbc_placeholders(sql):
    """pgjdbc's ? placeholders as %s, except inside quotes ("pk?" is a name)."""
    out, quote = [], None
    for c in sql:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "?":
            c = "%s"
        out.append(c)
    return "".join(out)


class BiTool(Ops):
    """A BI tool's catalog queries (bi_tools.py), sent as the tool sends them, through psycopg 3."""

    def __init__(self, args, client):
        self.args = args
        self.client = client
        import psycopg
        self.mod = psycopg

    def connect(self):
        a = self.args
        return self.mod.connect(host=a.host, port=a.port, user=a.user, dbname=a.dbname, autocommit=True,
                                connect_timeout=10)

    def run(self, query):
        from psycopg.types.numeric import Int8
        with self.connect() as conn:
            cur = conn.cursor()
            params = None
            sql = query.sql
            if query.params is not None:
                lookups = {"SCHEMA_OID": "SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'public'",
                           "TABLE_OID": "SELECT 'payments'::regclass::oid"}
                params = []
                for p in query.params:
                    if p in lookups:
                        cur.execute(lookups[p])
                        p = Int8(cur.fetchone()[0])  # pgjdbc's setLong
                    params.append(p)
                # the tools' placeholders (? for pgjdbc, $n for pgx) in psycopg's spelling; a literal % doubled
                sql = sql.replace("%", "%%")
                sql = re.sub(r"\$\d+", "%s", sql) if "$1" in sql else jdbc_placeholders(sql)
            cur.execute(sql, params)
            names = [d.name for d in cur.description]
            keys = query.keys or names
            rows = [[r[names.index(k)] for k in keys] for r in cur.fetchall()
                    if "attnum" not in names or r[names.index("attnum")] > 0]  # DBeaver hides system columns
            # only what the tool reads, in a fixed order (a listing's order is the tool's to make)
            return [keys, sorted(rows, key=lambda r: json.dumps(norm(r), sort_keys=True))]


PANDAS_OPS = {"op_connect", "op_read_sql", "op_read_sql_table", "op_to_sql_append"}
ALCHEMY_OPS = {"op_connect", "op_select_param", "op_insert_param", "op_executemany", "op_savepoint",
               "op_inspect_tables", "op_inspect_columns", "op_inspect_keys", "op_reflect_table"}


def operations(ops):
    names = [n for n in dir(ops) if n.startswith("op_")]
    if ops.client == "pandas":
        names = [n for n in names if n in PANDAS_OPS]
    elif isinstance(ops, Alchemy):
        names = [n for n in names if n in ALCHEMY_OPS]
    # in the order of the source, so that each run does the same things in the same order
    order = {n: i for i, n in enumerate(type(ops).__dict__)}
    order.update({n: i for i, n in enumerate(DbApi.__dict__)} if isinstance(ops, DbApi) else {})
    return sorted(names, key=lambda n: (order.get(n, 10_000), n))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--user", default="coilgun")
    p.add_argument("--dbname", default="coilgun")
    p.add_argument("--only", help="one client")
    args = p.parse_args()
    for client in PY_CLIENTS:
        if args.only and client != args.only:
            continue
        try:
            ops = DbApi(args, client) if client in ("psycopg", "psycopg2") else Alchemy(args, client)
        except Exception as e:  # the client itself is missing: every line says so
            print(json.dumps({"client": client, "op": "connect", "ok": False, "sqlstate": None,
                              "error": f"client not available: {e}"}), flush=True)
            continue
        for name in operations(ops):
            line = {"client": client, "op": name[3:]}
            try:
                line.update(ok=True, value=norm(getattr(ops, name)()))
            except Exception as e:
                line.update(ok=False, sqlstate=sqlstate_of(e),
                            error=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300])
            print(json.dumps(line, ensure_ascii=False), flush=True)
    for client in BI_TOOLS:
        if args.only and client != args.only:
            continue
        tool = BiTool(args, client)
        for query in bi_tools.QUERIES:
            if query.tool == client:
                line = {"client": client, "op": query.op}
                try:
                    line.update(ok=True, value=norm(tool.run(query)))
                except Exception as e:
                    line.update(ok=False, sqlstate=sqlstate_of(e),
                                error=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300])
                print(json.dumps(line, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    sys.exit(main())
