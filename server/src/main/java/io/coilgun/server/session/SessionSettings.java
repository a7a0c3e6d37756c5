package io.coilgun.server.session;

import io.coilgun.pgwire.spi.PgException;
import io.coilgun.planner.error.SqlState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The run-time parameters of one session as {@code SET} and {@code SHOW} see them. The defaults describe how
 * pgwire encodes values (and match its ParameterStatus messages); {@code SET} stores any name so drivers'
 * settings are accepted, but none of them changes Coilgun's behaviour yet.
 */
final class SessionSettings {
    private static final Map<String, String[]> DEFAULTS = new LinkedHashMap<>();

    static {
        define("application_name", "", "Sets the application name to be reported in statistics and logs.");
        define("client_encoding", "UTF8", "Sets the client's character set encoding.");
        define("DateStyle", "ISO, MDY", "Sets the display format for date and time values.");
        define("default_table_access_method", "heap", "Sets the default table access method for new tables.");
        define("default_transaction_isolation", "read committed", "Sets the transaction isolation level of each new transaction.");
        define("default_transaction_read_only", "off", "Sets the default read-only status of new transactions.");
        define("extra_float_digits", "1", "Sets the number of digits displayed for floating-point values.");
        define("integer_datetimes", "on", "Shows whether datetimes are integer based.");
        define("IntervalStyle", "postgres", "Sets the display format for interval values.");
        define("is_superuser", "on", "Shows whether the current user is a superuser.");
        define("lc_collate", "C", "Shows the collation order locale.");
        define("lc_ctype", "C", "Shows the character classification and case conversion locale.");
        define("max_identifier_length", "63", "Shows the maximum identifier length.");
        define("search_path", "\"$user\", public", "Sets the schema search order for names that are not schema-qualified.");
        define("server_encoding", "UTF8", "Shows the server (database) character set encoding.");
        define("server_version", "15.0", "Shows the server version.");
        define("server_version_num", "150000", "Shows the server version as an integer.");
        define("standard_conforming_strings", "on", "Causes '...' strings to treat backslashes literally.");
        define("statement_timeout", "0", "Sets the maximum allowed duration of any statement.");
        define("TimeZone", "UTC", "Sets the time zone for displaying and interpreting time stamps.");
        define("transaction_isolation", "read committed", "Sets the current transaction's isolation level.");
        define("transaction_read_only", "off", "Sets the current transaction's read-only status.");
    }

    private final Map<String, String> values = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    /** statement_timeout in milliseconds, 0 for none. */
    private long statementTimeoutMs;

    private static void define(String name, String value, String description) {
        DEFAULTS.put(name.toLowerCase(Locale.ROOT), new String[] {name, value, description});
    }

    SessionSettings(String user, String applicationName) {
        for (String[] d : DEFAULTS.values()) {
            values.put(d[0], d[1]);
        }
        values.put("session_authorization", user);
        if (applicationName != null) {
            values.put("application_name", applicationName);
        }
    }

    /**
     * {@code SET name = value}; {@code RESET name} when value is null.
     *
     * @throws PgException 22023 for a value a setting Coilgun honours cannot take (nothing changes)
     */
    void set(String name, String value) {
        if (name.equalsIgnoreCase(StatementTimeout.NAME)) {
            long ms = value == null ? 0 : StatementTimeout.parseMillis(value);
            statementTimeoutMs = ms;
            values.put(StatementTimeout.NAME, StatementTimeout.format(ms));
            return;
        }
        String[] d = DEFAULTS.get(name.toLowerCase(Locale.ROOT));
        if (value == null) {
            if (d != null) {
                values.put(d[0], d[1]);
            } else {
                values.remove(name);
            }
        } else {
            values.put(d != null ? d[0] : name.toLowerCase(Locale.ROOT), value);
        }
    }

    /** The statement_timeout in milliseconds, 0 for none. */
    long statementTimeoutMs() {
        return statementTimeoutMs;
    }

    /**
     * The settings a client gives at connection start in the {@code options} startup parameter, as libpq's
     * {@code PGOPTIONS} and pgjdbc's {@code options} send them: {@code -c name=value} (or {@code --name=value}),
     * separated by spaces, a backslash escaping the next character.
     *
     * @throws PgException 22023 for a value a setting cannot take
     */
    void applyOptions(String options) {
        if (options == null || options.isBlank()) {
            return;
        }
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < options.length(); i++) {
            char c = options.charAt(i);
            if (c == '\\' && i + 1 < options.length()) {
                word.append(options.charAt(++i));
            } else if (Character.isWhitespace(c)) {
                if (word.length() > 0) {
                    words.add(word.toString());
                    word.setLength(0);
                }
            } else {
                word.append(c);
            }
        }
        if (word.length() > 0) {
            words.add(word.toString());
        }
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            String setting = w.equals("-c") && i + 1 < words.size() ? words.get(++i)
                    : w.startsWith("-c") ? w.substring(2) : w.startsWith("--") ? w.substring(2) : null;
            int eq = setting == null ? -1 : setting.indexOf('=');
            if (eq > 0) {
                set(setting.substring(0, eq).replace('-', '_'), setting.substring(eq + 1));
            }
        }
    }

    /** @throws PgException 42704 for a name never set and not built in, as Postgres says */
    String get(String name) {
        String value = values.get(name);
        if (value == null) {
            throw new PgException(SqlState.UNDEFINED_OBJECT.code(),
                    "unrecognized configuration parameter \"" + name + "\"");
        }
        return value;
    }

    /** The setting's value, or null for a name never set and not built in ({@code current_setting}). */
    String valueOrNull(String name) {
        return values.get(name.toLowerCase(Locale.ROOT));
    }

    /** The name as Postgres spells it in SHOW's column header. */
    String displayName(String name) {
        String[] d = DEFAULTS.get(name.toLowerCase(Locale.ROOT));
        return d != null ? d[0].toLowerCase(Locale.ROOT) : name;
    }

    /** SHOW ALL: name, setting, description. */
    List<Object[]> all() {
        List<Object[]> rows = new ArrayList<>();
        values.forEach((name, value) -> {
            String[] d = DEFAULTS.get(name.toLowerCase(Locale.ROOT));
            rows.add(new Object[] {name, value, d == null ? "" : d[2]});
        });
        return rows;
    }
}
