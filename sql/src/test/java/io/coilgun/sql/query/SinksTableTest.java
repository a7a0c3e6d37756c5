package io.coilgun.sql.query;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.SinkDef;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code coilgun.sinks}: the catalog's sinks and the records each wrote from this node. */
class SinksTableTest {
    @Test
    void eachSinkWithWhatItReadsAndTheRecordsItWroteHere() {
        Catalog catalog = new Catalog();
        catalog.addSink(new SinkDef("card_out", "card_5m", "payments", false, "card_features",
                "CREATE SINK card_out FROM card_5m INTO KAFKA TOPIC 'card_features'", 12));
        QueryData data = new EmptyQueryData(catalog) {
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
