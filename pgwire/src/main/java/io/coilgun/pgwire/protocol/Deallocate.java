package io.coilgun.pgwire.protocol;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code DEALLOCATE [PREPARE] { name | ALL }}: drops prepared statements of the connection. In Postgres the
 * protocol's named statements (Parse) share one namespace with SQL's PREPARE, and drivers that prepare on their own
 * (psycopg 3, SQLAlchemy's psycopg dialect) drop theirs with this statement, so the protocol layer answers it.
 */
final class Deallocate {
    private static final Pattern STATEMENT = Pattern.compile(
            "\\s*DEALLOCATE\\s+(?:PREPARE\\s+)?(\"(?:[^\"]|\"\")+\"|[\\p{L}_][\\p{L}\\p{N}_$]*)\\s*;?\\s*",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    /** What {@code DEALLOCATE ALL} drops. */
    static final String ALL = "";

    private Deallocate() {
    }

    /** The statement name a DEALLOCATE names ({@link #ALL} for every one), or null when {@code sql} is not one. */
    static String target(String sql) {
        Matcher m = STATEMENT.matcher(sql);
        if (!m.matches()) {
            return null;
        }
        String name = m.group(1);
        if (name.startsWith("\"")) {
            return name.substring(1, name.length() - 1).replace("\"\"", "\"");
        }
        return name.equalsIgnoreCase("ALL") ? ALL : name.toLowerCase(Locale.ROOT);
    }

    /** The command tag of a DEALLOCATE of {@code target}. */
    static String tag(String target) {
        return target.equals(ALL) ? "DEALLOCATE ALL" : "DEALLOCATE";
    }
}
