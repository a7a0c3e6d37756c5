package io.coilgun.sql.query;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.SinkDef;
import io.coilgun.planner.model.StreamDef;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** {@code coilgun.sinks}: the catalog's sinks and the records each wrote from this node. */
class SinksTableTest {
    @Test
    void eachSinkWithWhatItReadsAndTheRecordsItWroteHere() {
        Catalog catalog = new Catalog();
        catalog.addSink(new SinkDef("card_out", "card_5m", "payments", false, "card_features",
                "CREATE SINK card_out FROM card_5m INTO KAFKA TOPIC 'card_features'", 12));
        QueryData data = new QueryData() {
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

            @Override
            public long sinkRecords(String sink) {
                return sink.equals("card_out") ? 7 : 0;
            }
        };
        QueryEngine.Rows rows = new QueryEngine(data).run("SELECT name, input, kind, topic, format, ddl, records "
                + "FROM coilgun.sinks", List.of(), List.of(), "coilgun", "coilgun");
        assertEquals(List.of("card_out", "card_5m", "metric", "card_features", "json",
                "CREATE SINK card_out FROM card_5m INTO KAFKA TOPIC 'card_features'", 7L),
                Arrays.asList(rows.rows().get(0)));
    }
}
