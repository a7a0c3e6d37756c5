package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.parser.SqlOption;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** The options of {@code COPY … FROM STDIN} and {@code COPY (…) TO STDOUT}, old and new syntax, checked. */
final class CopyOptions {
    private CopyOptions() {
    }

    /**
     * @param to whether this is COPY TO (where {@code HEADER match} is refused, as in Postgres)
     * @return the options by lower-case name: {@code format} (text, csv or binary, which COPY TO refuses), {@code header}, {@code delimiter},
     *     {@code null}, {@code quote}, {@code escape}
     */
    static Map<String, String> read(SqlText sql, Iterable<SqlOption> given, boolean to) {
        Map<String, String> options = new HashMap<>();
        for (SqlOption option : given) {
            String key = option.keyName().toLowerCase(Locale.ROOT);
            String value = option.valueAsString();
            switch (key) {
                case "csv" -> options.put("format", "csv");
                case "binary" -> {
                    if (to) {
                        throw sql.error(SqlState.FEATURE_NOT_SUPPORTED,
                                "COPY TO in binary format is not supported (use text or csv)", option);
                    }
                    options.put("format", "binary");
                }
                case "format" -> {
                    String format = value.toLowerCase(Locale.ROOT);
                    if (format.equals("binary") && to) {
                        throw sql.error(SqlState.FEATURE_NOT_SUPPORTED,
                                "COPY TO in binary format is not supported (use text or csv)", option);
                    }
                    if (!format.equals("text") && !format.equals("csv") && !format.equals("binary")) {
                        throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "COPY format \"" + value
                                + "\" not recognized", option);
                    }
                    if (options.put(key, format) != null) {
                        throw sql.error(SqlState.SYNTAX_ERROR, "conflicting or redundant options", option);
                    }
                }
                case "header", "delimiter", "null", "quote", "escape" -> {
                    if (to && key.equals("header") && value.equalsIgnoreCase("match")) {
                        throw sql.error(SqlState.FEATURE_NOT_SUPPORTED,
                                "cannot use \"match\" with HEADER in COPY TO", option);
                    }
                    if (options.put(key, value) != null) {
                        throw sql.error(SqlState.SYNTAX_ERROR, "conflicting or redundant options", option);
                    }
                }
                default -> throw sql.error(SqlState.SYNTAX_ERROR, "option \"" + key + "\" not recognized",
                        option);
            }
        }
        return options;
    }
}
