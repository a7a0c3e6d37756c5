package io.coilgun.server.session;

import io.coilgun.cluster.feed.FeedEvent;
import io.coilgun.cluster.feed.FeedSubscriber;
import io.coilgun.cluster.feed.ClusterFeed;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.RowStream;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.expr.CompiledExpression;
import io.coilgun.planner.expr.Expressions;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.sql.compile.SubscribeStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One running SUBSCRIBE: registered with the {@link ClusterFeed} (every node's active tasks) from its start until
 * pgwire closes it (the
 * statement ended, was canceled, or the connection went away). Turns each event a task applied into a row of the
 * subscription's shape and keeps the rows its WHERE passes. Holds at most {@link #CAPACITY} events for a reader
 * that is behind; past that the statement ends with 54000 rather than growing.
 */
final class Subscription implements RowStream {
    /** The most events waiting for one subscriber before it is ended as fallen behind. */
    static final int CAPACITY = 10_000;

    private final ClusterFeed feed;
    private final FeedSubscriber subscriber;
    private final SubscribeStatement statement;
    private final CompiledExpression filter;
    private final ColumnType[] types;
    private final Runnable released;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Runnable callback = () -> { };
    private volatile PgException failed;

    /** @param released told once when the subscription is closed */
    Subscription(ClusterFeed feed, SubscribeStatement statement, Runnable released) {
        this.feed = feed;
        this.statement = statement;
        this.released = released;
        this.types = statement.columnTypes().toArray(ColumnType[]::new);
        this.filter = statement.filter() == null ? null : Expressions.compile(statement.filter(),
                statement.columnNames());
        this.subscriber = new FeedSubscriber(Topics.partitioner(statement.stream().name(), statement.partitioner()),
                CAPACITY);
        subscriber.onAvailable(() -> callback.run());
        feed.add(subscriber);
    }

    static List<Column> columns(SubscribeStatement statement) {
        List<Column> columns = new ArrayList<>();
        for (int i = 0; i < statement.columnNames().size(); i++) {
            ColumnType type = statement.columnTypes().get(i);
            columns.add(new Column(statement.columnNames().get(i), i < statement.eventColumns().length
                    ? PgValues.columnType(type) : PgValues.resultType(type)));
        }
        return columns;
    }

    @Override
    public void onAvailable(Runnable callback) {
        this.callback = callback;
    }

    @Override
    public Object[] poll() {
        PgException f = failed;
        if (f != null) {
            throw f;
        }
        while (true) {
            FeedEvent event = subscriber.poll();
            if (event == null) {
                if (subscriber.overflowed()) {
                    throw new PgException(SqlState.PROGRAM_LIMIT_EXCEEDED.code(), "subscriber fell behind: more than "
                            + CAPACITY + " events waited to be read, so the subscription was ended (read faster, "
                            + "or narrow it with WHERE)");
                }
                return null;
            }
            Object[] row = row(event);
            if (filter == null || filter.test(row)) {
                return output(row);
            }
        }
    }

    /** The row as the WHERE sees it: event values as the task decoded them (timestamps in microseconds). */
    private Object[] row(FeedEvent event) {
        Object[] row = new Object[types.length];
        int at = 0;
        for (int c : statement.eventColumns()) {
            row[at++] = c < 0 ? (Object) event.assignedId() : c < event.values().length ? event.values()[c] : null;
        }
        for (MetricDef m : statement.metrics()) {
            int offset = 0;
            Object[] values = null;
            for (MetricDef computed : event.metrics()) {
                if (computed.name().equals(m.name())) {
                    values = event.results();
                    break;
                }
                offset += computed.aggregations().size();
            }
            for (int a = 0; a < m.aggregations().size(); a++, at++) {
                Object v = values == null || offset + a >= values.length ? null : values[offset + a];
                row[at] = types[at] == ColumnType.DOUBLE && v instanceof Long l ? (Object) l.doubleValue() : v;
            }
        }
        return row;
    }

    /** Every value in the Java class pgwire sends for its type (timestamps from micros). */
    private Object[] output(Object[] row) {
        for (int i = 0; i < row.length; i++) {
            row[i] = PgValues.toWire(types[i], row[i]);
        }
        return row;
    }

    @Override
    public boolean ended() {
        return false; // a subscription never ends by itself: a cancel, an error or the client ends it
    }

    /** Ends the statement with {@code error} (a cancel): the next {@link #poll} throws it. Any thread. */
    void fail(PgException error) {
        failed = error;
        callback.run();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            feed.remove(subscriber);
            released.run();
        }
    }
}
