// node-postgres at its defaults through ordinary operations against one server: the Node.js half of
// ClientConformanceIT (conformance.py says how the two runs are compared). One JSON line per operation.
'use strict';
const { Client } = require('pg');
const Cursor = require('pg-cursor');
const copyStreams = require('pg-copy-streams');

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const config = { host: args.host || '127.0.0.1', port: Number(args.port), user: args.user || 'coilgun',
  database: args.dbname || 'coilgun', connectionTimeoutMillis: 10000 };
const CLIENT = 'node-postgres';
let nextId = 600000;
const newId = () => ++nextId;
const SELECT_BY_ID = 'SELECT id, ts, card_id, merchant_id, amount FROM payments WHERE id = $1';

// A comparable value: dates as ISO text (node-postgres reads a timestamp as a local Date; TZ is UTC here).
function norm(v) {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return { Date: v.toISOString() };
  if (Buffer.isBuffer(v)) return { bytes: v.toString('hex') };
  if (Array.isArray(v)) return v.map(norm);
  if (typeof v === 'number' && !Number.isInteger(v)) return { float: String(v) };
  if (typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, norm(v[k])]));
  return v;
}

async function withClient(fn, extra = {}) {
  const c = new Client({ ...config, ...extra });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const rows = async (c, sql, params) => (await c.query({ text: sql, values: params, rowMode: 'array' })).rows;
const count = (c, low, high) => rows(c, 'SELECT count(*) FROM payments WHERE id > $1 AND id <= $2', [low, high]);
const sqlstateOf = async (promise) => {
  try {
    await promise;
    return 'no error';
  } catch (e) {
    return e.code || String(e);
  }
};

// An INSERT in a transaction block ended by `end` (COMMIT or ROLLBACK): how many rows it left.
const transaction = (ts, end) => withClient(async (c) => {
  const low = nextId;
  await c.query('BEGIN');
  await c.query("INSERT INTO payments VALUES ($1, $2, 'c3', 'm3', 1.0)", [newId(), ts]);
  await c.query(end);
  return count(c, low, nextId);
});

const ops = {
  connect: () => withClient((c) => rows(c, "SELECT 1, current_setting('server_version_num')::int >= 150000")),
  select_param: () => withClient((c) => rows(c,
    'SELECT id, card_id, amount FROM payments WHERE card_id = $1 AND id < 1000 ORDER BY id LIMIT 3', ['c7'])),
  select_int_param: () => withClient((c) => rows(c, 'SELECT id, merchant_id FROM payments WHERE id = $1', [42])),
  select_ts_param: () => withClient((c) => rows(c, 'SELECT count(*) FROM payments WHERE ts > $1 AND id < 1000',
    ['2026-01-02 07:40:00'])),
  insert_param: () => withClient(async (c) => {
    const id = newId();
    await c.query('INSERT INTO payments (id, ts, card_id, merchant_id, amount) VALUES ($1, $2, $3, $4, $5)',
      [id, '2026-01-02 08:00:01', 'c1', 'm1', 12.5]);
    return rows(c, SELECT_BY_ID, [id]);
  }),
  timestamp_micros: () => withClient(async (c) => {
    const id = newId();
    await c.query("INSERT INTO payments VALUES ($1, $2, 'c1', 'm1', 1.0)", [id, '2026-01-02 08:00:01.123456']);
    return rows(c, 'SELECT ts::text FROM payments WHERE id = $1', [id]);
  }),
  timestamp_arithmetic: () => withClient(async (c) => {
    const id = newId();
    await c.query("INSERT INTO payments VALUES ($1, $2, 'c1', 'm1', 1.0)", [id, '2026-01-02 08:00:01.123456']);
    return rows(c, "SELECT (ts + INTERVAL '1' SECOND)::text, (ts - INTERVAL '1' MONTH)::text, ts::text, "
      + "(ts + INTERVAL '0.5' SECOND)::text, ts > $2::timestamp, (max(ts) OVER ())::text FROM payments "
      + 'WHERE id = $1', [id, '2026-01-02 08:00:01.123455']);
  }),
  timestamp_fields: () => withClient(async (c) => {
    const id = newId();
    await c.query("INSERT INTO payments VALUES ($1, $2, 'c1', 'm1', 1.0)", [id, '2026-01-02 08:00:01.123456']);
    return rows(c, "SELECT (ts - $2::timestamp)::text, EXTRACT(SECOND FROM ts), EXTRACT(EPOCH FROM ts), "
      + "EXTRACT(DOW FROM ts), date_trunc('hour', ts)::text, (ts - TIMESTAMP '2026-01-01 00:00:00')::text "
      + 'FROM payments WHERE id = $1', [id, '2026-01-01 07:00:00.000001']);
  }),
  keywords_as_names: () => withClient(async (c) => rows(c, "SELECT t.id AS year, t.card_id AS user, 1 AS one, "
    + "'x' AS value, 2 AS select, 3 AS returning FROM payments AS t WHERE t.id = 1", [])),
  unicode: () => withClient(async (c) => {
    const id = newId();
    await c.query("INSERT INTO payments VALUES ($1, '2026-01-02 08:00:02', 'c1', $2, 1.0)", [id, 'héllo ✓ 日本']);
    return rows(c, 'SELECT merchant_id FROM payments WHERE id = $1', [id]);
  }),
  transaction_commit: () => transaction('2026-01-02 08:02:00', 'COMMIT'),
  transaction_rollback: () => transaction('2026-01-02 08:03:00', 'ROLLBACK'),
  failed_transaction: () => withClient(async (c) => {
    await c.query('BEGIN');
    const answers = [await sqlstateOf(c.query('SELECT * FROM no_such_relation')),
      await sqlstateOf(c.query('SELECT 1'))];
    await c.query('ROLLBACK');
    answers.push(await rows(c, 'SELECT 2'));
    return answers;
  }),
  cursor: () => withClient(async (c) => {
    // pg-cursor: an unnamed portal read a few rows at a time (Execute with a row limit), not DECLARE
    const cursor = c.query(new Cursor('SELECT id, card_id FROM payments WHERE id < 1000 ORDER BY id', [],
      { rowMode: 'array' }));
    const first = await cursor.read(5);
    const second = await cursor.read(5);
    let rest = 0;
    for (let batch = await cursor.read(100); batch.length > 0; batch = await cursor.read(100)) rest += batch.length;
    await cursor.close();
    return [first, second, rest];
  }),
  copy_from: () => withClient(async (c) => {
    const low = nextId;
    const stream = c.query(copyStreams.from(
      'COPY payments (id, ts, card_id, merchant_id, amount) FROM STDIN WITH (FORMAT csv)'));
    const done = new Promise((resolve, reject) => { stream.on('finish', resolve); stream.on('error', reject); });
    for (let k = 0; k < 3; k++) stream.write(`${newId()},2026-01-02 08:05:0${k},c4,m4,${k}.5\n`);
    stream.end();
    await done;
    return count(c, low, nextId);
  }),
  copy_to: () => withClient(async (c) => {
    const stream = c.query(copyStreams.to('COPY (SELECT id, ts, card_id, amount FROM payments WHERE id <= 3 '
      + 'ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)'));
    const chunks = [];
    await new Promise((resolve, reject) => {
      stream.on('data', (d) => chunks.push(d));
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    return Buffer.concat(chunks).toString('utf8');
  }),
  statement_timeout: () => withClient(async (c) => [await sqlstateOf(c.query('SELECT pg_sleep(5)')),
    await rows(c, 'SELECT 1')], { statement_timeout: 300 }),
  pg_cancel_backend: () => withClient(async (c) => {
    const marker = 'SELECT pg_sleep(5) /* node-postgres */';
    const running = sqlstateOf(c.query(marker));
    const found = await withClient(async (other) => {
      for (let i = 0; i < 100; i++) {
        const r = await rows(other, 'SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = $1 '
          + 'AND pid <> pg_backend_pid()', [marker]);
        if (r.length > 0 && r[0][0]) return true;
        await new Promise((res) => setTimeout(res, 50));
      }
      return false;
    });
    return [await running, found];
  }),
  numeric_values: () => withClient((c) => rows(c, "SELECT $1::numeric, $1::numeric * 2, $1::numeric / 3, "
    + "1.5::numeric * 3, CAST('12.25' AS numeric), '1.50'::numeric, 1::numeric / 3, 2.5::numeric(1,0), 2 ^ 3, "
    + "2.0 ^ 3, 2 * 3 ^ 2", ['12345678901234567890.123456789'])),
  numeric_columns: () => withClient(async (c) => {
    const i = newId();
    const j = newId();
    await rows(c, "INSERT INTO prices VALUES ($1, $2, 'k', $3, $4)", [i, '2026-01-02 08:00:00', '12.345', '1.50']);
    await rows(c, "INSERT INTO prices VALUES ($1, TIMESTAMP '2026-01-02 08:00:01', 'k', 7, "
      + '12345678901234567890.123456789)', [j]);
    const tooBig = await sqlstateOf(c.query("INSERT INTO prices VALUES ($1, TIMESTAMP '2026-01-02 08:00:02', 'k', "
      + '123456789.5, 1)', [newId()]));
    return [await rows(c, 'SELECT id, price, rate FROM prices WHERE id IN ($1, $2) ORDER BY id', [i, j]),
      await rows(c, 'SELECT sum(price), avg(price), sum(rate), avg(rate), min(rate), max(price) FROM prices '
        + 'WHERE id IN ($1, $2)', [i, j]), tooBig];
  }),
  types: () => withClient((c) => rows(c, "SELECT 1::int2, 2::int4, 3::int8, 1.5::float8, 'x'::text, true, "
    + "'2026-01-01 10:00:00.5'::timestamp, 12.345::numeric(10,3), DATE '2026-01-01', NULL::int")),
  information_schema: () => withClient(async (c) => [
    await rows(c, "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' "
      + 'ORDER BY 1'),
    await rows(c, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'payments' "
      + 'ORDER BY ordinal_position')]),
  regclass: () => withClient((c) => rows(c, "SELECT 'payments'::regclass::text, CAST('card_5m' AS regclass)::text")),
};

(async () => {
  for (const [op, fn] of Object.entries(ops)) {
    const line = { client: CLIENT, op };
    try {
      line.ok = true;
      line.value = norm(await fn());
    } catch (e) {
      line.ok = false;
      line.sqlstate = e.code || null;
      line.error = String(e.message || e).split('\n')[0].slice(0, 300);
    }
    process.stdout.write(JSON.stringify(line) + '\n');
  }
})();
