package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.parser.ParameterMarkers;
import io.coilgun.sql.parser.PgSyntax;
import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.Date;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import java.util.function.IntPredicate;
import java.util.regex.Pattern;
import org.apache.calcite.jdbc.CalciteConnection;
import org.apache.calcite.jdbc.Driver;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;

/**
 * Runs SELECT (and the other query forms: VALUES, UNION, WITH, ORDER BY) with Calcite's Enumerable engine over
 * Coilgun's relations: metrics and streams in schema {@code public}, the system tables in {@code coilgun}, and
 * {@code pg_catalog} and {@code information_schema} for clients. Each query sees the catalog as it is when it starts.
 *
 * <p>Blocking (metric reads wait for the processor units): call it from a query thread.
 */
public final class QueryEngine {
    private static final Driver DRIVER = new Driver().withPrepareFactory(PgPrepare::new);
    private static final Calendar UTC = Calendar.getInstance(TimeZone.getTimeZone("UTC"));
    private static final Pattern GENERATED_NAME = Pattern.compile("EXPR\\$\\d+");
    /** {@code pg_cursors}' columns (rows from {@link QuerySession#cursors}). */
    private static final List<Col> CURSOR_COLUMNS = List.of(Col.text("name"), Col.text("statement"),
            Col.bool("is_holdable"), Col.bool("is_binary"), Col.bool("is_scrollable"), Col.timestamp("creation_time"));

    private final QueryData data;

    public QueryEngine(QueryData data) {
        this.data = data;
    }

    /**
     * The (lower case) names of every function a query may call: Calcite's standard and Postgres-library functions
     * and Coilgun's own ({@link PgFunctions}, {@link PgAccessFunctions}), less the internal ones the rewrites name.
     */
    public static java.util.SortedSet<String> functionNames() {
        java.util.SortedSet<String> names = new java.util.TreeSet<>();
        org.apache.calcite.sql.SqlOperatorTable calcite = org.apache.calcite.sql.fun.SqlLibraryOperatorTableFactory
                .INSTANCE.getOperatorTable(java.util.EnumSet.of(org.apache.calcite.sql.fun.SqlLibrary.STANDARD,
                        org.apache.calcite.sql.fun.SqlLibrary.POSTGRESQL));
        for (org.apache.calcite.sql.SqlOperator op : calcite.getOperatorList()) {
            if (op instanceof org.apache.calcite.sql.SqlFunction && op.getName().matches("[A-Za-z_][A-Za-z_0-9]*")) {
                names.add(op.getName().toLowerCase(java.util.Locale.ROOT));
            }
        }
        for (Class<?> functions : List.of(PgFunctions.class, PgAccessFunctions.class)) {
            for (java.lang.reflect.Method m : functions.getMethods()) {
                if (java.lang.reflect.Modifier.isStatic(m.getModifiers()) && m.getDeclaringClass() == functions
                        && !m.getName().startsWith("pg_reg") && !m.getName().startsWith("pgcur")
                        && !m.getName().startsWith("pgsess")) {
                    names.add(m.getName().toLowerCase(java.util.Locale.ROOT).replaceAll("_$", ""));
                }
            }
        }
        names.add("date_trunc");
        names.add("date_part");
        return names;
    }

    /** A query's result: column names and Postgres type oids, and the rows as pgwire's Java values. */
    public record Rows(List<String> names, List<Integer> typeOids, List<Object[]> rows) {
    }

    /**
     * @param statement the query's text as the client wrote it ($n markers allowed)
     * @param columnNames the names Postgres would give the select list's columns (see {@link QueryStatement}), used
     *     where Calcite generates one
     * @param parameters the values of $1..$n
     * @throws CoilgunException for every error a user can cause (unknown relation or column, wrong types, …)
     */
    public Rows run(String statement, List<String> columnNames, List<Object> parameters, String user,
            String database) {
        return run(statement, columnNames, parameters, user, database, new Cancel());
    }

    /** {@link #run}, stopped early (with an error) once {@code cancel} is canceled. */
    public Rows run(String statement, List<String> columnNames, List<Object> parameters, String user,
            String database, Cancel cancel) {
        return run(statement, columnNames, parameters, user, database, QuerySession.NONE, cancel);
    }

    /**
     * {@link #run(String, List, List, String, String, Cancel)} for {@code session}: what {@code current_setting},
     * {@code pg_backend_pid} and {@code pg_cancel_backend} see.
     */
    public Rows run(String statement, List<String> columnNames, List<Object> parameters, String user,
            String database, QuerySession session, Cancel cancel) {
        return prepare(statement, columnNames, parameters,
                n -> n <= parameters.size() && parameters.get(n - 1) instanceof BigDecimal, user, database, session,
                true, cancel);
    }

    /**
     * Stops a query from another thread (a cancel, a statement timeout): Calcite's statement is canceled, which ends
     * the reading of its rows; a query not started yet does not start.
     */
    public static final class Cancel {
        private volatile Statement statement;
        private volatile boolean canceled;

        void attach(Statement s) throws SQLException {
            statement = s;
            if (canceled) {
                s.cancel();
                throw new SQLException("canceled before it ran");
            }
        }

        public void cancel() {
            canceled = true;
            Statement s = statement;
            if (s != null) {
                try {
                    s.cancel();
                } catch (SQLException | RuntimeException e) {
                    // the query ends on its own; its answer was already given
                }
            }
        }

        boolean canceled() {
            return canceled;
        }
    }

    /**
     * The Postgres type oid Calcite gives each parameter $1..$n of a query ({@code WHERE id = $1}: int8), 0 where it
     * gives none; what a Parse's ParameterDescription reports, so that drivers bind typed values.
     *
     * @throws CoilgunException when the query does not validate
     */
    public int[] parameterTypes(String statement, int count, String user, String database) {
        ParameterMarkers markers = ParameterMarkers.rewrite(PgSyntax.normalize(statement));
        int[] numbers = markers.numbers();
        int[] oids = new int[count];
        if (numbers.length == 0) {
            return oids;
        }
        Relations rels = relations(user, database, QuerySession.NONE);
        PgFunctions.CURRENT.set(rels);
        try (Connection connection = connect(rels, user);
                PreparedStatement ps = connection.prepareStatement(markers.sql())) {
            ParameterMetaData types = ps.getParameterMetaData();
            for (int i = 0; i < numbers.length; i++) {
                int n = numbers[i];
                int type = types.getParameterType(i + 1);
                if (n >= 1 && n <= count && oids[n - 1] == 0 && type != Types.OTHER && type != Types.JAVA_OBJECT
                        && type != Types.NULL) {
                    oids[n - 1] = pgType(type);
                }
            }
            return oids;
        } catch (SQLException e) {
            throw QueryErrors.toCoilgun(statement, e);
        } finally {
            PgFunctions.CURRENT.remove();
        }
    }

    /** The columns {@link #run} would return (no rows), without reading any data. */
    public Rows describe(String statement, List<String> columnNames, Set<Integer> numericParameters, String user,
            String database) {
        return prepare(statement, columnNames, List.of(), numericParameters::contains, user, database,
                QuerySession.NONE, false, new Cancel());
    }

    /** @param numeric whether parameter $n is sent as a numeric (then a numeric in the query, as in Postgres) */
    private Rows prepare(String statement, List<String> columnNames, List<Object> parameters,
            IntPredicate numeric, String user, String database, QuerySession session, boolean execute,
            Cancel cancel) {
        ParameterMarkers markers = ParameterMarkers.rewrite(PgSyntax.normalize(statement));
        Relations rels = relations(user, database, session);
        rels.cancel = cancel;
        rels.numericParameters = numericParameters(markers.numbers(), numeric);
        PgFunctions.CURRENT.set(rels);
        try (Connection connection = connect(rels, user)) {
            try (PreparedStatement ps = connection.prepareStatement(markers.sql())) {
                if (!execute) {
                    return columns(ps.getMetaData(), columnNames, List.of());
                }
                bind(ps, markers, parameters);
                cancel.attach(ps);
                try (ResultSet rs = ps.executeQuery()) {
                    return read(rs, columnNames, cancel);
                }
            }
        } catch (SQLException e) {
            Rows empty = cancel.canceled() ? null : EmptyCatalogQuery.answer(statement);
            if (empty != null) {
                return empty;
            }
            throw QueryErrors.failure(statement, e, cancel);
        } catch (AssertionError | ExceptionInInitializerError | RuntimeException e) {
            throw QueryErrors.failure(statement, e, cancel);
        } finally {
            PgFunctions.CURRENT.remove();
        }
    }

    /**
     * Opens a query for its rows to be read as they are asked for (a cursor's, {@link OpenQuery#next}): nothing is
     * read ahead, so a large result is never held at once. Close it when done.
     */
    public OpenQuery open(String statement, List<String> columnNames, List<Object> parameters, String user,
            String database, QuerySession session, Cancel cancel) {
        ParameterMarkers markers = ParameterMarkers.rewrite(PgSyntax.normalize(statement));
        Relations rels = relations(user, database, session);
        rels.cancel = cancel;
        rels.numericParameters = numericParameters(markers.numbers(),
                n -> n <= parameters.size() && parameters.get(n - 1) instanceof BigDecimal);
        PgFunctions.CURRENT.set(rels);
        Connection connection = null;
        try {
            connection = connect(rels, user);
            PreparedStatement ps = connection.prepareStatement(markers.sql());
            bind(ps, markers, parameters);
            cancel.attach(ps);
            ResultSet rs = ps.executeQuery();
            return new OpenQuery(statement, connection, rs, columns(rs.getMetaData(), columnNames, List.of()), rels);
        } catch (SQLException e) {
            OpenQuery.closeQuietly(connection);
            Rows empty = cancel.canceled() ? null : EmptyCatalogQuery.answer(statement);
            if (empty != null) {
                return OpenQuery.of(empty);
            }
            throw QueryErrors.failure(statement, e, cancel);
        } catch (AssertionError | ExceptionInInitializerError | RuntimeException e) {
            OpenQuery.closeQuietly(connection);
            throw QueryErrors.failure(statement, e, cancel);
        } finally {
            PgFunctions.CURRENT.remove();
        }
    }

    private static void bind(PreparedStatement ps, ParameterMarkers markers, List<Object> parameters)
            throws SQLException {
        int[] numbers = markers.numbers();
        ParameterMetaData types = numbers.length > 0 ? ps.getParameterMetaData() : null;
        for (int i = 0; i < numbers.length; i++) {
            int n = numbers[i];
            ParameterValues.bind(ps, i + 1, types.getParameterType(i + 1),
                    n >= 1 && n <= parameters.size() ? parameters.get(n - 1) : null, n);
        }
    }

    /** By the ordinal of each {@code ?}: whether its parameter ($n) is a numeric. */
    private static boolean[] numericParameters(int[] numbers, IntPredicate numeric) {
        boolean[] result = new boolean[numbers.length];
        for (int i = 0; i < numbers.length; i++) {
            result[i] = numbers[i] >= 1 && numeric.test(numbers[i]);
        }
        return result;
    }

    private Relations relations(String user, String database, QuerySession session) {
        Relations rels = new Relations(user, database, session);
        rels.data = data;
        for (StreamDef s : data.catalog().streams()) {
            rels.add(Relations.PUBLIC, s.name(), "stream", Relations.streamColumns(s),
                    readable(user, s.name(), new StreamTable(s, data)));
            for (MetricDef m : data.catalog().metricsOf(s.name())) {
                rels.add(Relations.PUBLIC, m.name(), "metric", Relations.metricColumns(s, m),
                        readable(user, m.name(), new MetricTable(s, m, data)));
            }
        }
        for (Map.Entry<String, RowsTable> t : SystemTables.tables(data).entrySet()) {
            rels.add(Relations.COILGUN, t.getKey(), "system table", t.getValue().columns,
                    readable(user, "coilgun." + t.getKey(), t.getValue()));
        }
        rels.add(Relations.PG_CATALOG, "pg_cursors", "catalog", CURSOR_COLUMNS,
                new RowsTable(CURSOR_COLUMNS, session::cursors));
        rels.add(Relations.PG_CATALOG, "pg_stat_activity", "catalog", PgStatActivity.COLUMNS,
                new RowsTable(PgStatActivity.COLUMNS, () -> PgStatActivity.rows(data.sessions(), user,
                        data.superuser(user))));
        for (Map.Entry<String, RowsTable> t : PgCatalog.tables(rels).entrySet()) {
            rels.add(Relations.PG_CATALOG, t.getKey(), "catalog", t.getValue().columns, t.getValue());
        }
        for (Map.Entry<String, RowsTable> t : InformationSchema.tables(rels).entrySet()) {
            rels.add(Relations.INFORMATION_SCHEMA, t.getKey(), "catalog", t.getValue().columns, t.getValue());
        }
        return rels;
    }

    /** The table, or one that refuses to be read when {@code user} has no SELECT on it. */
    private Table readable(String user, String relation, Table table) {
        return data.maySelect(user, relation) ? table : new DeniedTable(table, relation);
    }

    private static Connection connect(Relations rels, String user) throws SQLException {
        Properties p = new Properties();
        p.setProperty("parserFactory", "io.coilgun.sql.parser.CoilgunSqlParserImpl#FACTORY");
        p.setProperty("quoting", "DOUBLE_QUOTE");
        p.setProperty("unquotedCasing", "TO_LOWER");
        p.setProperty("quotedCasing", "UNCHANGED");
        p.setProperty("caseSensitive", "true");
        // MYSQL_5: like BABEL for what clients send, and CASE over strings of different lengths gives VARCHAR
        // (Postgres gives text; BABEL would pad to the longest, CHAR(n)).
        p.setProperty("conformance", "MYSQL_5");
        p.setProperty("fun", "standard,postgresql");
        p.setProperty("timeZone", "UTC");
        p.setProperty("typeSystem", PgTypeSystem.class.getName() + "#INSTANCE");
        p.setProperty("user", user);
        Connection connection = DRIVER.connect("jdbc:calcite:", p);
        SchemaPlus root = connection.unwrap(CalciteConnection.class).getRootSchema();
        SchemaPlus pgCatalog = root.add("pg_catalog", schema(rels, Relations.PG_CATALOG, -1));
        // Postgres searches pg_catalog implicitly: its relations are found unqualified too (after the user's).
        root.add("public", schema(rels, Relations.PUBLIC, Relations.PG_CATALOG));
        root.add("information_schema", schema(rels, Relations.INFORMATION_SCHEMA, -1));
        root.add("coilgun", schema(rels, Relations.COILGUN, -1));
        // Found unqualified (root) and as pg_catalog.f; not in public too, or a name would have two overloads and
        // Calcite would not resolve it before typing its arguments ($1 in to_regtype($1) would stay untyped).
        PgFunctions.register(root);
        PgFunctions.register(pgCatalog);
        connection.setSchema("public");
        return connection;
    }

    private static AbstractSchema schema(Relations rels, int namespace, int fallback) {
        Map<String, Table> tables = new LinkedHashMap<>();
        if (fallback >= 0) {
            for (Relations.Rel r : rels.in(fallback)) {
                tables.put(r.name(), r.table());
            }
        }
        for (Relations.Rel r : rels.in(namespace)) {
            tables.put(r.name(), r.table());
        }
        return new AbstractSchema() {
            @Override
            protected Map<String, Table> getTableMap() {
                return tables;
            }
        };
    }

    static Rows columns(ResultSetMetaData md, List<String> columnNames, List<Object[]> rows)
            throws SQLException {
        int n = md.getColumnCount();
        List<String> names = new ArrayList<>(n);
        List<Integer> types = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            String label = md.getColumnLabel(i);
            if (GENERATED_NAME.matcher(label).matches()) {
                label = i <= columnNames.size() ? columnNames.get(i - 1) : "?column?";
            }
            names.add(label);
            types.add(interval(md, i) != null ? PgTypes.INTERVAL : pgType(md.getColumnType(i)));
        }
        return new Rows(names, types, rows);
    }

    private static Rows read(ResultSet rs, List<String> columnNames, Cancel cancel) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        List<Object[]> rows = new ArrayList<>();
        while (!cancel.canceled() && rs.next()) {
            rows.add(row(rs, md, n));
        }
        return columns(md, columnNames, rows);
    }

    /** The row {@code rs} is on, as pgwire's Java values. */
    static Object[] row(ResultSet rs, ResultSetMetaData md, int n) throws SQLException {
        Object[] row = new Object[n];
        for (int i = 1; i <= n; i++) {
            String typeName = md.getColumnTypeName(i);
            Boolean months = interval(typeName);
            row[i - 1] = months != null ? interval(rs, i, months, typeName.startsWith("INTERVAL_DAY"))
                    : value(rs, i, md.getColumnType(i));
        }
        return row;
    }

    /** Whether column {@code i} is an interval of months (true), of days and time (false), or no interval (null). */
    private static Boolean interval(ResultSetMetaData md, int i) throws SQLException {
        return interval(md.getColumnTypeName(i));
    }

    private static Boolean interval(String name) {
        if (name == null || !name.startsWith("INTERVAL")) {
            return null;
        }
        return name.equals("INTERVAL_YEAR") || name.equals("INTERVAL_YEAR_MONTH") || name.equals("INTERVAL_MONTH");
    }

    /**
     * An interval as pgwire shows Postgres' ({@code 00:00:01.5}, {@code 1 mon}): months, or microseconds split
     * into days when its type has a day field ({@link IntervalValue#ofMicros}).
     */
    private static Object interval(ResultSet rs, int i, boolean months, boolean withDays) throws SQLException {
        long v = rs.getLong(i);
        if (rs.wasNull()) {
            return null;
        }
        return months ? Period.ofMonths(Math.toIntExact(v)).normalized() : IntervalValue.ofMicros(v, withDays);
    }

    private static int pgType(int jdbcType) {
        return switch (jdbcType) {
            case Types.BOOLEAN, Types.BIT -> PgTypes.BOOL;
            case Types.TINYINT, Types.SMALLINT -> PgTypes.INT2;
            case Types.INTEGER -> PgTypes.INT4;
            case Types.BIGINT -> PgTypes.INT8;
            case Types.REAL -> PgTypes.FLOAT4;
            case Types.DOUBLE, Types.FLOAT -> PgTypes.FLOAT8;
            case Types.DECIMAL, Types.NUMERIC -> PgTypes.NUMERIC;
            case Types.DATE -> PgTypes.DATE;
            case Types.TIMESTAMP -> PgTypes.TIMESTAMP;
            case Types.TIMESTAMP_WITH_TIMEZONE -> PgTypes.TIMESTAMPTZ;
            case Types.BINARY, Types.VARBINARY -> PgTypes.BYTEA;
            case Types.ARRAY -> PgTypes.TEXT_ARRAY;
            default -> PgTypes.TEXT;
        };
    }

    private static Object value(ResultSet rs, int i, int jdbcType) throws SQLException {
        Object v;
        switch (jdbcType) {
            case Types.TIMESTAMP -> {
                long micros = rs.getLong(i); // the engine's microseconds (EngineTimestamps)
                return rs.wasNull() ? null : EngineTimestamps.toLocal(micros);
            }
            case Types.TIMESTAMP_WITH_TIMEZONE -> {
                Timestamp ts = rs.getTimestamp(i, (Calendar) UTC.clone());
                return ts == null ? null : LocalDateTime.ofInstant(ts.toInstant(), ZoneOffset.UTC);
            }
            case Types.DATE -> {
                Date d = rs.getDate(i, (Calendar) UTC.clone());
                // a java.sql.Date has no toInstant(); read at UTC, its time is the day's midnight
                return d == null ? null : LocalDate.ofEpochDay(Math.floorDiv(d.getTime(), 86_400_000L));
            }
            case Types.TINYINT, Types.SMALLINT -> {
                short s = rs.getShort(i);
                return rs.wasNull() ? null : s;
            }
            case Types.ARRAY -> {
                Array a = rs.getArray(i);
                if (a == null) {
                    return null;
                }
                List<String> elements = new ArrayList<>();
                for (Object e : (Object[]) a.getArray()) {
                    elements.add(e == null ? null : String.valueOf(e));
                }
                return elements; // text[]: pgwire prints it as {a,b}
            }
            default -> v = rs.getObject(i);
        }
        if (v instanceof BigDecimal || v instanceof Number || v instanceof Boolean || v instanceof String
                || v instanceof byte[] || v == null) {
            return v;
        }
        return String.valueOf(v);
    }
}
