// pgx (Go) at its defaults through ordinary operations against one server: the Go part of ClientConformanceIT
// (conformance.py says how the two runs are compared). One JSON line per operation.
package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

const client = "pgx"
const selectByID = "SELECT id, ts, card_id, merchant_id, amount FROM payments WHERE id = $1"

var (
	connString string
	nextID     int64 = 800000
)

func newID() int64 {
	nextID++
	return nextID
}

// norm makes a value comparable, with the Go type pgx handed the program.
func norm(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool, string:
		return x
	case int16, int32, int64, int:
		return map[string]any{fmt.Sprintf("%T", x): x}
	case float32:
		return map[string]any{"float32": strconv.FormatFloat(float64(x), 'g', -1, 32)}
	case float64:
		return map[string]any{"float64": strconv.FormatFloat(x, 'g', -1, 64)}
	case time.Time:
		return map[string]any{"time.Time": x.Format(time.RFC3339Nano)}
	case pgtype.Numeric:
		text, _ := x.MarshalJSON()
		return map[string]any{"pgtype.Numeric": string(text)}
	case []byte:
		return map[string]any{"bytes": hex.EncodeToString(x)}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = norm(e)
		}
		return out
	case [][]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = norm(e)
		}
		return out
	default:
		return map[string]any{fmt.Sprintf("%T", x): fmt.Sprint(x)}
	}
}

func connect(ctx context.Context, change func(*pgx.ConnConfig)) (*pgx.Conn, error) {
	config, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, err
	}
	if change != nil {
		change(config)
	}
	return pgx.ConnectConfig(ctx, config)
}

func withConn(change func(*pgx.ConnConfig), fn func(context.Context, *pgx.Conn) (any, error)) (any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := connect(ctx, change)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	return fn(ctx, conn)
}

func rows(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, sql string, args ...any) ([][]any, error) {
	r, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	all := [][]any{}
	for r.Next() {
		values, err := r.Values()
		if err != nil {
			r.Close()
			return nil, err
		}
		all = append(all, values)
	}
	return all, r.Err()
}

func sqlstate(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code
	}
	if err == nil {
		return "no error"
	}
	return "not a server error"
}

func count(ctx context.Context, conn *pgx.Conn, low, high int64) (any, error) {
	return rows(ctx, conn, "SELECT count(*) FROM payments WHERE id > $1 AND id <= $2", low, high)
}

var t0 = time.Date(2026, 1, 2, 8, 0, 0, 0, time.UTC)

// transaction inserts in a transaction ended by commit or rollback, and tells how many rows it left.
func transaction(ts time.Time, commit bool) (any, error) {
	return withConn(nil, func(ctx context.Context, conn *pgx.Conn) (any, error) {
		low := nextID
		tx, err := conn.Begin(ctx)
		if err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, "INSERT INTO payments VALUES ($1, $2, 'c3', 'm3', 1.0)", newID(), ts); err != nil {
			return nil, err
		}
		if commit {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			return nil, err
		}
		return count(ctx, conn, low, nextID)
	})
}

type op struct {
	name string
	run  func() (any, error)
}

var ops = []op{
	{"connect", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			return rows(ctx, c, "SELECT 1, current_setting('server_version_num')::int >= 150000")
		})
	}},
	{"select_param", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			return rows(ctx, c, "SELECT id, card_id, amount FROM payments WHERE card_id = $1 AND id < 1000 "+
				"ORDER BY id LIMIT 3", "c7")
		})
	}},
	{"select_int_param", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			return rows(ctx, c, "SELECT id, merchant_id FROM payments WHERE id = $1", 42)
		})
	}},
	{"select_ts_param", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			return rows(ctx, c, "SELECT count(*) FROM payments WHERE ts > $1 AND id < 1000",
				time.Date(2026, 1, 2, 7, 40, 0, 0, time.UTC))
		})
	}},
	{"insert_param", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			id := newID()
			if _, err := c.Exec(ctx, "INSERT INTO payments (id, ts, card_id, merchant_id, amount) "+
				"VALUES ($1, $2, $3, $4, $5)", id, t0.Add(time.Second), "c1", "m1", 12.5); err != nil {
				return nil, err
			}
			return rows(ctx, c, selectByID, id)
		})
	}},
	{"timestamp_micros", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			id := newID()
			ts := t0.Add(time.Second + 123456*time.Microsecond)
			if _, err := c.Exec(ctx, "INSERT INTO payments VALUES ($1, $2, 'c1', 'm1', 1.0)", id, ts); err != nil {
				return nil, err
			}
			return rows(ctx, c, "SELECT ts FROM payments WHERE id = $1", id)
		})
	}},
	{"timestamp_arithmetic", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			id := newID()
			ts := t0.Add(time.Second + 123456*time.Microsecond)
			if _, err := c.Exec(ctx, "INSERT INTO payments VALUES ($1, $2, 'c1', 'm1', 1.0)", id, ts); err != nil {
				return nil, err
			}
			return rows(ctx, c, "SELECT ts + INTERVAL '1' SECOND, ts - INTERVAL '1' MONTH, ts::text, "+
				"(ts + INTERVAL '0.5' SECOND)::text, ts > $2::timestamp, max(ts) OVER () FROM payments WHERE id = $1",
				id, t0.Add(time.Second+123455*time.Microsecond))
		})
	}},
	{"timestamp_fields", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			id := newID()
			ts := t0.Add(time.Second + 123456*time.Microsecond)
			if _, err := c.Exec(ctx, "INSERT INTO payments VALUES ($1, $2, 'c1', 'm1', 1.0)", id, ts); err != nil {
				return nil, err
			}
			return rows(ctx, c, "SELECT ts - $2::timestamp, EXTRACT(SECOND FROM ts), EXTRACT(EPOCH FROM ts), "+
				"EXTRACT(DOW FROM ts), date_trunc('hour', ts), (ts - TIMESTAMP '2026-01-01 00:00:00')::text "+
				"FROM payments WHERE id = $1", id, time.Date(2026, 1, 1, 7, 0, 0, 1000, time.UTC))
		})
	}},
	{"keywords_as_names", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			return rows(ctx, c, "SELECT t.id AS year, t.card_id AS user, 1 AS one, 'x' AS value, 2 AS select, "+
				"3 AS returning FROM payments AS t WHERE t.id = 1")
		})
	}},
	{"unicode", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			id := newID()
			if _, err := c.Exec(ctx, "INSERT INTO payments VALUES ($1, '2026-01-02 08:00:02', 'c1', $2, 1.0)",
				id, "héllo ✓ 日本"); err != nil {
				return nil, err
			}
			return rows(ctx, c, "SELECT merchant_id FROM payments WHERE id = $1", id)
		})
	}},
	{"simple_protocol", func() (any, error) {
		// client-side interpolation: the values are in the SQL text, sent by the simple protocol
		simple := func(cfg *pgx.ConnConfig) { cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol }
		return withConn(simple, func(ctx context.Context, c *pgx.Conn) (any, error) {
			id := newID()
			if _, err := c.Exec(ctx, "INSERT INTO payments VALUES ($1, $2, $3, $4, $5)", id,
				t0.Add(2*time.Second+500*time.Microsecond), "c2", "it's", 2.25); err != nil {
				return nil, err
			}
			return rows(ctx, c, selectByID, id)
		})
	}},
	{"transaction_commit", func() (any, error) { return transaction(t0.Add(2*time.Minute), true) }},
	{"transaction_rollback", func() (any, error) { return transaction(t0.Add(3*time.Minute), false) }},
	{"failed_transaction", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			tx, err := c.Begin(ctx)
			if err != nil {
				return nil, err
			}
			_, e1 := tx.Exec(ctx, "SELECT * FROM no_such_relation")
			_, e2 := tx.Exec(ctx, "SELECT 1")
			if err := tx.Rollback(ctx); err != nil {
				return nil, err
			}
			after, err := rows(ctx, c, "SELECT 2")
			return []any{sqlstate(e1), sqlstate(e2), after}, err
		})
	}},
	{"savepoint", func() (any, error) {
		// a transaction inside a transaction is a savepoint in pgx; its rollback is ROLLBACK TO SAVEPOINT
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			low := nextID
			tx, err := c.Begin(ctx)
			if err != nil {
				return nil, err
			}
			if _, err := tx.Exec(ctx, "INSERT INTO payments VALUES ($1, $2, 'c5', 'm5', 1.0)", newID(),
				t0.Add(4*time.Minute)); err != nil {
				return nil, err
			}
			inner, err := tx.Begin(ctx)
			if err != nil {
				return nil, err
			}
			if _, err := inner.Exec(ctx, "INSERT INTO payments VALUES ($1, $2, 'c5', 'm5', 2.0)", newID(),
				t0.Add(4*time.Minute+time.Second)); err != nil {
				return nil, err
			}
			if err := inner.Rollback(ctx); err != nil {
				return nil, err
			}
			if err := tx.Commit(ctx); err != nil {
				return nil, err
			}
			return count(ctx, c, low, nextID)
		})
	}},
	{"batch", func() (any, error) {
		// pgx's pipeline: every statement's Parse/Bind/Execute, then one Sync
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			low := nextID
			b := &pgx.Batch{}
			for k := 0; k < 3; k++ {
				b.Queue("INSERT INTO payments VALUES ($1, $2, 'c6', 'm6', $3)", newID(),
					t0.Add(5*time.Minute+time.Duration(k)*time.Second), float64(k)+0.5)
			}
			b.Queue("SELECT count(*) FROM payments WHERE id > $1 AND id <= $2", low, nextID)
			results := c.SendBatch(ctx, b)
			for k := 0; k < 3; k++ {
				if _, err := results.Exec(); err != nil {
					results.Close()
					return nil, err
				}
			}
			var n int64
			if err := results.QueryRow().Scan(&n); err != nil {
				results.Close()
				return nil, err
			}
			return n, results.Close()
		})
	}},
	{"cursor", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			tx, err := c.Begin(ctx)
			if err != nil {
				return nil, err
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, "DECLARE cur CURSOR FOR SELECT id, card_id FROM payments WHERE id < 1000 "+
				"ORDER BY id"); err != nil {
				return nil, err
			}
			first, err := rows(ctx, tx, "FETCH 5 FROM cur")
			if err != nil {
				return nil, err
			}
			second, err := rows(ctx, tx, "FETCH 5 FROM cur")
			if err != nil {
				return nil, err
			}
			rest, err := rows(ctx, tx, "FETCH ALL FROM cur")
			if err != nil {
				return nil, err
			}
			return []any{first, second, len(rest)}, nil
		})
	}},
	{"copy_from", func() (any, error) {
		// pgx's CopyFrom sends COPY … FROM STDIN (FORMAT binary)
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			low := nextID
			data := [][]any{}
			for k := 0; k < 3; k++ {
				data = append(data, []any{newID(), t0.Add(6*time.Minute + time.Duration(k)*time.Second), "c4", "m4",
					float64(k) + 0.5})
			}
			n, err := c.CopyFrom(ctx, pgx.Identifier{"payments"},
				[]string{"id", "ts", "card_id", "merchant_id", "amount"}, pgx.CopyFromRows(data))
			if err != nil {
				return nil, err
			}
			got, err := count(ctx, c, low, nextID)
			return []any{n, got}, err
		})
	}},
	{"copy_to", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			var out strings.Builder
			_, err := c.PgConn().CopyTo(ctx, &out, "COPY (SELECT id, ts, card_id, amount FROM payments "+
				"WHERE id <= 3 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)")
			return out.String(), err
		})
	}},
	{"statement_timeout", func() (any, error) {
		short := func(cfg *pgx.ConnConfig) { cfg.RuntimeParams["statement_timeout"] = "300" }
		return withConn(short, func(ctx context.Context, c *pgx.Conn) (any, error) {
			_, err := c.Exec(ctx, "SELECT pg_sleep(5)")
			after, err2 := rows(ctx, c, "SELECT 1")
			return []any{sqlstate(err), after}, err2
		})
	}},
	{"context_cancel", func() (any, error) {
		// a context that ends while the query runs: pgx sends a CancelRequest
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			started := time.Now()
			_, err := c.Exec(short, "SELECT pg_sleep(5)")
			return []any{err != nil, time.Since(started) < 4*time.Second}, nil
		})
	}},
	{"numeric_values", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			return rows(ctx, c, "SELECT $1::numeric, $1::numeric * 2, $1::numeric / 3, 1.5::numeric * 3, "+
				"CAST('12.25' AS numeric), '1.50'::numeric, 1::numeric / 3, 2.5::numeric(1,0), 2 ^ 3, 2.0 ^ 3, "+
				"2 * 3 ^ 2", "12345678901234567890.123456789")
		})
	}},
	{"numeric_columns", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			i, j := newID(), newID()
			if _, err := c.Exec(ctx, "INSERT INTO prices VALUES ($1, $2, 'k', $3, $4)", i, t0, "12.345",
				"1.50"); err != nil {
				return nil, err
			}
			if _, err := c.Exec(ctx, "INSERT INTO prices VALUES ($1, TIMESTAMP '2026-01-02 08:00:01', 'k', 7, "+
				"12345678901234567890.123456789)", j); err != nil {
				return nil, err
			}
			_, err := c.Exec(ctx, "INSERT INTO prices VALUES ($1, TIMESTAMP '2026-01-02 08:00:02', 'k', "+
				"123456789.5, 1)", newID())
			tooBig := sqlstate(err)
			got, err := rows(ctx, c, "SELECT id, price, rate FROM prices WHERE id IN ($1, $2) ORDER BY id", i, j)
			if err != nil {
				return nil, err
			}
			sums, err := rows(ctx, c, "SELECT sum(price), avg(price), sum(rate), avg(rate), min(rate), "+
				"max(price) FROM prices WHERE id IN ($1, $2)", i, j)
			return []any{got, sums, tooBig}, err
		})
	}},
	{"types", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			return rows(ctx, c, "SELECT 1::int2, 2::int4, 3::int8, 1.5::float8, 'x'::text, true, "+
				"'2026-01-01 10:00:00.5'::timestamp, 12.345::numeric(10,3), DATE '2026-01-01', NULL::int")
		})
	}},
	{"information_schema", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			tables, err := rows(ctx, c, "SELECT table_name, table_type FROM information_schema.tables "+
				"WHERE table_schema = 'public' ORDER BY 1")
			if err != nil {
				return nil, err
			}
			columns, err := rows(ctx, c, "SELECT column_name, data_type FROM information_schema.columns "+
				"WHERE table_name = 'payments' ORDER BY ordinal_position")
			return []any{tables, columns}, err
		})
	}},
	{"regclass", func() (any, error) {
		return withConn(nil, func(ctx context.Context, c *pgx.Conn) (any, error) {
			return rows(ctx, c, "SELECT 'payments'::regclass::text, CAST('card_5m' AS regclass)::text")
		})
	}},
}

func main() {
	host := flag.String("host", "127.0.0.1", "server host")
	port := flag.Int("port", 0, "server port")
	user := flag.String("user", "coilgun", "user")
	dbname := flag.String("dbname", "coilgun", "database")
	flag.Parse()
	connString = fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable connect_timeout=10", *host, *port,
		*user, *dbname)
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for _, o := range ops {
		line := map[string]any{"client": client, "op": o.name}
		value, err := o.run()
		if err != nil {
			line["ok"] = false
			var pg *pgconn.PgError
			if errors.As(err, &pg) {
				line["sqlstate"] = pg.Code
			} else {
				line["sqlstate"] = nil
			}
			message := strings.SplitN(err.Error(), "\n", 2)[0]
			if len(message) > 300 {
				message = message[:300]
			}
			line["error"] = message
		} else {
			line["ok"] = true
			line["value"] = norm(value)
		}
		if err := out.Encode(line); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
