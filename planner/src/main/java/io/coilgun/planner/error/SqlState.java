package io.coilgun.planner.error;

/**
 * The SQLSTATE codes Coilgun reports. One place, so every user-caused error carries the code a
 * Postgres user would expect (https://www.postgresql.org/docs/current/errcodes-appendix.html).
 */
public enum SqlState {
    SUCCESSFUL_COMPLETION("00000"),
    FEATURE_NOT_SUPPORTED("0A000"),
    DATA_EXCEPTION("22000"),
    DATETIME_FIELD_OVERFLOW("22008"),
    INVALID_PARAMETER_VALUE("22023"),
    NULL_VALUE_NOT_ALLOWED("22004"),
    NUMERIC_VALUE_OUT_OF_RANGE("22003"),
    INVALID_TEXT_REPRESENTATION("22P02"),
    INVALID_DATETIME_FORMAT("22007"),
    NOT_NULL_VIOLATION("23502"),
    UNIQUE_VIOLATION("23505"),
    SYNTAX_ERROR("42601"),
    INVALID_NAME("42602"),
    UNDEFINED_TABLE("42P01"),
    UNDEFINED_COLUMN("42703"),
    UNDEFINED_FUNCTION("42883"),
    UNDEFINED_OBJECT("42704"),
    DUPLICATE_TABLE("42P07"),
    DUPLICATE_OBJECT("42710"),
    DUPLICATE_COLUMN("42701"),
    DATATYPE_MISMATCH("42804"),
    GROUPING_ERROR("42803"),
    INVALID_COLUMN_REFERENCE("42P10"),
    INSUFFICIENT_COLUMNS("42601"),
    TOO_MANY_COLUMNS("42601"),
    INVALID_OBJECT_DEFINITION("42P17"),
    QUERY_CANCELED("57014"),
    ADMIN_SHUTDOWN("57P01"),
    CONNECTION_FAILURE("08006"),
    PROTOCOL_VIOLATION("08P01"),
    INTERNAL_ERROR("XX000"),
    IO_ERROR("58030");

    private final String code;

    SqlState(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}
