package io.coilgun.pgwire.spi;

/**
 * The SQLSTATE codes the protocol layer raises itself, by Postgres' condition names (Appendix A of the Postgres
 * manual). pgwire depends on no other module, so the engine's codes ({@code io.coilgun.planner.error.SqlState})
 * are a second table; a test in {@code tests} (PostgresVocabularyTest) holds the two to the same code for the
 * same name.
 */
public final class SqlStates {
    public static final String SUCCESSFUL_COMPLETION = "00000";
    public static final String CONNECTION_FAILURE = "08006";
    public static final String PROTOCOL_VIOLATION = "08P01";
    public static final String FEATURE_NOT_SUPPORTED = "0A000";
    public static final String NUMERIC_VALUE_OUT_OF_RANGE = "22003";
    public static final String INVALID_DATETIME_FORMAT = "22007";
    public static final String DATETIME_FIELD_OVERFLOW = "22008";
    public static final String INVALID_TIME_ZONE_DISPLACEMENT_VALUE = "22009";
    public static final String INTERVAL_FIELD_OVERFLOW = "22015";
    public static final String CHARACTER_NOT_IN_REPERTOIRE = "22021";
    public static final String INVALID_PARAMETER_VALUE = "22023";
    public static final String INVALID_TEXT_REPRESENTATION = "22P02";
    public static final String INVALID_BINARY_REPRESENTATION = "22P03";
    public static final String BAD_COPY_FILE_FORMAT = "22P04";
    public static final String UNDEFINED_PREPARED_STATEMENT = "26000";
    public static final String IN_FAILED_SQL_TRANSACTION = "25P02";
    public static final String INVALID_AUTHORIZATION_SPECIFICATION = "28000";
    public static final String INVALID_PASSWORD = "28P01";
    public static final String INVALID_CURSOR_NAME = "34000";
    public static final String SYNTAX_ERROR = "42601";
    public static final String DUPLICATE_CURSOR = "42P03";
    public static final String DUPLICATE_PREPARED_STATEMENT = "42P05";
    public static final String TOO_MANY_CONNECTIONS = "53300";
    public static final String PROGRAM_LIMIT_EXCEEDED = "54000";
    public static final String QUERY_CANCELED = "57014";
    public static final String IDLE_SESSION_TIMEOUT = "57P05";
    public static final String INTERNAL_ERROR = "XX000";

    private SqlStates() {
    }
}
