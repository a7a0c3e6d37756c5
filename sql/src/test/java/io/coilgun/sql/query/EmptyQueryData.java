package io.coilgun.sql.query;

import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import java.util.List;
import java.util.function.Consumer;

/** Query data of a catalog whose tasks hold nothing: no metric rows, no events, no tasks, nodes or statistics. */
class EmptyQueryData implements QueryData {
    private final Catalog catalog;

    EmptyQueryData() {
        this(new Catalog());
    }

    EmptyQueryData(Catalog catalog) {
        this.catalog = catalog;
    }

    @Override
    public Catalog catalog() {
        return catalog;
    }

    @Override
    public void metricRows(StreamDef stream, MetricDef metric, Object[] key, Consumer<MetricRow> visitor) {
    }

    @Override
    public List<Object[]> recentEvents(StreamDef stream, int limit) {
        return List.of();
    }

    @Override
    public List<Object[]> tasks() {
        return List.of();
    }

    @Override
    public List<Object[]> failedEvents() {
        return List.of();
    }

    @Override
    public List<Object[]> nodes() {
        return List.of();
    }

    @Override
    public List<Object[]> statistics() {
        return List.of();
    }
}
