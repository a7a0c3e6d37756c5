package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.compile.ValueConverter;
import io.coilgun.sql.parser.TimestampText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Calendar;
import java.util.Locale;
import java.util.TimeZone;

/**
 * Binds a query's parameter values as the types the query gives its parameters ($n in {@code WHERE id = $n} is a
 * bigint), whatever the client sent: drivers such as node-postgres send every value as text with no type, others a
 * timestamp as a date-time object. Text is read with Postgres' input rules; a value that is not of the type is the
 * error Postgres gives (22P02, 22003, 22007, 22008), naming the parameter.
 */
final class ParameterValues {
    private static final Calendar UTC = Calendar.getInstance(TimeZone.getTimeZone("UTC"), Locale.ROOT);
    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private ParameterValues() {
    }

    /**
     * Binds {@code value} to parameter {@code index} of {@code ps}, of JDBC type {@code type} ({@link Types}).
     *
     * @param number the parameter's number in the client's text ($n), for errors
     */
    static void bind(PreparedStatement ps, int index, int type, Object value, int number) throws SQLException {
        if (value == null) {
            ps.setObject(index, null);
            return;
        }
        switch (type) {
            case Types.BIGINT -> ps.setLong(index, integral(value, Long.MIN_VALUE, Long.MAX_VALUE, "bigint", number));
            case Types.INTEGER -> ps.setInt(index, (int) integral(value, Integer.MIN_VALUE, Integer.MAX_VALUE,
                    "integer", number));
            case Types.SMALLINT -> ps.setShort(index, (short) integral(value, Short.MIN_VALUE, Short.MAX_VALUE,
                    "smallint", number));
            case Types.TINYINT -> ps.setByte(index, (byte) integral(value, Byte.MIN_VALUE, Byte.MAX_VALUE, "tinyint",
                    number));
            case Types.DOUBLE, Types.FLOAT -> ps.setDouble(index, floating(value, "double precision", number));
            case Types.REAL -> ps.setFloat(index, (float) floating(value, "real", number));
            case Types.DECIMAL, Types.NUMERIC -> ps.setBigDecimal(index, decimal(value, number));
            case Types.BOOLEAN -> ps.setBoolean(index, bool(value, number));
            case Types.CHAR, Types.VARCHAR -> ps.setString(index, value.toString());
            case Types.TIMESTAMP -> ps.setLong(index, micros(timestamp(value, number))); // EngineTimestamps
            case Types.DATE -> ps.setDate(index, new Date(timestamp(value, number).getTime()), UTC);
            default -> ps.setObject(index, value);
        }
    }

    private static long integral(Object value, long min, long max, String type, int number) {
        BigDecimal d;
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            d = BigDecimal.valueOf(((Number) value).longValue());
        } else if (value instanceof BigDecimal || value instanceof BigInteger || value instanceof Number) {
            d = new BigDecimal(value.toString());
            if (d.stripTrailingZeros().scale() > 0) {
                d = d.setScale(0, RoundingMode.HALF_UP); // Postgres rounds a numeric cast to an integer
            }
        } else if (value instanceof String s) {
            try {
                d = new BigDecimal(new BigInteger(s.trim()));
            } catch (NumberFormatException e) {
                throw invalid(type, s, number);
            }
        } else {
            throw mismatch(type, value, number);
        }
        if (d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0
                || d.compareTo(LONG_MIN) < 0 || d.compareTo(LONG_MAX) > 0) {
            throw new CoilgunException(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "value \"" + value
                    + "\" is out of range for type " + type + " (parameter $" + number + ")", 0);
        }
        return d.longValueExact();
    }

    private static double floating(Object value, String type, int number) {
        if (value instanceof Number n) {
            return n.doubleValue();
        }
        if (value instanceof String s) {
            String t = s.trim();
            switch (t.toLowerCase(Locale.ROOT)) {
                case "nan":
                    return Double.NaN;
                case "infinity", "+infinity", "inf", "+inf":
                    return Double.POSITIVE_INFINITY;
                case "-infinity", "-inf":
                    return Double.NEGATIVE_INFINITY;
                default:
                    break;
            }
            try {
                double d = new BigDecimal(t).doubleValue();
                if (Double.isInfinite(d)) {
                    throw new CoilgunException(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "\"" + s
                            + "\" is out of range for type " + type + " (parameter $" + number + ")", 0);
                }
                return d;
            } catch (NumberFormatException e) {
                throw invalid(type, s, number);
            }
        }
        throw mismatch(type, value, number);
    }

    private static BigDecimal decimal(Object value, int number) {
        if (value instanceof BigDecimal d) {
            return d;
        }
        if (value instanceof Double || value instanceof Float) {
            return BigDecimal.valueOf(((Number) value).doubleValue());
        }
        if (value instanceof Number || value instanceof String) {
            try {
                return new BigDecimal(value.toString().trim());
            } catch (NumberFormatException e) {
                throw invalid("numeric", value.toString(), number);
            }
        }
        throw mismatch("numeric", value, number);
    }

    private static boolean bool(Object value, int number) {
        if (value instanceof Boolean b) {
            return b;
        }
        if (value instanceof String s) {
            Boolean b = ValueConverter.booleanText(s);
            if (b == null) {
                throw invalid("boolean", s, number);
            }
            return b;
        }
        throw mismatch("boolean", value, number);
    }

    /** The value as a UTC wall-clock {@link Timestamp}, the form Calcite's TIMESTAMP takes with a UTC calendar. */
    private static Timestamp timestamp(Object value, int number) {
        LocalDateTime t;
        if (value instanceof LocalDateTime l) {
            t = l;
        } else if (value instanceof OffsetDateTime o) {
            t = o.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
        } else if (value instanceof Instant i) {
            t = LocalDateTime.ofInstant(i, ZoneOffset.UTC);
        } else if (value instanceof LocalDate d) {
            t = d.atStartOfDay();
        } else if (value instanceof Timestamp ts) {
            return ts;
        } else if (value instanceof String s) {
            try {
                t = TimestampText.parse(s);
            } catch (DateTimeParseException e) {
                throw new CoilgunException(SqlState.INVALID_DATETIME_FORMAT, "invalid input syntax for type "
                        + "timestamp: \"" + s + "\" (parameter $" + number + ")", 0);
            } catch (DateTimeException e) {
                throw new CoilgunException(SqlState.DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"" + s
                        + "\" (parameter $" + number + ")", 0);
            }
        } else {
            throw mismatch("timestamp", value, number);
        }
        Timestamp ts = new Timestamp(t.toEpochSecond(ZoneOffset.UTC) * 1000);
        ts.setNanos(t.getNano());
        return ts;
    }

    /** A UTC wall-clock timestamp as the query engine holds it: microseconds since the epoch. */
    private static long micros(Timestamp ts) {
        return Math.floorDiv(ts.getTime(), 1000L) * 1_000_000L + ts.getNanos() / 1000;
    }

    private static CoilgunException invalid(String type, String text, int number) {
        return new CoilgunException(SqlState.INVALID_TEXT_REPRESENTATION, "invalid input syntax for type " + type
                + ": \"" + text + "\" (parameter $" + number + ")", 0);
    }

    private static CoilgunException mismatch(String type, Object value, int number) {
        return new CoilgunException(SqlState.DATATYPE_MISMATCH, "parameter $" + number + " is of type " + type
                + " but a " + value.getClass().getSimpleName() + " was bound", 0);
    }
}
