package io.coilgun.server.observe;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A Logback appender that keeps the last {@value #KEPT} warnings and errors of the process, for the status page's
 * "recent errors" (logback.xml attaches it to the root logger). Errors are rare: a lock per line is fine.
 */
public final class RecentErrors extends AppenderBase<ILoggingEvent> {
    static final int KEPT = 50;
    private static final ArrayDeque<Entry> ENTRIES = new ArrayDeque<>();

    /** One line: when, its level, the logger's short name and the message (with its exception's, if any). */
    public record Entry(Instant at, String level, String logger, String message) {
    }

    @Override
    protected void append(ILoggingEvent event) {
        if (!event.getLevel().isGreaterOrEqual(Level.WARN)) {
            return;
        }
        String logger = event.getLoggerName();
        String message = event.getFormattedMessage();
        if (event.getThrowableProxy() != null) {
            message += " (" + event.getThrowableProxy().getClassName() + ": " + event.getThrowableProxy().getMessage()
                    + ")";
        }
        Entry e = new Entry(Instant.ofEpochMilli(event.getTimeStamp()), event.getLevel().toString(),
                logger.substring(logger.lastIndexOf('.') + 1), message);
        synchronized (ENTRIES) {
            if (ENTRIES.size() == KEPT) {
                ENTRIES.removeFirst();
            }
            ENTRIES.addLast(e);
        }
    }

    /** The kept lines, newest first. */
    public static List<Entry> latest() {
        synchronized (ENTRIES) {
            List<Entry> list = new ArrayList<>(ENTRIES);
            Collections.reverse(list);
            return list;
        }
    }
}
