package io.coilgun.server.session;

import io.coilgun.pgwire.spi.PgException;
import io.coilgun.planner.error.SqlState;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Postgres' {@code statement_timeout}: its values ({@code 2000}, {@code '2s'}, {@code '1min'}, … in milliseconds
 * when no unit is given, 0 for none), how SHOW prints them, and the timer that ends a statement running longer with
 * 57014 {@code canceling statement due to statement timeout}.
 */
final class StatementTimeout {
    static final String NAME = "statement_timeout";

    private static final Pattern VALUE = Pattern.compile("\\s*(-?\\d+(?:\\.\\d+)?)\\s*(us|ms|s|min|h|d)?\\s*");
    private static final long[] UNIT_MS = {86_400_000L, 3_600_000L, 60_000L, 1000L, 1L};
    private static final String[] UNITS = {"d", "h", "min", "s", "ms"};
    /** One daemon thread for every session's timers: a timer only completes a future. */
    private static final ScheduledThreadPoolExecutor TIMERS = timers();

    private StatementTimeout() {
    }

    private static ScheduledThreadPoolExecutor timers() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = Executors.defaultThreadFactory().newThread(r);
            thread.setName("coilgun-statement-timeout");
            thread.setDaemon(true);
            return thread;
        });
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    /**
     * The milliseconds a value stands for.
     *
     * @throws PgException 22023 with Postgres' message for a value that is not one
     */
    static long parseMillis(String value) {
        Matcher m = VALUE.matcher(value.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw invalid(value, "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".");
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        double ms = switch (unit) {
            case "us" -> amount / 1000;
            case "s" -> amount * 1000;
            case "min" -> amount * 60_000;
            case "h" -> amount * 3_600_000;
            case "d" -> amount * 86_400_000;
            default -> amount;
        };
        long rounded = Math.round(ms);
        if (rounded < 0 || rounded > Integer.MAX_VALUE) {
            throw new PgException(SqlState.INVALID_PARAMETER_VALUE.code(), rounded + " ms is outside the valid range "
                    + "for parameter \"" + NAME + "\" (0 .. " + Integer.MAX_VALUE + ")");
        }
        return rounded;
    }

    private static PgException invalid(String value, String hint) {
        return new PgException(SqlState.INVALID_PARAMETER_VALUE.code(), "invalid value for parameter \"" + NAME
                + "\": \"" + value + "\"") {
            private static final long serialVersionUID = 1L;

            @Override
            public String hint() {
                return hint;
            }
        };
    }

    /** As SHOW prints it: in the largest unit that divides it ({@code 2s}, {@code 1min}, {@code 1500ms}), or 0. */
    static String format(long ms) {
        if (ms == 0) {
            return "0";
        }
        for (int i = 0; i < UNIT_MS.length; i++) {
            if (ms % UNIT_MS[i] == 0) {
                return ms / UNIT_MS[i] + UNITS[i];
            }
        }
        return ms + "ms";
    }

    /**
     * Fails {@code statement} with 57014 after {@code ms} unless it ended before; runs {@code onTimeout} too (to
     * stop the work behind it). No timer when {@code ms} is 0.
     */
    static void arm(CompletableFuture<?> statement, long ms, Runnable onTimeout) {
        if (ms <= 0 || statement.isDone()) {
            return;
        }
        ScheduledFuture<?> timer = TIMERS.schedule(() -> {
            if (statement.completeExceptionally(expired())) {
                onTimeout.run();
            }
        }, ms, TimeUnit.MILLISECONDS);
        statement.whenComplete((r, e) -> timer.cancel(false));
    }

    /**
     * Runs {@code onTimeout} after {@code ms} (nothing when 0), for a statement whose result is a stream that never
     * ends by itself (SUBSCRIBE); returns what stops the timer (call it when the stream ends first).
     */
    static Runnable after(long ms, Runnable onTimeout) {
        if (ms <= 0) {
            return () -> { };
        }
        ScheduledFuture<?> timer = TIMERS.schedule(onTimeout, ms, TimeUnit.MILLISECONDS);
        return () -> timer.cancel(false);
    }

    static PgException expired() {
        return new PgException(SqlState.QUERY_CANCELED.code(), "canceling statement due to statement timeout");
    }
}
