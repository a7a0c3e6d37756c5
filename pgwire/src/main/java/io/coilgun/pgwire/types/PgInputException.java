package io.coilgun.pgwire.types;

/**
 * A parameter value that does not read as its type, with the SQLSTATE Postgres' input and receive functions
 * report for the same fault, e.g. {@code 22P02} for {@code invalid input syntax for type integer: "abc"}.
 */
public final class PgInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** Not the type's syntax: {@code invalid input syntax for type integer: "abc"}. */
    public static final String INVALID_TEXT_REPRESENTATION = "22P02";
    /** A number too large or too small for its type. */
    public static final String NUMERIC_VALUE_OUT_OF_RANGE = "22003";
    /** Not the syntax of a date, timestamp or interval. */
    public static final String INVALID_DATETIME_FORMAT = "22007";
    /** A date/time field or value out of range: month 13, or a date past the type's range. */
    public static final String DATETIME_FIELD_OVERFLOW = "22008";
    /** An interval field out of range, e.g. 61 minutes in {@code 01:61:00}. */
    public static final String INTERVAL_FIELD_OVERFLOW = "22015";
    /** A time zone offset beyond ±15:59:59. */
    public static final String INVALID_TIME_ZONE_DISPLACEMENT_VALUE = "22009";
    /** An unknown time zone name, or bad hex digits in bytea's hex format. */
    public static final String INVALID_PARAMETER_VALUE = "22023";
    /** Bytes that are not UTF-8, or a NUL byte. */
    public static final String CHARACTER_NOT_IN_REPERTOIRE = "22021";
    /** Binary format (format code 1) of the wrong length or with impossible fields. */
    public static final String INVALID_BINARY_REPRESENTATION = "22P03";
    /** A valid Postgres value Coilgun has no Java value for: numeric NaN and ±Infinity. */
    public static final String FEATURE_NOT_SUPPORTED = "0A000";

    private final String sqlState;

    public PgInputException(String sqlState, String message) {
        super(message);
        this.sqlState = sqlState;
    }

    public String sqlState() {
        return sqlState;
    }
}
